package dev.graphrag.core.text;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.TextTokenizer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * The {@code structural} chunker (RAGA paper §3.3.6): sections end before every heading of level 1 or 2 (Markdown
 * {@code #}/{@code ##}, or numbered titles such as {@code 2.1 Methods}) that follows body text (headings in a row open
 * one section with the body after them), around fenced code blocks and where a table
 * starts or ends. A section longer than {@code chunkSize} characters is cut at the last paragraph end that fits,
 * else the last sentence end, else the last space; such a continuation starts {@code overlap} characters before the
 * previous chunk's end, moved to the next word. Chunks carry their kind: heading, body, list, code or table.
 * Offsets are exact: {@code text.substring(start, end)} is the chunk, without its surrounding blank space.
 */
public final class StructuralChunker implements Chunker {
    private static final Pattern MARKDOWN_HEADING = Pattern.compile("^(#{1,6})\\s+\\S.*");
    private static final Pattern NUMBERED_HEADING = Pattern.compile("^(\\d+(?:\\.\\d+)*)\\s+\\S.{0,80}$");
    private static final Pattern LIST_ITEM = Pattern.compile("^\\s*(?:[-*+]|\\d+[.)])\\s+\\S.*");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~).*");

    private final TextTokenizer tokenizer;
    private final int chunkSize;
    private final int overlap;

    public StructuralChunker(TextTokenizer tokenizer, int chunkSize, int overlap) {
        if (chunkSize < 100) throw new RagException("chunkSize must be at least 100 characters for the structural chunker, got " + chunkSize);
        if (overlap < 0 || overlap >= chunkSize / 2) {
            throw new RagException("chunkOverlap must be >= 0 and below half of chunkSize (" + chunkSize + ") characters, got " + overlap);
        }
        this.tokenizer = tokenizer;
        this.chunkSize = chunkSize;
        this.overlap = overlap;
    }

    /** A line: [start, end) without its line break, and what it is. */
    private record Line(int start, int end, String kind, int headingLevel) {}

    @Override
    public List<Chunk> chunk(String text, BooleanSupplier cancelled) {
        List<Line> lines = lines(text);
        List<int[]> sections = new ArrayList<>(); // [start, end) spans
        List<String> kinds = new ArrayList<>();
        int sectionStart = 0;
        boolean sectionHasBody = false;
        String previous = null;
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            boolean boundary = l.headingLevel() >= 1 && l.headingLevel() <= 2
                    || "code".equals(l.kind()) != "code".equals(previous) && previous != null
                    || "table".equals(l.kind()) != "table".equals(previous) && previous != null && !"blank".equals(l.kind());
            // a heading opens the section of the body it heads: a section of headings alone ("# FAQ" right before "## Sizes")
            // is not closed, so no chunk is a bare heading that would rank for its words and say nothing
            if (boundary && l.start() > sectionStart && sectionHasBody) {
                sections.add(new int[] {sectionStart, l.start()});
                sectionStart = l.start();
                sectionHasBody = false;
            }
            if (!"blank".equals(l.kind()) && l.headingLevel() == 0) sectionHasBody = true;
            if (!"blank".equals(l.kind())) previous = l.kind();
        }
        sections.add(new int[] {sectionStart, text.length()});
        List<Chunk> out = new ArrayList<>();
        for (int[] s : sections) {
            Chunker.checkCancelled(cancelled);
            int from = s[0];
            while (from < s[1]) {
                int end = s[1] - from <= chunkSize ? s[1] : cut(text, from, from + chunkSize);
                add(out, text, from, end, lines);
                if (end >= s[1]) break;
                int next = Math.max(from + 1, end - overlap);
                while (next < end && !Character.isWhitespace(text.charAt(next))) next++; // start on a word
                from = next;
            }
        }
        return out;
    }

    /** Where to end a piece starting at from and at most at limit: a paragraph end, else a sentence end, else a space. */
    private static int cut(String text, int from, int limit) {
        int floor = from + (limit - from) / 3; // a cut too early would make tiny chunks
        int p = text.lastIndexOf("\n\n", limit - 1);
        if (p > floor) return p;
        for (int i = limit - 1; i > floor; i--) {
            char c = text.charAt(i - 1);
            if ((c == '.' || c == '?' || c == '!') && Character.isWhitespace(text.charAt(i))) return i;
        }
        for (int i = limit - 1; i > floor; i--) if (Character.isWhitespace(text.charAt(i))) return i;
        return limit;
    }

    private void add(List<Chunk> out, String text, int from, int to, List<Line> lines) {
        int start = from, end = to;
        while (start < end && Character.isWhitespace(text.charAt(start))) start++;
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) end--;
        if (start >= end) return;
        String chunkText = text.substring(start, end);
        List<TextTokenizer.Token> tokens = tokenizer.tokenize(chunkText);
        int[] ids = tokens.stream().mapToInt(TextTokenizer.Token::id).toArray();
        out.add(new Chunk(out.size(), start, end, chunkText, ids.length, ids, kindOf(start, end, lines)));
    }

    /** code or table when the chunk is one (after the headings that open it); heading when it holds only headings; list when most lines are items; else body. */
    private static String kindOf(int start, int end, List<Line> lines) {
        int items = 0, nonBlank = 0, headings = 0;
        String first = null;
        for (Line l : lines) {
            if (l.end() <= start || l.start() >= end || "blank".equals(l.kind())) continue;
            // the headings that open a chunk say what it is about, not what it is: a table under its heading is a table
            if (first == null && l.headingLevel() == 0) first = l.kind();
            nonBlank++;
            if ("list".equals(l.kind())) items++;
            if (l.headingLevel() > 0) headings++;
        }
        if ("code".equals(first) || "table".equals(first)) return first;
        if (nonBlank > 0 && headings == nonBlank) return "heading";
        if (nonBlank > 0 && items * 2 > nonBlank) return "list";
        return "body";
    }

    private static List<Line> lines(String text) {
        List<Line> out = new ArrayList<>();
        boolean inCode = false;
        int pos = 0;
        while (pos <= text.length()) {
            int nl = text.indexOf('\n', pos);
            int end = nl < 0 ? text.length() : nl;
            String line = text.substring(pos, end);
            String kind;
            int level = 0;
            if (FENCE.matcher(line).matches()) {
                kind = "code";
                inCode = !inCode;
                if (!inCode) { // the closing fence belongs to its block
                    out.add(new Line(pos, end, kind, 0));
                    pos = end + 1;
                    if (nl < 0) break;
                    continue;
                }
            } else if (inCode) {
                kind = "code";
            } else if (line.isBlank()) {
                kind = "blank";
            } else if (line.startsWith("|")) {
                kind = "table";
            } else if (MARKDOWN_HEADING.matcher(line).matches()) {
                kind = "heading";
                level = line.indexOf(' '); // the run of '#' before the first space
            } else if (NUMBERED_HEADING.matcher(line).matches() && !line.trim().endsWith(".")) {
                kind = "heading";
                level = line.trim().split("\\s+")[0].split("\\.").length;
            } else if (LIST_ITEM.matcher(line).matches()) {
                kind = "list";
            } else {
                kind = "body";
            }
            out.add(new Line(pos, end, kind, level));
            if (nl < 0) break;
            pos = end + 1;
        }
        return out;
    }
}
