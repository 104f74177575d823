package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.core.files.FileParsers;
import dev.graphrag.core.files.ParseLimits;
import dev.graphrag.core.files.ParsedFile;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * rag.ingest.files' throughput on a folder of generated PDFs and DOCX files (2Wiki passages, each file a run of
 * titled sections), against what it is held to in the same run: the parser alone over the same files plus the raw
 * model over the chunks it wrote. Also the heap the parser takes on the largest file. Writes
 * target/files-results.md.
 *
 * <pre>FilesBenchmark DATA [--files N (200)] [--passages P (30 per file)] [--work DIR]</pre>
 */
public final class FilesBenchmark {
    private FilesBenchmark() {}

    public static void main(String[] argv) throws Exception {
        if (argv.length < 1) {
            System.err.println("usage: FilesBenchmark DATA [--files N] [--passages P] [--work DIR]");
            System.exit(2);
        }
        Path data = Path.of(argv[0]);
        int files = 200, passages = 30;
        Path work = null;
        for (int i = 1; i + 1 < argv.length; i += 2) {
            switch (argv[i]) {
                case "--files" -> files = Integer.parseInt(argv[i + 1]);
                case "--passages" -> passages = Integer.parseInt(argv[i + 1]);
                case "--work" -> work = Path.of(argv[i + 1]);
                default -> throw new IllegalArgumentException("unknown flag " + argv[i]);
            }
        }
        if (work == null) work = Files.createTempDirectory("files-benchmark");
        run(data, files, passages, work, System.out);
        System.exit(0);
    }

    static void run(Path data, int fileCount, int passagesPerFile, Path work, PrintStream out) throws Exception {
        List<Map<String, Object>> docs = CorpusFiles.read(data.resolve("2wikimultihopqa/2wikimultihopqa_corpus.json"));
        Path importDir = Files.createDirectories(work.resolve("import"));
        Path folder = Files.createDirectories(importDir.resolve("bench"));
        long t0 = System.nanoTime();
        for (int f = 0; f < fileCount; f++) {
            List<Map<String, Object>> part = new ArrayList<>();
            for (int p = 0; p < passagesPerFile; p++) part.add(docs.get((f * passagesPerFile + p) % docs.size()));
            if (f % 2 == 0) pdf(folder.resolve(String.format("f%04d.pdf", f)), part);
            else docx(folder.resolve(String.format("f%04d.docx", f)), part);
        }
        List<Path> paths;
        try (Stream<Path> s = Files.list(folder)) {
            paths = s.sorted().toList();
        }
        long bytes = 0;
        for (Path p : paths) bytes += Files.size(p);
        out.printf("generated %d files (%.1f MB) in %.1f s%n", paths.size(), bytes / 1048576.0, (System.nanoTime() - t0) / 1e9);

        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work.resolve("server"), null, "127.0.0.1", -1, -1,
                EmbeddedNeo4j.SINGLE_USER, importDir));
        try {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            db.executeTransactionally("RETURN rag.embed('warm the model') AS v");
            // the parser alone, every file, as rag.ingest.files calls it (a first pass warms the classes and the JIT)
            for (Path p : paths.subList(0, Math.min(10, paths.size()))) FileParsers.parse(p, p.getFileName().toString(), limits());
            long tp = System.nanoTime();
            for (Path p : paths) FileParsers.parse(p, p.getFileName().toString(), limits());
            double parseS = (System.nanoTime() - tp) / 1e9;

            long ti = System.nanoTime();
            List<Map<String, Object>> rows = db.executeTransactionally("CALL rag.ingest.files('bench/*', {corpus: 'files-bench'})",
                    Map.of(), r -> {
                        List<Map<String, Object>> l = new ArrayList<>();
                        r.forEachRemaining(l::add);
                        return l;
                    });
            double ingestS = (System.nanoTime() - ti) / 1e9;
            long created = rows.stream().filter(r -> "created".equals(r.get("status"))).count();
            List<String> texts = db.executeTransactionally("MATCH (c:Chunk {corpus: 'files-bench'}) RETURN c.text AS t", Map.of(), r -> {
                List<String> l = new ArrayList<>();
                while (r.hasNext()) l.add((String) r.next().get("t"));
                return l;
            });
            ModelSpec spec = Benchmark.serverModelSpec(db);
            Benchmark.RawEmbedding raw = Benchmark.rawEmbedding(spec, texts);
            double baselineS = parseS + raw.seconds();

            // the heap one large file takes while parsing: a PDF of every passage of 40 files, outside the ingested folder
            Path largest = work.resolve("large.pdf");
            List<Map<String, Object>> many = new ArrayList<>();
            for (int p = 0; p < 40 * passagesPerFile; p++) many.add(docs.get(p % docs.size()));
            pdf(largest, many);
            long pages;
            try (PDDocument d = org.apache.pdfbox.Loader.loadPDF(largest.toFile())) {
                pages = d.getNumberOfPages();
            }
            long heap = parsePeakHeap(largest);

            double mb = bytes / 1048576.0;
            StringBuilder report = new StringBuilder();
            report.append(String.format("## rag.ingest.files on generated PDF and DOCX (%s, %s)%n%n", spec.name(), raw.device()));
            report.append(String.format("%d files (%d PDF, %d DOCX), %.1f MB, %d passages each; %d created, %d chunks%n%n",
                    paths.size(), (paths.size() + 1) / 2, paths.size() / 2, mb, passagesPerFile, created, texts.size()));
            report.append("| run | seconds | files/s | MB/s |\n|---|---|---|---|\n");
            report.append(row("parser alone", parseS, paths.size(), mb));
            report.append(row("raw embedding of the chunks it wrote", raw.seconds(), paths.size(), mb));
            report.append(row("baseline: parser + raw embedding", baselineS, paths.size(), mb));
            report.append(row("rag.ingest.files", ingestS, paths.size(), mb));
            report.append(String.format("%nrag.ingest.files at %.0f %% of the baseline's throughput (target: at least 85 %%)%n", 100 * baselineS / ingestS));
            report.append(String.format("peak heap while parsing one large PDF (%d pages, %.2f MB, %d passages): %.1f MB above what was in use before%n",
                    pages, size(largest) / 1048576.0, many.size(), heap / 1048576.0));
            out.print(report);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "files-results.md"), report.toString());
        } finally {
            neo4j.close();
        }
    }

    private static String row(String what, double s, int files, double mb) {
        return String.format("| %s | %.1f | %.1f | %.2f |%n", what, s, files / s, mb / s);
    }

    private static ParseLimits limits() {
        return new ParseLimits(5_000_000, 300, () -> false);
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Heap pools' peak during one parse, above their use just before it (after a GC). */
    static long parsePeakHeap(Path file) {
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
        System.gc();
        long before = pools.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        ParsedFile parsed = FileParsers.parse(file, file.getFileName().toString(), limits());
        long peak = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        if (parsed.text().isEmpty()) throw new IllegalStateException("no text");
        return Math.max(0, peak - before);
    }

    /** A PDF of titled sections: 16 pt titles, 10 pt body lines wrapped at 95 characters, 60 lines a page. */
    static void pdf(Path file, List<Map<String, Object>> passages) throws IOException {
        PDType1Font body = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        PDType1Font bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
        try (PDDocument doc = new PDDocument()) {
            List<String[]> lines = new ArrayList<>(); // {kind, text}
            for (Map<String, Object> p : passages) {
                lines.add(new String[] {"h", latin1((String) p.getOrDefault("title", "Passage"))});
                for (String l : wrap(latin1((String) p.get("text")), 95)) lines.add(new String[] {"b", l});
                lines.add(new String[] {"gap", ""});
            }
            int i = 0;
            while (i < lines.size()) {
                PDPage page = new PDPage(PDRectangle.A4);
                doc.addPage(page);
                try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                    float y = 800;
                    for (int n = 0; n < 60 && i < lines.size(); n++, i++) {
                        String[] l = lines.get(i);
                        if (!l[0].equals("gap")) {
                            cs.beginText();
                            cs.setFont(l[0].equals("h") ? bold : body, l[0].equals("h") ? 16 : 10);
                            cs.newLineAtOffset(40, y);
                            cs.showText(l[1]);
                            cs.endText();
                        }
                        y -= l[0].equals("h") ? 22 : 13;
                    }
                }
            }
            doc.save(file.toFile());
        }
    }

    /** A DOCX of titled sections: Heading 1 titles, one paragraph per passage. */
    static void docx(Path file, List<Map<String, Object>> passages) throws IOException {
        try (XWPFDocument doc = new XWPFDocument(); OutputStream outStream = Files.newOutputStream(file)) {
            var styles = doc.createStyles();
            var ct = org.openxmlformats.schemas.wordprocessingml.x2006.main.CTStyle.Factory.newInstance();
            ct.setStyleId("Heading1");
            ct.addNewName().setVal("heading 1");
            ct.setType(org.openxmlformats.schemas.wordprocessingml.x2006.main.STStyleType.PARAGRAPH);
            styles.addStyle(new org.apache.poi.xwpf.usermodel.XWPFStyle(ct));
            for (Map<String, Object> p : passages) {
                var h = doc.createParagraph();
                h.setStyle("Heading1");
                h.createRun().setText((String) p.getOrDefault("title", "Passage"));
                doc.createParagraph().createRun().setText((String) p.get("text"));
            }
            doc.write(outStream);
        }
    }

    /** The standard fonts draw WinAnsi only: what is not ASCII becomes '?'. */
    private static String latin1(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) b.append(c >= 32 && c < 127 ? c : Character.isWhitespace(c) ? ' ' : '?');
        return b.toString();
    }

    private static List<String> wrap(String text, int width) {
        List<String> out = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String w : text.split(" +")) {
            if (line.length() + w.length() + 1 > width && line.length() > 0) {
                out.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) line.append(' ');
            line.append(w);
        }
        if (line.length() > 0) out.add(line.toString());
        return out;
    }
}
