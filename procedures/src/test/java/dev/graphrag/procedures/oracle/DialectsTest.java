package dev.graphrag.procedures.oracle;

import dev.graphrag.oracle.AgragAnswerEvaluation;
import dev.graphrag.oracle.AgragExtractionPolicy;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.HgmemEvaluation;
import dev.graphrag.oracle.MethodEvaluation;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.OracleGoldTest;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RagaConstructionPolicy;
import dev.graphrag.oracle.RemindEvaluation;
import dev.graphrag.oracle.RemindExtractionPolicies;
import dev.graphrag.oracle.RuleExtractor;
import dev.graphrag.oracle.ScoredQuestion;
import dev.graphrag.oracle.Scores;
import dev.graphrag.oracle.ServerDialect;

import dev.graphrag.LineIndependent;
import dev.graphrag.procedures.TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every oracle figure is the same whatever shape the server's replies take: the same questions through the real
 * procedures and the real HTTP client, against the evaluation server speaking a dialect (reasoning blocks, prose
 * around fenced JSON, Ollama's object arguments, llama.cpp's and vLLM's reasoning fields and tool-call shapes).
 * Recall, answers, calls and prompt tokens must equal the plain server's; only completion tokens may grow (the
 * reasoning is billed). Every reply kind is read in every dialect at the client (DialectRepliesTest, oracle/); here
 * each method's procedures run end to end under the plain server and one dialect each ({@link #DIALECT_OF}), every
 * dialect used at least once. {@code -Dgraphrag.dialects=all} runs every method under every dialect (the figures
 * docs/benchmarks.md quotes, in dialects-results.md).
 */
@LineIndependent
class DialectsTest {
    /** The one dialect each end-to-end run speaks besides the plain server's. */
    static final Map<String, ServerDialect> DIALECT_OF = Map.of("agrag.answer", ServerDialect.CHATTY, "hgmem.answer", ServerDialect.REASONING,
            "remind.answer", ServerDialect.LLAMACPP, "remind memorised repeat", ServerDialect.OLLAMA, "index-time extraction", ServerDialect.CHATTY,
            "raga", ServerDialect.VLLM);

    /** The dialects {@code run} is checked under: the plain server's first, then its own, or every dialect with -Dgraphrag.dialects=all. */
    static List<ServerDialect> dialects(String run) {
        if ("all".equals(System.getProperty("graphrag.dialects"))) return List.of(ServerDialect.values());
        return List.of(ServerDialect.PLAIN, DIALECT_OF.get(run));
    }

    @Test
    void everyDialectIsSpokenEndToEndByAtLeastOneRun() {
        assertEquals(java.util.EnumSet.allOf(ServerDialect.class), java.util.EnumSet.copyOf(
                java.util.stream.Stream.concat(java.util.stream.Stream.of(ServerDialect.PLAIN), DIALECT_OF.values().stream()).toList()));
    }

    static EvalCorpus corpus;
    static List<ScoredQuestion> questions;
    static OracleGold gold;

    @BeforeAll
    static void load() throws Exception {
        corpus = EvalCorpus.of(OracleGoldTest.musiquePassages(), 1);
        questions = ScoredQuestion.musique(OracleGoldTest.MUSIQUE, corpus);
        gold = OracleGoldTest.musiqueGold();
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
    }

    /** The figures a benchmark row reports, less completion tokens and time. */
    static String row(Scores s) {
        return String.format("R@2 %.3f R@5 %.3f set %.3f all %.3f answered %.3f calls/q %.2f prompt/q %.1f", s.recall2(), s.recall5(), s.setRecall(),
                s.allGold(), s.answerRate(), s.callsPerQuestion(), s.promptTokensPerQuestion());
    }

    @Test
    void everyOracleRowIsTheSameUnderEveryDialect() throws java.io.IOException {
        StringBuilder report = new StringBuilder("| dialect | method | row | completion tok/q |\n|---|---|---|---|\n");
        StringBuilder sizes = new StringBuilder("\nLargest prompt per step, plain server:\n\n");
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, Double> plainCompletion = new LinkedHashMap<>();
        for (ServerDialect d : ServerDialect.values()) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                Map<String, Scores> rows = new LinkedHashMap<>();
                if (dialects("agrag.answer").contains(d)) {
                    rows.put("agrag.answer", new OracleHarness(TestServer.db(), "dialect-ag", questions, gold)
                            .method(new AgragAnswerEvaluation(), server, q -> true, new LinkedHashMap<>()));
                }
                if (dialects("hgmem.answer").contains(d)) {
                    rows.put("hgmem.answer", new OracleHarness(TestServer.db(), "dialect-hg", questions, gold)
                            .method(new HgmemEvaluation("hgmem", Map.of(), false), server, q -> true, new LinkedHashMap<>()));
                }
                if (dialects("remind.answer").contains(d)) {
                    rows.put("remind.answer", new OracleHarness(TestServer.db(), "dialect-rm", questions, gold)
                            .method(new RemindEvaluation("P1", false, Map.of()), server, q -> true, new LinkedHashMap<>()));
                }
                for (Map.Entry<String, Scores> e : rows.entrySet()) {
                    report.append(String.format("| %s | %s | %s | %.1f |%n", d.label(), e.getKey(), row(e.getValue()), e.getValue().completionTokensPerQuestion()));
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
                if (d == ServerDialect.PLAIN) sizes.append(server.promptSizeReport());
            }
        }
        // the figures docs/benchmarks.md quotes (the six-question sample, so rows, not a benchmark)
        java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("graphrag.build.dir", "target"), "dialects-results.md"), report.append(sizes));
    }

    /** ReMind's memorising passes (L9's filter, then the repeat replayed from memory), the memory reset between dialects. */
    @Test
    void remindsMemorisedRepeatIsTheSameUnderEveryDialect() {
        String plain = null;
        for (ServerDialect d : dialects("remind memorised repeat")) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                OracleHarness h = new OracleHarness(TestServer.db(), "dialect-rm", questions, gold);
                Scores p1 = h.method(new RemindEvaluation("P1", true, Map.of()), server, q -> true, new LinkedHashMap<>());
                Scores p2 = h.method(new RemindEvaluation("P2", true, Map.of()), server, q -> true, new LinkedHashMap<>());
                String rows = row(p1) + " / " + row(p2);
                assertTrue(p2.callsPerQuestion() < p1.callsPerQuestion(), "the repeat is replayed from memory: " + rows);
                if (plain == null) plain = rows;
                else assertEquals(plain, rows, "P1 and P2 under the " + d.label() + " dialect");
            } finally {
                TestServer.rows("CALL remind.memory.reset({corpus: 'dialect-rm'})", Map.of());
            }
        }
    }

    @Test
    void indexTimeExtractionBuildsTheSameLayersUnderEveryDialect() {
        List<Map<String, Object>> docs = corpus.documents().subList(0, 12);
        Map<String, Object> plain = null;
        for (ServerDialect d : dialects("index-time extraction")) {
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
        for (ServerDialect d : dialects("raga")) {
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
        // raga.answer in deep mode (L5 query analysis, L6 answer) over the graph the plain server built: the same answers,
        // evidence and shown chunks under every dialect
        List<String> plainAnswers = null;
        for (ServerDialect d : dialects("raga")) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d)) {
                server.on("raga.L5", r -> PolicyReply.jsonOf(Map.of("entities", RuleExtractor.entities(null,
                        RemindExtractionPolicies.block(r).path("question").asText()), "keywords", List.of(), "sub_questions", List.of())));
                server.on("raga.L6", r -> {
                    List<String> cited = new java.util.ArrayList<>();
                    for (com.fasterxml.jackson.databind.JsonNode c : RemindExtractionPolicies.block(r).path("chunks")) cited.add(c.path("id").asText());
                    return PolicyReply.jsonOf(Map.of("answer", "shown " + cited.size(), "answer_type", "extractive", "evidence_chunk_ids", cited.subList(0, Math.min(2, cited.size()))));
                });
                List<String> answers = new java.util.ArrayList<>();
                for (ScoredQuestion q : questions) {
                    Map<String, Object> a = TestServer.rows("CALL raga.answer($q, {corpus: 'dialect-raga-plain', mode: 'deep', llm: $llm})"
                            + " YIELD answer, evidence, retrieved, llmCalls, tokensByStep RETURN *", Map.of("q", q.text(), "llm", server.llmConfig())).get(0);
                    assertEquals(2L, a.get("llmCalls"), "L5 and L6");
                    answers.add(a.get("answer") + " " + ((List<?>) a.get("evidence")).size() + " " + a.get("retrieved"));
                }
                if (plainAnswers == null) plainAnswers = answers;
                else assertEquals(plainAnswers, answers, "raga.answer under the " + d.label() + " dialect");
            }
        }
    }

    /** The largest prompt the server saw since its log was cleared. */
    static int largestPrompt(EvalLlmServer server) {
        return server.log().stream().mapToInt(EvalLlmServer.LoggedRequest::promptTokens).max().orElse(0);
    }

    @Test
    void underOllamasDefaultWindowEveryMethodFitsWithTrimsOrNamesTheSetting() {
        int window = 4096, budget = window - 1024; // maxTokens: the server default
        try (EvalLlmServer server = EvalLlmServer.start().contextTokens(window)) {
            Map<String, MethodEvaluation> methods = new LinkedHashMap<>();
            methods.put("dialect-ag", new AgragAnswerEvaluation());
            methods.put("dialect-hg", new HgmemEvaluation("hgmem", Map.of(), false));
            methods.put("dialect-rm", new RemindEvaluation("P1", false, Map.of()));
            for (Map.Entry<String, MethodEvaluation> m : methods.entrySet()) {
                int largest = 0;
                for (ScoredQuestion q : questions) {
                    m.getValue().register(server, gold);
                    server.clearLog();
                    try {
                        m.getValue().run(TestServer.db(), m.getKey(), q.text(), server.llmConfig());
                    } catch (RuntimeException e) {
                        assertTrue(e.getMessage().contains("contextTokens"), m.getKey() + " failed without naming the setting: " + e.getMessage());
                    }
                    largest = Math.max(largest, largestPrompt(server));
                }
                assertTrue(largest > 0 && largest <= budget, m.getKey() + ": the largest prompt sent, " + largest + ", fits " + budget);
            }
            // HGMem's entity summaries at index time: a name in many chunks has more descriptions than a small window holds (on
            // this sample X1's largest prompt is 711 tokens and the summaries' 772: a window of 1050 less 200 holds the one, not the other)
            OracleHarness.ingest(TestServer.db(), "dialect-hg-window", corpus, Map.of("chunkSize", 200L, "chunkOverlap", 50L));
            Map<String, Object> small = Map.of("endpoint", server.endpoint(), "model", "oracle-policy", "contextTokens", 1050L, "maxTokens", 200L);
            server.clearLog();
            Map<String, Object> index = TestServer.rows("CALL hgmem.index({corpus: 'dialect-hg-window', summaryMaxTokens: 50, llm: $llm})"
                    + " YIELD summarised, tokensByStep RETURN *", Map.of("llm", small)).get(0);
            Map<?, ?> summarise = (Map<?, ?>) ((Map<?, ?>) index.get("tokensByStep")).get("hgmem summarise");
            assertTrue((Long) summarise.get("trimmed") > 0, "descriptions were left out: " + summarise);
            assertTrue(largestPrompt(server) <= 1050 - 200, "every index-time prompt fits: " + largestPrompt(server));
            // RAGA's agent with the full toolset: its first round alone (17 tool schemas, the instructions and the chunk) needs
            // more than 3072 less the reply, so it fails naming the setting; with a window 8% short of the largest round
            // without one, its transcript is compacted, oldest result first, and it builds the same graph
            server.on("raga.L3", new RagaConstructionPolicy(false, false));
            server.on("raga.L4", r -> PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", List.of(), "summary", "none")));
            String ingest = "CALL raga.ingest([], {corpus: $c, bootstrapSchema: false, maxToolCallsPerChunk: 80, llm: $llm})";
            OracleHarness.ingest(TestServer.db(), "dialect-raga-free", corpus.documents().subList(0, 8), Map.of());
            server.contextTokens(0);
            server.clearLog();
            TestServer.rows(ingest, Map.of("c", "dialect-raga-free", "llm", server.llmConfig()));
            int largestFree = largestPrompt(server);
            OracleHarness.ingest(TestServer.db(), "dialect-raga-window", corpus.documents().subList(0, 8), Map.of());
            server.contextTokens(3072);
            TestServer.assertFails(ingest, Map.of("c", "dialect-raga-window", "llm", server.llmConfig()), "raga.L3", "contextTokens=3072", "resumes from this chunk");
            int tight = 1024 + (int) (largestFree * 1.15 * 0.92);
            server.contextTokens(tight);
            server.clearLog();
            List<Map<String, Object>> rows = TestServer.rows(ingest, Map.of("c", "dialect-raga-window", "llm", server.llmConfig()));
            Map<?, ?> step = (Map<?, ?>) ((Map<?, ?>) rows.get(rows.size() - 1).get("tokensByStep")).get("raga.L3");
            assertTrue((Long) step.get("trimmed") > 0 && (Long) step.get("trimmedTokens") > 0, "the transcript was compacted at " + tight + ": " + step);
            assertTrue(largestPrompt(server) <= tight - 1024, "every round fits: " + largestPrompt(server));
            // the same graph as with no window: a compacted result's effect is in the graph, and the agent's calls stay
            String census = "RETURN COUNT { (:RagaEntity {corpus: $c}) } AS e, COUNT { (:RagaEntity {corpus: $c})-[:RAGA_REL]->() } AS r";
            assertEquals(TestServer.rows(census, Map.of("c", "dialect-raga-free")), TestServer.rows(census, Map.of("c", "dialect-raga-window")));
        }
    }

    /**
     * A window of 300 tokens cuts every answer prompt by well over a fifth: the client flags a server count under 80% of
     * its own (a smaller cut is within what tokenizers differ by, and is not told apart).
     */
    @Test
    void aServerThatCutsOrRefusesPromptsFailsEveryMethodNamingTheFixAndLeavesTheGraph() {
        for (ServerDialect d : List.of(ServerDialect.OLLAMA, ServerDialect.VLLM)) {
            try (EvalLlmServer server = EvalLlmServer.start().dialect(d).window(300)) {
                new AgragAnswerEvaluation().register(server, gold);
                new HgmemEvaluation("hgmem", Map.of(), false).register(server, gold);
                new RemindEvaluation("P1", false, Map.of()).register(server, gold);
                String fix = d == ServerDialect.OLLAMA ? "OLLAMA_CONTEXT_LENGTH" : "--max-model-len";
                Map<String, Object> p = Map.of("q", gold.questions().get(0).question(), "llm", server.llmConfig());
                TestServer.assertFailsCleanly("CALL agrag.answer($q, {corpus: 'dialect-ag', llm: $llm})", p, "agrag", fix);
                TestServer.assertFailsCleanly("CALL remind.query($q, {corpus: 'dialect-rm', llm: $llm})", p, "remind", fix);
                long sessions = (Long) TestServer.rows("RETURN COUNT { (:HgSession) } AS n").get(0).get("n");
                TestServer.assertFails("CALL hgmem.answer($q, {corpus: 'dialect-hg', llm: $llm})", p, "hgmem", fix);
                // a failed session is kept, as every hgmem failure keeps it (docs/hgmem.md): it can be resumed or dropped
                assertTrue((Long) TestServer.rows("RETURN COUNT { (:HgSession) } AS n").get(0).get("n") <= sessions + 1);
                // index-time: the extraction stops at the first chunk, nothing half-written, and a re-run resumes
                String c = "dialect-cut-" + d.label();
                OracleHarness.ingest(TestServer.db(), c, corpus.documents().subList(0, 3), Map.of());
                TestServer.assertFailsCleanly("CALL hgmem.index({corpus: $c, llm: $llm})", Map.of("c", c, "llm", server.llmConfig()), "hgmem", fix);
            }
        }
    }
}
