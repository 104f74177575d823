package dev.graphrag.procedures;

import dev.graphrag.core.llm.CheckSample;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.PolicyRequest;
import dev.graphrag.oracle.ServerDialect;
import dev.graphrag.oracle.WeakModel;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rag.llm.check against stand-ins that answer the check's sample right in four ways: as a plain server, as a
 * reasoning model (a think block first), as a chatty one (JSON in a fence between prose) and as a weak model (half the
 * replies broken): the verdicts tell them apart. The check writes nothing to the graph.
 */
class LlmCheckTest {

    /** A stand-in that knows the check's sample (the answers are the sample's own) and answers every step of it. */
    static EvalLlmServer server() {
        EvalLlmServer s = EvalLlmServer.start();
        s.on("agrag.index relation extraction", r -> {
            List<String> e = sample(r).entities();
            return PolicyReply.jsonOf(Map.of("named_entities", e, "triples", List.of(List.of(e.get(0), "related to", e.get(1)))));
        });
        s.on("agrag triple filter", r -> PolicyReply.jsonOf(Map.of("fact", lower(sample(r).facts().subList(0, 3)))));
        s.on("agrag.answer", r -> PolicyReply.jsonOf(Map.of("thought", "the chain", "answer", sample(r).answer())));
        s.on("remind.index entities", r -> PolicyReply.jsonOf(Map.of("entities", sample(r).entities())));
        s.on("remind.index triples", r -> {
            List<String> f = sample(r).facts().get(0);
            return PolicyReply.jsonOf(Map.of("triples", List.of(Map.of("subject", f.get(0), "sentence", String.join(" ", f) + ".", "object", f.get(2)))));
        });
        s.on("remind sufficiency", r -> PolicyReply.jsonOf(Map.of("reasoning", "all there", "sufficient", true)));
        s.on("remind next node", r -> PolicyReply.jsonOf(Map.of("reasoning", "the next passage", "type", "entity", "id", "A2")));
        s.on("remind filter", r -> PolicyReply.jsonOf(Map.of("reasoning", "these", "edges", List.of(), "chunks", List.of("C1", "C3"))));
        s.on("remind answer", r -> PolicyReply.jsonOf(Map.of("reasoning", "the chain", "answer", sample(r).answer(), "citedChunks", List.of("C3"))));
        s.on("hgmem extract", r -> PolicyReply.jsonOf(Map.of("entities", sample(r).entities().stream()
                .map(e -> Map.of("name", e, "type", "concept", "description", e + ".")).toList(), "relationships", List.of())));
        s.on("hgmem evolve", r -> PolicyReply.jsonOf(Map.of("inserted", List.of(Map.of("entities", sample(r).facts().get(0).subList(0, 1),
                "description", String.join(" ", sample(r).facts().get(0)) + ".")), "updated", List.of())));
        s.on("hgmem plan", r -> PolicyReply.jsonOf(Map.of("judgement", "2.2", "concerns", List.of(Map.of("concern", "the second hop", "memoryPointIndices", List.of())))));
        s.on("hgmem subqueries", r -> PolicyReply.jsonOf(Map.of("subqueries", List.of("What did " + sample(r).bridge() + " make?"))));
        s.on("hgmem answer", r -> PolicyReply.jsonOf(Map.of("answer", sample(r).answer(), "citedSources", List.of("c3"))));
        s.on("raga.L2", r -> PolicyReply.jsonOf(Map.of("domain", "history", "entity_types", List.of(Map.of("name", "Person")), "relation_types", List.of())));
        s.on("raga.L3", r -> {
            CheckSample.Case k = sample(r);
            String paragraph = k.passages().get(1).text();
            boolean created = r.body().toString().contains("\"role\":\"tool\"") || r.body().toString().contains("Result of create_entity");
            return created ? PolicyReply.tools(List.of(PolicyReply.toolCall("t2", "chunk_complete", Map.of("summary", "read"))))
                    : PolicyReply.tools(List.of(PolicyReply.toolCall("t1", "create_entity", Map.of("name", k.bridge(), "entity_type", "Organization",
                    "evidence", paragraph.substring(0, paragraph.length() - 1)))));
        });
        s.on("raga.L5", r -> PolicyReply.jsonOf(Map.of("entities", sample(r).entities().subList(0, 1))));
        s.on("raga.L6", r -> PolicyReply.jsonOf(Map.of("answer", sample(r).answer(), "answer_type", "extractive", "evidence_chunk_ids", List.of("c3"))));
        return s;
    }

    static CheckSample.Case sample(PolicyRequest r) {
        String body = r.body().toString().toLowerCase(java.util.Locale.ROOT);
        for (CheckSample.Case c : CheckSample.CASES) {
            if (body.contains(c.passages().get(1).title().toLowerCase(java.util.Locale.ROOT)) || body.contains(c.question().toLowerCase(java.util.Locale.ROOT))) return c;
        }
        throw new IllegalStateException("not a request of the check's sample");
    }

    static List<List<String>> lower(List<List<String>> facts) {
        return facts.stream().map(f -> f.stream().map(x -> x.toLowerCase(java.util.Locale.ROOT)).toList()).toList();
    }

    /** The method verdicts of a check against {@code s}, method -> verdict. */
    static Map<String, String> verdicts(EvalLlmServer s, List<Map<String, Object>> out) {
        out.addAll(rows("CALL rag.llm.check({llm: $llm})", Map.of("llm", s.llmConfig())));
        Map<String, String> v = new LinkedHashMap<>();
        for (Map<String, Object> r : out) v.put((String) r.get("method"), (String) r.get("methodVerdict"));
        return v;
    }

    @Test
    void theVerdictsTellAPlainAReasoningAChattyAndAWeakModelApart() {
        long nodes = TestServer.count("MATCH (n) RETURN count(n)", Map.of());
        List<Map<String, Object>> plainRows = new java.util.ArrayList<>();
        Map<String, String> plain, reasoning, chatty, weak;
        try (EvalLlmServer s = server()) {
            plain = verdicts(s, plainRows);
            s.clearLog();
            reasoning = verdicts(s.dialect(ServerDialect.REASONING), new java.util.ArrayList<>());
            chatty = verdicts(s.dialect(ServerDialect.CHATTY), new java.util.ArrayList<>());
            weak = verdicts(s.dialect(ServerDialect.PLAIN).weakModel(WeakModel.of(5, 0.6)), new java.util.ArrayList<>());
        }
        System.out.println("rag.llm.check verdicts\n plain: " + plain + "\n reasoning: " + reasoning + "\n chatty: " + chatty + "\n weak: " + weak);
        assertEquals(List.of("agrag", "remind", "hgmem", "raga"), List.copyOf(plain.keySet()));
        assertTrue(plain.values().stream().allMatch("ok"::equals), plain.toString());
        assertEquals(18, plainRows.size(), "one row per step: 3 + 6 + 5 + 4 (hgmem's merge and describe are not checked)");
        for (Map<String, Object> r : plainRows) {
            assertEquals(3L, r.get("trials"));
            assertEquals(r.get("trials"), r.get("firstTry"), r.toString());
            assertTrue((Long) r.get("promptTokens") > 0 && (Double) r.get("meanMs") >= 0, r.toString());
        }
        assertTrue(reasoning.values().stream().allMatch(v -> v.startsWith("ok; a reasoning model:")), reasoning.toString());
        assertTrue(chatty.values().stream().allMatch(v -> v.startsWith("usable with")), "chatty JSON needs the client's repairs: " + chatty);
        assertTrue(weak.values().stream().allMatch(v -> v.startsWith("weak") || v.startsWith("not usable")), weak.toString());
        assertEquals(nodes, TestServer.count("MATCH (n) RETURN count(n)", Map.of()), "the check writes nothing");
    }

    @Test
    void aDryRunSendsNothingAndBadConfigIsNamed() {
        try (EvalLlmServer s = server()) {
            List<Map<String, Object>> plan = rows("CALL rag.llm.check({llm: $llm, dryRun: true, methods: ['raga'], cases: 2})", Map.of("llm", s.llmConfig()));
            assertEquals(0, s.log().size(), "nothing sent");
            assertEquals(List.of("raga.L2", "raga.L3", "raga.L5", "raga.L6"), plan.stream().map(r -> (String) r.get("step")).toList());
            Map<String, Long> calls = plan.stream().collect(Collectors.toMap(r -> (String) r.get("step"), r -> (Long) r.get("calls")));
            assertEquals(4L, calls.get("raga.L2"), "two cases, a repair turn each at most");
            assertEquals(16L, calls.get("raga.L3"), "two cases, eight rounds each at most");
            assertTrue(plan.stream().allMatch(r -> (Long) r.get("promptTokens") > 0 && "dry run".equals(r.get("verdict"))));
        }
        assertFailsCleanly("CALL rag.llm.check({methods: ['graphrag'], dryRun: true})", Map.of(), "unknown method 'graphrag'", "agrag");
        assertFailsCleanly("CALL rag.llm.check({cases: 9, dryRun: true})", Map.of(), "cases");
        assertFailsCleanly("CALL rag.llm.check({dryrun: true})", Map.of(), "dryrun");
        assertFailsCleanly("CALL rag.llm.check({llm: {endpoint: 'http://example.com/v1', model: 'm'}})", Map.of(), "allowedEndpoints");
    }
}
