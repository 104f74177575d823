package dev.graphrag.demo.eval;

import org.neo4j.graphdb.GraphDatabaseService;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * hgmem.answer with the oracle planner ({@link HgmemPolicies}). The output is the passages of the final context F
 * (the chunks the answer read), as a set; beside the harness's scores it keeps what an HGMem pass reports: the
 * passages of every chunk any step retrieved (the history), the steps and their modes, Avg-N_v and |F| in tokens.
 * Each session is deleted after its question, so a pass leaves only the provisional entities its steps created.
 */
public final class HgmemEvaluation implements MethodEvaluation {
    /** One question's run beyond the harness's scores. */
    public record Run(String question, List<String> finalDocuments, List<String> historyDocuments, int steps, List<String> modes, double avgVerticesPerUnit,
                      long contextTokens, String answer, long llmCalls, long promptTokens) {}

    private final String name;
    private final Map<String, Object> extraConfig;
    private final boolean index;
    private final List<Run> runs = new ArrayList<>();

    /** @param index whether the harness runs hgmem.index first (once per graph: later passes reuse it) */
    public HgmemEvaluation(String name, Map<String, Object> extraConfig, boolean index) {
        this.name = name;
        this.extraConfig = Map.copyOf(extraConfig);
        this.index = index;
    }

    @Override
    public String name() { return name; }

    @Override
    public void register(EvalLlmServer server, OracleGold gold) {
        HgmemPolicies.register(server, gold);
    }

    @Override
    public List<String> indexCalls() {
        return index ? List.of("CALL hgmem.index({corpus: $corpus, llm: $llm})") : List.of();
    }

    public List<Run> runs() { return List.copyOf(runs); }

    @Override
    @SuppressWarnings("unchecked")
    public Output run(GraphDatabaseService db, String corpus, String question, Map<String, Object> llm) {
        Map<String, Object> config = new HashMap<>(extraConfig);
        config.put("corpus", corpus);
        config.put("llm", llm);
        List<Map<String, Object>> rows = db.executeTransactionally("CALL hgmem.answer($q, $config) YIELD kind, sessionId, mode, avgVerticesPerUnit, answer,"
                + " chunks, llmCalls, promptTokens, completionTokens, tokensByStep RETURN *", Map.of("q", question, "config", config), r -> {
                    List<Map<String, Object>> out = new ArrayList<>();
                    r.forEachRemaining(out::add);
                    return out;
                });
        Map<String, Object> last = rows.get(rows.size() - 1);
        String sid = (String) last.get("sessionId");
        Map<String, Object> session = db.executeTransactionally("MATCH (s:HgSession {id: $s}) RETURN s.historyChunkIds AS h, s.contextChunks AS f",
                Map.of("s", sid), r -> r.next());
        List<String> history = Arrays.asList((String[]) session.get("h"));
        long contextTokens = db.executeTransactionally("MATCH (c:Chunk) WHERE c.id IN $ids RETURN coalesce(sum(c.tokens), 0) AS t",
                Map.of("ids", last.get("chunks")), r -> ((Number) r.next().get("t")).longValue());
        db.executeTransactionally("CALL hgmem.session.drop($s)", Map.of("s", sid), r -> { r.forEachRemaining(x -> {}); return null; });
        List<String> modes = rows.stream().filter(x -> "step".equals(x.get("kind"))).map(x -> (String) x.get("mode")).toList();
        List<String> finalDocs = OracleHarness.documentsOf(db, corpus, (List<String>) last.get("chunks"));
        String answer = (String) last.get("answer");
        runs.add(new Run(question, finalDocs, OracleHarness.documentsOf(db, corpus, history), modes.size(), modes, (Double) last.get("avgVerticesPerUnit"),
                contextTokens, answer, (Long) last.get("llmCalls"), (Long) last.get("promptTokens")));
        return new Output(finalDocs, false, HgmemPolicies.UNKNOWN.equals(answer) ? null : answer, (Long) last.get("llmCalls"), (Long) last.get("promptTokens"),
                (Long) last.get("completionTokens"), (Map<String, Map<String, Long>>) last.get("tokensByStep"));
    }
}
