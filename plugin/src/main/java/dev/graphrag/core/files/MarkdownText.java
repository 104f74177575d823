package dev.graphrag.core.files;

import dev.graphrag.core.text.TextLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The text every format is turned into: Markdown blocks separated by blank lines, so the structural chunker finds
 * the sections (ATX headings), tables (pipe rows) and lists the file had, and {@link TextLayout} can say which page
 * and section each chunk came from. Page starts are recorded as offsets where a page's first block begins.
 */
final class MarkdownText {
    private static final Pattern SPACES = Pattern.compile("[ \\t\\x0B\\f\\r\\u00A0]+");
    /** A line of body text that begins like Markdown structure (a heading, a table row, a fence): escaped, line by line. */
    private static final Pattern MARKDOWN_START = Pattern.compile("(?m)^(?=#{1,6}(\\s|$)|\\||```|~~~)");

    private final StringBuilder text = new StringBuilder();
    private final List<Integer> pageStarts = new ArrayList<>();
    private final ParseLimits limits;
    private int pendingPages;
    private String firstHeading;

    MarkdownText(ParseLimits limits) {
        this.limits = limits;
    }

    /** A new page starts with the next block. */
    void pageBreak() {
        pendingPages++;
    }

    void heading(int level, String raw) {
        String t = oneLine(raw);
        if (t.isEmpty()) return;
        if (firstHeading == null) firstHeading = t;
        block("#".repeat(Math.max(1, Math.min(6, level))) + " " + t);
    }

    void paragraph(String raw) {
        String t = normalise(raw);
        if (t.isEmpty()) return;
        // body text whose lines happen to begin like Markdown structure (a C preprocessor line "#define", a shell comment)
        // must not become a heading, a table or a fence: every such line is escaped, not only the paragraph's first
        block(MARKDOWN_START.matcher(t).replaceAll("\\\\"));
    }

    void listItem(String raw) {
        String t = oneLine(raw);
        if (!t.isEmpty()) block("- " + t);
    }

    /** Rows of cells as a pipe table, the first row as its header. */
    void table(List<List<String>> rows) {
        int width = rows.stream().mapToInt(List::size).max().orElse(0);
        if (width == 0) return;
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            b.append('|');
            for (int c = 0; c < width; c++) {
                String cell = c < row.size() ? oneLine(row.get(c)).replace("|", "\\|") : "";
                b.append(' ').append(cell).append(" |");
            }
            if (r == 0) {
                b.append("\n|");
                for (int c = 0; c < width; c++) b.append(" --- |");
            }
            if (r < rows.size() - 1) b.append('\n');
        }
        if (rows.stream().allMatch(row -> row.stream().allMatch(c -> oneLine(c).isEmpty()))) return;
        block(b.toString());
    }

    private void block(String s) {
        if (text.length() > 0) text.append("\n\n");
        // an empty page starts where the next page with text does
        for (; pendingPages > 0; pendingPages--) pageStarts.add(text.length());
        text.append(s);
        limits.check(text.length());
    }

    String firstHeading() {
        return firstHeading;
    }

    String text() {
        return text.toString();
    }

    int length() {
        return text.length();
    }

    /** Page start offsets, one per page break seen (trailing empty pages start at the end), or null when there were none. */
    int[] pageStarts() {
        int pages = pageStarts.size() + pendingPages;
        if (pages == 0) return null;
        int[] out = new int[pages];
        for (int i = 0; i < pages; i++) out[i] = i < pageStarts.size() ? pageStarts.get(i) : text.length();
        return out;
    }

    static String oneLine(String raw) {
        return raw == null ? "" : SPACES.matcher(raw.replace('\n', ' ')).replaceAll(" ").strip();
    }

    /** Runs of spaces collapsed, line breaks kept (single ones), blank lines inside a block removed. */
    static String normalise(String raw) {
        if (raw == null) return "";
        StringBuilder b = new StringBuilder(raw.length());
        for (String line : raw.split("\n")) {
            String l = SPACES.matcher(line).replaceAll(" ").strip();
            if (l.isEmpty()) continue;
            if (b.length() > 0) b.append('\n');
            b.append(l);
        }
        return b.toString();
    }
}
