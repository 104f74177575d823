package dev.graphrag.procedures;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One embedded Neo4j per test JVM (Bolt on a free port for the driver test, HTTP off). */
public final class TestServer {
    private static Neo4j neo4j;
    /**
     * A shared server's policy, not the demo's: callers may name the stand-in LLMs on 127.0.0.1 and nothing else; an
     * endpoint fault a test injects is retried after 20 ms, not the default second, so it costs the suite little.
     */
    static final Map<String, String> SETTINGS = Map.of("graphrag.llm.allowedEndpoints", "http://127.0.0.1:*/v1",
            "graphrag.ingest.allowedUrls", "http://127.0.0.1:", "graphrag.llm.retryBaseMs", "20");
    /**
     * The shared server's reranker (graphrag.rerank.*, server-wide as a user sets it): a stand-in scoring by word overlap;
     * a test that scripts it resets it first. Calls reach it only when they ask for rerank.
     */
    public static final dev.graphrag.core.llm.StandInLlm RERANKER = dev.graphrag.core.llm.StandInLlm.start();

    private static Map<String, String> settings() {
        Map<String, String> s = new java.util.HashMap<>(SETTINGS);
        s.putAll(Map.of("graphrag.rerank.provider", "cohere", "graphrag.rerank.endpoint", RERANKER.endpoint(), "graphrag.rerank.model", "stand-in-reranker",
                "graphrag.rerank.apiKey", "rerank-key", "graphrag.rerank.retryBaseMs", "20"));
        return s;
    }
    private static Path importDir;

    private TestServer() {}

    public static synchronized Neo4j get() {
        if (neo4j == null) {
            try {
                // one work directory (graphrag.conf, import/) per test JVM: Failsafe runs two, each with its own stand-ins
                Path work = Files.createDirectories(BuildLayout.here().resolve("neo4j-test-" + ProcessHandle.current().pid()));
                EmbeddedNeo4j.Options options = new EmbeddedNeo4j.Options(work, null, "127.0.0.1", 0, -1, settings());
                importDir = options.importDirectory();
                neo4j = EmbeddedNeo4j.start(options);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(neo4j::close));
        }
        return neo4j;
    }

    /** The shared server's import directory (server.directories.import), where rag.ingest.files reads. */
    public static Path importDir() {
        get();
        return importDir;
    }

    public static GraphDatabaseService db() {
        return get().defaultDatabaseService();
    }

    public static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return db().executeTransactionally(cypher, params, r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            while (r.hasNext()) out.add(r.next());
            return out;
        });
    }

    public static List<Map<String, Object>> rows(String cypher) {
        return rows(cypher, Map.of());
    }

    public static long count(String cypher, Map<String, Object> params) {
        return ((Number) rows(cypher, params).get(0).values().iterator().next()).longValue();
    }

    /**
     * A digest of every node's labels and properties, every relationship's type, ends and properties, and the schema:
     * equal before and after means nothing at all was written (a property set on one node changes it).
     */
    public static List<Object> fingerprint() {
        return fingerprint(java.util.Set.of());
    }

    /** The same digest with some properties left out: for calls whose documented resumable state is those properties. */
    public static List<Object> fingerprint(java.util.Set<String> ignoredProperties) {
        try (var tx = db().beginTx()) {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            List<String> items = new ArrayList<>();
            tx.getAllNodes().forEach(n -> items.add("N" + n.getElementId() + n.getLabels() + describe(n.getAllProperties(), ignoredProperties)));
            tx.getAllRelationships().forEach(r -> items.add("R" + r.getElementId() + r.getType().name() + r.getStartNode().getElementId()
                    + ">" + r.getEndNode().getElementId() + describe(r.getAllProperties(), ignoredProperties)));
            java.util.Collections.sort(items);
            for (String i : items) md.update(i.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return List.of(items.size(), java.util.HexFormat.of().formatHex(md.digest()),
                    rows("SHOW INDEXES YIELD name RETURN collect(name) AS n").get(0).get("n"),
                    rows("SHOW CONSTRAINTS YIELD name RETURN collect(name) AS n").get(0).get("n"));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many nodes and relationships hold the text in a string property or in a list of strings. */
    public static long entitiesHolding(String text) {
        String holds = " WHERE any(k IN keys(e) WHERE (e[k] IS :: STRING AND e[k] CONTAINS $t)"
                + " OR (e[k] IS :: LIST<STRING NOT NULL> AND any(s IN e[k] WHERE s CONTAINS $t)))";
        return count("MATCH (e)" + holds + " RETURN count(e)", Map.of("t", text))
                + count("MATCH ()-[e]->()" + holds + " RETURN count(e)", Map.of("t", text));
    }

    private static String describe(Map<String, Object> properties, java.util.Set<String> ignored) {
        StringBuilder b = new StringBuilder("{");
        new java.util.TreeMap<>(properties).forEach((k, v) -> {
            if (ignored.contains(k)) return;
            // vectors by their hash: printing thousands of embeddings per check would dominate the suite's time
            b.append(k).append('=').append(v instanceof float[] f ? "f" + f.length + "#" + java.util.Arrays.hashCode(f)
                    : v instanceof double[] d ? java.util.Arrays.toString(d) : v instanceof long[] l ? java.util.Arrays.toString(l)
                    : v instanceof String[] a ? java.util.Arrays.toString(a) : String.valueOf(v)).append(';');
        });
        return b.append('}').toString();
    }

    /**
     * Each background statement gets a thread of its own, as each Bolt session does on a server. On the common pool
     * (one worker on two cores), a statement waiting for a layer lock left the other statement's LLM exchange unfinished
     * on Java 25 (no connection opened, no thread at work, until its timeout); Java 17 finished it.
     */
    private static final java.util.concurrent.Executor BACKGROUND = r -> {
        Thread t = new Thread(r, "test-background-statement");
        t.setDaemon(true);
        t.start();
    };

    /** Runs a statement on another thread; the future holds what it threw, or null when it succeeded. */
    public static java.util.concurrent.CompletableFuture<Throwable> inBackground(String cypher, Map<String, Object> params) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                rows(cypher, params);
                return null;
            } catch (Throwable t) {
                return t;
            }
        }, BACKGROUND);
    }

    /** The id of the running transaction whose query starts with the prefix, once {@code ready} holds too; null after 10 s. */
    public static String runningTransaction(String queryPrefix, java.util.function.BooleanSupplier ready) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            Thread.sleep(50);
            List<Map<String, Object>> txs = rows("SHOW TRANSACTIONS YIELD transactionId, currentQuery WHERE currentQuery STARTS WITH $p RETURN transactionId",
                    Map.of("p", queryPrefix));
            if (!txs.isEmpty() && ready.getAsBoolean()) return (String) txs.get(0).get("transactionId");
        }
        return null;
    }

    /** Runs a statement that must fail with a message containing every fragment; what it leaves is the caller's to check. */
    public static String assertFails(String cypher, Map<String, Object> params, String... fragments) {
        QueryExecutionException e = assertThrows(QueryExecutionException.class, () -> rows(cypher, params));
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "message lacks '" + f + "': " + e.getMessage());
        return e.getMessage();
    }

    /**
     * The id of the last transaction the database committed. Every write, schema change and new token commits one, so
     * an unchanged id means nothing at all was written: stricter than {@link #fingerprint()} (a write undone by a later
     * one also moves it) and read in constant time, where the digest reads every node of a store that grows through
     * the suite (it cost whole minutes per run once the shared server held the evaluation corpora).
     */
    public static long lastCommittedTransaction() {
        // Community edition's SHOW DATABASES has no lastCommittedTxId column; the store's own counter is the same number
        return ((org.neo4j.kernel.internal.GraphDatabaseAPI) db()).getDependencyResolver()
                .resolveDependency(org.neo4j.storageengine.api.TransactionIdStore.class).getLastCommittedTransactionId();
    }

    /** Runs a statement that must fail with a message containing every fragment, and must leave the graph as it was. */
    public static String assertFailsCleanly(String cypher, Map<String, Object> params, String... fragments) {
        long before = lastCommittedTransaction();
        QueryExecutionException e = assertThrows(QueryExecutionException.class, () -> rows(cypher, params));
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "message lacks '" + f + "': " + e.getMessage());
        assertEquals(before, lastCommittedTransaction(), "a failing call committed a transaction: " + e.getMessage());
        return e.getMessage();
    }
}
