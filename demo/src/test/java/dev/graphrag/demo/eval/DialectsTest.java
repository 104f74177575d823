package dev.graphrag.demo.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.demo.TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every oracle figure is the same whatever shape the server's replies take (issue: real models and real servers): the
 * same questions through the real procedures and the real HTTP client, against the evaluation server speaking each
 * dialect (reasoning blocks, prose around fenced JSON, Ollama's object arguments, llama.cpp's and vLLM's reasoning
 * fields and tool-call shapes). Recall, answers, calls and prompt tokens must equal the plain server's; only completion
 * tokens may grow (the reasoning is billed), and nothing is reported as a repair that the plain server did not need.
 */
class DialectsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static EvalCorpus corpus;
    static List<ScoredQuestion> questions;
    static OracleGold gold;

    @BeforeAll
    static void load() throws Exception {
        corpus = EvalCorpus.of(OracleGoldTest.musiquePassages(), 1);
        questions = ScoredQuestion.musique(OracleGoldTest.MUSIQUE, corpus);
        gold = OracleGoldTest.musiqueGold();
    }

    /** The figures a benchmark row reports, less completion tokens and time. */
    static String row(Scores s) {
        return String.format("R@2 %.3f R@5 %.3f set %.3f all %.3f answered %.3f calls/q %.2f prompt/q %.1f", s.recall2(), s.recall5(), s.setRecall(),
                s.allGold(), s.answerRate(), s.callsPerQuestion(), s.promptTokensPerQuestion());
    }

    @Test
    void everyOracleRowIsTheSameUnderEveryDialect() {
        // one graph per method, built once: several corpora in one vector index change its approximate neighbours, so rows
        // are compared on the same graph (remind walks without memorising, so no walk changes the graph of the next)
        try (EvalLlmServer build = EvalLlmServer.start()) {
            OracleHarness.ingest(TestServer.db(), "dialect-ag", corpus, Map.of());
            TestServer.rows("CALL agrag.index({corpus: 'dialect-ag', relations: 'cooccurrence'})", Map.of());
            new HgmemEvaluation("hgmem", Map.of(), false).register(build, gold);
            OracleHarness.ingest(TestServer.db(), "dialect-hg", corpus, Map.of("chunkSize", 200L, "chunkOverlap", 50L));
            TestServer.rows("CALL hgmem.index({corpus: 'dialect-hg', llm: $llm})", Map.of("llm", build.llmConfig()));
            new RemindEvaluation("P1", false, Map.of()).register(build, gold);
            OracleHarness.ingest(TestServer.db(), "dialect-rm", corpus, Map.of("chunker", "sentences"));
            TestServer.rows("CALL remind.index({corpus: 'dialect-rm', llm: $llm})", Map.of("llm", build.llmConfig()));
        }
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, Double> plainCompletion = new LinkedHashMap<>();
        for (ServerDialect d : ServerDialect.values()) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                Map<String, Scores> rows = new LinkedHashMap<>();
                rows.put("agrag.answer", new OracleHarness(TestServer.db(), "dialect-ag", questions, gold)
                        .method(new AgragAnswerEvaluation(), server, q -> true, new LinkedHashMap<>()));
                rows.put("hgmem.answer", new OracleHarness(TestServer.db(), "dialect-hg", questions, gold)
                        .method(new HgmemEvaluation("hgmem", Map.of(), false), server, q -> true, new LinkedHashMap<>()));
                rows.put("remind.answer", new OracleHarness(TestServer.db(), "dialect-rm", questions, gold)
                        .method(new RemindEvaluation("P1", false, Map.of()), server, q -> true, new LinkedHashMap<>()));
                for (Map.Entry<String, Scores> e : rows.entrySet()) {
                    if (d == ServerDialect.PLAIN) {
                        plain.put(e.getKey(), row(e.getValue()));
                        plainCompletion.put(e.getKey(), e.getValue().completionTokensPerQuestion());
                        assertTrue(e.getValue().callsPerQuestion() > 0, e.getKey() + " called the LLM");
                    } else if (e.getKey().equals("hgmem.answer")) {
                        // hgmem.answer adds the entities E2 describes to the base graph, which the next pass finds there and
                        // need not ask for again: its calls and tokens fall with every pass, whatever the dialect
                        assertEquals(plain.get(e.getKey()).replaceFirst(" calls/q.*", ""), row(e.getValue()).replaceFirst(" calls/q.*", ""),
                                e.getKey() + " under the " + d.label() + " dialect");
                    } else {
                        assertEquals(plain.get(e.getKey()), row(e.getValue()), e.getKey() + " under the " + d.label() + " dialect");
                        assertTrue(e.getValue().completionTokensPerQuestion() >= plainCompletion.get(e.getKey()) - 1e-9,
                                e.getKey() + ": a dialect only adds completion tokens");
                    }
                }
            }
        }
    }

    @Test
    void indexTimeExtractionBuildsTheSameLayersUnderEveryDialect() {
        List<Map<String, Object>> docs = corpus.documents().subList(0, 12);
        Map<String, Object> plain = null;
        for (ServerDialect d : ServerDialect.values()) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                server.on(AgragExtractionPolicy.STEP, new AgragExtractionPolicy());
                new HgmemEvaluation("hgmem", Map.of(), false).register(server, gold);
                new RemindEvaluation("P1", false, Map.of()).register(server, gold);
                String c = "dialect-ix-" + d.label();
                OracleHarness.ingest(TestServer.db(), c, docs, Map.of());
                Map<String, Object> llm = Map.of("c", c, "llm", server.llmConfig());
                Map<String, Object> layers = new LinkedHashMap<>();
                layers.put("agrag", TestServer.rows("CALL agrag.index({corpus: $c, relations: 'llm', llm: $llm}) YIELD facts, entities, llmCalls RETURN *", llm));
                layers.put("hgmem", TestServer.rows("CALL hgmem.index({corpus: $c, llm: $llm}) YIELD entities, relations, mentions, llmCalls RETURN *", llm));
                layers.put("remind", TestServer.rows("CALL remind.index({corpus: $c, llm: $llm}) YIELD entitiesCreated, llmCalls RETURN *", llm));
                if (plain == null) plain = layers;
                else assertEquals(plain, layers, "the layers built under the " + d.label() + " dialect");
            }
        }
    }

    @Test
    void ragaConstructionBuildsTheSameGraphUnderEveryDialect() {
        List<Map<String, Object>> docs = corpus.documents().subList(0, 8);
        String plain = null;
        for (ServerDialect d : ServerDialect.values()) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                server.on("raga.L3", new RagaConstructionPolicy(false, false));
                server.on("raga.L4", r -> PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", List.of(), "summary", "none")));
                String c = "dialect-raga-" + d.label();
                OracleHarness.ingest(TestServer.db(), c, docs, Map.of());
                List<Map<String, Object>> rows = TestServer.rows("CALL raga.ingest([], {corpus: $c, bootstrapSchema: false, maxToolCallsPerChunk: 80, llm: $llm})",
                        Map.of("c", c, "llm", server.llmConfig()));
                Map<String, Object> sum = rows.get(rows.size() - 1);
                Map<String, Object> census = TestServer.rows("RETURN COUNT { (:RagaEntity {corpus: $c}) } AS e, COUNT { (:RagaEntity {corpus: $c})-[:RAGA_REL]->() } AS r",
                        Map.of("c", c)).get(0);
                String built = census + " toolCalls " + sum.get("toolCalls") + " invalid " + sum.get("invalidToolCalls") + " llmCalls " + sum.get("llmCalls");
                assertTrue(((Number) census.get("e")).longValue() > 0, "the agent built entities: " + built);
                if (plain == null) plain = built;
                else assertEquals(plain, built, "the graph and the agent's calls under the " + d.label() + " dialect");
            }
        }
    }
}
