package dev.graphrag.demo;

import dev.graphrag.procedures.EmbeddedNeo4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README command 1 in --once mode: ingest, query, print, exit 0; and data that persists across restarts. The demo is an
 * embedded Neo4j 5.26 (the README's command); the calendar line's embedded server is the procedures tests' own.
 */
@dev.graphrag.LineIndependent
class DemoServerTest {
    /**
     * One demo run (each starts a server) checks the bundled sample's printout, the LLM answer and the clean-up, and
     * runs every Cypher statement of docs/getting-started.md over Bolt against it, as a newcomer pastes them.
     */
    @Test
    void onceWithTheBundledSampleAndAnLlmIngestsPrintsSearchesAnswersRunsGettingStartedAndLeavesNothingBehind() throws Exception {
        long before = demoTempDirs();
        try (dev.graphrag.core.llm.StandInLlm llm = dev.graphrag.core.llm.StandInLlm.start()) {
            llm.when(dev.graphrag.core.llm.StandInLlm.lastUserContains("Question: Why is Xodar given to Carter as a slave?"))
                    .reply("As punishment for being defeated by Carter.");
            dev.graphrag.procedures.CypherScripts.standInRules(llm);
            Map<String, List<Map<String, Object>>> gettingStarted = new LinkedHashMap<>();
            String out = runDemo(neo4j -> gettingStarted.putAll(runGettingStarted(neo4j)),
                    "--once", "--bolt-port", "0", "--http-port", "-1", "--llm-endpoint", llm.endpoint(), "--llm-model", "stand-in");
            // getting-started as written: every statement returned rows (runGettingStarted fails on an error or none), and
            // what the page says of section 5's rows holds
            assertTrue(gettingStarted.size() >= 12, gettingStarted.keySet().toString());
            List<Map<String, Object>> files = gettingStarted.entrySet().stream().filter(e -> e.getKey().startsWith("CALL rag.ingest.files('samples/**'"))
                    .findFirst().orElseThrow().getValue();
            assertEquals(3, files.size(), files.toString());
            assertTrue(files.stream().allMatch(r -> "created".equals(r.get("status"))), files.toString());
            List<Map<String, Object>> cited = gettingStarted.entrySet().stream().filter(e -> e.getKey().startsWith("CALL rag.search('How is the pump mounted?', {corpus: 'manuals'"))
                    .findFirst().orElseThrow().getValue();
            assertTrue(cited.stream().anyMatch(r -> "samples/pump-manual.pdf".equals(r.get("documentId")) && List.of(2L).equals(r.get("pages"))
                    && "2 Installation".equals(r.get("section"))), "section 5's citation: " + cited);
            assertTrue(out.contains("documents by status {created=3}"), out);
            assertTrue(out.contains("Import directory (rag.ingest.files reads here): ") && out.contains("it holds 3 files: samples/"), out);
            assertFalse(out.contains("[SEP]"), "graph strings are printed for a person: " + out);
            assertTrue(out.contains("Q: Why is Xodar given to Carter as a slave?"), out);
            assertTrue(out.contains("[hybrid]") && out.contains("1. "), out);
            assertTrue(out.contains("default:gods-of-mars-"), out);
            assertTrue(out.contains("AGRAG index in") && out.contains("MCMI subgraph of"), out);
            assertTrue(out.contains("[agrag.retrieve ppr]"), out);
            String ppr = out.substring(out.indexOf("[agrag.retrieve ppr]"));
            assertTrue(ppr.contains("1. 1.000 (dense ") && ppr.contains("(ppr "), "rows name their source and its score: " + ppr);
            assertTrue(out.contains("LLM answer to \"Why is Xodar given to Carter as a slave?\""), out);
            assertTrue(out.contains("As punishment for being defeated by Carter."), out);
            // the demo's own answer call (with --llm-endpoint the server's LLM is configured, so AGRAG's filter asks it too)
            String prompt = llm.requests().stream().map(r -> r.lastUserContent()).filter(c -> c != null && c.startsWith("Passages:\n"))
                    .findFirst().orElseThrow();
            assertTrue(prompt.contains("Xodar") && prompt.contains("Passages:"), "the retrieved passages are in the prompt");
        }
        assertEquals(before, demoTempDirs(), "a finished demo removes its temporary database");
    }

    @Test
    void folderCorpusInAPersistentDataDirectory(@TempDir Path tmp) throws Exception {
        Path corpus = Files.createDirectories(tmp.resolve("corpus"));
        Files.writeString(corpus.resolve("a.txt"), "Deja Thoris is the princess of Helium.");
        Files.writeString(corpus.resolve("b.md"), "# Woola\nWoola is John Carter's loyal calot.");
        Files.writeString(corpus.resolve("c.html"), "<p>Helium is a city on Barsoom.</p>");
        Path data = tmp.resolve("data");
        String first = runDemo("--once", "--bolt-port", "-1", "--http-port", "-1", "--data", data.toString(),
                "--corpus", corpus.toString(), "--corpus-name", "folder", "--query", "Who is the princess of Helium?");
        assertTrue(first.contains("{created=2}"), first);
        assertTrue(first.contains("1 other files left out (c.html)") && first.contains("--import-dir"), "what --corpus does not read is named: " + first);
        assertTrue(first.contains("folder:a.txt:0"), first);
        assertTrue(first.contains("No LLM configured"), first);
        // the user's own import directory, and no --query: the sample's question is not asked of the user's files
        Path imports = Files.createDirectories(tmp.resolve("imports"));
        Files.writeString(imports.resolve("notes.md"), "# Notes\nThe pump is mounted on the north wall.");
        String second = runDemo("--once", "--bolt-port", "-1", "--http-port", "-1", "--data", data.toString(),
                "--corpus", corpus.toString(), "--corpus-name", "folder", "--import-dir", imports.toString());
        assertTrue(second.contains("{unchanged=2}"), "the data directory kept the graph: " + second);
        String files = second.substring(second.indexOf("Import directory"));
        assertTrue(files.startsWith("Import directory (rag.ingest.files reads here): " + imports.toAbsolutePath()) && files.contains("it holds 1 files: notes.md"), files);
        assertTrue(files.contains("Ask your files: CALL rag.search(") && !files.substring(0, files.indexOf("AGRAG index")).contains("Xodar"), files);
    }

    @Test
    void badArgumentsAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--bolt-port", "x"}))
                .getMessage().contains("--bolt-port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--frobnicate"}))
                .getMessage().contains("--frobnicate"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--corpus", "/no/such/file"}))
                .getMessage().contains("/no/such/file"));
        // --help is a request, not a mistake: main prints the usage and exits 0 on this
        assertThrows(DemoServer.HelpAsked.class, () -> DemoServer.parse(new String[] {"--import-dir", ".", "--help"}));
    }

    static long demoTempDirs() throws java.io.IOException {
        try (java.util.stream.Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("graphrag-demo")).count();
        }
    }

    @Test
    void aBusyPortIsNamedWithItsFlagAndNothingIsLeftBehind() throws Exception {
        long before = demoTempDirs();
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            int port = busy.getLocalPort();
            DemoServer.DemoException e = assertThrows(DemoServer.DemoException.class,
                    () -> runDemo("--once", "--bolt-port", String.valueOf(port), "--http-port", "-1"));
            assertTrue(e.getMessage().contains("Bolt port " + port + " on 127.0.0.1 is already in use") && e.getMessage().contains("--bolt-port N"), e.getMessage());
            e = assertThrows(DemoServer.DemoException.class, () -> runDemo("--once", "--bolt-port", "-1", "--http-port", String.valueOf(port)));
            assertTrue(e.getMessage().contains("HTTP port " + port) && e.getMessage().contains("--http-port N"), e.getMessage());
        }
        assertEquals(before, demoTempDirs(), "no temporary database left behind");
    }

    @Test
    void browserIsServedAndToldTheBoltPortTheServerListensOn(@TempDir Path tmp) throws Exception {
        int bolt;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            bolt = s.getLocalPort();
        }
        org.neo4j.harness.Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(tmp, null, "127.0.0.1", bolt, 0));
        try {
            java.net.http.HttpResponse<String> discovery = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(neo4j.httpURI()).header("Accept", "application/json").build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertTrue(discovery.body().contains("\"bolt_direct\":\"bolt://127.0.0.1:" + bolt + "\""), discovery.body());
            // and serves Neo4j Browser at /browser/, as the demo promises
            java.net.http.HttpResponse<String> browser = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(neo4j.httpURI() + "browser/")).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, browser.statusCode());
            assertTrue(browser.body().toLowerCase().contains("<html"), browser.body().substring(0, Math.min(200, browser.body().length())));
        } finally {
            neo4j.close();
        }
    }

    /** Every statement of the page's cypher blocks, in order, over Bolt: its rows by statement; an error or no row fails. */
    static Map<String, List<Map<String, Object>>> runGettingStarted(org.neo4j.harness.Neo4j neo4j) {
        Map<String, List<Map<String, Object>>> rows = new LinkedHashMap<>();
        try (org.neo4j.driver.Driver driver = org.neo4j.driver.GraphDatabase.driver(neo4j.boltURI(), org.neo4j.driver.AuthTokens.none());
             org.neo4j.driver.Session session = driver.session()) {
            Matcher block = Pattern.compile("```cypher\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(Path.of("..", "docs", "getting-started.md")));
            while (block.find()) {
                for (String statement : dev.graphrag.procedures.CypherScripts.statements(block.group(1))) {
                    List<Map<String, Object>> result;
                    try {
                        result = session.run(statement).list(org.neo4j.driver.Record::asMap);
                    } catch (RuntimeException e) {
                        throw new AssertionError("getting-started.md: " + statement + " failed: " + e.getMessage(), e);
                    }
                    assertFalse(result.isEmpty(), "getting-started.md: no rows from " + statement);
                    rows.put(statement, result);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return rows;
    }

    static String runDemo(String... args) throws Exception {
        return runDemo(neo4j -> {}, args);
    }

    static String runDemo(java.util.function.Consumer<org.neo4j.harness.Neo4j> whileUp, String... args) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = DemoServer.run(DemoServer.parse(args), new PrintStream(buf, true, StandardCharsets.UTF_8), whileUp);
        assertEquals(0, rc);
        return buf.toString(StandardCharsets.UTF_8);
    }
}
