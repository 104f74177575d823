package dev.graphrag.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.HgmemPolicies;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RagaConstructionPolicy;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.neo4j.graphdb.GraphDatabaseService;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * ScaleBenchmark's LLM layers (--llm-layers): remind.index, hgmem.index and raga.ingest over a size's corpus on the
 * stand-in LLM, whose index-time policies read only the chunk (docs/evaluation.md), then the calls a user's
 * retrieval makes of each layer. Per layer: chunks built, seconds, LLM calls and tokens, all per chunk, and the
 * stand-in's own share of the seconds (its rule extraction, which a real model's generation replaces).
 * <p>
 * The builds are hours at 4x on 2 cores, so they may span runs: each completed call adds its figures to
 * {@code llm-layers.json} in the size's store, and a build the graph already holds makes no LLM call and adds
 * nothing. raga.ingest goes in batches of documents, so a stopped run loses at most one batch's figures (the graph
 * keeps what the batch wrote and the next run goes on from there); hgmem.index is stopped at --llm-minutes and its
 * figures so far are kept with what it wrote, which the next run goes on from; a stopped remind.index loses its
 * figures, and its extractions are kept and reused.
 */
final class ScaleLlmLayers {
    static final String FILE = "llm-layers.json";
    static final int RAGA_BATCH = 200;
    static final List<String> LAYERS = List.of("remind.index", "hgmem.index", "raga.ingest");
    /** What a user's retrieval asks of each layer; none of these calls an LLM. */
    static final List<String> CALLS = List.of(
            "remind.seeds", "CALL remind.seeds($q, {corpus: $corpus}) YIELD node RETURN count(node) AS n",
            "remind.replay", "CALL remind.replay($q, {corpus: $corpus}) YIELD nodes RETURN size(nodes) AS n",
            "hgmem.retrieve (global)", "CALL hgmem.retrieve(null, $q, {corpus: $corpus}) YIELD id RETURN count(id) AS n",
            "raga.retrieve fusion", "CALL raga.retrieve($q, {corpus: $corpus, topK: 5}) YIELD chunkId RETURN count(chunkId) AS n");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One layer's build figures, summed over the calls that extracted something. */
    record Build(long chunks, double seconds, double standInSeconds, long calls, long promptTokens, long completionTokens, int runs) {
        static final Build NONE = new Build(0, 0, 0, 0, 0, 0, 0);

        Build plus(long chunks, double seconds, double standIn, long calls, long prompt, long completion) {
            return new Build(this.chunks + chunks, this.seconds + seconds, standInSeconds + standIn, this.calls + calls, promptTokens + prompt,
                    completionTokens + completion, runs + 1);
        }

        double perChunk(double v) {
            return chunks == 0 ? Double.NaN : v / chunks;
        }
    }

    private ScaleLlmLayers() {}

    /** The stand-in with the index-time policies of the three layers (no query-time step is asked by the calls timed). */
    static EvalLlmServer server() {
        // a 4x build sends about 200,000 requests of up to 20,000 tokens: logged by step and tokens only, not held in heap
        EvalLlmServer server = EvalLlmServer.start().keepBodies(false);
        RemindExtractionPolicies.register(server);
        HgmemPolicies.register(server, null);
        server.on("raga.L3", new RagaConstructionPolicy(false, false));
        server.on("raga.L4", r -> PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", List.of(), "summary", "none")));
        return server;
    }

    /** Builds what the graph lacks of each layer, adding each completed call's figures to the store's file; all figures so far. */
    static Map<String, Build> build(GraphDatabaseService db, Path store, String corpus, EvalLlmServer server, PrintStream out) throws IOException {
        return build(db, store, corpus, server, out, java.util.Set.copyOf(LAYERS), Long.MAX_VALUE);
    }

    /**
     * As above for the named layers only (--layers), and no raga.ingest batch started once {@code untilNanos}
     * (System.nanoTime) has passed (--llm-minutes): a session too short for every layer builds some now and the rest
     * later, and its raga batches end where the session ends, not in the middle of one.
     */
    static Map<String, Build> build(GraphDatabaseService db, Path store, String corpus, EvalLlmServer server, PrintStream out, java.util.Set<String> layers,
                                    long untilNanos) throws IOException {
        Path file = store.resolve(FILE);
        Map<String, Build> builds = read(file);
        if (layers.contains("remind.index")) {
            builds.put("remind.index", run(db, server, builds.get("remind.index"), "CALL remind.index($cfg) YIELD newChunks AS n, llmCalls, promptTokens, completionTokens"
                    + " RETURN n, llmCalls, promptTokens, completionTokens", Map.of("cfg", server.config(corpus, Map.of())), out, corpus + " remind.index"));
            write(file, builds);
        }
        if (layers.contains("hgmem.index")) {
            builds.put("hgmem.index", runUntil(db, server, builds.get("hgmem.index"), corpus, untilNanos, out));
            write(file, builds);
        }
        if (!layers.contains("raga.ingest")) return builds;
        List<String> documents = db.executeTransactionally("MATCH (d:Document {corpus: $c}) RETURN d.id AS id ORDER BY id", Map.of("c", corpus), r -> {
            List<String> ids = new ArrayList<>();
            r.forEachRemaining(row -> ids.add((String) row.get("id")));
            return ids;
        });
        // RAGA's schema discovery (raga.L2) has no policy: the open schema starts empty, as in the evaluation command's --oracle
        Map<String, Object> raga = server.config(corpus, Map.of("bootstrapSchema", false));
        for (int from = 0; from < documents.size() && (untilNanos == Long.MAX_VALUE || System.nanoTime() - untilNanos < 0); from += RAGA_BATCH) {
            List<String> batch = documents.subList(from, Math.min(documents.size(), from + RAGA_BATCH));
            builds.put("raga.ingest", run(db, server, builds.get("raga.ingest"), "CALL raga.ingest($ids, $cfg) YIELD kind, llmCalls, promptTokens, completionTokens"
                    + " WITH collect(CASE WHEN kind = 'chunk' THEN 1 END) AS chunks, collect(CASE WHEN kind = 'summary' THEN [llmCalls, promptTokens, completionTokens] END)[0] AS s"
                    + " RETURN size(chunks) AS n, s[0] AS llmCalls, s[1] AS promptTokens, s[2] AS completionTokens", Map.of("ids", batch, "cfg", raga), out, null));
            write(file, builds);
        }
        Build r = builds.get("raga.ingest");
        out.printf(Locale.ROOT, "%s raga.ingest: %d chunks over %d runs, %.1f s%n", corpus, r.chunks(), r.runs(), r.seconds());
        return builds;
    }

    /** Whether a layer's figures cover the whole corpus, so that its retrieval can be timed. */
    static boolean complete(Build b, long corpusChunks) {
        return b.chunks() >= corpusChunks;
    }

    /** The layer a retrieval call of {@link #CALLS} reads: remind.seeds reads remind.index's layer. */
    static String layerOf(String call) {
        String method = call.substring(0, call.indexOf('.'));
        return LAYERS.stream().filter(l -> l.startsWith(method + ".")).findFirst().orElseThrow();
    }

    /**
     * hgmem.index, stopped at {@code untilNanos} (its transaction terminated) when it runs that long: a stopped run adds
     * its seconds, LLM calls and tokens (from the stand-in's log) and no chunk, since what it wrote (extractions,
     * entities and relations embedded so far) is kept and the next run goes on from there; the run that completes adds
     * the chunks the earlier runs left to count, so the figures cover the whole build over all its runs.
     */
    static Build runUntil(GraphDatabaseService db, EvalLlmServer server, Build sofar, String corpus, long untilNanos, PrintStream out) {
        long corpusChunks = db.executeTransactionally("RETURN COUNT { (:Chunk {corpus: $c}) } AS n", Map.of("c", corpus), r -> ((Number) r.next().get("n")).longValue());
        if (complete(sofar, corpusChunks)) return sofar; // built: nothing to add (a re-run would only confirm it)
        double standIn0 = server.handlerMillis();
        int logged = server.log().size();
        long t = System.nanoTime();
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        Map<String, Object> row = null;
        try (org.neo4j.graphdb.Transaction tx = db.beginTx()) {
            if (untilNanos != Long.MAX_VALUE) timer.schedule(() -> {
                stopped.set(true);
                tx.terminate();
            }, Math.max(0, untilNanos - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            try (org.neo4j.graphdb.Result r = tx.execute("CALL hgmem.index($cfg) YIELD llmCalls, promptTokens, completionTokens"
                    + " RETURN llmCalls, promptTokens, completionTokens", Map.of("cfg", server.config(corpus, Map.of())))) {
                row = r.next();
            }
            tx.commit();
        } catch (RuntimeException e) {
            if (!stopped.get()) throw e;
        } finally {
            timer.shutdownNow();
        }
        double s = (System.nanoTime() - t) / 1e9;
        double standIn = (server.handlerMillis() - standIn0) / 1e3;
        if (row == null) {
            long calls = 0, prompt = 0, completion = 0;
            for (EvalLlmServer.LoggedRequest x : server.log().subList(logged, server.log().size())) {
                calls++;
                prompt += x.promptTokens();
                completion += x.completionTokens();
            }
            out.printf(Locale.ROOT, "%s hgmem.index: stopped at the run's time limit after %.1f s (%d LLM calls); the next run goes on%n", corpus, s, calls);
            return sofar.plus(0, s, standIn, calls, prompt, completion);
        }
        out.printf(Locale.ROOT, "%s hgmem.index: built in %.1f s (%d runs in all)%n", corpus, s, sofar.runs() + 1);
        return sofar.plus(corpusChunks - sofar.chunks(), s, standIn, ((Number) row.get("llmCalls")).longValue(), ((Number) row.get("promptTokens")).longValue(),
                ((Number) row.get("completionTokens")).longValue());
    }

    /** One build call; its figures are added when it extracted something (a layer already built adds nothing). */
    private static Build run(GraphDatabaseService db, EvalLlmServer server, Build sofar, String query, Map<String, Object> params, PrintStream out, String label) {
        double standIn0 = server.handlerMillis();
        long t = System.nanoTime();
        Map<String, Object> row = db.executeTransactionally(query, params, r -> r.next());
        double s = (System.nanoTime() - t) / 1e9;
        long n = ((Number) row.get("n")).longValue();
        if (label != null) out.printf(Locale.ROOT, "%s: %d chunks extracted in %.1f s%n", label, n, s);
        if (n == 0) return sofar;
        return sofar.plus(n, s, (server.handlerMillis() - standIn0) / 1e3, ((Number) row.get("llmCalls")).longValue(),
                ((Number) row.get("promptTokens")).longValue(), ((Number) row.get("completionTokens")).longValue());
    }

    static Map<String, Build> read(Path file) throws IOException {
        Map<String, Build> out = new LinkedHashMap<>();
        for (String layer : LAYERS) out.put(layer, Build.NONE);
        if (!Files.exists(file)) return out;
        ObjectNode root = (ObjectNode) JSON.readTree(file.toFile());
        for (String layer : LAYERS) {
            if (root.has(layer)) out.put(layer, JSON.treeToValue(root.get(layer), Build.class));
        }
        return out;
    }

    static void write(Path file, Map<String, Build> builds) throws IOException {
        Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(builds));
    }

    /**
     * A row per size and layer: the figures per chunk and the whole build's estimate (seconds per chunk times the corpus's
     * chunks); "-" for a layer with no chunk built at that size.
     */
    static String table(Map<Integer, Map<String, Build>> bySize, Map<Integer, Long> chunks) {
        StringBuilder b = new StringBuilder("| size | layer | chunks built (runs) | s/chunk (stand-in's share) | LLM calls/chunk | prompt tok/chunk "
                + "| completion tok/chunk | whole build s |\n|---|---|---|---|---|---|---|---|\n");
        bySize.forEach((size, builds) -> builds.forEach((layer, x) -> b.append(x.chunks() == 0
                ? String.format(Locale.ROOT, "| %dx | %s | 0 (%d) | - | - | - | - | - |%n", size, layer, x.runs())
                : String.format(Locale.ROOT, "| %dx | %s | %d (%d) | %.3f (%.3f) | %.2f | %.0f | %.0f | %.0f |%n", size, layer, x.chunks(), x.runs(),
                        x.perChunk(x.seconds()), x.perChunk(x.standInSeconds()), x.perChunk(x.calls()), x.perChunk(x.promptTokens()),
                        x.perChunk(x.completionTokens()), x.perChunk(x.seconds()) * chunks.get(size)))));
        return b.toString();
    }
}
