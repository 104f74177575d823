package dev.graphrag.procedures;

import dev.graphrag.core.files.FileParsers;
import dev.graphrag.core.files.TestFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.lastCommittedTransaction;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rag.ingest.files on the shared server: formats, damaged files, incremental reruns, path safety, URLs, filters and citations. */
class IngestFilesTest {
    static final String INGEST_FILES = "CALL rag.ingest.files($source, $config)";

    private static Map<String, Map<String, Object>> byId(List<Map<String, Object>> rows) {
        Map<String, Map<String, Object>> out = new HashMap<>();
        for (Map<String, Object> r : rows) out.put((String) r.get("documentId"), r);
        return out;
    }

    private static Path importDir() {
        return TestServer.importDir();
    }

    @Test
    void everyFormatBecomesADocumentAndEveryDamagedFileItsStatusWithNothingWritten() throws Exception {
        Path d = importDir().resolve("formats");
        TestFiles.pdf(d.resolve("manual.pdf"), "Pump Manual", List.of(
                new TestFiles.PdfPage("1 Introduction", List.of("The Aquaflow pump moves water through the cooling loop.")),
                new TestFiles.PdfPage(null, List.of("The impeller spins at three thousand turns a minute.")),
                new TestFiles.PdfPage("2 Installation", List.of("Mount the Aquaflow pump on a concrete plinth with four anchor bolts."))));
        Path docx = TestFiles.docx(d.resolve("guide.docx"), "Guide", List.of(new String[] {"h1", "Overview"}, new String[] {"p", "The guide covers valves."},
                new String[] {"h2", "Valve table"}, new String[] {"table", "Valve,Size;gate,50;ball,25"}));
        TestFiles.pptx(d.resolve("deck.pptx"), List.of("Quarterly results slide", "Roadmap slide"));
        TestFiles.xlsx(d.resolve("prices.xlsx"), "Prices", List.of(List.of("item", "price"), List.of("anchor bolt", "3")));
        TestFiles.text(d.resolve("page.html"), "<html><head><title>Page</title></head><body><h1>Web page</h1><p>Served as HTML.</p></body></html>");
        TestFiles.text(d.resolve("notes.md"), "# Notes\n\nPlain notes in Markdown.\n\n## Later\n\nMore notes.");
        TestFiles.text(d.resolve("readme.txt"), "A plain text file.");
        TestFiles.encryptedPdf(d.resolve("bad/locked.pdf"));
        TestFiles.imageOnlyPdf(d.resolve("bad/scan.pdf"));
        TestFiles.truncated(d.resolve("manual.pdf"), d.resolve("bad/truncated.pdf"));
        TestFiles.randomBytes(d.resolve("bad/random.pdf"), 4096, 7);
        TestFiles.encryptedDocx(d.resolve("bad/locked.docx"));
        TestFiles.zipBombDocx(d.resolve("bad/bomb.docx"), 50);
        TestFiles.truncated(docx, d.resolve("bad/truncated.docx"));
        TestFiles.text(d.resolve("bad/data.bin"), "binary");
        List<Map<String, Object>> out = rows(INGEST_FILES, Map.of("source", "formats/**", "config", Map.of("corpus", "files-formats")));
        Map<String, Map<String, Object>> rows = byId(out);
        Map<String, String> status = out.stream().collect(Collectors.toMap(r -> (String) r.get("documentId"), r -> (String) r.get("status")));
        assertEquals(Map.ofEntries(Map.entry("formats/manual.pdf", "created"), Map.entry("formats/guide.docx", "created"),
                Map.entry("formats/deck.pptx", "created"), Map.entry("formats/prices.xlsx", "created"), Map.entry("formats/page.html", "created"),
                Map.entry("formats/notes.md", "created"), Map.entry("formats/readme.txt", "created"),
                Map.entry("formats/bad/locked.pdf", "failed"), Map.entry("formats/bad/scan.pdf", "no_text"),
                Map.entry("formats/bad/truncated.pdf", "failed"), Map.entry("formats/bad/random.pdf", "failed"),
                Map.entry("formats/bad/locked.docx", "failed"), Map.entry("formats/bad/bomb.docx", "failed"),
                Map.entry("formats/bad/truncated.docx", "failed"), Map.entry("formats/bad/data.bin", "failed")), status);
        assertTrue(((String) rows.get("formats/bad/locked.pdf").get("error")).contains("password-protected"));
        assertTrue(((String) rows.get("formats/bad/locked.docx").get("error")).contains("password-protected"));
        assertTrue(((String) rows.get("formats/bad/scan.pdf").get("error")).contains("no text layer"));
        assertTrue(((String) rows.get("formats/bad/bomb.docx").get("error")).contains("decompression bomb"));
        assertTrue(((String) rows.get("formats/bad/data.bin").get("error")).contains("unsupported file type '.bin'"));
        assertEquals(3L, rows.get("formats/manual.pdf").get("pages"));
        assertEquals(2L, rows.get("formats/deck.pptx").get("pages"));
        assertNull(rows.get("formats/guide.docx").get("pages"));
        assertEquals("application/pdf", rows.get("formats/manual.pdf").get("contentType"));
        // nothing of a failed file is in the graph, and the server still answers
        assertEquals(7L, count("MATCH (d:Document {corpus:'files-formats'}) RETURN count(d)", Map.of()));
        Map<String, Object> manual = rows("MATCH (d:Document {corpus:'files-formats', id:'formats/manual.pdf'}) RETURN d.title AS title, d.author AS author,"
                + " d.contentType AS type, d.pages AS pages, d.bytes AS bytes, d.sha256 AS sha, d.source AS source").get(0);
        assertEquals("Pump Manual", manual.get("title"));
        assertEquals("Test Author", manual.get("author"));
        assertEquals(3L, manual.get("pages"));
        assertEquals(Files.size(d.resolve("manual.pdf")), manual.get("bytes"));
        assertEquals(64, ((String) manual.get("sha")).length());
        assertEquals("formats/manual.pdf", manual.get("source"));
        assertEquals("Guide", rows("MATCH (d:Document {corpus:'files-formats', id:'formats/guide.docx'}) RETURN d.title AS t").get(0).get("t"));
        assertEquals("Notes", rows("MATCH (d:Document {corpus:'files-formats', id:'formats/notes.md'}) RETURN d.title AS t").get(0).get("t"));
        assertEquals("readme.txt", rows("MATCH (d:Document {corpus:'files-formats', id:'formats/readme.txt'}) RETURN d.title AS t").get(0).get("t"),
                "a file without a title or heading is titled by its name");
        // the table stays a table, in one chunk with its section
        Map<String, Object> table = rows("MATCH (c:Chunk {corpus:'files-formats', documentId:'formats/guide.docx'}) WHERE c.text CONTAINS '| gate |'"
                + " RETURN c.text AS text, c.kind AS kind, c.section AS section").get(0);
        assertEquals("table", table.get("kind"));
        assertEquals("Overview > Valve table", table.get("section"));
        // a page-level citation: the passage on page 3 says page 3 and its section
        Map<String, Object> hit = rows("CALL rag.search('Where do I mount the pump with anchor bolts?', {corpus:'files-formats', k:1, mode:'dense',"
                + " where:{documentId:'formats/manual.pdf'}}) YIELD documentId, text, pages, section RETURN *").get(0);
        assertTrue(((String) hit.get("text")).contains("concrete plinth"), hit.toString());
        assertEquals(List.of(3L), hit.get("pages"));
        assertEquals("2 Installation", hit.get("section"));
        Map<String, Object> page2 = rows("MATCH (c:Chunk {corpus:'files-formats', documentId:'formats/manual.pdf'}) WHERE c.text CONTAINS 'impeller'"
                + " RETURN c.pages AS pages, c.section AS section").get(0);
        assertArrayEquals(new long[] {1, 2}, (long[]) page2.get("pages"), "the first section runs from page 1 onto page 2");
        assertEquals("1 Introduction", page2.get("section"));
        assertFalse(count("MATCH (c:Chunk {corpus:'files-formats'}) WHERE c.text CONTAINS 'ACME Manual' OR c.text CONTAINS 'Page 2' RETURN count(c)",
                Map.of()) > 0, "running headers and page numbers are not content");

        // end to end: the chunk a (stand-in) model's answer cites carries the page its text is on
        String plinth = (String) rows("MATCH (c:Chunk {corpus:'files-formats', documentId:'formats/manual.pdf'}) WHERE c.text CONTAINS 'concrete plinth'"
                + " RETURN c.id AS id").get(0).get("id");
        try (dev.graphrag.core.llm.StandInLlm llm = dev.graphrag.core.llm.StandInLlm.start()) {
            llm.when(r -> "raga.L6".equals(r.step())).replyJson(Map.of("answer", "On a concrete plinth", "answer_type", "extractive",
                    "evidence_chunk_ids", List.of(plinth)));
            rows("CALL raga.setup({corpus: 'files-formats'})");
            Map<String, Object> answer = rows("CALL raga.answer('Where is the Aquaflow pump mounted?', {corpus: 'files-formats', mode: 'vector', topK: 3,"
                    + " llm: $llm}) YIELD answer, evidence RETURN *", Map.of("llm", Map.of("endpoint", llm.endpoint(), "model", "stand-in"))).get(0);
            Map<?, ?> cited = (Map<?, ?>) ((List<?>) answer.get("evidence")).get(0);
            assertEquals(plinth, cited.get("chunkId"));
            assertEquals(List.of(3L), cited.get("pages"), "the cited passage is on page 3 of the PDF");
            assertEquals("2 Installation", cited.get("section"));
            assertTrue(llm.requests().get(0).body().toString().contains("concrete plinth"), "the model was shown the passage it cites");
        }
    }

    @Test
    void aThousandFilesInOneCallThenUnchangedWithoutParsingThenThreeChangedAndTwoDeleted() throws Exception {
        Path d = importDir().resolve("many");
        for (int i = 0; i < 1000; i++) {
            TestFiles.text(d.resolve(String.format("f%04d.md", i)), "# File " + i + "\n\nFile number " + i + " tells of harbour " + (i * 7 % 1000) + ".");
        }
        Map<String, Object> cfg = Map.of("corpus", "files-many");
        List<Map<String, Object>> first = rows(INGEST_FILES, Map.of("source", "many/*.md", "config", cfg));
        assertEquals(1000, first.size());
        assertTrue(first.stream().allMatch(r -> "created".equals(r.get("status"))), first.get(0).toString());
        assertEquals(1000L, count("MATCH (d:Document {corpus:'files-many'}) RETURN count(d)", Map.of()));
        long parses = FileParsers.parses();
        long tx = lastCommittedTransaction();
        List<Map<String, Object>> again = rows(INGEST_FILES, Map.of("source", "many/*.md", "config", cfg));
        assertTrue(again.stream().allMatch(r -> "unchanged".equals(r.get("status"))));
        assertEquals(parses, FileParsers.parses(), "unchanged files are recognised by their bytes, not parsed");
        assertEquals(tx, lastCommittedTransaction(), "a rerun over unchanged files writes nothing");
        for (int i : new int[] {1, 2, 3}) TestFiles.text(d.resolve(String.format("f%04d.md", i)), "# File " + i + "\n\nRewritten text " + i + ".");
        Files.delete(d.resolve("f0010.md"));
        Files.delete(d.resolve("f0011.md"));
        List<Map<String, Object>> third = rows(INGEST_FILES, Map.of("source", "many/*.md", "config", Map.of("corpus", "files-many", "deleteMissing", true)));
        Map<String, Long> byStatus = third.stream().collect(Collectors.groupingBy(r -> (String) r.get("status"), Collectors.counting()));
        assertEquals(Map.of("unchanged", 995L, "updated", 3L, "deleted", 2L), byStatus);
        assertEquals(3, FileParsers.parses() - parses, "only the changed files are parsed");
        assertEquals(998L, count("MATCH (d:Document {corpus:'files-many'}) RETURN count(d)", Map.of()));
        assertEquals(1L, count("MATCH (c:Chunk {corpus:'files-many', documentId:'many/f0002.md'}) WHERE c.text CONTAINS 'Rewritten text 2' RETURN count(c)", Map.of()));
    }

    @Test
    void concurrentCallsOverTheSameFilesLeaveOneCopyOfEachAndReportTheirProgress() throws Exception {
        Path d = importDir().resolve("concurrent");
        for (int i = 0; i < 40; i++) TestFiles.text(d.resolve("c" + i + ".md"), "# Part " + i + "\n\nConcurrent text number " + i + ".");
        Map<String, Object> params = Map.of("source", "concurrent/*.md", "config", Map.of("corpus", "files-concurrent", "batchSize", 8L));
        var first = TestServer.inBackground(INGEST_FILES, params);
        var second = TestServer.inBackground(INGEST_FILES, params);
        assertNull(first.get(), "the first call succeeds");
        assertNull(second.get(), "the second call succeeds");
        assertEquals(40L, count("MATCH (d:Document {corpus:'files-concurrent'}) RETURN count(d)", Map.of()));
        assertEquals(40L, count("MATCH (c:Chunk {corpus:'files-concurrent'}) RETURN count(c)", Map.of()), "one copy of each file's chunk");
    }

    @Test
    void pathsThatLeaveTheImportDirectoryAndUrlsNotAllowedAreRefusedBeforeAnyRead() throws Exception {
        Path outside = Files.createTempFile("outside", ".md");
        Files.writeString(outside, "# Secret\n\nOutside the import directory.");
        Path link = importDir().resolve("escape/link.md");
        Files.createDirectories(link.getParent());
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, outside);
        Map<String, Object> cfg = Map.of("corpus", "files-escape");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "../outside.md", "config", cfg), "leaves the import directory", "'..'");
        assertFailsCleanly(INGEST_FILES, Map.of("source", outside.toString(), "config", cfg), "absolute path");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "escape/link.md", "config", cfg), "symbolic link");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "escape/*.md", "config", cfg), "symbolic link");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "file:///../etc/passwd", "config", cfg), "'..'");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "file://otherhost/x.md", "config", cfg), "names a host");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "https://example.com/a.pdf", "config", cfg), "is not allowed", "graphrag.ingest.allowedUrls");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "ftp://127.0.0.1/a.pdf", "config", cfg), "scheme");
        assertFailsCleanly(INGEST_FILES, Map.of("source", List.of(), "config", cfg), "empty list");
        assertFailsCleanly(INGEST_FILES, Map.of("source", 42L, "config", cfg), "source must be");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "escape", "config", cfg), "is a directory");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "x.md", "config", Map.of("metadata", Map.of("sha256", "x"))), "metadata key 'sha256'");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "x.md", "config", Map.of("maxFileBytes", 1L << 40)), "graphrag.ingest.maxFileBytes");
        assertFailsCleanly(INGEST_FILES, Map.of("source", "x.md", "config", Map.of("deleteMising", true)), "did you mean 'deleteMissing'");
        Files.delete(link);
        Files.delete(outside);
        // a file: URL inside the directory reads as its path; a missing file is a row, not an error
        TestFiles.text(importDir().resolve("urls/inside.md"), "# Inside\n\nRead through a file URL.");
        // and a glob that matches nothing is a row too, naming what the directory holds (a mistyped folder, say)
        Map<String, Map<String, Object>> out = byId(rows(INGEST_FILES, Map.of("source", List.of("file:///urls/inside.md", "urls/missing.md", "manuals/**"),
                "config", cfg)));
        assertEquals("created", out.get("urls/inside.md").get("status"));
        assertEquals("failed", out.get("urls/missing.md").get("status"));
        assertTrue(((String) out.get("urls/missing.md").get("error")).contains("no such file"));
        assertEquals("no_match", out.get("manuals/**").get("status"), out.toString());
        assertEquals(0L, out.get("manuals/**").get("chunks"));
        String why = (String) out.get("manuals/**").get("error");
        assertTrue(why.contains("no file in the import directory matches 'manuals/**'") && why.contains("urls/"), why);
    }

    @Test
    void anAllowedUrlIsFetchedAndItsFailuresAreRows() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] pdf = Files.readAllBytes(TestFiles.pdf(Files.createTempFile("served", ".pdf"), "Served", List.of(
                new TestFiles.PdfPage("Served manual", List.of("This PDF came over HTTP.")))));
        server.createContext("/docs/manual.pdf", ex -> { ex.sendResponseHeaders(200, pdf.length); ex.getResponseBody().write(pdf); ex.close(); });
        server.createContext("/docs/page", ex -> {
            byte[] b = "<html><body><h1>Served page</h1><p>HTML without an extension.</p></body></html>".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/docs/moved.pdf", ex -> { ex.getResponseHeaders().add("Location", "https://example.com/x.pdf"); ex.sendResponseHeaders(302, -1); ex.close(); });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/docs/";
            Map<String, Map<String, Object>> out = byId(rows(INGEST_FILES, Map.of("source", List.of(base + "manual.pdf", base + "page", base + "gone.pdf",
                    base + "moved.pdf"), "config", Map.of("corpus", "files-urls"))));
            assertEquals("created", out.get(base + "manual.pdf").get("status"));
            assertEquals(1L, out.get(base + "manual.pdf").get("pages"));
            assertEquals("created", out.get(base + "page").get("status"));
            assertEquals("text/html", out.get(base + "page").get("contentType"));
            assertEquals("failed", out.get(base + "gone.pdf").get("status"));
            assertTrue(((String) out.get(base + "gone.pdf").get("error")).contains("HTTP 404"));
            assertTrue(((String) out.get(base + "moved.pdf").get("error")).contains("redirects are not followed"));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aFilterKeepsEveryOtherDocumentOutOfEveryModeAndStillReturnsK() {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            docs.add(Map.of("id", "a" + i, "text", ("Team A report " + i + " on the harbour crane maintenance schedule. ").repeat(3),
                    "metadata", Map.of("team", "a", "year", 2020L + i, "tags", List.of("crane", "t" + i))));
            docs.add(Map.of("id", "b" + i, "text", "CANARY-B " + i + " harbour crane maintenance schedule of team B, most relevant of all. ",
                    "metadata", Map.of("team", "b", "year", 2020L + i)));
        }
        rows("CALL rag.ingest($docs, {corpus:'files-filter', chunkSize:32, chunkOverlap:0})", Map.of("docs", docs));
        // chunks of team A that BM25 can find too (a chunk may be a lone '.')
        long chunksA = count("MATCH (c:Chunk {corpus:'files-filter'}) WHERE c.documentId STARTS WITH 'a' AND c.text CONTAINS 'crane' RETURN count(c)", Map.of());
        assertTrue(chunksA >= 6);
        long chunksA0 = count("MATCH (c:Chunk {corpus:'files-filter', documentId:'a0'}) WHERE c.text CONTAINS 'crane' RETURN count(c)", Map.of());
        for (String mode : List.of("dense", "bm25", "hybrid", "rrf")) {
            List<Map<String, Object>> hits = rows("CALL rag.search('CANARY-B harbour crane maintenance schedule', {corpus:'files-filter', k:$k, mode:$mode,"
                    + " where:{team:'a'}}) YIELD documentId, text RETURN *", Map.of("k", chunksA, "mode", mode));
            assertEquals(chunksA, hits.size(), mode + ": k rows when k chunks pass the filter");
            assertTrue(hits.stream().allMatch(h -> ((String) h.get("documentId")).startsWith("a") && !((String) h.get("text")).contains("CANARY")), mode);
            List<Map<String, Object>> narrow = rows("CALL rag.search('harbour crane', {corpus:'files-filter', k:3, mode:$mode,"
                    + " where:{year:{gte:2024}, tags:{`$in`:['t4','t5']}}}) YIELD documentId RETURN documentId", Map.of("mode", mode));
            assertFalse(narrow.isEmpty(), mode);
            assertTrue(narrow.stream().allMatch(h -> List.of("a4", "a5").contains(h.get("documentId"))), mode + " " + narrow);
            // or/not as LangChain4j and Spring AI filters arrive: team a, or a year none has, and not a0
            List<Map<String, Object>> tree = rows("CALL rag.search('CANARY-B harbour crane maintenance schedule', {corpus:'files-filter', k:$k, mode:$mode,"
                    + " where:{`$or`:[{team:'a'}, {year:{gt:2030}}], not:{documentId:'a0'}}}) YIELD documentId, text RETURN *", Map.of("k", chunksA - chunksA0, "mode", mode));
            assertEquals(chunksA - chunksA0, tree.size(), mode + ": k rows when k chunks pass an or/not filter");
            assertTrue(tree.stream().allMatch(h -> ((String) h.get("documentId")).startsWith("a") && !h.get("documentId").equals("a0")
                    && !((String) h.get("text")).contains("CANARY")), mode + " " + tree);
        }
        assertEquals(List.of("b0"), rows("CALL rag.search('crane', {corpus:'files-filter', k:5, mode:'dense', where:{documentId:'b0'}}) YIELD documentId"
                + " RETURN DISTINCT documentId").stream().map(r -> r.get("documentId")).toList());
        assertTrue(rows("CALL rag.search('crane', {corpus:'files-filter', where:{team:{exists:false}}}) YIELD documentId RETURN *").isEmpty());
        // nothing passes because no document is of team c: no rows, no error; a misspelt property or a value of another type
        // than the corpus stores cannot match at all, and says so
        assertTrue(rows("CALL rag.search('crane', {corpus:'files-filter', where:{team:'c'}}) YIELD documentId RETURN *").isEmpty());
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{tema:'a'}})", Map.of(), "rag.search: where tema eq a matches no document"
                + " of corpus 'files-filter': no Document has the property 'tema' (did you mean 'team'?); its Documents have [", "documentId", "year");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{year:{gte:'2024'}}})", Map.of(), "'year' is stored as NUMBER and the where"
                + " compares it with the STRING '2024'; give the value as NUMBER");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{year:{in:['2024', '2025']}, team:'a'}})", Map.of(), "STRING '2024'");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{or:[{tema:'a'}, {year:'2024'}]}})", Map.of(),
                "no branch of the or can match: no Document has the property 'tema'", "'year' is stored as NUMBER");
        assertFalse(rows("CALL rag.search('crane', {corpus:'files-filter', where:{or:[{tema:'a'}, {team:'a'}]}}) YIELD documentId RETURN *").isEmpty(),
                "an or with one branch that can match is no error");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{or:[{team:'a'}, {team:{in:'b'}}]}})", Map.of(), "where $or[1].team.$in");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{team:{like:'a'}}})", Map.of(), "unknown operator 'like'", "startsWith");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{`team) OR true //`:'a'}})", Map.of(), "is not a property name");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:{team:{in:[]}}})", Map.of(), "non-empty LIST");
        TestServer.assertFails("CALL rag.search('crane', {corpus:'files-filter', where:'team=a'})", Map.of(), "where must be a MAP");
    }
}
