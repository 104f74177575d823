package dev.graphrag.oracle;

import org.neo4j.graphdb.GraphDatabaseService;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * remind.answer (memorising) or remind.query (read-only) with the oracle walker ({@link RemindWalkPolicies}) and the
 * rule extractor ({@link RemindExtractionPolicies}). The output is the passages of every chunk the walk collected, in
 * acquisition order (so R@k reads the order the walk found them, and set recall is at the walk's own budget). Beside
 * the harness's scores it keeps what a ReMind pass reports: jumps, stop reason, traversal tokens (L6-L9), the path's
 * relationships (for path Jaccard) and the call's wall time less the stand-in's own time.
 */
public final class RemindEvaluation implements MethodEvaluation {
    /** What one question's walk did, beyond the harness's scores. */
    public record Walked(String question, List<String> documentIds, List<String> relationships, long jumps, String stopReason, boolean sufficient,
                         long traversalTokens, long llmCalls, long promptTokens, long completionTokens, String answer, boolean memorized, long enhanced, long penalized,
                         double millisWithoutStandIn) {}

    private final String name;
    private final boolean memorize;
    private final Map<String, Object> extraConfig;
    private final List<Walked> walked = new ArrayList<>();
    private EvalLlmServer server;

    /**
     * @param memorize remind.answer (writes memories) when true, remind.query (never writes) when false
     * @param extraConfig further config keys (penalty, lambda, ...)
     */
    public RemindEvaluation(String name, boolean memorize, Map<String, Object> extraConfig) {
        this.name = name;
        this.memorize = memorize;
        this.extraConfig = Map.copyOf(extraConfig);
    }

    @Override
    public String name() { return name; }

    @Override
    public void register(EvalLlmServer server, OracleGold gold) {
        this.server = server;
        RemindExtractionPolicies.register(server);
        RemindWalkPolicies.register(server, gold);
    }

    /** The walks of every {@link #run} so far, in order. */
    public List<Walked> walked() { return List.copyOf(walked); }

    @Override
    @SuppressWarnings("unchecked")
    public Output run(GraphDatabaseService db, String corpus, String question, Map<String, Object> llm) {
        Map<String, Object> config = new HashMap<>(extraConfig);
        config.put("corpus", corpus);
        config.put("llm", llm);
        long t0 = System.nanoTime();
        Map<String, Object> row = db.executeTransactionally("CALL remind." + (memorize ? "answer" : "query") + "($q, $config) "
                + "YIELD answer, chunks, relationships, jumps, stopReason, sufficient, memorized, enhanced, penalized, llmCalls, promptTokens, "
                + "completionTokens, traversalTokens, tokensByStep "
                + "RETURN answer, chunks, [r IN relationships | elementId(r)] AS rels, jumps, stopReason, sufficient, memorized, enhanced, penalized, "
                + "llmCalls, promptTokens, completionTokens, traversalTokens, tokensByStep", Map.of("q", question, "config", config), r -> r.next());
        double ms = (System.nanoTime() - t0) / 1e6;
        List<String> docs = OracleHarness.documentsOf(db, corpus, (List<String>) row.get("chunks"));
        walked.add(new Walked(question, docs, (List<String>) row.get("rels"), (Long) row.get("jumps"), (String) row.get("stopReason"),
                (Boolean) row.get("sufficient"), (Long) row.get("traversalTokens"), (Long) row.get("llmCalls"), (Long) row.get("promptTokens"),
                (Long) row.get("completionTokens"), (String) row.get("answer"), (Boolean) row.get("memorized"), (Long) row.get("enhanced"), (Long) row.get("penalized"), ms - (server == null ? 0 : server.handlerMillis())));
        String answer = (String) row.get("answer");
        return new Output(docs, true, RemindWalkPolicies.UNKNOWN.equals(answer) ? null : answer, (Long) row.get("llmCalls"),
                (Long) row.get("promptTokens"), (Long) row.get("completionTokens"), (Map<String, Map<String, Long>>) row.get("tokensByStep"));
    }

    /** Stop reasons over the walks, most frequent first. */
    public static Map<String, Long> stopReasons(List<Walked> walks) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        walks.forEach(w -> counts.merge(w.stopReason(), 1L, Long::sum));
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    /** Relationship-set Jaccard of two walks' paths (the paper's Table 8 analogue); 1 when both are empty. */
    public static double pathJaccard(List<String> a, List<String> b) {
        java.util.Set<String> union = new java.util.HashSet<>(a), both = new java.util.HashSet<>(a);
        union.addAll(b);
        both.retainAll(b);
        return union.isEmpty() ? 1 : (double) both.size() / union.size();
    }

}
