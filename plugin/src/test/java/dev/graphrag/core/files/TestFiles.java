package dev.graphrag.core.files;

import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.poi.poifs.crypt.EncryptionInfo;
import org.apache.poi.poifs.crypt.EncryptionMode;
import org.apache.poi.poifs.crypt.Encryptor;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;
import org.apache.poi.xslf.usermodel.XMLSlideShow;
import org.apache.poi.xslf.usermodel.XSLFSlide;
import org.apache.poi.xslf.usermodel.XSLFTextBox;
import org.apache.poi.xssf.usermodel.XSSFWorkbook;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import org.apache.poi.xwpf.usermodel.XWPFTable;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Files made with the libraries themselves, for the tests of rag.ingest.files: PDFs with headings set large, body
 * text, running headers and footers and page numbers (PDFBox), DOCX, PPTX and XLSX (POI), HTML and Markdown, and
 * damaged ones (encrypted, truncated, random bytes, a decompression bomb).
 */
public final class TestFiles {
    private TestFiles() {}

    /** One PDF page: a heading (set at 18 pt, or none when null) and body lines (11 pt). */
    public record PdfPage(String heading, List<String> body) {}

    /** A PDF of these pages, each with the running header "ACME Manual" and the footer "Page N". */
    public static Path pdf(Path file, String title, List<PdfPage> pages) throws IOException {
        try (PDDocument doc = pdfDocument(title, pages)) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            doc.save(file.toFile());
        }
        return file;
    }

    /** One line of a free-form PDF page: font ("regular", "bold" or "mono", all Standard 14), size, space above it, text. */
    public record PdfLine(String font, float size, float gapAbove, String text) {}

    /** A one-page PDF of these lines, top to bottom, no running header or footer. */
    public static Path pdfLines(Path file, List<PdfLine> lines) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            PDPage page = new PDPage(PDRectangle.A4);
            doc.addPage(page);
            Map<String, PDType1Font> fonts = Map.of("regular", new PDType1Font(Standard14Fonts.FontName.HELVETICA),
                    "bold", new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD), "mono", new PDType1Font(Standard14Fonts.FontName.COURIER));
            try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                float y = 800;
                for (PdfLine l : lines) {
                    y -= l.gapAbove() + l.size() * 1.3f;
                    line(cs, fonts.get(l.font()), l.size(), 50, y, l.text());
                }
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            doc.save(file.toFile());
        }
        return file;
    }

    /** A PDF that opens only with the password "secret". */
    public static Path encryptedPdf(Path file) throws IOException {
        try (PDDocument doc = pdfDocument("Locked", List.of(new PdfPage("Secret plans", List.of("Nobody may read this without the password."))))) {
            AccessPermission ap = new AccessPermission();
            StandardProtectionPolicy policy = new StandardProtectionPolicy("owner-secret", "secret", ap);
            policy.setEncryptionKeyLength(128);
            doc.protect(policy);
            Files.createDirectories(file.toAbsolutePath().getParent());
            doc.save(file.toFile());
        }
        return file;
    }

    /** A PDF whose pages hold only a drawn rectangle: no text layer, as a scan without OCR. */
    public static Path imageOnlyPdf(Path file) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            for (int i = 0; i < 2; i++) {
                PDPage page = new PDPage(PDRectangle.A4);
                doc.addPage(page);
                try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                    cs.addRect(100, 100, 300, 400);
                    cs.fill();
                }
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            doc.save(file.toFile());
        }
        return file;
    }

    private static PDDocument pdfDocument(String title, List<PdfPage> pages) throws IOException {
        PDDocument doc = new PDDocument();
        doc.getDocumentInformation().setTitle(title);
        doc.getDocumentInformation().setAuthor("Test Author");
        PDType1Font regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        PDType1Font bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
        int n = 0;
        for (PdfPage p : pages) {
            n++;
            PDPage page = new PDPage(PDRectangle.A4);
            doc.addPage(page);
            try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                line(cs, regular, 9, 50, 800, "ACME Manual");
                float y = 760;
                if (p.heading() != null) {
                    line(cs, bold, 18, 50, y, p.heading());
                    y -= 30;
                }
                for (String body : p.body()) {
                    line(cs, regular, 11, 50, y, body);
                    y -= 16;
                }
                line(cs, regular, 9, 280, 40, "Page " + n);
            }
        }
        return doc;
    }

    private static void line(PDPageContentStream cs, PDType1Font font, float size, float x, float y, String text) throws IOException {
        cs.beginText();
        cs.setFont(font, size);
        cs.newLineAtOffset(x, y);
        cs.showText(text);
        cs.endText();
    }

    /** A DOCX with Heading 1 and Heading 2 paragraphs, body paragraphs, a table, and a header that repeats on every page. */
    public static Path docx(Path file, String title, List<String[]> blocks) throws IOException {
        try (XWPFDocument doc = new XWPFDocument()) {
            doc.getProperties().getCoreProperties().setTitle(title);
            doc.getProperties().getCoreProperties().setCreator("Docx Author");
            var styles = doc.createStyles();
            for (int level = 1; level <= 2; level++) {
                var ctStyle = org.openxmlformats.schemas.wordprocessingml.x2006.main.CTStyle.Factory.newInstance();
                ctStyle.setStyleId("Heading" + level);
                ctStyle.addNewName().setVal("heading " + level);
                ctStyle.setType(org.openxmlformats.schemas.wordprocessingml.x2006.main.STStyleType.PARAGRAPH);
                styles.addStyle(new org.apache.poi.xwpf.usermodel.XWPFStyle(ctStyle));
            }
            doc.createHeaderFooterPolicy().createHeader(org.apache.poi.xwpf.model.XWPFHeaderFooterPolicy.DEFAULT)
                    .createParagraph().createRun().setText("CONFIDENTIAL HEADER");
            for (String[] b : blocks) {
                switch (b[0]) {
                    case "h1", "h2" -> {
                        XWPFParagraph p = doc.createParagraph();
                        p.setStyle("Heading" + b[0].charAt(1));
                        p.createRun().setText(b[1]);
                    }
                    case "table" -> {
                        String[] rows = b[1].split(";");
                        String[] first = rows[0].split(",");
                        XWPFTable t = doc.createTable(rows.length, first.length);
                        for (int r = 0; r < rows.length; r++) {
                            String[] cells = rows[r].split(",");
                            for (int c = 0; c < cells.length; c++) t.getRow(r).getCell(c).setText(cells[c]);
                        }
                    }
                    default -> doc.createParagraph().createRun().setText(b[1]);
                }
            }
            write(file, doc::write);
        }
        return file;
    }

    /** A PPTX with one slide per text. */
    public static Path pptx(Path file, List<String> slides) throws IOException {
        try (XMLSlideShow show = new XMLSlideShow()) {
            for (String s : slides) {
                XSLFSlide slide = show.createSlide();
                XSLFTextBox box = slide.createTextBox();
                box.setAnchor(new java.awt.Rectangle(50, 50, 600, 300));
                box.setText(s);
            }
            write(file, show::write);
        }
        return file;
    }

    /** An XLSX with one sheet of rows (the first row its header). */
    public static Path xlsx(Path file, String sheetName, List<List<String>> rows) throws IOException {
        return workbook(file, false, Map.of(sheetName, rows));
    }

    /** A workbook of two or more sheets ({name: rows}), in the binary .xls format ({@code xls}) or as .xlsx. */
    public static Path workbook(Path file, boolean xls, Map<String, List<List<String>>> sheets) throws IOException {
        try (org.apache.poi.ss.usermodel.Workbook wb = xls ? new org.apache.poi.hssf.usermodel.HSSFWorkbook() : new XSSFWorkbook()) {
            sheets.forEach((name, rows) -> {
                var sheet = wb.createSheet(name);
                for (int r = 0; r < rows.size(); r++) {
                    var row = sheet.createRow(r);
                    for (int c = 0; c < rows.get(r).size(); c++) row.createCell(c).setCellValue(rows.get(r).get(c));
                }
            });
            write(file, wb::write);
        }
        return file;
    }

    /** A DOCX encrypted with the password "secret" (agile encryption, as Word does). */
    public static Path encryptedDocx(Path file) throws Exception {
        Path plain = Files.createTempFile("plain", ".docx");
        docx(plain, "Locked", List.<String[]>of(new String[] {"p", "Hidden text of a locked document."}));
        try (POIFSFileSystem fs = new POIFSFileSystem()) {
            EncryptionInfo info = new EncryptionInfo(EncryptionMode.agile);
            Encryptor enc = info.getEncryptor();
            enc.confirmPassword("secret");
            try (var in = org.apache.poi.openxml4j.opc.OPCPackage.open(plain.toFile()); OutputStream os = enc.getDataStream(fs)) {
                in.save(os);
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                fs.writeFilesystem(out);
            }
        }
        Files.delete(plain);
        return file;
    }

    /**
     * A real DOCX whose document part is padded with {@code megabytes} MB of blank space: a few hundred kB on disk that
     * inflate a thousandfold, as a decompression bomb does.
     */
    public static Path zipBombDocx(Path file, int megabytes) throws IOException {
        Path plain = Files.createTempFile("plain", ".docx");
        docx(plain, "Bomb", List.<String[]>of(new String[] {"p", "A small visible paragraph."}));
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (var in = new java.util.zip.ZipFile(plain.toFile()); ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            for (var e : java.util.Collections.list(in.entries())) {
                zip.putNextEntry(new ZipEntry(e.getName()));
                byte[] body = in.getInputStream(e).readAllBytes();
                if (e.getName().equals("word/document.xml")) {
                    String xml = new String(body, StandardCharsets.UTF_8);
                    int close = xml.lastIndexOf("</w:body>");
                    zip.write(xml.substring(0, close).getBytes(StandardCharsets.UTF_8));
                    byte[] spaces = new byte[1 << 20];
                    java.util.Arrays.fill(spaces, (byte) ' ');
                    for (int i = 0; i < megabytes; i++) zip.write(spaces);
                    zip.write(xml.substring(close).getBytes(StandardCharsets.UTF_8));
                } else {
                    zip.write(body);
                }
                zip.closeEntry();
            }
        }
        Files.delete(plain);
        return file;
    }

    /** An ODT (OpenDocument text) written by hand as its specification lays it out: a heading, a paragraph and a table. */
    public static Path odt(Path file, String heading, String paragraph) throws IOException {
        String content = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\""
                + " xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\""
                + " office:version=\"1.2\"><office:body><office:text>"
                + "<text:h text:outline-level=\"1\">" + heading + "</text:h><text:p>" + paragraph + "</text:p>"
                + "<table:table><table:table-row><table:table-cell><text:p>k</text:p></table:table-cell><table:table-cell><text:p>v</text:p></table:table-cell></table:table-row>"
                + "<table:table-row><table:table-cell><text:p>x</text:p></table:table-cell><table:table-cell><text:p>1</text:p></table:table-cell></table:table-row></table:table>"
                + "</office:text></office:body></office:document-content>";
        String manifest = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\">"
                + "<manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.text\"/>"
                + "<manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/></manifest:manifest>";
        return zip(file, new String[][] {{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", content},
                {"META-INF/manifest.xml", manifest}});
    }

    /** An EPUB of one chapter with a heading and a paragraph. */
    public static Path epub(Path file, String title, String heading, String paragraph) throws IOException {
        return epub(file, title, heading, paragraph, new String[0][]);
    }

    /** As above, with further entries ({name, content}): an encryption.xml and the font it names, say. */
    public static Path epub(Path file, String title, String heading, String paragraph, String[][] extra) throws IOException {
        String container = "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
                + "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>";
        String opf = "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">"
                + "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>" + title + "</dc:title><dc:identifier id=\"id\">x</dc:identifier></metadata>"
                + "<manifest><item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"c1\"/></spine></package>";
        String chapter = "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>c1</title></head><body>"
                + "<h1>" + heading + "</h1><p>" + paragraph + "</p></body></html>";
        String[][] entries = {{"mimetype", "application/epub+zip"}, {"META-INF/container.xml", container},
                {"OEBPS/content.opf", opf}, {"OEBPS/c1.xhtml", chapter}};
        String[][] all = java.util.Arrays.copyOf(entries, entries.length + extra.length);
        System.arraycopy(extra, 0, all, entries.length, extra.length);
        return zip(file, all);
    }

    /** An RTF document with a bold title line and a paragraph. */
    public static Path rtf(Path file, String title, String paragraph) throws IOException {
        return text(file, "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}\\f0\\pard {\\b " + title + "}\\par\\pard " + paragraph + "\\par}");
    }

    private static Path zip(Path file, String[][] entries) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            for (String[] e : entries) {
                zip.putNextEntry(new ZipEntry(e[0]));
                zip.write(e[1].getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return file;
    }

    /** The first half of a file's bytes. */
    public static Path truncated(Path source, Path file) throws IOException {
        byte[] all = Files.readAllBytes(source);
        Files.createDirectories(file.toAbsolutePath().getParent());
        return Files.write(file, java.util.Arrays.copyOf(all, all.length / 2));
    }

    /** Random bytes under a name of the caller's choosing. */
    public static Path randomBytes(Path file, int size, long seed) throws IOException {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        Files.createDirectories(file.toAbsolutePath().getParent());
        return Files.write(file, b);
    }

    public static Path text(Path file, String content) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        return Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    private interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private static void write(Path file, Writer w) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            w.write(out);
        }
    }
}
