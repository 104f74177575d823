package dev.graphrag.core.files;

import org.apache.pdfbox.Loader;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.io.RandomAccessReadBufferedFile;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * PDF through PDFBox directly, for what Tika's PDF handler does not expose: each line's font size, weight and pitch.
 * A PDF has no heading markup (unless tagged), so headings come from layout evidence only, never from the text's own
 * characters (a body line that begins with '#' stays body text): a line set notably larger than the body text (the
 * most used size, by characters) that reads as a title (short, mostly letters, not set in a fixed-pitch font, not a
 * row of hex or numbers), one level per distinct larger size; or a line in bold at the body size that stands alone as
 * a paragraph and is numbered like a section ("2.1 Plinth"), below the sized levels or at its numbering depth if deeper.
 * Code, hex dumps and table rows stay body text. Lines repeated at the top or bottom of most pages (running headers and
 * footers, page numbers) are dropped. Pages are recorded. The file is read through a buffered file reader with a
 * temp-file stream cache, never whole into the heap.
 */
final class PdfExtractor {
    /** A heading is set at least this much larger than the body text. */
    static final double HEADING_SIZE_RATIO = 1.15;
    private static final int MAX_HEADING_CHARS = 150;
    private static final Pattern PAGE_NUMBER = Pattern.compile("(?i)^\\s*(page\\s*)?[-–]?\\s*\\d{1,5}\\s*[-–]?\\s*((of|/)\\s*\\d{1,5})?\\s*$");
    private static final Pattern DIGITS = Pattern.compile("\\d+");
    /** A section number opening a line: "2", "2.1", "2.1.3." followed by a word. */
    private static final Pattern SECTION_NUMBER = Pattern.compile("^(\\d{1,2}(?:\\.\\d{1,2}){0,4})\\.?\\s+\\p{L}");
    /** A row of hex bytes or words, an address dump: never a title, whatever its size. */
    private static final Pattern HEX_ROW = Pattern.compile("^(?:(?:0x)?[0-9A-Fa-f]{2,8}[:,]?\\s+){3,}");
    private static final int MAX_HEADING_WORDS = 20;

    private PdfExtractor() {}

    /** One line of a page: its text, its mean font size (points), its bold and fixed-pitch shares, and whether a paragraph ends after it. */
    private static final class Line {
        final StringBuilder text = new StringBuilder();
        double sizeSum;
        int sized, bold, fixedPitch;
        boolean paragraphEnd;

        boolean mostlyBold() {
            return sized > 0 && bold >= 0.9 * sized;
        }

        boolean code() {
            return sized > 0 && fixedPitch >= 0.5 * sized;
        }

        double size() {
            return sized == 0 ? 0 : sizeSum / sized;
        }
    }

    static ParsedFile extract(Path file, ParseLimits limits) {
        try (PDDocument doc = Loader.loadPDF(new RandomAccessReadBufferedFile(file.toFile()), "", IOUtils.createTempFileOnlyStreamCache())) {
            Collector c = new Collector(limits);
            c.collect(doc);
            List<List<Line>> pages = c.pages;
            MarkdownText md = new MarkdownText(limits);
            write(pages, md);
            String text = md.text();
            Map<String, Object> meta = info(doc.getDocumentInformation());
            if (text.isBlank()) {
                throw new FileProblem(FileProblem.NO_TEXT, "the PDF has " + doc.getNumberOfPages() + " page(s) but no text layer"
                        + " (a scanned document?); OCR is not supported: run OCR first (ocrmypdf, say) and ingest its output");
            }
            String title = (String) meta.remove("title");
            return new ParsedFile(text, title != null ? title : md.firstHeading(), "application/pdf",
                    new dev.graphrag.core.text.TextLayout(md.pageStarts(), dev.graphrag.core.text.TextLayout.headings(text)), meta);
        } catch (InvalidPasswordException e) {
            throw new FileProblem("the PDF is password-protected (encrypted); save an unprotected copy and ingest that");
        } catch (IOException e) {
            throw new FileProblem("not a readable PDF (" + FileParsers.cut(e.getMessage()) + "); the file may be damaged or not a PDF");
        }
    }

    private static Map<String, Object> info(PDDocumentInformation info) {
        Map<String, Object> meta = new HashMap<>();
        if (info == null) return meta;
        if (info.getTitle() != null && !info.getTitle().isBlank()) meta.put("title", info.getTitle().strip());
        if (info.getAuthor() != null && !info.getAuthor().isBlank()) meta.put("author", info.getAuthor().strip());
        putDate(meta, "created", info.getCreationDate());
        putDate(meta, "modified", info.getModificationDate());
        return meta;
    }

    private static void putDate(Map<String, Object> meta, String key, Calendar c) {
        if (c != null) meta.put(key, c.toInstant().toString());
    }

    /** Headings from layout, running headers and footers dropped, paragraphs as blocks. */
    private static void write(List<List<Line>> pages, MarkdownText md) {
        Map<Double, Integer> charsBySize = new TreeMap<>();
        for (List<Line> page : pages) {
            for (Line l : page) charsBySize.merge(round(l.size()), l.text.length(), Integer::sum);
        }
        double body = charsBySize.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(0.0);
        TreeSet<Double> headingSizes = new TreeSet<>();
        for (List<Line> page : pages) {
            for (Line l : page) if (largeTitle(l, body)) headingSizes.add(round(l.size()));
        }
        List<Double> levels = new ArrayList<>(headingSizes.descendingSet());
        java.util.Set<String> repeated = repeatedEdges(pages);
        for (List<Line> page : pages) {
            md.pageBreak();
            StringBuilder para = new StringBuilder();
            for (int i = 0; i < page.size(); i++) {
                Line l = page.get(i);
                String t = l.text.toString().strip();
                boolean edge = i == 0 || i == page.size() - 1;
                if (t.isEmpty() || edge && (repeated.contains(key(t)) || pages.size() >= 2 && PAGE_NUMBER.matcher(t).matches())) {
                    continue;
                }
                boolean standsAlone = (i == 0 || page.get(i - 1).paragraphEnd) && (l.paragraphEnd || i == page.size() - 1);
                int level = largeTitle(l, body) ? Math.min(6, levels.indexOf(round(l.size())) + 1)
                        : standsAlone && boldSection(l, body) ? Math.min(6, Math.max(levels.size() + 1, sectionDepth(t))) : 0;
                if (level > 0) {
                    md.paragraph(para.toString());
                    para.setLength(0);
                    md.heading(level, t);
                    continue;
                }
                if (para.length() > 0) para.append('\n');
                para.append(t);
                if (l.paragraphEnd) {
                    md.paragraph(para.toString());
                    para.setLength(0);
                }
            }
            md.paragraph(para.toString());
        }
    }

    /** Set notably larger than the body and reads as a title: short, mostly letters, not code, not a row of hex or numbers, no full stop. */
    private static boolean largeTitle(Line l, double body) {
        return body > 0 && l.size() >= body * HEADING_SIZE_RATIO && readsAsTitle(l);
    }

    /** Bold at about the body size and numbered like a section: a heading where a document sets its headings by weight. */
    private static boolean boldSection(Line l, double body) {
        return body > 0 && l.mostlyBold() && l.size() >= body * 0.95 && readsAsTitle(l) && SECTION_NUMBER.matcher(l.text.toString().strip()).find();
    }

    private static boolean readsAsTitle(Line l) {
        String t = l.text.toString().strip();
        if (t.isEmpty() || t.length() > MAX_HEADING_CHARS || t.endsWith(".") || l.code() || HEX_ROW.matcher(t).find()) return false;
        if (t.split("\\s+").length > MAX_HEADING_WORDS) return false;
        long letters = t.chars().filter(Character::isLetter).count(), visible = t.chars().filter(c -> !Character.isWhitespace(c)).count();
        return letters > 0 && letters >= 0.5 * visible;
    }

    /** 1 for "2 Title", 2 for "2.1 Title", ... */
    private static int sectionDepth(String t) {
        java.util.regex.Matcher m = SECTION_NUMBER.matcher(t);
        return m.find() ? m.group(1).split("\\.").length : 1;
    }

    /** First and last lines (digits ignored) that open or close at least 60 % of three or more pages. */
    private static java.util.Set<String> repeatedEdges(List<List<Line>> pages) {
        java.util.Set<String> out = new java.util.HashSet<>();
        if (pages.size() < 3) return out;
        Map<String, Integer> firsts = new HashMap<>(), lasts = new HashMap<>();
        for (List<Line> page : pages) {
            List<String> lines = page.stream().map(l -> l.text.toString().strip()).filter(s -> !s.isEmpty()).toList();
            if (lines.isEmpty()) continue;
            firsts.merge(key(lines.get(0)), 1, Integer::sum);
            if (lines.size() > 1) lasts.merge(key(lines.get(lines.size() - 1)), 1, Integer::sum);
        }
        int needed = (int) Math.ceil(pages.size() * 0.6);
        firsts.forEach((k, n) -> { if (n >= needed) out.add(k); });
        lasts.forEach((k, n) -> { if (n >= needed) out.add(k); });
        return out;
    }

    private static String key(String line) {
        return DIGITS.matcher(line.strip()).replaceAll("#");
    }

    private static double round(double size) {
        return Math.round(size * 2) / 2.0;
    }

    /** Collects each page's lines with their font sizes instead of writing text. */
    private static final class Collector extends PDFTextStripper {
        final List<List<Line>> pages = new ArrayList<>();
        private final ParseLimits limits;
        private List<Line> page;
        private Line line;
        private long chars;

        Collector(ParseLimits limits) {
            this.limits = limits;
        }

        void collect(PDDocument doc) throws IOException {
            writeText(doc, new StringWriter());
        }

        @Override
        protected void startPage(PDPage p) {
            page = new ArrayList<>();
            line = new Line();
        }

        @Override
        protected void endPage(PDPage p) {
            endLine();
            pages.add(page);
        }

        @Override
        protected void writeString(String text, List<TextPosition> positions) {
            line.text.append(text);
            for (TextPosition tp : positions) {
                line.sizeSum += tp.getFontSizeInPt();
                line.sized++;
                org.apache.pdfbox.pdmodel.font.PDFont font = tp.getFont();
                if (font != null) {
                    String name = font.getName() == null ? "" : font.getName().toLowerCase(java.util.Locale.ROOT);
                    org.apache.pdfbox.pdmodel.font.PDFontDescriptor d = font.getFontDescriptor();
                    if (name.contains("bold") || name.contains("black") || name.contains("heavy") || d != null && (d.isForceBold() || d.getFontWeight() >= 600)) {
                        line.bold++;
                    }
                    if (name.contains("courier") || name.contains("mono") || name.contains("consol") || d != null && d.isFixedPitch()) line.fixedPitch++;
                }
            }
            chars += text.length();
            limits.check(chars);
        }

        @Override
        protected void writeWordSeparator() {
            line.text.append(' ');
        }

        @Override
        protected void writeLineSeparator() {
            endLine();
        }

        @Override
        protected void writeParagraphEnd() {
            endLine();
            if (!page.isEmpty()) page.get(page.size() - 1).paragraphEnd = true;
        }

        private void endLine() {
            if (line.text.length() > 0) page.add(line);
            line = new Line();
        }
    }
}
