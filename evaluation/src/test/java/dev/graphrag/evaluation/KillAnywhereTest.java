package dev.graphrag.evaluation;

import dev.graphrag.LineIndependent;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.procedures.TestJvm;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Killed anywhere, resumed exactly: a server process (the embedded server with its store on disk, in a JVM of its own)
 * builds all four layers at once, each on its own copy of a corpus, each build started so that a SIGKILL falls at a
 * seeded share (5-95 %) of its clean duration; the server is started again on the same store and each build is called
 * again. Two kills, so each layer is cut at two seeded points (in extraction, in its writes, in a commit of its small
 * batches: wherever the moment falls; the points are printed). Every finished layer's census (entities,
 * relations, mentions, provenance, by content, ids and corpus names left out) equals a clean build's of the same
 * corpus, the layer is ready, and LayerCensus finds no duplicate, orphan or misplaced quote.
 */
@LineIndependent
class KillAnywhereTest {
    static final List<String> LAYERS = List.of("agrag", "remind", "hgmem", "raga");
    static final long SEED = 20261128L;
    static final int KILLS = 2;

    @Test
    void everyLayerBuildKilledAtRandomPointsResumesToTheCleanBuildsGraph() throws Exception {
        Path dir = Files.createTempDirectory("kill-anywhere");
        // 16 paragraphs: each build long enough for a kill to fall inside it, short enough for four server starts in the suite
        List<Map<String, Object>> docs = documents(16);
        try (EvalLlmServer llm = EvalLlmServer.start()) {
            Path gold = dir.resolve("gold.json");
            OracleGold.build(OracleGold.fromMusique(EvaluationCommandTest.MUSIQUE), gold);
            OraclePolicies.register(llm, OracleGold.load(gold), List.of(EvaluatedMethod.AGRAG, EvaluatedMethod.REMIND, EvaluatedMethod.HGMEM,
                    EvaluatedMethod.RAGA));
            Path store = dir.resolve("store");
            int bolt = freePort();
            Process server = start(store, bolt, dir);
            Map<String, Long> cleanMs = new LinkedHashMap<>();
            try (Driver d = driver(bolt)) {
                for (String c : corpora()) run(d, "CALL rag.ingest($docs, {corpus: $c}) YIELD documentId RETURN count(*) AS n", Map.of("docs", docs, "c", c));
                // each layer alone: in the cut runs the four overlap and each takes longer, so a share of its lone duration
                // falls inside its build (timed beside the others, kills fell after the faster layers had finished)
                for (String layer : LAYERS) {
                    long t0 = System.nanoTime();
                    build(d, layer, "clean", llm);
                    cleanMs.put(layer, (System.nanoTime() - t0) / 1_000_000);
                }
            }
            Random random = new Random(SEED);
            List<String> points = new ArrayList<>();
            for (int k = 1; k <= KILLS; k++) {
                String corpus = "cut" + k;
                // each layer's build starts so that the kill falls at a seeded share (5-95 %) of its clean duration: all four are cut mid-build
                Map<String, Long> into = new LinkedHashMap<>();
                for (String layer : LAYERS) into.put(layer, (long) ((0.05 + 0.9 * random.nextDouble()) * cleanMs.get(layer)));
                long killAt = into.values().stream().mapToLong(Long::longValue).max().orElseThrow() + 200;
                Map<String, CompletableFuture<Void>> running = new LinkedHashMap<>();
                long t0 = System.nanoTime();
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(LAYERS.size());
                try (Driver d = driver(bolt)) {
                    for (String layer : LAYERS) {
                        long startAt = killAt - into.get(layer);
                        running.put(layer, CompletableFuture.runAsync(() -> {
                            sleepUntil(t0, startAt);
                            build(d, layer, corpus, llm);
                        }, pool)); // a thread each: the common pool has one thread on a 2-core machine
                    }
                    sleepUntil(t0, killAt);
                    server.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no shutdown hook, no flush
                    for (CompletableFuture<Void> f : running.values()) {
                        try {
                            f.get(30, TimeUnit.SECONDS);
                        } catch (Exception expected) {
                            // the connection died with the server
                        }
                    }
                } finally {
                    pool.shutdownNow();
                }
                server = start(store, bolt, dir);
                try (Driver d = driver(bolt)) {
                    StringBuilder p = new StringBuilder("kill " + k + ":");
                    for (String layer : LAYERS) {
                        p.append(' ').append(layer).append(" at ").append(into.get(layer)).append(" ms ").append(progress(d, layer, corpus));
                    }
                    points.add(p.toString());
                    for (String layer : LAYERS) build(d, layer, corpus, llm);
                }
            }
            try (Driver d = driver(bolt)) {
                Target t = target(d);
                for (String layer : LAYERS) {
                    List<Object> clean = census(d, layer, "clean");
                    assertTrue(((List<?>) clean.get(0)).size() > 3, layer + ": the clean build made something: " + clean);
                    for (int k = 1; k <= KILLS; k++) {
                        String corpus = "cut" + k;
                        assertEquals(clean, census(d, layer, corpus), layer + " cut at kill " + k + " (" + points.get(k - 1) + ") resumed to the clean build's graph");
                        Map<String, Object> integrity = LayerCensus.of(t, layer, corpus);
                        assertEquals("ready", integrity.get("state"), layer + " " + corpus + ": " + integrity);
                        assertEquals(List.of(), integrity.get("problems"), layer + " " + corpus);
                    }
                }
            } finally {
                server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            System.out.println("kill points (clean builds " + cleanMs + " ms):\n" + String.join("\n", points));
        }
    }

    static void sleepUntil(long t0, long ms) {
        long left = ms - (System.nanoTime() - t0) / 1_000_000;
        try {
            if (left > 0) Thread.sleep(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static List<String> corpora() {
        List<String> out = new ArrayList<>(List.of("clean"));
        for (int k = 1; k <= KILLS; k++) out.add("cut" + k);
        return out;
    }

    /** The first n paragraphs of the MuSiQue sample's questions, as {id, title, text}. */
    static List<Map<String, Object>> documents(int n) throws Exception {
        List<Map<String, Object>> out = new ArrayList<>();
        for (var q : EvaluationCommandTest.JSON.readTree(EvaluationCommandTest.MUSIQUE.toFile())) {
            for (var p : q.path("paragraphs")) {
                if (out.size() >= n) return out;
                out.add(Map.of("id", "p" + out.size(), "title", p.path("title").asText(), "text", p.path("paragraph_text").asText()));
            }
        }
        return out;
    }

    static void build(Driver d, String layer, String corpus, EvalLlmServer llm) {
        Map<String, Object> cfg = new LinkedHashMap<>(OraclePolicies.fixedConfig(layer.equals("raga") ? "raga.ingest" : layer + ".index"));
        cfg.put("corpus", corpus);
        cfg.put("llm", llm.llmConfig());
        if (!layer.equals("raga")) cfg.put("batchSize", 20L); // small batches: many commits for a kill to fall into
        String call = layer.equals("raga") ? "CALL raga.ingest([], $cfg) YIELD kind RETURN count(*) AS n" : "CALL " + layer + ".index($cfg) YIELD ms RETURN ms";
        run(d, call, Map.of("cfg", cfg));
    }

    /** How far a layer had got when the server died: its state and what it had stored. */
    static String progress(Driver d, String layer, String corpus) {
        String q = switch (layer) {
            case "agrag" -> "CALL agrag.info({corpus: $c}) YIELD state RETURN state + ', ' + COUNT { (c:Chunk {corpus: $c}) WHERE c.agragTriples IS NOT NULL } + ' chunks extracted' AS x";
            case "remind" -> "CALL remind.info({corpus: $c}) YIELD state, anchors RETURN state + ', ' + anchors + ' anchors' AS x";
            case "hgmem" -> "CALL hgmem.info({corpus: $c}) YIELD state, entities RETURN state + ', ' + entities + ' entities' AS x";
            default -> "CALL raga.info({corpus: $c}) YIELD chunks, chunksArchived RETURN chunksArchived + ' of ' + chunks + ' chunks read' AS x";
        };
        try {
            return "(" + run(d, q, Map.of("c", corpus)).get(0).get("x") + ")";
        } catch (RuntimeException e) {
            return "(not started)";
        }
    }

    /** What a layer holds, by content: ids, times, vectors and the corpus name left out. */
    static List<Object> census(Driver d, String layer, String corpus) {
        List<String> queries = switch (layer) {
            case "agrag" -> List.of("MATCH (e:AgEntity {corpus: $c}) RETURN e.name AS x",
                    "MATCH (:AgEntity {corpus: $c})-[r:AG_REL]->() RETURN r.subject + '|' + r.predicate + '|' + r.object + '|' + r.pprWeight AS x",
                    "MATCH (ch:Chunk {corpus: $c})-[:AG_CONTAINS]->(e) RETURN ch.documentId + '#' + ch.index + '|' + e.name AS x",
                    "MATCH (a:AgEntity {corpus: $c})-[:AG_SYNONYM]->(b) RETURN a.name + '~' + b.name AS x");
            case "remind" -> List.of("MATCH (e:RmEntity {corpus: $c}) RETURN e.name AS x",
                    "MATCH (a:RmEntity {corpus: $c})-[r:RM_RELATION]->(b) RETURN a.name + '|' + r.text + '|' + b.name AS x",
                    "MATCH (e:RmEntity {corpus: $c})-[:RM_MENTIONED_IN]->(a:RmAnchor) RETURN e.name + '@' + a.documentId + '#' + a.index AS x",
                    "MATCH (a:RmAnchor {corpus: $c})-[:RM_NEXT]->(b) RETURN a.documentId + '#' + a.index + '>' + b.documentId + '#' + b.index AS x",
                    "MATCH (a:RmAnchor {corpus: $c}) RETURN a.documentId + '#' + a.index + '|' + a.title AS x");
            case "hgmem" -> List.of("MATCH (e:HgEntity {corpus: $c}) RETURN e.name + '|' + coalesce(e.type, '') + '|' + coalesce(e.description, '') AS x",
                    "MATCH (a:HgEntity {corpus: $c})-[r:HG_RELATED]->(b) RETURN a.name + '|' + b.name + '|' + coalesce(r.weight, 0) + '|' + coalesce(r.description, '') AS x",
                    "MATCH (ch:Chunk {corpus: $c})-[:HG_MENTIONS]->(e) RETURN ch.documentId + '#' + ch.index + '|' + e.name AS x");
            default -> List.of("MATCH (e:RagaEntity {corpus: $c}) RETURN e.name + '|' + e.entityType + '|' + e.confidence AS x",
                    "MATCH (h:RagaEntity {corpus: $c})-[r:RAGA_REL]->(t) RETURN h.name + '-' + r.relType + '->' + t.name + '|' + r.deleted AS x",
                    "MATCH (p:RagaProvenance {corpus: $c}) RETURN p.op + '|' + p.tool + '|' + coalesce(p.chunkId, '') + '|' + coalesce(p.start, -1) + ':' + coalesce(p.end, -1) AS x",
                    "MATCH (c:Chunk {corpus: $c})-[m:RAGA_MENTIONS_ENTITY]->(e) RETURN c.index + '|' + e.name + '|' + m.count AS x",
                    "MATCH (a:RagaAlias {corpus: $c})-[:RAGA_ALIAS_OF]->(e) RETURN a.key + '>' + e.name AS x");
        };
        List<Object> out = new ArrayList<>();
        for (String q : queries) {
            List<String> xs = new ArrayList<>();
            for (Map<String, Object> r : run(d, q, Map.of("c", corpus))) xs.add(String.valueOf(r.get("x")).replace(corpus + ":", ""));
            java.util.Collections.sort(xs);
            out.add(xs);
        }
        return out;
    }

    static List<Map<String, Object>> run(Driver d, String cypher, Map<String, Object> params) {
        try (Session s = d.session()) {
            return s.run(cypher, params).list(r -> r.asMap());
        }
    }

    static Target target(Driver d) {
        return new Target() {
            public List<Map<String, Object>> rows(String cypher, Map<String, Object> params) { return run(d, cypher, params); }

            public String describe() { return "the killable server"; }

            public void close() { }
        };
    }

    static Driver driver(int bolt) {
        Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.none());
        d.verifyConnectivity();
        return d;
    }

    static Process start(Path store, int bolt, Path dir) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1200m"));
        cmd.addAll(TestJvm.jitFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.graphrag.procedures.KillableServer", store.toString(), String.valueOf(bolt)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.equals("ready")) break;
            assertTrue(System.nanoTime() < deadline, "the server did not start: " + seen);
        }
        assertTrue(p.isAlive(), "the server exited: " + seen);
        // keep draining its output so a full pipe never blocks it
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) { }
            } catch (java.io.IOException e) {
                // the process died
            }
        });
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
