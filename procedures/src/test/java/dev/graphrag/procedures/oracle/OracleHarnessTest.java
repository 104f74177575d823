package dev.graphrag.procedures.oracle;

import dev.graphrag.oracle.AgragAnswerEvaluation;
import dev.graphrag.oracle.AgragExtractionPolicy;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.MethodEvaluation;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.OracleGoldTest;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.RemindEvaluation;
import dev.graphrag.oracle.ScoredQuestion;
import dev.graphrag.oracle.Scores;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.procedures.TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness on real embeddings in the shared test server: two shuffles of one corpus give identical figures
 * (controls and AGRAG), a method's yielded usage equals the evaluation server's log, the policies are stateless,
 * and index-time extraction is answered from the chunk text alone.
 */
@LineIndependent
class OracleHarnessTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static EvalCorpus first, second;
    static List<ScoredQuestion> questions;
    static OracleGold gold;

    @BeforeAll
    static void ingest() throws Exception {
        List<Map<String, Object>> passages = OracleGoldTest.musiquePassages();
        first = EvalCorpus.of(passages, 1);
        second = EvalCorpus.of(passages, 2);
        assertFalse(first.documents().equals(second.documents()), "two seeds, two orders");
        questions = ScoredQuestion.musique(OracleGoldTest.MUSIQUE, first);
        assertEquals(questions, ScoredQuestion.musique(OracleGoldTest.MUSIQUE, second), "gold ids do not depend on order");
        gold = OracleGoldTest.musiqueGold();
        for (String corpus : List.of("eval-a", "eval-b")) {
            OracleHarness.ingest(TestServer.db(), corpus, corpus.equals("eval-a") ? first : second, Map.of());
            TestServer.rows("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus));
        }
    }

    @Test
    void twoShufflesGiveIdenticalFigures() {
        OracleHarness a = new OracleHarness(TestServer.db(), "eval-a", questions, gold), b = new OracleHarness(TestServer.db(), "eval-b", questions, gold);
        for (String mode : List.of("dense", "bm25")) {
            Scores x = a.ranked(mode, mode, q -> true), y = b.ranked(mode, mode, q -> true);
            assertEquals(List.of(x.recall2(), x.recall5()), List.of(y.recall2(), y.recall5()), mode);
        }
        Map<String, Integer> ba = new LinkedHashMap<>(), bb = new LinkedHashMap<>();
        Scores ga = a.gatedControl(2, q -> true, ba), gb = b.gatedControl(2, q -> true, bb);
        assertEquals(ba, bb, "per-question budgets");
        assertEquals(List.of(ga.setRecall(), ga.allGold(), ga.answerRate()), List.of(gb.setRecall(), gb.allGold(), gb.answerRate()));
        assertTrue(ga.setRecall() > 0, "the gated control finds gold passages");
        for (String mode : List.of("mcmi", "ppr", "hybrid")) {
            List<Double> x = agragRecall("eval-a", mode), y = agragRecall("eval-b", mode);
            assertEquals(x, y, "agrag.retrieve " + mode);
        }
    }

    @Test
    void aHarnessReadingTitlesShowsEachHitBelowItsDocumentsTitle() {
        OracleHarness plain = new OracleHarness(TestServer.db(), "eval-a", questions, gold), titled = plain.readingTitles();
        String q = questions.get(0).text();
        List<OracleHarness.Hit> a = plain.search(q, 3, "dense"), b = titled.search(q, 3, "dense");
        assertEquals(a.stream().map(OracleHarness.Hit::documentId).toList(), b.stream().map(OracleHarness.Hit::documentId).toList(), "the same ranking");
        for (int i = 0; i < a.size(); i++) {
            assertEquals(first.title(a.get(i).documentId()) + "\n" + a.get(i).text(), b.get(i).text());
            assertFalse(a.get(i).text().startsWith(first.title(a.get(i).documentId()) + "\n"), "the plain harness shows the text alone");
        }
    }

    static List<Double> agragRecall(String corpus, String mode) {
        double r2 = 0, r5 = 0;
        for (ScoredQuestion q : questions) {
            List<String> ids = TestServer.rows("CALL agrag.retrieve($q, {corpus: $c, k: 5, mode: $m}) YIELD documentId RETURN documentId",
                    Map.of("q", q.text(), "c", corpus, "m", mode)).stream().map(r -> (String) r.get("documentId")).toList();
            r2 += Scores.recallAt(ids, 2, q.goldIds());
            r5 += Scores.recallAt(ids, 5, q.goldIds());
        }
        return List.of(r2, r5);
    }

    @Test
    void methodUsageMatchesTheServerLogAndPoliciesAreStateless() {
        OracleHarness h = new OracleHarness(TestServer.db(), "eval-a", questions, gold);
        List<EvalLlmServer.LoggedRequest> all = new ArrayList<>();
        Scores s;
        try (EvalLlmServer server = EvalLlmServer.start()) {
            Map<String, Integer> budgets = new LinkedHashMap<>();
            MethodEvaluation answer = new AgragAnswerEvaluation();
            MethodEvaluation method = new MethodEvaluation() {
                @Override public String name() { return answer.name(); }
                @Override public void register(EvalLlmServer s, OracleGold g) { answer.register(s, g); }
                @Override
                public Output run(org.neo4j.graphdb.GraphDatabaseService db, String corpus, String question, Map<String, Object> llm) {
                    Output out = answer.run(db, corpus, question, llm);
                    all.addAll(server.log()); // the harness clears the log before each question
                    return out;
                }
            };
            s = h.method(method, server, q -> true, budgets);
            assertEquals(2 * questions.size(), all.size(), "a triple-filter and an answer call per question");
            assertEquals(java.util.Set.of(AgragAnswerEvaluation.FILTER_STEP, AgragAnswerEvaluation.STEP),
                    all.stream().map(EvalLlmServer.LoggedRequest::step).collect(java.util.stream.Collectors.toSet()));
            assertTrue(s.promptTokensPerQuestion() > 100 && s.completionTokensPerQuestion() >= EvalLlmServer.padTokens(), "counted, pad included");
            assertEquals(questions.size(), budgets.size());
            // every reply carried the pad and only the answer an evidence check allows
            for (EvalLlmServer.LoggedRequest r : all) assertTrue(r.reply().path("content").asText().contains(EvalLlmServer.REASONING_PAD));
        }
        // replayed in another order on a fresh server: the same replies
        Collections.shuffle(all, new Random(7));
        try (EvalLlmServer fresh = EvalLlmServer.start()) {
            new AgragAnswerEvaluation().register(fresh, gold);
            for (EvalLlmServer.LoggedRequest r : all) assertEquals(r.reply(), fresh.answer(r.step(), r.body()), "stateless policy");
        }
    }

    @Test
    void aYieldThatDisagreesWithTheLogIsCaught() {
        ScoredQuestion q = questions.get(0);
        Map<String, EvalLlmServer.StepTotal> logged = Map.of("agrag.answer", new EvalLlmServer.StepTotal(1, 500, 60));
        MethodEvaluation.Output right = new MethodEvaluation.Output(List.of(), false, null, 1, 500, 60,
                Map.of("agrag.answer", Map.of("calls", 1L, "promptTokens", 500L, "completionTokens", 60L)));
        OracleHarness.checkUsage("m", q, right, logged);
        MethodEvaluation.Output wrong = new MethodEvaluation.Output(List.of(), false, null, 1, 499, 60,
                Map.of("agrag.answer", Map.of("calls", 1L, "promptTokens", 499L, "completionTokens", 60L)));
        OracleHarness.UsageMismatch e = assertThrows(OracleHarness.UsageMismatch.class, () -> OracleHarness.checkUsage("m", q, wrong, logged));
        assertTrue(e.getMessage().contains("step 'agrag.answer'"), e.getMessage());
    }

    @Test
    void indexTimeExtractionComesFromTheChunkTextAlone() {
        List<Map<String, Object>> docs = first.documents().subList(0, 15);
        try (EvalLlmServer server = EvalLlmServer.start()) {
            server.on(AgragExtractionPolicy.STEP, new AgragExtractionPolicy());
            OracleHarness.ingest(TestServer.db(), "eval-llm", EvalCorpus.of(docs, 3), Map.of());
            Map<String, Object> row = TestServer.rows("CALL agrag.index({corpus: 'eval-llm', relations: 'llm', llm: $llm})", Map.of("llm", server.llmConfig())).get(0);
            Map<String, EvalLlmServer.StepTotal> logged = server.totals();
            EvalLlmServer.StepTotal t = logged.get(AgragExtractionPolicy.STEP);
            Map<?, ?> yielded = (Map<?, ?>) ((Map<?, ?>) row.get("tokensByStep")).get(AgragExtractionPolicy.STEP);
            assertEquals(List.of(t.calls(), t.promptTokens(), t.completionTokens(), 0L),
                    List.of(yielded.get("calls"), yielded.get("promptTokens"), yielded.get("completionTokens"), yielded.get("repairs")),
                    "agrag.index's yield = the server's log, and the plain server's replies needed no repair");
            assertEquals(t.calls(), row.get("llmCalls"));
            assertTrue((Long) row.get("facts") > 0, "the extractor's relations became facts: " + row);
            for (EvalLlmServer.LoggedRequest r : server.log()) {
                for (OracleGold.Question q : gold.questions()) assertFalse(r.body().toString().contains(q.question()), "no question reaches the extractor");
            }
        }
    }

    @Test
    void remindOracleWalkRepeatsASuccessfulWalkFromMemory() {
        try (EvalLlmServer server = EvalLlmServer.start()) {
            RemindEvaluation cold = new RemindEvaluation("P1", true, Map.of()), again = new RemindEvaluation("P2", true, Map.of());
            cold.register(server, gold);
            OracleHarness.ingest(TestServer.db(), "eval-rm", first, Map.of("chunker", "sentences"));
            TestServer.rows("CALL remind.index({corpus: 'eval-rm', llm: $llm})", Map.of("llm", server.llmConfig()));
            for (EvalLlmServer.LoggedRequest r : server.log()) {
                for (OracleGold.Question q : gold.questions()) assertFalse(r.body().toString().contains(q.question()), "no question reaches the extractor");
            }
            OracleHarness h = new OracleHarness(TestServer.db(), "eval-rm", questions, gold);
            // the harness checks every question's yielded usage against the server's log, step by step
            Scores first = h.method(cold, server, q -> true, new LinkedHashMap<>());
            Scores second = h.method(again, server, q -> true, new LinkedHashMap<>());
            assertEquals(questions.size(), first.questions());
            int succeeded = 0;
            for (int i = 0; i < questions.size(); i++) {
                RemindEvaluation.Walked a = cold.walked().get(i), b = again.walked().get(i);
                assertTrue(java.util.Set.of("SUFFICIENT", "MAX_JUMPS", "MAX_ITERATIONS", "EXHAUSTED").contains(a.stopReason()), a.stopReason());
                if (!"SUFFICIENT".equals(a.stopReason())) continue;
                succeeded++;
                assertTrue(a.memorized(), "a sufficient walk is memorised");
                assertEquals(2, b.llmCalls(), "the repeat is replayed: one sufficiency check and the answer, for " + a.question());
                assertTrue(b.documentIds().containsAll(a.documentIds().stream().filter(questions.get(i).goldIds()::contains).toList()),
                        "the repeat finds the gold passages the first walk found");
            }
            assertTrue(succeeded > 0, "the oracle walker answers some sample questions");
            assertEquals(questions.size(), second.questions());
        }
    }

    @Test
    void aStepWithoutPolicyIsRefusedByName() {
        try (EvalLlmServer server = EvalLlmServer.start()) {
            String error = TestServer.assertFailsCleanly("CALL agrag.answer('Who wrote Brand?', {corpus: 'eval-a', llm: $llm})",
                    Map.of("llm", server.llmConfig()), "agrag triple filter");
            assertTrue(error.contains("no policy for the step 'agrag triple filter'"), error);
            assertTrue(server.log().isEmpty(), "a refused request is not logged as answered");
        }
    }
}
