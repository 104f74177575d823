package dev.graphrag.core.files;

import org.apache.poi.EncryptedDocumentException;
import org.apache.tika.detect.AutoDetectReader;
import org.apache.tika.exception.TikaException;
import org.apache.tika.io.TikaInputStream;
import org.apache.tika.metadata.Metadata;
import org.apache.tika.metadata.TikaCoreProperties;
import org.apache.tika.parser.ParseContext;
import org.apache.tika.parser.Parser;
import org.apache.tika.parser.epub.EpubParser;
import org.apache.tika.parser.html.JSoupParser;
import org.apache.tika.parser.microsoft.OfficeParser;
import org.apache.tika.parser.microsoft.OfficeParserConfig;
import org.apache.tika.parser.microsoft.ooxml.OOXMLParser;
import org.apache.tika.parser.microsoft.rtf.RTFParser;
import org.apache.tika.parser.odf.OpenDocumentParser;
import org.xml.sax.SAXException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which parser reads which file, chosen by the file name's extension and checked against the file's first bytes
 * (a .pdf that is not a PDF fails as such, not deep inside a parser). PDF goes through {@link PdfExtractor};
 * Markdown and plain text are read as they are (charset detected); every other format through its Tika parser
 * into {@link XhtmlToMarkdown}. Embedded files (images, attachments) are not parsed.
 */
public final class FileParsers {
    /** A format: its content type, the parser that reads it, and the bytes its files start with (null: any). */
    private record Format(String contentType, Supplier<Parser> tika, byte[] magic) {}

    private static final byte[] ZIP = {'P', 'K'};
    private static final byte[] OLE = {(byte) 0xD0, (byte) 0xCF, 0x11, (byte) 0xE0};
    private static final Map<String, Format> FORMATS = new LinkedHashMap<>();

    static {
        FORMATS.put("pdf", new Format("application/pdf", null, "%PDF".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        FORMATS.put("docx", new Format("application/vnd.openxmlformats-officedocument.wordprocessingml.document", OOXMLParser::new, ZIP));
        FORMATS.put("pptx", new Format("application/vnd.openxmlformats-officedocument.presentationml.presentation", OOXMLParser::new, ZIP));
        FORMATS.put("xlsx", new Format("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", OOXMLParser::new, ZIP));
        FORMATS.put("doc", new Format("application/msword", OfficeParser::new, OLE));
        FORMATS.put("ppt", new Format("application/vnd.ms-powerpoint", OfficeParser::new, OLE));
        FORMATS.put("xls", new Format("application/vnd.ms-excel", OfficeParser::new, OLE));
        FORMATS.put("odt", new Format("application/vnd.oasis.opendocument.text", OpenDocumentParser::new, ZIP));
        FORMATS.put("odp", new Format("application/vnd.oasis.opendocument.presentation", OpenDocumentParser::new, ZIP));
        FORMATS.put("ods", new Format("application/vnd.oasis.opendocument.spreadsheet", OpenDocumentParser::new, ZIP));
        FORMATS.put("rtf", new Format("application/rtf", RTFParser::new, "{\\rtf".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        FORMATS.put("epub", new Format("application/epub+zip", EpubParser::new, ZIP));
        FORMATS.put("html", new Format("text/html", JSoupParser::new, null));
        FORMATS.put("htm", new Format("text/html", JSoupParser::new, null));
        FORMATS.put("xhtml", new Format("application/xhtml+xml", JSoupParser::new, null));
        FORMATS.put("md", new Format("text/markdown", null, null));
        FORMATS.put("markdown", new Format("text/markdown", null, null));
        FORMATS.put("txt", new Format("text/plain", null, null));
        FORMATS.put("text", new Format("text/plain", null, null));
    }

    private static final Set<String> SPREADSHEETS = Set.of("application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.oasis.opendocument.spreadsheet");

    /** The extensions rag.ingest.files reads, for errors and docs. */
    public static List<String> supportedExtensions() {
        return List.copyOf(FORMATS.keySet());
    }

    private FileParsers() {}

    /** The format's content type for a file name, or null when the extension is not supported. */
    public static String contentType(String name) {
        Format f = FORMATS.get(extension(name));
        return f == null ? null : f.contentType();
    }

    /** The extension of a supported content type (from an HTTP reply's Content-Type), or null. */
    public static String extensionFor(String contentType) {
        if (contentType == null) return null;
        String ct = contentType.split(";")[0].strip().toLowerCase(Locale.ROOT);
        for (Map.Entry<String, Format> e : FORMATS.entrySet()) if (e.getValue().contentType().equals(ct)) return e.getKey();
        return null;
    }

    static String extension(String name) {
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        int dot = name.lastIndexOf('.');
        return dot > slash ? name.substring(dot + 1).toLowerCase(Locale.ROOT) : "";
    }

    private static final java.util.concurrent.atomic.AtomicLong PARSES = new java.util.concurrent.atomic.AtomicLong();

    /** How many files this JVM has parsed: a rerun over unchanged files must not move it (tests read it). */
    public static long parses() {
        return PARSES.get();
    }

    /** Parses one file named {@code name} (its extension picks the parser) under the limits; a problem with the file throws {@link FileProblem}. */
    public static ParsedFile parse(Path file, String name, ParseLimits limits) {
        String ext = extension(name);
        Format f = FORMATS.get(ext);
        if (f == null) {
            throw new FileProblem("unsupported file type '" + (ext.isEmpty() ? name : "." + ext) + "'; supported: " + supportedExtensions());
        }
        PARSES.incrementAndGet();
        checkMagic(file, ext, f);
        if (f.magic() == ZIP) checkInflation(file);
        ParsedFile parsed;
        if (ext.equals("pdf")) {
            parsed = PdfExtractor.extract(file, limits);
        } else if (f.tika() == null) {
            parsed = plain(file, f.contentType(), limits);
        } else if (ext.equals("epub")) {
            parsed = epub(file, f, limits);
        } else {
            parsed = tika(file, f, limits);
        }
        if (parsed.text().isBlank()) throw new FileProblem(FileProblem.NO_TEXT, "the file holds no text");
        return parsed;
    }

    private static void checkMagic(Path file, String ext, Format f) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(8);
            if (head.length == 0) throw new FileProblem(FileProblem.NO_TEXT, "the file is empty (0 bytes)");
            if (f.magic() == null) return;
            if (f.magic() == ZIP && startsWith(head, OLE)) {
                // Office encrypts an OOXML file by wrapping it in an OLE container
                throw new FileProblem(encryptedOle(file) ? "the document is password-protected (encrypted); save an unprotected copy and ingest that"
                        : "the file is named ." + ext + " but is an older binary Office file; save it as ." + ext + " or rename it to its own extension");
            }
            for (int i = 0; i < f.magic().length; i++) {
                if (i >= head.length || head[i] != f.magic()[i]) {
                    throw new FileProblem("the file is named ." + ext + " but is not a " + ext.toUpperCase(Locale.ROOT)
                            + " file (its first bytes do not match); it may be damaged or misnamed");
                }
            }
        } catch (IOException e) {
            throw new FileProblem("cannot read the file: " + cut(e.getMessage()));
        }
    }

    /** An entry may inflate this many times its compressed size when it is larger than {@link #MAX_PLAIN_ENTRY_BYTES}. */
    static final long MAX_INFLATE_RATIO = 100;
    static final long MAX_PLAIN_ENTRY_BYTES = 10L << 20;
    static final long MAX_INFLATED_BYTES = 1L << 30;

    /**
     * Refuses a zip-based file (DOCX, PPTX, XLSX, ODF, EPUB) whose entries declare a decompression bomb's sizes before
     * any parser inflates them; POI's own inflate-ratio guard checks the bytes actually inflated.
     */
    private static void checkInflation(Path file) {
        long total = 0;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(file.toFile())) {
            for (var e : java.util.Collections.list(zip.entries())) {
                long size = e.getSize(), packed = Math.max(1, e.getCompressedSize());
                total += Math.max(0, size);
                if (size > MAX_PLAIN_ENTRY_BYTES && size / packed > MAX_INFLATE_RATIO || total > MAX_INFLATED_BYTES) {
                    throw new FileProblem("the file expands far beyond its size (entry '" + cut(e.getName()) + "' inflates " + size / packed
                            + " times, to " + size / (1 << 20) + " MB): a decompression bomb, not read");
                }
            }
        } catch (IOException e) {
            throw new FileProblem("the file is not a readable zip container, as ." + extension(file.toString()) + " files are ("
                    + cut(e.getMessage()) + "); it may be damaged");
        }
    }

    /** The font obfuscation algorithms of EPUB (IDPF's) and of Adobe's readers: they hide embedded fonts, not the text. */
    static final Set<String> FONT_OBFUSCATION = Set.of("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC");
    private static final java.util.regex.Pattern ALGORITHM = java.util.regex.Pattern.compile("Algorithm\\s*=\\s*[\"']([^\"']+)[\"']");
    private static final java.util.regex.Pattern CIPHER_URI = java.util.regex.Pattern.compile("CipherReference[^>]*URI\\s*=\\s*[\"']([^\"']+)[\"']");

    /**
     * An EPUB whose META-INF/encryption.xml only obfuscates fonts (common in published books) is read without that file
     * and the fonts it names (a copy in a temporary file), since Tika refuses any EPUB that has one; an EPUB whose text is
     * encrypted (DRM) is refused, saying so.
     */
    private static ParsedFile epub(Path file, Format f, ParseLimits limits) {
        String encryption;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(file.toFile())) {
            var entry = zip.getEntry("META-INF/encryption.xml");
            if (entry == null) return tika(file, f, limits);
            try (InputStream in = zip.getInputStream(entry)) {
                encryption = new String(in.readNBytes((int) Math.min(MAX_PLAIN_ENTRY_BYTES, Math.max(0, entry.getSize() < 0 ? MAX_PLAIN_ENTRY_BYTES : entry.getSize()))),
                        java.nio.charset.StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new FileProblem("the file is not a readable zip container, as .epub files are (" + cut(e.getMessage()) + "); it may be damaged");
        }
        java.util.regex.Matcher a = ALGORITHM.matcher(encryption);
        while (a.find()) {
            if (!FONT_OBFUSCATION.contains(a.group(1))) {
                throw new FileProblem("the EPUB's content is encrypted (DRM, " + cut(a.group(1)) + "); only books without DRM can be read");
            }
        }
        Set<String> obfuscated = new java.util.HashSet<>(List.of("META-INF/encryption.xml"));
        java.util.regex.Matcher u = CIPHER_URI.matcher(encryption);
        while (u.find()) obfuscated.add(u.group(1));
        Path copy = null;
        try {
            copy = Files.createTempFile("graphrag-epub", ".epub");
            try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(file.toFile());
                 java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(Files.newOutputStream(copy))) {
                for (var e : java.util.Collections.list(zip.entries())) {
                    if (obfuscated.contains(e.getName())) continue;
                    out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
                    try (InputStream in = zip.getInputStream(e)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
            return tika(copy, f, limits);
        } catch (IOException e) {
            throw new FileProblem("cannot read the EPUB (" + cut(e.getMessage()) + ")");
        } finally {
            if (copy != null) {
                try {
                    Files.deleteIfExists(copy);
                } catch (IOException ignored) {
                    // a temporary file: the OS clears it
                }
            }
        }
    }

    private static boolean startsWith(byte[] head, byte[] magic) {
        if (head.length < magic.length) return false;
        for (int i = 0; i < magic.length; i++) if (head[i] != magic[i]) return false;
        return true;
    }

    private static boolean encryptedOle(Path file) {
        try (org.apache.poi.poifs.filesystem.POIFSFileSystem fs = new org.apache.poi.poifs.filesystem.POIFSFileSystem(file.toFile(), true)) {
            return fs.getRoot().hasEntry("EncryptionInfo");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static ParsedFile plain(Path file, String contentType, ParseLimits limits) {
        try (InputStream in = Files.newInputStream(file); AutoDetectReader reader = new AutoDetectReader(in);
             BufferedReader lines = new BufferedReader(reader)) {
            StringBuilder b = new StringBuilder();
            char[] buf = new char[8192];
            for (int n; (n = lines.read(buf)) > 0; ) {
                b.append(buf, 0, n);
                limits.check(b.length());
            }
            String text = b.toString().replace("\r\n", "\n").replace('\r', '\n').strip();
            var layout = dev.graphrag.core.text.TextLayout.of(text);
            String title = layout.headings().isEmpty() ? null : layout.headings().get(0).text();
            return new ParsedFile(text, title, contentType, layout, Map.of());
        } catch (TikaException | IOException e) {
            throw new FileProblem("cannot read the text file (" + cut(e.getMessage()) + ")");
        }
    }

    private static ParsedFile tika(Path file, Format f, ParseLimits limits) {
        MarkdownText md = new MarkdownText(limits);
        XhtmlToMarkdown handler = new XhtmlToMarkdown(md, limits);
        Metadata metadata = new Metadata();
        ParseContext context = new ParseContext();
        OfficeParserConfig office = new OfficeParserConfig();
        office.setIncludeHeadersAndFooters(false);  // repeated on every page: not content
        office.setIncludeSlideMasterContent(false);
        office.setIncludeDeletedContent(false);
        office.setIncludeMoveFromContent(false);
        office.setExtractMacros(false);
        context.set(OfficeParserConfig.class, office);
        // every element with its attributes, so a page's navigation, header, footer and cookie banner can be told from its
        // content (XhtmlToMarkdown drops them); Tika's default mapping keeps their text and drops the elements that say what it is
        if (f.contentType().equals("text/html") || f.contentType().equals("application/xhtml+xml")) {
            context.set(org.apache.tika.parser.html.HtmlMapper.class, org.apache.tika.parser.html.IdentityHtmlMapper.INSTANCE);
        }
        try (TikaInputStream in = TikaInputStream.get(file)) {
            f.tika().get().parse(in, handler, metadata, context);
        } catch (FileProblem e) {
            throw e;
        } catch (EncryptedDocumentException | org.apache.tika.exception.EncryptedDocumentException e) {
            throw new FileProblem("the document is password-protected (encrypted); save an unprotected copy and ingest that");
        } catch (TikaException | IOException | SAXException | RuntimeException e) {
            Throwable root = rootCause(e);
            if (root instanceof FileProblem p) throw p;
            if (root instanceof EncryptedDocumentException || root instanceof org.apache.tika.exception.EncryptedDocumentException) {
                throw new FileProblem("the document is password-protected (encrypted); save an unprotected copy and ingest that");
            }
            String msg = String.valueOf(root.getMessage());
            if (msg.contains("Zip bomb") || msg.contains("zip bomb")) {
                throw new FileProblem("the file expands far beyond its size (a decompression bomb?); it was not read");
            }
            throw new FileProblem("the " + f.contentType() + " file could not be parsed (" + cut(root.getClass().getSimpleName() + ": " + msg)
                    + "); it may be damaged");
        }
        String text = md.text();
        Map<String, Object> meta = new HashMap<>();
        put(meta, "author", metadata.get(TikaCoreProperties.CREATOR));
        put(meta, "created", metadata.get(TikaCoreProperties.CREATED));
        put(meta, "modified", metadata.get(TikaCoreProperties.MODIFIED));
        String title = metadata.get(TikaCoreProperties.TITLE);
        title = title != null && !title.isBlank() ? title.strip() : md.firstHeading();
        // a spreadsheet's sheets are sections (one heading each), never pages, in every spreadsheet format: Tika marks the
        // sheets of .xls as pages and those of .xlsx not, and a citation "p. 2" of a workbook would name nothing a reader sees
        int[] pages = handler.pages() > 0 && !SPREADSHEETS.contains(f.contentType()) ? md.pageStarts() : null;
        return new ParsedFile(text, title, f.contentType(), new dev.graphrag.core.text.TextLayout(pages,
                dev.graphrag.core.text.TextLayout.headings(text)), meta);
    }

    private static void put(Map<String, Object> meta, String key, String value) {
        if (value != null && !value.isBlank()) meta.put(key, value.strip());
    }

    private static Throwable rootCause(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) {
            if (r instanceof FileProblem) return r;
            r = r.getCause();
        }
        return r;
    }

    /** A parser's message, one line and at most 200 characters (they can quote whole file contents). */
    static String cut(String message) {
        if (message == null) return "no detail";
        String one = message.replaceAll("\\s+", " ").strip();
        return one.length() <= 200 ? one : one.substring(0, 197) + "...";
    }
}
