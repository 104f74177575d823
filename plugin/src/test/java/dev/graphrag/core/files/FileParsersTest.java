package dev.graphrag.core.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileParsersTest {
    @TempDir Path dir;

    private static ParseLimits limits() {
        return new ParseLimits(5_000_000, 60, () -> false);
    }

    private ParsedFile parse(Path file) {
        return FileParsers.parse(file, file.getFileName().toString(), limits());
    }

    static final List<TestFiles.PdfPage> MANUAL = List.of(
            new TestFiles.PdfPage("1 Introduction", List.of("The pump moves water.", "It runs on mains power.")),
            new TestFiles.PdfPage(null, List.of("Continued text on page two.")),
            new TestFiles.PdfPage("2 Installation", List.of("Mount the pump on a wall.")));

    @Test
    void pdfHeadingsBySizePagesAndNoRunningHeadersOrPageNumbers() throws Exception {
        ParsedFile p = parse(TestFiles.pdf(dir.resolve("m.pdf"), "The Manual", MANUAL));
        assertEquals("application/pdf", p.contentType());
        assertEquals("The Manual", p.title(), "the PDF's own title wins over its first heading");
        assertEquals("Test Author", p.metadata().get("author"));
        assertTrue(p.text().startsWith("# 1 Introduction\n\nThe pump moves water."), p.text());
        assertFalse(p.text().contains("ACME Manual"), "the running header repeats on every page: " + p.text());
        assertFalse(p.text().contains("Page 2"), "page numbers in the footer are not content: " + p.text());
        assertEquals(3, p.layout().pageCount());
        int two = p.text().indexOf("Continued text"), three = p.text().indexOf("# 2 Installation");
        assertArrayEquals(new long[] {2}, p.layout().pages(two, two + 10));
        assertArrayEquals(new long[] {3}, p.layout().pages(three, three + 5));
        assertArrayEquals(new long[] {1, 2, 3}, p.layout().pages(0, p.text().length()));
        assertEquals("2 Installation", p.layout().section(three));
        assertEquals("1 Introduction", p.layout().section(two), "page two continues the first section");
    }

    /**
     * Headings from layout only: a body line that begins with '#', a hex dump and a table row set large in a fixed-pitch
     * font stay body text; a bold numbered line at the body size standing alone is a heading a level below the sized one.
     */
    @Test
    void pdfHeadingsComeFromLayoutNotFromTheTextsOwnCharacters() throws Exception {
        ParsedFile p = parse(TestFiles.pdfLines(dir.resolve("spec.pdf"), List.of(
                new TestFiles.PdfLine("bold", 18, 0, "3 Registers"),
                new TestFiles.PdfLine("regular", 11, 12, "The register map follows. Each register is 32 bits wide."),
                new TestFiles.PdfLine("regular", 11, 0, "# this line of the body begins with a hash sign"),
                new TestFiles.PdfLine("regular", 11, 0, "and the paragraph goes on after it."),
                new TestFiles.PdfLine("mono", 14, 12, "0x0000: 4A 1F 3C 4D 5E 6F 70 81"),
                new TestFiles.PdfLine("mono", 14, 0, "int main(void) { return 0; }"),
                new TestFiles.PdfLine("regular", 14, 12, "12 | 34 | 56 | 78"),
                new TestFiles.PdfLine("bold", 11, 24, "3.1 Control register"),
                new TestFiles.PdfLine("regular", 11, 24, "Bit 0 enables the device. Bit 1 resets it."),
                new TestFiles.PdfLine("regular", 11, 0, "Most body text is set at eleven points on this page."))));
        List<String> headings = p.layout().headings().stream().map(h -> h.level() + " " + h.text()).toList();
        assertEquals(List.of("1 3 Registers", "2 3.1 Control register"), headings, p.text());
        assertTrue(p.text().contains("\\# this line of the body begins with a hash sign"), "escaped, so no reader takes it for a heading: " + p.text());
        assertEquals("3 Registers", p.layout().section(p.text().indexOf("0x0000")), "the hex dump is body text of its section");
        assertEquals("3 Registers > 3.1 Control register", p.layout().section(p.text().indexOf("Bit 0 enables")));
    }

    /** Published books obfuscate their embedded fonts: that is not encryption of the text; DRM is, and is named. */
    @Test
    void anEpubWhoseFontsAreObfuscatedIsReadAndOneUnderDrmIsRefused() throws Exception {
        String fontOnly = "<?xml version=\"1.0\"?><encryption xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" xmlns:enc=\"http://www.w3.org/2001/04/xmlenc#\">"
                + "<enc:EncryptedData><enc:EncryptionMethod Algorithm=\"http://www.idpf.org/2008/embedding\"/><enc:CipherData>"
                + "<enc:CipherReference URI=\"OEBPS/fonts/serif.otf\"/></enc:CipherData></enc:EncryptedData></encryption>";
        ParsedFile book = parse(TestFiles.epub(dir.resolve("font.epub"), "Book", "Chapter one", "Once upon a time.",
                new String[][] {{"META-INF/encryption.xml", fontOnly}, {"OEBPS/fonts/serif.otf", "\u0001obfuscated font bytes"}}));
        assertTrue(book.text().contains("# Chapter one\n\nOnce upon a time."), book.text());
        String drm = fontOnly.replace("http://www.idpf.org/2008/embedding", "http://www.w3.org/2001/04/xmlenc#aes128-cbc").replace("fonts/serif.otf", "c1.xhtml");
        FileProblem e = assertThrows(FileProblem.class, () -> parse(TestFiles.epub(dir.resolve("drm.epub"), "Book", "Chapter one", "Once upon a time.",
                new String[][] {{"META-INF/encryption.xml", drm}})));
        assertTrue(e.getMessage().contains("content is encrypted (DRM, http://www.w3.org/2001/04/xmlenc#aes128-cbc)"), e.getMessage());
    }

    /** Sheets are sections in every spreadsheet format, never pages (a citation "p. 2" of a workbook names nothing a reader sees). */
    @Test
    void sheetsAreSectionsAndNeverPagesInXlsAndXlsxAlike() throws Exception {
        java.util.Map<String, List<List<String>>> sheets = new java.util.LinkedHashMap<>();
        sheets.put("Prices", List.of(List.of("item", "price"), List.of("bolt", "3")));
        sheets.put("Stock", List.of(List.of("item", "count"), List.of("nut", "40")));
        for (boolean xls : List.of(true, false)) {
            ParsedFile p = parse(TestFiles.workbook(dir.resolve(xls ? "w.xls" : "w.xlsx"), xls, sheets));
            String format = xls ? "xls" : "xlsx";
            assertEquals(0, p.layout().pageCount(), format + ": " + p.text());
            assertEquals("Stock", p.layout().section(p.text().indexOf("nut")), format + ": " + p.text());
            assertEquals("Prices", p.layout().section(p.text().indexOf("bolt")), format + ": " + p.text());
        }
    }

    /** A web page's navigation, site header and footer, sidebar and cookie banner are not its content; an article's own header is. */
    @Test
    void htmlPageFurnitureIsDroppedAndTheArticleKept() throws Exception {
        ParsedFile page = parse(TestFiles.text(dir.resolve("page.html"), "<html><head><title>Safety</title></head><body>"
                + "<header><a href='/'>ACME</a> Home | Products | Support</header>"
                + "<nav><ul><li>Home</li><li>Products</li><li>Safety</li></ul></nav>"
                + "<div id='cookie-banner'><p>We use cookies. Accept all?</p></div>"
                + "<main><article><header><h1>Toaster safety</h1></header><p>Unplug the toaster before cleaning it.</p>"
                + "<footer>Written by the safety team.</footer></article></main>"
                + "<aside><p>Related: kettles</p></aside><div role='contentinfo'>Copyright ACME. Terms | Privacy</div>"
                + "<footer>Home | Products | Contact</footer></body></html>"));
        assertEquals("# Toaster safety\n\nUnplug the toaster before cleaning it.\n\nWritten by the safety team.", page.text());
    }

    @Test
    void docxHeadingsTablesAndNoHeaders() throws Exception {
        ParsedFile p = parse(TestFiles.docx(dir.resolve("d.docx"), "Docx Title", List.of(new String[] {"h1", "Overview"},
                new String[] {"p", "Body one."}, new String[] {"h2", "Details"}, new String[] {"table", "Name,Value;alpha,1;beta,2"},
                new String[] {"p", "After table."})));
        assertEquals("# Overview\n\nBody one.\n\n## Details\n\n| Name | Value |\n| --- | --- |\n| alpha | 1 |\n| beta | 2 |\n\nAfter table.", p.text());
        assertEquals("Docx Title", p.title());
        assertEquals("Docx Author", p.metadata().get("author"));
        assertNull(p.layout().pageStarts(), "a DOCX has no fixed pages");
        assertEquals("Overview > Details", p.layout().section(p.text().indexOf("| Name")));
    }

    @Test
    void slidesArePagesSheetsAreSectionsHtmlAndMarkdownKeepStructure() throws Exception {
        ParsedFile slides = parse(TestFiles.pptx(dir.resolve("s.pptx"), List.of("Slide one text", "Slide two text")));
        assertEquals(2, slides.layout().pageCount());
        assertArrayEquals(new long[] {2}, slides.layout().pages(slides.text().indexOf("Slide two"), slides.text().length()));
        ParsedFile sheet = parse(TestFiles.xlsx(dir.resolve("x.xlsx"), "Prices", List.of(List.of("item", "price"), List.of("bolt", "3"))));
        assertEquals("# Prices\n\n| item | price |\n| --- | --- |\n| bolt | 3 |", sheet.text());
        ParsedFile html = parse(TestFiles.text(dir.resolve("h.html"), "<html><head><title>HT</title><script>var x=1;</script></head><body>"
                + "<h1>Top</h1><p>Para <b>bold</b> text.</p><ul><li>one</li><li>two</li></ul>"
                + "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>"));
        assertEquals("# Top\n\nPara bold text.\n\n- one\n\n- two\n\n| a | b |\n| --- | --- |\n| 1 | 2 |", html.text());
        assertEquals("HT", html.title());
        ParsedFile md = parse(TestFiles.text(dir.resolve("n.md"), "# Notes\r\n\r\nIntro.\r\n\r\n```\n# not a heading\n```\n\n## Part B\n\nText B."));
        assertEquals("Notes", md.title());
        assertEquals(List.of("Notes", "Part B"), md.layout().headings().stream().map(h -> h.text()).toList(), "a # line in a code block is code");
        assertEquals("Notes > Part B", md.layout().section(md.text().indexOf("## Part B")));
    }

    @Test
    void openDocumentRtfAndEpubThroughTheirParsers() throws Exception {
        ParsedFile odt = parse(TestFiles.odt(dir.resolve("o.odt"), "Open heading", "Open paragraph."));
        assertEquals("# Open heading\n\nOpen paragraph.\n\n| k | v |\n| --- | --- |\n| x | 1 |", odt.text());
        ParsedFile rtf = parse(TestFiles.rtf(dir.resolve("r.rtf"), "Rich title", "Rich paragraph."));
        assertEquals("Rich title\n\nRich paragraph.", rtf.text());
        ParsedFile epub = parse(TestFiles.epub(dir.resolve("b.epub"), "Book", "Chapter one", "Once upon a time."));
        assertTrue(epub.text().contains("# Chapter one\n\nOnce upon a time."), epub.text());
        assertEquals("Book", epub.title());
    }

    @Test
    void damagedAndProtectedFilesFailWithAReasonAUserCanActOn() throws Exception {
        Path pdf = TestFiles.pdf(dir.resolve("m.pdf"), "M", MANUAL);
        Path docx = TestFiles.docx(dir.resolve("d.docx"), "D", List.<String[]>of(new String[] {"p", "Text."}));
        assertProblem(TestFiles.encryptedPdf(dir.resolve("e.pdf")), "failed", "password-protected");
        assertProblem(TestFiles.imageOnlyPdf(dir.resolve("i.pdf")), "no_text", "no text layer", "OCR");
        assertProblem(TestFiles.truncated(pdf, dir.resolve("t.pdf")), "failed", "not a readable PDF");
        assertProblem(TestFiles.randomBytes(dir.resolve("r.pdf"), 5000, 1), "failed", "is not a PDF file");
        assertProblem(TestFiles.encryptedDocx(dir.resolve("e.docx")), "failed", "password-protected");
        assertProblem(TestFiles.zipBombDocx(dir.resolve("b.docx"), 50), "failed", "decompression bomb");
        assertProblem(TestFiles.truncated(docx, dir.resolve("t.docx")), "failed", "not a readable zip");
        assertProblem(TestFiles.randomBytes(dir.resolve("r.docx"), 5000, 2), "failed", "is not a DOCX file");
        assertProblem(TestFiles.text(dir.resolve("empty.txt"), ""), "no_text", "empty");
        assertProblem(TestFiles.text(dir.resolve("data.bin"), "x"), "failed", "unsupported file type '.bin'", "pdf", "docx");
    }

    @Test
    void limitsStopAParseThatGrowsPastThemOrRunsTooLong() throws Exception {
        Path big = TestFiles.text(dir.resolve("big.md"), "word ".repeat(10_000));
        FileProblem tooLong = assertThrows(FileProblem.class, () -> FileParsers.parse(big, "big.md", new ParseLimits(1000, 60, () -> false)));
        assertTrue(tooLong.getMessage().contains("maxDocumentChars=1000"), tooLong.getMessage());
        FileProblem late = assertThrows(FileProblem.class, () -> FileParsers.parse(big, "big.md", new ParseLimits(5_000_000, 0, () -> false)));
        assertTrue(late.getMessage().contains("parseTimeoutSeconds=0"), late.getMessage());
        FileProblem stopped = assertThrows(FileProblem.class, () -> FileParsers.parse(big, "big.md", new ParseLimits(5_000_000, 60, () -> true)));
        assertTrue(stopped.getMessage().contains("terminated"), stopped.getMessage());
        // jsoup bounds HTML nesting itself; the handler guards every parser's event stream
        ParseLimits limits = limits();
        XhtmlToMarkdown handler = new XhtmlToMarkdown(new MarkdownText(limits), limits);
        var attributes = new org.xml.sax.helpers.AttributesImpl();
        FileProblem tooDeep = assertThrows(FileProblem.class, () -> {
            for (int i = 0; i < 2000; i++) handler.startElement("", "div", "div", attributes);
        });
        assertTrue(tooDeep.getMessage().contains("nested more than 1000 levels"), tooDeep.getMessage());
    }

    private void assertProblem(Path file, String status, String... fragments) {
        FileProblem e = assertThrows(FileProblem.class, () -> parse(file), file.getFileName().toString());
        assertEquals(status, e.status(), e.getMessage());
        for (String f : fragments) assertTrue(e.getMessage().contains(f), file.getFileName() + ": " + e.getMessage());
    }
}
