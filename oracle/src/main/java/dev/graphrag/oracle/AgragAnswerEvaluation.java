package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.neo4j.graphdb.GraphDatabaseService;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * agrag.answer with oracle policies. The triple filter keeps (up to four, in candidate order) the candidate facts
 * that name a hop's subject or an answer the candidates themselves reveal; the answer step is an evidence-gated
 * reader that answers only when the passages and subgraph strings in the prompt reveal the answer (every hop, for
 * MuSiQue; the answer string, for HotpotQA's answer-only gold). The set output is the passages agrag.answer put in
 * front of the reader.
 */
public final class AgragAnswerEvaluation implements MethodEvaluation {
    public static final String STEP = "agrag.answer";
    public static final String FILTER_STEP = "agrag triple filter";
    static final String UNKNOWN = "insufficient information";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() { return "agrag.answer k 5 (oracle reader)"; }

    @Override
    public void register(EvalLlmServer server, OracleGold gold) {
        server.on(FILTER_STEP, request -> {
            String prompt = request.lastUser();
            OracleGold.Question q = gold.find(PolicyRequest.line(prompt, "Question: "));
            com.fasterxml.jackson.databind.node.ObjectNode reply = JSON.createObjectNode();
            com.fasterxml.jackson.databind.node.ArrayNode kept = reply.putArray("fact");
            String candidates = PolicyRequest.line(prompt, "Candidate facts: ");
            if (q == null || candidates == null) return PolicyReply.json(reply.toString());
            List<List<String>> facts = new ArrayList<>();
            try {
                for (com.fasterxml.jackson.databind.JsonNode f : JSON.readTree(candidates).path("fact")) facts.add(List.of(f.path(0).asText(), f.path(1).asText(), f.path(2).asText()));
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("the filter prompt's candidate facts are not JSON", e);
            }
            List<String> texts = facts.stream().map(f -> String.join(" ", f)).toList();
            List<String> anchors = anchors(q, texts);
            for (int i = 0; i < facts.size() && kept.size() < 4; i++) {
                String t = EvidenceGate.normalize(texts.get(i));
                if (anchors.stream().anyMatch(a -> EvidenceGate.containsPhrase(t, a))) kept.add(JSON.valueToTree(facts.get(i)));
            }
            return PolicyReply.json(reply.toString());
        });
        server.on(STEP, request -> {
            String prompt = request.lastUser();
            OracleGold.Question q = gold.find(PolicyRequest.line(prompt, "Question: "));
            String answer = q == null ? null : EvidenceGate.finalAnswer(q, visibleTexts(prompt));
            return PolicyReply.json(JSON.createObjectNode().put("thought", "evidence-gated oracle reader")
                    .put("answer", answer == null ? UNKNOWN : answer).toString());
        });
    }

    /** What a relevant fact names: each hop's subject when written out, and the hop answers the candidates reveal. */
    static List<String> anchors(OracleGold.Question q, List<String> visible) {
        List<String> out = new ArrayList<>();
        String[] known = EvidenceGate.known(q, visible);
        for (String k : known) if (k != null) out.add(k);
        for (OracleGold.Hop h : q.hops()) {
            String sq = h.question();
            if (sq.contains("#")) continue;
            int arrow = sq.indexOf(">>");
            String subject = arrow >= 0 ? sq.substring(0, arrow).trim() : EvidenceGate.longestName(sq);
            if (subject != null) out.add(subject);
        }
        if (q.hops().isEmpty()) {
            String name = EvidenceGate.longestName(q.question());
            if (name != null) out.add(name);
        }
        return out;
    }

    /**
     * The visible texts of AGRAG's answer prompt: each subgraph string, and each passage ("[P1] ...", "[R2] ...")
     * with any continuation lines, since a chunk's text may hold line breaks.
     */
    static List<String> visibleTexts(String prompt) {
        List<String> out = new ArrayList<>();
        StringBuilder passage = null;
        boolean subgraph = false;
        for (String line : prompt.split("\n")) {
            boolean header = line.startsWith("Reasoning subgraph") || line.equals("Passages on the reasoning subgraph:") || line.equals("Retrieved passages:");
            boolean starts = line.matches("^\\[[PR]\\d+] .*");
            if (header || starts || line.startsWith("Question: ")) {
                if (passage != null) out.add(passage.toString());
                passage = starts ? new StringBuilder(line.replaceFirst("^\\[[PR]\\d+] ", "")) : null;
                if (header) subgraph = line.startsWith("Reasoning subgraph");
                if (line.startsWith("Question: ")) break;
            } else if (passage != null) {
                passage.append('\n').append(line);
            } else if (subgraph && !line.isBlank()) {
                out.add(line);
            }
        }
        if (passage != null) out.add(passage.toString());
        return out;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Output run(GraphDatabaseService db, String corpus, String question, Map<String, Object> llm) {
        return db.executeTransactionally("CALL agrag.answer($q, {corpus: $corpus, k: 5, llm: $llm}) "
                        + "YIELD answer, pathChunkIds, retrievedChunkIds, llmCalls, promptTokens, completionTokens, tokensByStep "
                        + "RETURN answer, pathChunkIds + retrievedChunkIds AS chunkIds, llmCalls, promptTokens, completionTokens, tokensByStep",
                Map.of("q", question, "corpus", corpus, "llm", llm), r -> {
                    Map<String, Object> row = r.next();
                    List<String> docs = OracleHarness.documentsOf(db, corpus, (List<String>) row.get("chunkIds"));
                    String answer = (String) row.get("answer");
                    return new Output(docs, false, UNKNOWN.equals(answer) ? null : answer, (Long) row.get("llmCalls"), (Long) row.get("promptTokens"),
                            (Long) row.get("completionTokens"), (Map<String, Map<String, Long>>) row.get("tokensByStep"));
                });
    }
}
