package dev.graphrag.demo;

import dev.graphrag.procedures.EmbeddedNeo4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** README command 1 in --once mode: ingest, query, print, exit 0; and data that persists across restarts. */
class DemoServerTest {
    /** One demo run (each starts a server) checks the bundled sample's printout, the LLM answer and the clean-up. */
    @Test
    void onceWithTheBundledSampleAndAnLlmIngestsPrintsSearchesAnswersAndLeavesNothingBehind() throws Exception {
        long before = demoTempDirs();
        try (dev.graphrag.core.llm.StandInLlm llm = dev.graphrag.core.llm.StandInLlm.start()) {
            llm.when(dev.graphrag.core.llm.StandInLlm.lastUserContains("Question: Why is Xodar given to Carter as a slave?"))
                    .reply("As punishment for being defeated by Carter.");
            String out = runDemo("--once", "--bolt-port", "-1", "--http-port", "-1", "--llm-endpoint", llm.endpoint(), "--llm-model", "stand-in");
            assertTrue(out.contains("documents by status {created=3}"), out);
            assertTrue(out.contains("Q: Why is Xodar given to Carter as a slave?"), out);
            assertTrue(out.contains("[hybrid]") && out.contains("1. "), out);
            assertTrue(out.contains("default:gods-of-mars-"), out);
            assertTrue(out.contains("AGRAG index in") && out.contains("MCMI subgraph of"), out);
            assertTrue(out.contains("[agrag.retrieve ppr]"), out);
            String ppr = out.substring(out.indexOf("[agrag.retrieve ppr]"));
            assertTrue(ppr.contains("1. ") && ppr.contains("(dense)") && ppr.contains("(ppr)"), "rows name their source: " + ppr);
            assertTrue(out.contains("LLM answer to \"Why is Xodar given to Carter as a slave?\""), out);
            assertTrue(out.contains("As punishment for being defeated by Carter."), out);
            String prompt = llm.requests().get(0).lastUserContent();
            assertTrue(prompt.contains("Xodar") && prompt.contains("Passages:"), "the retrieved passages are in the prompt");
        }
        assertEquals(before, demoTempDirs(), "a finished demo removes its temporary database");
    }

    @Test
    void folderCorpusInAPersistentDataDirectory(@TempDir Path tmp) throws Exception {
        Path corpus = Files.createDirectories(tmp.resolve("corpus"));
        Files.writeString(corpus.resolve("a.txt"), "Deja Thoris is the princess of Helium.");
        Files.writeString(corpus.resolve("b.md"), "# Woola\nWoola is John Carter's loyal calot.");
        Path data = tmp.resolve("data");
        String first = runDemo("--once", "--bolt-port", "-1", "--http-port", "-1", "--data", data.toString(),
                "--corpus", corpus.toString(), "--corpus-name", "folder", "--query", "Who is the princess of Helium?");
        assertTrue(first.contains("{created=2}"), first);
        assertTrue(first.contains("folder:a.txt:0"), first);
        assertTrue(first.contains("No LLM configured"), first);
        String second = runDemo("--once", "--bolt-port", "-1", "--http-port", "-1", "--data", data.toString(),
                "--corpus", corpus.toString(), "--corpus-name", "folder", "--query", "Who is the princess of Helium?");
        assertTrue(second.contains("{unchanged=2}"), "the data directory kept the graph: " + second);
    }

    @Test
    void badArgumentsAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--bolt-port", "x"}))
                .getMessage().contains("--bolt-port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--frobnicate"}))
                .getMessage().contains("--frobnicate"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoServer.parse(new String[] {"--corpus", "/no/such/file"}))
                .getMessage().contains("/no/such/file"));
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

    static String runDemo(String... args) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = DemoServer.run(DemoServer.parse(args), new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertEquals(0, rc);
        return buf.toString(StandardCharsets.UTF_8);
    }
}
