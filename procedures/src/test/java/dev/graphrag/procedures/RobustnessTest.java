package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Values;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The platform under a hostile or careless user of a shared database: terminated calls, concurrent Bolt clients,
 * oversized and deeply nested input, endpoints nobody allowed. Each test is one item of docs/security.md.
 */
class RobustnessTest {
    static final StandInLlm LLM = StandInLlm.start();
    static final String INGEST = "CALL rag.ingest($docs, $config) YIELD documentId, status RETURN documentId, status";

    @AfterAll
    static void stop() {
        LLM.close();
    }

    /** Text of distinct-looking words, so chunks and embeddings are realistic. */
    static String words(long seed, int count) {
        Random r = new Random(seed);
        String[] vocabulary = ("mars barsoom carter thoris sword airship city desert river temple goddess pirate jeddak moon "
                + "canal warrior princess prison escape battle fleet throne ancient green white black red yellow").split(" ");
        StringBuilder b = new StringBuilder(count * 7);
        for (int i = 0; i < count; i++) {
            b.append(vocabulary[r.nextInt(vocabulary.length)]).append(r.nextInt(50)).append(i % 17 == 16 ? ". " : " ");
        }
        return b.toString();
    }

    static <T> List<T> concurrently(int n, java.util.function.IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<T>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) fs.add(pool.submit(task.apply(i)));
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) out.add(f.get(5, TimeUnit.MINUTES));
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aTerminatedIngestStopsPromptlyAndCommitsNothingMore() throws Exception {
        rows(INGEST, Map.of("docs", List.of(Map.of("id", "seed", "text", "a first small document")), "config", Map.of("corpus", "term")));
        long before = TestServer.lastCommittedTransaction();
        String big = words(7, 120_000); // about 2,000 chunks: minutes of embedding on two cores
        CompletableFuture<Throwable> call = TestServer.inBackground(INGEST, Map.of("docs", List.of(Map.of("id", "big", "text", big),
                Map.of("id", "small", "text", "short text")), "config", Map.of("corpus", "term", "batchSize", 1L)));
        String id = TestServer.runningTransaction("CALL rag.ingest", () -> true);
        assertNotNull(id, "the ingest never showed up");
        Thread.sleep(1500); // well inside chunking and embedding
        List<Map<String, Object>> jobs = rows("CALL rag.progress() YIELD procedure, corpus, phase, done, total WHERE procedure = 'rag.ingest' AND corpus = 'term' RETURN *");
        assertEquals(1, jobs.size(), "the running ingest is listed: " + jobs);
        assertEquals("documents", jobs.get(0).get("phase"));
        assertEquals(2L, jobs.get(0).get("total"));
        assertEquals(0L, jobs.get(0).get("done"), "the big document is still being embedded");
        long t0 = System.nanoTime();
        rows("TERMINATE TRANSACTION $id", Map.of("id", id));
        Throwable failure = call.get(30, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertNotNull(failure, "a terminated ingest must fail");
        assertTrue(seconds < 10, "stopped after " + seconds + " s");
        assertEquals(before, TestServer.lastCommittedTransaction(), "nothing committed after termination");
        assertTrue(rows("CALL rag.progress() YIELD procedure WHERE procedure = 'rag.ingest' RETURN *").isEmpty(), "a terminated job leaves the list");
    }

    @Test
    void concurrentFirstIngestsIntoANewCorpusAllSucceed() throws Exception {
        try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none())) {
            List<String> statuses = concurrently(4, i -> () -> {
                try (Session s = driver.session()) {
                    return s.run(INGEST, Values.parameters("docs", List.of(Map.of("id", "d" + i, "text", words(i, 300))),
                            "config", Map.of("corpus", "race"))).single().get("status").asString();
                }
            });
            assertEquals(List.of("created", "created", "created", "created"), statuses);
        }
        assertEquals(1, count("MATCH (c:RagCorpus {name: 'race'}) RETURN count(c)", Map.of()));
        assertEquals(4, count("MATCH (d:Document {corpus: 'race'}) RETURN count(d)", Map.of()));
    }

    @Test
    void concurrentReIngestsOfTheSameIdsLeaveOneConsistentCopy() throws Exception {
        rows(INGEST, Map.of("docs", List.of(Map.of("id", "x", "text", words(1, 200)), Map.of("id", "y", "text", words(2, 200))),
                "config", Map.of("corpus", "reingest", "chunkSize", 32L, "chunkOverlap", 4L)));
        try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none())) {
            for (int round = 0; round < 3; round++) {
                int r = round;
                concurrently(4, i -> () -> {
                    try (Session s = driver.session()) {
                        // half the callers send the same new text, half another one
                        return s.run(INGEST, Values.parameters("docs", List.of(Map.of("id", "x", "text", words(100 + r * 10 + i % 2, 200)),
                                Map.of("id", "y", "text", words(200 + r * 10 + i % 2, 200))), "config", Map.of("corpus", "reingest", "chunkSize", 32L, "chunkOverlap", 4L))).list().size();
                    }
                });
            }
            List<Map<String, Object>> docs = rows("""
                    MATCH (d:Document {corpus: 'reingest'})
                    RETURN d.id AS id, d.chunkCount AS declared, COUNT { (d)-[:HAS_CHUNK]->() } AS chunks,
                           COUNT { (c:Chunk {corpus: 'reingest', documentId: d.id}) } AS byId ORDER BY id""");
            assertEquals(2, docs.size());
            for (Map<String, Object> d : docs) {
                assertEquals(d.get("declared"), d.get("chunks"), d.toString());
                assertEquals(d.get("declared"), d.get("byId"), "no orphan chunks: " + d);
            }
            assertEquals(0, count("MATCH (c:Chunk {corpus: 'reingest'}) WHERE NOT ()-[:HAS_CHUNK]->(c) RETURN count(c)", Map.of()));
        }
    }

    @Test
    void twoConcurrentAgragIndexesBothSucceedWithTheLayerOfOne() throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < 12; i++) docs.add(Map.of("id", "a" + i, "text", words(300 + i, 150)));
        rows(INGEST, Map.of("docs", docs, "config", Map.of("corpus", "agrace")));
        rows(INGEST, Map.of("docs", docs, "config", Map.of("corpus", "agserial")));
        List<Map<String, Object>> both = concurrently(2, i -> () -> rows("CALL agrag.index({corpus: 'agrace', relations: 'cooccurrence'})").get(0));
        Map<String, Object> serial = rows("CALL agrag.index({corpus: 'agserial', relations: 'cooccurrence'})").get(0);
        for (Map<String, Object> r : both) {
            for (String k : List.of("entities", "facts", "containsEdges", "synonymEdges")) assertEquals(serial.get(k), r.get(k), k);
        }
        assertEquals(serial.get("entities"), count("MATCH (e:AgEntity {corpus: 'agrace'}) RETURN count(e)", Map.of()));
    }

    @Test
    void aQueryOfMoreThanLucenesClauseLimitIsShortenedWithANote() {
        rows(INGEST, Map.of("docs", List.of(Map.of("id", "q", "text", "carter met the princess of mars in the city of helium")),
                "config", Map.of("corpus", "longq")));
        StringBuilder q = new StringBuilder("carter princess ");
        for (int i = 0; i < 1500; i++) q.append("w").append(i).append(' ');
        for (String mode : List.of("bm25", "hybrid", "rrf")) {
            List<Map<String, Object>> out = rows("CALL rag.search($q, {corpus: 'longq', mode: $mode, k: 3})", Map.of("q", q.toString(), "mode", mode));
            assertEquals("q", out.get(0).get("documentId"), mode);
            assertTrue(String.valueOf(out.get(0).get("note")).contains("1502 distinct terms; BM25 used its first 1000"), mode + ": " + out.get(0));
        }
        assertNull(rows("CALL rag.search('carter princess', {corpus: 'longq', mode: 'bm25'})").get(0).get("note"));
    }

    static Object nested(int depth) {
        Object deep = "leaf";
        for (int i = 0; i < depth; i++) deep = List.of(deep);
        return deep;
    }

    @Test
    void deeplyNestedArgumentsOverBoltAreRefusedWithAClearError() throws Exception {
        LLM.reset();
        List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        // the Java driver packs values recursively: give this client the stack a 3,000-deep value needs
        Thread client = new Thread(null, () -> {
            try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none()); Session s = driver.session()) {
                for (int depth : new int[] {100, 300}) {
                    try {
                        s.run("CALL rag.llm.chat([{role: 'user', content: $deep}], {llm: $llm})",
                                Values.parameters("deep", nested(depth), "llm", Map.of("endpoint", LLM.endpoint(), "model", "m"))).consume();
                        errors.add(depth + ": no error");
                    } catch (org.neo4j.driver.exceptions.ClientException e) {
                        errors.add(depth + ": " + e.getMessage());
                    }
                }
                errors.add("alive: " + s.run("RETURN 1 AS one").single().get("one").asLong());
            } catch (Throwable t) {
                errors.add("client failed: " + t);
            }
        }, "deep-client", 512L << 20);
        client.start();
        client.join(60_000);
        assertEquals(3, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("100: ") && errors.get(0).contains("nested more than 32 levels deep"), errors.get(0));
        assertTrue(errors.get(1).startsWith("300: "), errors.get(1));
        assertTrue(errors.get(1).contains("nested more than 32 levels deep") || errors.get(1).contains("nest"), errors.get(1));
        assertEquals("alive: 1", errors.get(2), "the connection survived");
        assertTrue(LLM.requests().isEmpty(), "nothing was sent");
    }

    @Test
    void deeplyNestedArgumentsAreRefusedWithAClearError() {
        LLM.reset();
        Object deep = nested(200); // the embedded API converts parameters recursively itself: Bolt above takes 3,000
        Map<String, Object> llm = Map.of("endpoint", LLM.endpoint(), "model", "m");
        assertFailsCleanly("CALL rag.llm.chat([{role: 'user', content: $deep}], {llm: $llm})", Map.of("deep", deep, "llm", llm),
                "messages is nested more than 32 levels deep");
        assertFailsCleanly("CALL rag.llm.chat([{role: 'user', content: 'x'}], {llm: $llm, responseFormat: $deep})", Map.of("deep", deep, "llm", llm),
                "rag.llm.chat: config is nested more than 32 levels deep");
        assertFailsCleanly("CALL rag.llm.chat([{role: 'user', content: 'x'}], {llm: $llm, tools: [$deep]})", Map.of("deep", deep, "llm", llm),
                "nested more than 32 levels");
        assertTrue(LLM.requests().isEmpty(), "nothing was sent");
    }

    @Test
    void perCallLimitsCannotExceedTheServersCeilings() {
        assertFailsCleanly(INGEST, Map.of("docs", List.of(Map.of("id", "z", "text", "x")), "config", Map.of("corpus", "ceil", "maxDocumentChars", 50_000_000L)),
                "'maxDocumentChars' is 50000000, above the server's limit of 5000000 (graphrag.ingest.maxDocumentChars");
        assertFailsCleanly(INGEST, Map.of("docs", List.of(Map.of("id", "z", "text", "x")), "config", Map.of("corpus", "ceil", "batchSize", 1_000_000L)),
                "graphrag.ingest.maxBatchSize");
        assertFailsCleanly("CALL rag.llm.chat([{role: 'user', content: 'x'}], {llm: $llm})",
                Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "m", "timeoutMs", 3_600_000L)), "graphrag.llm.maxTimeoutMs");
        // lowering is fine
        assertFailsCleanly(INGEST, Map.of("docs", List.of(Map.of("id", "z", "text", "twelve chars")), "config", Map.of("corpus", "ceil", "maxDocumentChars", 5L)),
                "over maxDocumentChars=5");
    }

    @Test
    void endpointsOffTheAllowListAreRefusedWithoutAConnection() {
        LLM.reset();
        String elsewhere = LLM.endpoint().replace("127.0.0.1", "localhost"); // the same stand-in under a name nobody allowed
        for (String call : List.of("CALL rag.llm.chat([{role: 'user', content: 'x'}], {llm: $llm})", "CALL rag.llm.info({llm: $llm})")) {
            assertFailsCleanly(call, Map.of("llm", Map.of("endpoint", elsewhere, "model", "m", "apiKey", "sk-mine")),
                    "is not allowed on this server", "graphrag.llm.allowedEndpoints");
        }
        assertFailsCleanly("CALL rag.llm.info({llm: $llm})", Map.of("llm", Map.of("endpoint", "http://127.0.0.1:1/admin", "model", "m")),
                "not allowed");
        assertTrue(LLM.requests().isEmpty());
    }

    @Test
    void terminateStopsAHangingLlmInfo() throws Exception {
        LLM.reset();
        LLM.modelsDelay(30_000);
        CompletableFuture<Throwable> call = TestServer.inBackground("CALL rag.llm.info({llm: $llm})",
                Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "m", "timeoutMs", 60_000L)));
        String id = TestServer.runningTransaction("CALL rag.llm.info", () -> !LLM.requests().isEmpty());
        assertNotNull(id);
        long t0 = System.nanoTime();
        rows("TERMINATE TRANSACTION $id", Map.of("id", id));
        assertNotNull(call.get(10, TimeUnit.SECONDS));
        assertTrue((System.nanoTime() - t0) / 1e9 < 5);
        LLM.reset();
    }
}
