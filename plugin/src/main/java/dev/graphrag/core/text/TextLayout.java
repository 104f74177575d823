package dev.graphrag.core.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a document's pages start and where its headings are, as character offsets into its text, so each chunk can
 * say which pages it spans and which section it belongs to ({@code manual.pdf, p. 12, 3 Setup > 3.2 Installation}).
 * Headings are the Markdown ATX headings of the text ({@code #} to {@code ######} at a line start, outside fenced
 * code): the form rag.ingest.files writes every format's headings in, and the form Markdown documents have.
 */
public record TextLayout(int[] pageStarts, List<Heading> headings) {
    /** A heading line at {@code start}, of level 1-6, with its text. */
    public record Heading(int start, int level, String text) {}

    private static final Pattern ATX = Pattern.compile("(?m)^(#{1,6})[ \\t]+(\\S.*?)[ \\t#]*$");
    private static final Pattern FENCE = Pattern.compile("(?m)^\\s*(```|~~~)");
    /** Longest section path kept: deeper paths keep their last levels. */
    private static final int MAX_SECTION_CHARS = 400;

    public TextLayout {
        pageStarts = pageStarts == null ? null : pageStarts.clone();
        headings = List.copyOf(headings);
    }

    /** The layout of a text without pages: its Markdown headings only. */
    public static TextLayout of(String text) {
        return new TextLayout(null, headings(text));
    }

    /** The Markdown headings of a text, skipping fenced code blocks. */
    public static List<Heading> headings(String text) {
        List<int[]> fences = new ArrayList<>();
        Matcher f = FENCE.matcher(text);
        int open = -1;
        while (f.find()) {
            if (open < 0) {
                open = f.start();
            } else {
                fences.add(new int[] {open, f.end()});
                open = -1;
            }
        }
        if (open >= 0) fences.add(new int[] {open, text.length()});
        List<Heading> out = new ArrayList<>();
        Matcher m = ATX.matcher(text);
        while (m.find()) {
            int at = m.start();
            if (fences.stream().anyMatch(s -> at >= s[0] && at < s[1])) continue;
            out.add(new Heading(at, m.group(1).length(), m.group(2).strip()));
        }
        return out;
    }

    /** The number of pages, 0 when the format has none. */
    public int pageCount() {
        return pageStarts == null ? 0 : pageStarts.length;
    }

    /** The 1-based pages that [start, end) touches, or null when the document has no pages. */
    public long[] pages(int start, int end) {
        if (pageStarts == null || pageStarts.length == 0) return null;
        int first = pageOf(start);
        int last = Math.max(first, pageOf(Math.max(start, end - 1)));
        long[] out = new long[last - first + 1];
        for (int i = 0; i < out.length; i++) out[i] = first + i + 1;
        return out;
    }

    /** The last page (0-based) starting at or before offset: an empty page shares its start with the next, which holds the text. */
    private int pageOf(int offset) {
        int lo = 0, hi = pageStarts.length; // first index whose start is after offset
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (pageStarts[mid] <= offset) lo = mid + 1;
            else hi = mid;
        }
        return Math.max(0, lo - 1);
    }

    /**
     * The section path of a chunk starting at {@code start}: the headings in force at its start, outermost first, joined by
     * " > "; a heading that opens the chunk counts. Null when no heading precedes it.
     */
    public String section(int start) {
        List<Heading> path = new ArrayList<>();
        for (Heading h : headings) {
            // chunk offsets exclude leading blank space, so a heading that opens the chunk starts exactly at start
            if (h.start() > start) break;
            while (!path.isEmpty() && path.get(path.size() - 1).level() >= h.level()) path.remove(path.size() - 1);
            path.add(h);
        }
        if (path.isEmpty()) return null;
        StringBuilder b = new StringBuilder();
        for (Heading h : path) {
            if (b.length() > 0) b.append(" > ");
            b.append(h.text());
        }
        return b.length() <= MAX_SECTION_CHARS ? b.toString() : "..." + b.substring(b.length() - MAX_SECTION_CHARS + 3);
    }
}
