package dev.graphrag.procedures;

import dev.graphrag.core.files.TestFiles;
import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Driver;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.Values;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deployable jar in a real Neo4j server, loaded the way a server loads a plugin: a server home whose lib/ is the
 * runtime closure of org.neo4j:neo4j from Maven Central (server-home/), the shaded jar in plugins/ (alone on the
 * calendar line; beside APOC's jars from Maven Central on 5.26, with lib/ as docs/operations.md says it must be for
 * APOC: without hadoop-common), settings in conf/neo4j.conf and conf/graphrag.conf, started in a child JVM by Neo4j's
 * own bootloader as `bin/neo4j console` does. Then, over Bolt with the official driver: ingest, search, an LLM-free
 * AGRAG layer and retrieval, and an LLM call that takes the endpoint and key from the server's graphrag.conf; the
 * tokenizer is Hugging Face's native one. After a clean stop, java.io.tmpdir (set to the home's tmp/) holds no ONNX
 * Runtime directory. One server serves every test here (each start costs half a minute); the APOC conflict needs a
 * lib/ of its own (RealServerApocTest).
 */
class RealServerTest {
    static final String SERVER_KEY = "sk-real-server-conf";
    static final String DATABASE = "corpora";
    static ServerHome server;
    static StandInLlm llm;

    @BeforeAll
    static void start() throws Exception {
        llm = StandInLlm.start();
        // the bundled model's tokenizer read by Hugging Face's library (same ids as the built-in, TokenizerEngineTest): so the
        // native library DJL ships is loaded from the shaded jar inside a real server, as a BPE or Unigram model needs
        // the database is not called neo4j: nothing in the plugin may assume the default database's name (caches, locks,
        // jobs and the warm-up are keyed by the database a call runs in; docs/operations.md "Beyond one machine")
        // APOC's jars exist for the 5.26 line only (no calendar APOC on Maven Central)
        boolean apoc = Files.isDirectory(ServerHome.APOC);
        List<String> conf = new java.util.ArrayList<>(List.of("initial.dbms.default_database=" + DATABASE, "server.directories.import=import"));
        if (apoc) conf.add("dbms.security.procedures.unrestricted=apoc.*");
        server = ServerHome.start(apoc ? RealServerApocTest.WITHOUT_HADOOP_COMMON : jar -> true, apoc ? RealServerApocTest.apocJars() : List.of(), conf,
                List.of("graphrag.llm.endpoint=" + llm.endpoint(), "graphrag.llm.model=stand-in", "graphrag.llm.apiKey=" + SERVER_KEY,
                        "graphrag.embedding.tokenizerEngine=huggingface"));
        SampleFiles.copyTo(server.home.resolve("import")); // for cypher/rag/02-files.cypher
    }

    @AfterAll
    static void stop() throws Exception {
        if (llm != null) llm.close();
        if (server != null) assertEquals(List.of(), server.stop(), "a clean stop leaves no ONNX Runtime directory in java.io.tmpdir");
    }

    /**
     * Every cypher/ walk-through, statement by statement, over Bolt. This server has no GDS, as a plugin-only install
     * would not: the statements that ask for GDS (a projection, pprEngine 'gds') are left to ProcedurePagesTest's
     * example data, whose embedded server has it, and the rest must return rows.
     */
    @Test
    void theCypherWalkThroughsRunOverBolt() throws IOException {
        llm.reset();
        CypherScripts.standInRules(llm);
        Map<String, Object> params = Map.of("llm", Map.of("endpoint", llm.endpoint(), "model", "stand-in"));
        int ran = 0, needGds = 0;
        try (Driver driver = server.driver(); Session session = driver.session()) {
            for (Path f : CypherScripts.files()) {
                for (String statement : CypherScripts.statements(Files.readString(f))) {
                    if (statement.contains("agrag.project(") || statement.contains("pprEngine: 'gds'")) {
                        needGds++;
                        continue;
                    }
                    assertFalse(session.run(statement, params).list().isEmpty(), f.getFileName() + ": no rows from: " + statement);
                    ran++;
                }
            }
        }
        assertEquals(2, needGds, "the statements that need GDS");
        assertTrue(ran > 20, "walk-through statements run over Bolt: " + ran);
    }

    /**
     * The file parsers inside the shaded jar, on the server's own lib/ (its Commons IO, Compress and Lang, not the
     * build's): every format rag.ingest.files documents, read from the server's import directory.
     */
    @Test
    void everyFileFormatIsReadByTheDeployedJar() throws Exception {
        Path dir = server.home.resolve("import/docs");
        TestFiles.pdf(dir.resolve("manual.pdf"), "Manual", List.of(new TestFiles.PdfPage("1 Setup", List.of("Install the pump on a plinth.")),
                new TestFiles.PdfPage("2 Use", List.of("Start the pump with the green switch."))));
        TestFiles.docx(dir.resolve("guide.docx"), "Guide", List.<String[]>of(new String[] {"h1", "Guide"}, new String[] {"p", "Valves open left."}));
        TestFiles.pptx(dir.resolve("deck.pptx"), List.of("Slide about pumps"));
        TestFiles.xlsx(dir.resolve("sheet.xlsx"), "Parts", List.of(List.of("part", "count"), List.of("bolt", "4")));
        TestFiles.odt(dir.resolve("notes.odt"), "Notes", "Open document notes.");
        TestFiles.rtf(dir.resolve("memo.rtf"), "Memo", "Rich text memo.");
        TestFiles.epub(dir.resolve("book.epub"), "Book", "Chapter", "An electronic book.");
        TestFiles.text(dir.resolve("page.html"), "<html><body><h1>Page</h1><p>Hypertext.</p></body></html>");
        TestFiles.text(dir.resolve("readme.md"), "# Readme\n\nMarkdown text.");
        TestFiles.text(dir.resolve("plain.txt"), "Plain text.");
        TestFiles.zipBombDocx(dir.resolve("bomb.docx"), 20);
        try (Driver driver = server.driver(); Session session = driver.session()) {
            Map<String, String> status = new java.util.TreeMap<>();
            session.run("CALL rag.ingest.files('docs/*', {corpus: 'real-files'})").list()
                    .forEach(r -> status.put(r.get("documentId").asString(), r.get("status").asString()));
            Map<String, String> expected = new java.util.TreeMap<>();
            for (String f : List.of("manual.pdf", "guide.docx", "deck.pptx", "sheet.xlsx", "notes.odt", "memo.rtf", "book.epub", "page.html",
                    "readme.md", "plain.txt")) expected.put("docs/" + f, "created");
            expected.put("docs/bomb.docx", "failed");
            assertEquals(expected, status);
            Record hit = session.run("CALL rag.search('green switch', {corpus: 'real-files', k: 1, where: {contentType: 'application/pdf'}})"
                    + " YIELD documentId, pages, section RETURN *").single();
            assertEquals("docs/manual.pdf", hit.get("documentId").asString());
            assertEquals(List.of(2L), hit.get("pages").asList());
            assertEquals("2 Use", hit.get("section").asString());
        }
        assertFalse(server.log().contains("NoSuchMethodError") || server.log().contains("NoClassDefFoundError"), server.tail());
    }

    /** The combination docs/operations.md documents: APOC answers, and the plugin's LLM call reaches its endpoint. */
    @Test
    @org.junit.jupiter.api.Tag("apoc")
    void besideApocWithoutHadoopCommonApocAndTheLlmCallBothWork() throws IOException {
        assertFalse(server.log().contains("cannot open HTTP connections"), "no warning: " + server.tail());
        llm.reset();
        llm.when(StandInLlm.lastUserContains("Who wrote Brand?")).reply("Henrik Ibsen.");
        try (Driver driver = server.driver(); Session session = driver.session()) {
            assertTrue(session.run("RETURN apoc.version() AS v").single().get("v").asString().startsWith("5.26"));
            assertEquals("Henrik Ibsen.", session.run("CALL rag.llm.chat([{role: 'user', content: 'Who wrote Brand?'}]) YIELD content RETURN content")
                    .single().get("content").asString());
            assertEquals(List.of("hello"), session.run("RETURN apoc.coll.toSet(['hello', 'hello']) AS s").single().get("s").asList());
        }
        assertEquals(1, llm.requests().size());
    }

    @Test
    void thePluginJarServesEveryNamespaceOverBolt() throws IOException {
        llm.reset();
        try (Driver driver = server.driver(); Session session = driver.session()) {
            List<String> names = session.run("SHOW PROCEDURES YIELD name WHERE name =~ '(rag|agrag|remind|hgmem|raga)\\\\..*' RETURN name").list(r -> r.get("name").asString());
            for (String ns : List.of("rag.", "agrag.", "remind.", "hgmem.", "raga.")) assertTrue(names.stream().anyMatch(n -> n.startsWith(ns)), ns + "* registered: " + names);
            assertTrue(names.contains("rag.ingest") && names.contains("agrag.retrieve") && names.contains("remind.answer"));
            assertEquals(DATABASE, session.run("CALL db.info() YIELD name RETURN name").single().get("name").asString());

            List<Map<String, Object>> docs = List.of(
                    Map.of("id", "hawke", "title", "Ethan Hawke", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke starred in Sinister."),
                    Map.of("id", "sinister", "title", "Sinister", "text", "Sinister is a horror film directed by Scott Derrickson. Ethan Hawke plays a writer."),
                    Map.of("id", "austin", "title", "Austin", "text", "Austin is the capital of Texas and home of the University of Texas."));
            long chunks = session.run("CALL rag.ingest($docs, {corpus: 'real'}) YIELD chunks RETURN sum(chunks) AS n", Values.parameters("docs", docs)).single().get("n").asLong();
            assertEquals(3, chunks);
            Record top = session.run("CALL rag.search('Who directed Sinister?', {corpus: 'real', k: 3}) YIELD documentId, score RETURN documentId, score LIMIT 1").single();
            assertEquals("sinister", top.get("documentId").asString(), "real embeddings in the server's own model");
            session.run("CALL agrag.index({corpus: 'real', relations: 'cooccurrence'})").consume();
            List<String> retrieved = session.run("CALL agrag.retrieve('Where was the star of Sinister born?', {corpus: 'real', k: 3, filter: false}) YIELD documentId RETURN documentId")
                    .list(r -> r.get("documentId").asString());
            assertTrue(retrieved.contains("hawke"), "agrag.retrieve over the real server: " + retrieved);
            // a session that names the database, as a driver routed to a member or a composite's constituent does
            try (Session named = driver.session(org.neo4j.driver.SessionConfig.forDatabase(DATABASE))) {
                assertEquals(retrieved, named.run("CALL agrag.retrieve('Where was the star of Sinister born?', {corpus: 'real', k: 3, filter: false}) YIELD documentId "
                        + "RETURN documentId").list(r -> r.get("documentId").asString()));
                assertEquals(3L, named.run("CALL rag.info() YIELD corpora RETURN [c IN corpora WHERE c.name = 'real' | c.chunks][0] AS chunks")
                        .single().get("chunks").asLong());
            }

            // the LLM endpoint and key come from the server's conf/graphrag.conf
            llm.when(StandInLlm.lastUserContains("Sinister")).reply("Scott Derrickson.");
            Record chat = session.run("CALL rag.llm.chat([{role: 'user', content: 'Who directed Sinister?'}]) YIELD content, promptTokens RETURN content, promptTokens").single();
            assertEquals("Scott Derrickson.", chat.get("content").asString());
            assertEquals("Bearer " + SERVER_KEY, llm.requests().get(llm.requests().size() - 1).authorization());
            assertFalse(chat.toString().contains(SERVER_KEY));
        }
        String out = server.log();
        assertFalse(out.contains(SERVER_KEY), "the key is never logged");
        assertFalse(out.contains("UnsupportedClassVersionError") || out.contains("Failed to load"), "the jar loads without warnings: " + server.tail());
    }
}
