package dev.graphrag.oracle;

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
                      long units, long contextTokens, String answer, long llmCalls, long promptTokens, Map<String, String> filteredOut) {}

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

    /**
     * For error analysis of the final-context filter: each document of a retrieved chunk the answer's context left
     * out, with why it could have been reached: "inner" (it mentions an entity of a memory point), "outer" (it mentions
     * a graph neighbour, outside memory, of one), or "unlinked" (neither: the filter cannot reach it).
     */
    static Map<String, String> filteredOut(GraphDatabaseService db, String session, List<String> history, List<String> context, String corpus) {
        List<String> lost = new ArrayList<>(history);
        lost.removeAll(context);
        Map<String, String> byChunk = db.executeTransactionally("""
                MATCH (:HgSession {id: $s})-[:HG_HAS_UNIT]->(:HgUnit {status: 'active'})-[:HG_MEMBER]->(v)
                WITH collect(DISTINCT v) AS vm
                UNWIND $lost AS id MATCH (c:Chunk {id: id})
                RETURN id, EXISTS { MATCH (c)-[:HG_MENTIONS]->(v) WHERE v IN vm } AS inner,
                       EXISTS { MATCH (c)-[:HG_MENTIONS]->(w)-[:HG_RELATED]-(v) WHERE v IN vm AND NOT w IN vm } AS outer""",
                Map.of("s", session, "lost", lost), r -> {
                    Map<String, String> m = new java.util.LinkedHashMap<>();
                    r.forEachRemaining(row -> m.put((String) row.get("id"), (Boolean) row.get("inner") ? "inner" : (Boolean) row.get("outer") ? "outer" : "unlinked"));
                    return m;
                });
        Map<String, String> byDoc = new java.util.LinkedHashMap<>();
        byChunk.forEach((chunk, why) -> {
            for (String d : OracleHarness.documentsOf(db, corpus, List.of(chunk))) byDoc.merge(d, why, (a, b) -> a.equals("inner") || b.equals("inner") ? "inner"
                    : a.equals("outer") || b.equals("outer") ? "outer" : "unlinked");
        });
        return byDoc;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Output run(GraphDatabaseService db, String corpus, String question, Map<String, Object> llm) {
        Map<String, Object> config = new HashMap<>(extraConfig);
        config.put("corpus", corpus);
        config.put("llm", llm);
        List<Map<String, Object>> rows = db.executeTransactionally("CALL hgmem.answer($q, $config) YIELD kind, sessionId, mode, units, avgVerticesPerUnit, answer,"
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
        Map<String, String> filteredOut = filteredOut(db, sid, history, (List<String>) last.get("chunks"), corpus);
        db.executeTransactionally("CALL hgmem.session.drop($s)", Map.of("s", sid), r -> { r.forEachRemaining(x -> {}); return null; });
        List<String> modes = rows.stream().filter(x -> "step".equals(x.get("kind"))).map(x -> (String) x.get("mode")).toList();
        List<String> finalDocs = OracleHarness.documentsOf(db, corpus, (List<String>) last.get("chunks"));
        String answer = (String) last.get("answer");
        runs.add(new Run(question, finalDocs, OracleHarness.documentsOf(db, corpus, history), modes.size(), modes, (Double) last.get("avgVerticesPerUnit"),
                ((Number) last.get("units")).longValue(), contextTokens, answer, (Long) last.get("llmCalls"), (Long) last.get("promptTokens"), filteredOut));
        return new Output(finalDocs, false, HgmemPolicies.UNKNOWN.equals(answer) ? null : answer, (Long) last.get("llmCalls"), (Long) last.get("promptTokens"),
                (Long) last.get("completionTokens"), (Map<String, Map<String, Long>>) last.get("tokensByStep"));
    }
}
