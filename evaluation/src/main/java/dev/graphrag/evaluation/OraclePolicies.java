package dev.graphrag.evaluation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.oracle.AgragAnswerEvaluation;
import dev.graphrag.oracle.AgragExtractionPolicy;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.EvidenceGate;
import dev.graphrag.oracle.HgmemPolicies;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RagaConstructionPolicy;
import dev.graphrag.oracle.RemindExtractionPolicies;
import dev.graphrag.oracle.RemindWalkPolicies;
import dev.graphrag.oracle.RuleExtractor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * --oracle: the policies of docs/evaluation.md on the built-in stand-in, one set per method, exactly those the
 * benchmarks use. Index-time steps (extraction, construction) read only the chunk; query-time steps read sanitised
 * gold (answer, aliases, MuSiQue's hops) and are evidence-gated. RAGA's reader (raga.L6) is gated the same way: it
 * answers only when a chunk in the prompt reveals the answer, and cites that chunk.
 */
final class OraclePolicies {
    static final String UNKNOWN = "unknown";

    private OraclePolicies() {}

    static void register(EvalLlmServer server, OracleGold gold, List<EvaluatedMethod> methods) {
        for (EvaluatedMethod m : methods) {
            switch (m) {
                case DENSE -> { }
                case AGRAG -> {
                    server.on(AgragExtractionPolicy.STEP, new AgragExtractionPolicy());
                    new AgragAnswerEvaluation().register(server, gold);
                }
                case REMIND -> {
                    RemindExtractionPolicies.register(server);
                    RemindWalkPolicies.register(server, gold);
                }
                case HGMEM -> HgmemPolicies.register(server, gold);
                case RAGA -> registerRaga(server, gold);
            }
        }
    }

    /** The config keys --oracle adds: RAGA's schema discovery (raga.L2) has no policy, so the open schema starts empty. */
    static Map<String, Object> fixedConfig(String procedure) {
        return procedure.equals("raga.ingest") ? Map.of("bootstrapSchema", false) : Map.of();
    }

    private static void registerRaga(EvalLlmServer server, OracleGold gold) {
        server.on("raga.L3", new RagaConstructionPolicy(false, false));
        server.on("raga.L4", r -> PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", List.of(), "summary", "none")));
        server.on("raga.L5", r -> PolicyReply.jsonOf(Map.of("entities", first(RuleExtractor.entities(null,
                RemindExtractionPolicies.block(r).path("question").asText()), 5), "keywords", List.of(), "sub_questions", List.of())));
        server.on("raga.L6", r -> {
            JsonNode block = RemindExtractionPolicies.block(r);
            OracleGold.Question q = gold.find(block.path("question").asText());
            List<String> texts = new ArrayList<>(), ids = new ArrayList<>();
            for (JsonNode c : block.path("chunks")) {
                ids.add(c.path("id").asText());
                texts.add(c.path("text").asText());
            }
            String answer = q == null ? null : EvidenceGate.finalAnswer(q, texts);
            List<String> cited = new ArrayList<>();
            if (answer != null) {
                for (int i = 0; i < texts.size() && cited.isEmpty(); i++) {
                    if (EvidenceGate.containsPhrase(EvidenceGate.normalize(texts.get(i)), answer)) cited.add(ids.get(i));
                }
            }
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("answer", answer == null ? UNKNOWN : answer);
            reply.put("answer_type", answer == null ? "unanswerable" : "extractive");
            reply.put("evidence_chunk_ids", cited);
            return PolicyReply.jsonOf(reply);
        });
    }

    private static <T> List<T> first(List<T> xs, int n) {
        return xs.size() <= n ? xs : xs.subList(0, n);
    }
}
