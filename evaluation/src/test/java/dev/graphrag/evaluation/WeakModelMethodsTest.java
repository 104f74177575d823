package dev.graphrag.evaluation;

import dev.graphrag.LineIndependent;
import dev.graphrag.procedures.TestServer;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.WeakModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each method answering with one step's replies all broken (prose, after the repair turn too), on layers the oracle
 * built from real MuSiQue passages: the step degrades as docs/llm.md says, the call answers, and tokensByStep counts
 * the unusable replies and the fallback; only an answer step, which has no honest fallback, fails the call, naming the
 * step, the model and what it returned.
 */
@LineIndependent
class WeakModelMethodsTest {
    static final String CORPUS = "weak-methods";
    static EvalLlmServer llm;
    static String question;

    @BeforeAll
    static void build() throws Exception {
        llm = EvalLlmServer.start();
        Path gold = Files.createTempDirectory("weak-methods").resolve("gold.json");
        OracleGold.build(OracleGold.fromMusique(EvaluationCommandTest.MUSIQUE), gold);
        OraclePolicies.register(llm, OracleGold.load(gold), List.of(EvaluatedMethod.AGRAG, EvaluatedMethod.REMIND, EvaluatedMethod.HGMEM, EvaluatedMethod.RAGA));
        var first = EvaluationCommandTest.JSON.readTree(EvaluationCommandTest.MUSIQUE.toFile()).get(0);
        question = first.path("question").asText();
        List<Map<String, Object>> docs = new ArrayList<>();
        for (var p : first.path("paragraphs")) docs.add(Map.of("id", "p" + docs.size(), "title", p.path("title").asText(), "text", p.path("paragraph_text").asText()));
        rows("CALL rag.ingest($docs, {corpus: $c})", Map.of("docs", docs, "c", CORPUS));
        rows("CALL agrag.index($cfg)", Map.of("cfg", cfg(Map.of())));
        rows("CALL remind.index($cfg)", Map.of("cfg", cfg(Map.of())));
        rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg(Map.of())));
        rows("CALL raga.ingest([], $cfg)", Map.of("cfg", cfg(Map.of("bootstrapSchema", false))));
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> cfg(Map<String, Object> extra) {
        return llm.config(CORPUS, extra);
    }

    /** Every reply of {@code step} an apology in prose, the repair turn's too; the other steps as the oracle answers. */
    static void broken(String step) {
        llm.weakModel(WeakModel.of(1, 0).kind(WeakModel.Kind.PROSE, 0).step(step, 1));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> step(Map<String, Object> row, String step) {
        Map<String, Object> s = (Map<String, Object>) ((Map<String, Object>) row.get("tokensByStep")).get(step);
        assertNotNull(s, step + " in " + row.get("tokensByStep"));
        return s;
    }

    static void degraded(Map<String, Object> row, String step, String fallback) {
        Map<String, Object> s = step(row, step);
        assertTrue((Long) s.get("unusable") >= 1, s.toString());
        assertEquals(s.get("unusable"), ((Map<?, ?>) s.get("fallbacks")).get(fallback), step + ": every unusable reply has its fallback: " + s);
        assertEquals(2 * (Long) s.get("unusable"), s.get("calls"), "each took the reply and the repair turn, both counted: " + s);
    }

    @Test
    void agragAnswersWithoutTheTripleFilter() {
        broken("agrag triple filter");
        Map<String, Object> r = rows("CALL agrag.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of()))).get(0);
        assertNotNull(r.get("answer"));
        degraded(r, "agrag triple filter", "all candidate facts kept, as with filter false");
    }

    @Test
    void remindStopsItsWalkWithThePathSoFarAndMemorisesNothing() {
        llm.weakModel(WeakModel.of(1, 0).kind(WeakModel.Kind.PROSE, 0).step("remind sufficiency", 1).step("remind next node", 1));
        Map<String, Object> r = rows("CALL remind.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of()))).get(0);
        assertNotNull(r.get("answer"));
        assertEquals("LLM_FAILURE", r.get("stopReason"));
        assertEquals(false, r.get("memorized"));
        degraded(r, "remind sufficiency", "taken as not sufficient (the walk goes on, bounded by maxJumps)");
        degraded(r, "remind next node", "counted as an invalid move (after maxRetries the walk stops with the path so far)");
    }

    @Test
    void hgmemAnswersFromTheMemoryBuiltSoFar() {
        broken("hgmem plan");
        List<Map<String, Object>> r = rows("CALL hgmem.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of("keepSession", false))));
        Map<String, Object> answer = r.get(r.size() - 1);
        assertEquals("answer", answer.get("kind"));
        assertEquals(2, r.size(), "one step, then the answer: the plan's fallback ends the loop");
        assertFalse(((String) answer.get("answer")).isBlank());
        degraded(answer, "hgmem plan", "memory taken as final; the answer uses what it holds");
    }

    @Test
    void ragaAnswersExtractivelyAndDeepModeFallsBackToTheVectorHits() {
        broken("raga.L6");
        Map<String, Object> r = rows("CALL raga.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of()))).get(0);
        assertEquals("extracted", r.get("answerType"));
        List<?> evidence = (List<?>) r.get("evidence");
        assertEquals(1, evidence.size());
        String cited = (String) ((Map<?, ?>) evidence.get(0)).get("text");
        assertTrue(cited.contains(((String) r.get("answer")).strip()), "the answer is a sentence of the chunk it cites");
        degraded(r, "raga.L6", "extractive answer: the shown sentence closest to the question");

        broken("raga.L5");
        Map<String, Object> deep = rows("CALL raga.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of("mode", "deep")))).get(0);
        assertNotNull(deep.get("answer"));
        degraded(deep, "raga.L5", "no query entities: the vector hits only");
    }

    @Test
    void anAnswerStepHasNoHonestFallbackAndItsErrorSaysWhatTheModelReturned() {
        broken("agrag.answer");
        String error = TestServer.assertFails("CALL agrag.answer($q, $cfg)", Map.of("q", question, "cfg", cfg(Map.of())), "agrag.answer",
                "model oracle-policy", "I'm sorry, but I can't provide that");
        assertTrue(error.contains("unusable JSON after one repair turn"), error);
    }

    @Test
    @SuppressWarnings("unchecked")
    void ragaAsksAReadingThatEndedInProseOnceMoreAndTheGraphStaysSound() {
        llm.weakModel(WeakModel.of(7, 0).kind(WeakModel.Kind.PROSE, 0).step("raga.L3", 0.5));
        String corpus = "weak-raga";
        List<Map<String, Object>> docs = rows("MATCH (d:Document {corpus: $c}) RETURN d.id AS id, d.title AS title, d.text AS text ORDER BY id", Map.of("c", CORPUS));
        rows("CALL rag.ingest($docs, {corpus: $c})", Map.of("docs", docs, "c", corpus));
        List<Map<String, Object>> out = rows("CALL raga.ingest([], $cfg)", Map.of("cfg", llm.config(corpus, Map.of("bootstrapSchema", false))));
        Map<String, Object> summary = out.get(out.size() - 1);
        Map<String, Long> fallbacks = (Map<String, Long>) ((Map<String, Object>) ((Map<String, Object>) summary.get("tokensByStep")).get("raga.L3")).get("fallbacks");
        long reminded = fallbacks.getOrDefault("prose before any tool call: asked once more", 0L), lost = fallbacks.getOrDefault("chunk ended in prose before any tool call", 0L);
        System.out.println("raga.L3 at 50 % prose: " + fallbacks);
        assertTrue(reminded > 0 && lost < reminded, "most readings that began in prose were read on the second asking: " + fallbacks);
        Map<String, Object> census = LayerCensus.of(new Target() {
            public List<Map<String, Object>> rows(String cypher, Map<String, Object> params) { return TestServer.rows(cypher, params); }

            public String describe() { return "test server"; }

            public void close() { }
        }, "raga", corpus);
        assertEquals("ready", census.get("state"));
        assertEquals(List.of(), census.get("problems"));
    }
}
