package dev.graphrag.evaluation;

import dev.graphrag.LineIndependent;
import dev.graphrag.oracle.QuestionSet;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command's pieces as plain Java: gold lookup, failure causes, the log as a checkpoint, the report's arithmetic. */
@LineIndependent
class EvaluationPiecesTest {
    @Test
    void goldIsFoundByTitleAndTextOrByAUniqueTitleAndNeverGuessed() {
        GoldPassages gold = new GoldPassages(List.of(doc("a1", "Paris", "Paris is the capital."), doc("a2", "Paris", "Paris has  the Louvre."),
                doc("b", "Berlin", "Berlin is a city."), doc("c", null, "untitled")));
        assertEquals(new GoldPassages.Resolved(Set.of("a2", "b"), true),
                gold.resolve(List.of(new QuestionSet.Gold("Paris", "Paris has the Louvre. "), new QuestionSet.Gold("Berlin", null))));
        assertFalse(gold.resolve(List.of(new QuestionSet.Gold("Paris", null))).complete(), "an ambiguous title alone");
        assertFalse(gold.resolve(List.of(new QuestionSet.Gold("Rome", null), new QuestionSet.Gold("Berlin", null))).complete(), "a passage not in the corpus");
        assertFalse(gold.resolve(List.of()).complete(), "no gold: retrieval is not scored");
    }

    @Test
    void failuresAreSortedIntoCausesAUserActsOn() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("LLM step 'agrag.answer': 127.0.0.1:8000 read only 4096 prompt tokens of the 5120 sent", "context window");
        cases.put("LLM step 'hgmem plan' failed after 3 attempts: request timed out after 60000 ms", "timeout");
        cases.put("LLM step 'remind next node' returned unusable JSON after one repair turn: missing field", "malformed reply");
        cases.put("LLM step 'raga.L6': the server is busy: all 4 LLM permits (graphrag.llm.maxConcurrent) stayed in use", "server busy");
        cases.put("LLM step 'x' failed: connection refused at 127.0.0.1:1", "unreachable");
        cases.put("LLM step 'x' failed: HTTP 500 from 127.0.0.1:8000", "LLM error");
        cases.put("something else", "other");
        cases.forEach((message, cause) -> assertEquals(cause, Failure.of(new RuntimeException("Failed to invoke procedure", new IllegalStateException(message))).cause(), message));
        String longMessage = "x".repeat(2000);
        assertTrue(Failure.of(new RuntimeException(longMessage)).message().length() < 700);
    }

    @Test
    void theLogSkipsALineCutByAKillAndLaterLinesWin() throws Exception {
        Path file = Files.createTempDirectory("evaluate-log").resolve("results.jsonl");
        try (QuestionLog log = new QuestionLog(file)) {
            log.append(question("q1", null));
            log.append(question("q2", Map.of("cause", "timeout", "message", "timed out")));
        }
        Files.writeString(file, "{\"type\":\"question\",\"method\":\"agr", java.nio.file.StandardOpenOption.APPEND);
        try (QuestionLog log = new QuestionLog(file)) {
            assertEquals(1, log.skippedLines());
            assertTrue(log.done("agrag", "first", "q1"));
            assertFalse(log.done("agrag", "first", "q2"), "a failed question is asked again");
            log.append(question("q2", null));
            assertTrue(log.done("agrag", "first", "q2"));
        }
        try (QuestionLog log = new QuestionLog(file)) {
            assertEquals(1, log.skippedLines(), "the append after the cut line started a line of its own");
            assertEquals(3, log.entries().size());
            assertTrue(log.done("agrag", "first", "q2"));
        }
    }

    @Test
    void theReportAveragesScoresOverEveryQuestionAndCostsOverThoseThatDidNotFail() throws Exception {
        Path file = Files.createTempDirectory("evaluate-report").resolve("results.jsonl");
        try (QuestionLog log = new QuestionLog(file)) {
            Map<String, Object> ok = question("q1", null);
            ok.put("exactMatch", 1.0);
            ok.put("f1", 1.0);
            ok.put("llmCalls", 4L);
            ok.put("promptTokens", 1000L);
            ok.put("goldComplete", true);
            ok.put("recall2", 0.5);
            ok.put("recall5", 1.0);
            ok.put("recallShown", 1.0);
            ok.put("documents", List.of("d1", "d2", "d3"));
            ok.put("tokensByStep", Map.of("agrag.answer", Map.of("calls", 4, "promptTokens", 1000, "completionTokens", 40)));
            log.append(ok);
            Map<String, Object> failed = question("q2", Map.of("cause", "timeout", "message", "timed out"));
            failed.put("goldComplete", true);
            log.append(failed);
            Map<String, Object> unscored = question("q3", null);
            unscored.put("exactMatch", 0.0);
            log.append(unscored);
            EvaluationReport report = EvaluationReport.of(Map.of("model", "m"), log, Map.of("agrag/first", List.of("q1", "q2", "q3", "q4")), 10);
            EvaluationReport.Row row = report.rows().get(0);
            assertEquals(3, row.questions(), "q4 is not in the log yet");
            assertEquals(1, row.failed());
            assertEquals(Map.of("timeout", 1), row.failures());
            assertEquals(1 / 3.0, row.exactMatch(), 1e-12, "a failure scores 0");
            assertEquals(2, row.retrievalScored(), "q3's gold is not complete");
            assertEquals(0.25, row.recall2(), 1e-12);
            assertEquals(2.0, row.callsPerQuestion(), 1e-12, "over q1 and q3, which did not fail");
            assertEquals(500.0, row.perStepPerQuestion().get("agrag.answer").get("promptTokens"), 1e-12);
            assertTrue(report.builds().isEmpty(), "no index line in this log");
            assertTrue(report.markdown().contains("| timeout | 1 |"), report.markdown());
        }
    }

    @Test
    void aQuestionFileCarriesItsPassages() throws Exception {
        Path dir = Path.of("../oracle/src/test/resources/eval");
        List<QuestionSet.Question> hotpot = QuestionSet.read(dir.resolve("hotpotqa_sample.json"));
        List<Map<String, Object>> passages = QuestionSet.passages(dir.resolve("hotpotqa_sample.json"), Set.of(hotpot.get(0).id()));
        assertEquals(10, passages.size(), "HotpotQA's ten context paragraphs");
        GoldPassages gold = new GoldPassages(withIds(passages));
        assertTrue(gold.resolve(hotpot.get(0).gold()).complete(), "its supporting titles are among them");
        List<QuestionSet.Question> wiki = QuestionSet.read(dir.resolve("2wikimultihopqa_sample.json"));
        assertTrue(new GoldPassages(withIds(QuestionSet.passages(dir.resolve("2wikimultihopqa_sample.json"), Set.of(wiki.get(0).id()))))
                .resolve(wiki.get(0).gold()).complete());
        assertTrue(QuestionSet.passages(dir.resolve("hotpotqa_sample.json"), Set.of("no-such-id")).isEmpty());
    }

    private static List<Map<String, Object>> withIds(List<Map<String, Object>> passages) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < passages.size(); i++) {
            Map<String, Object> d = new LinkedHashMap<>(passages.get(i));
            d.put("id", "p" + i);
            out.add(d);
        }
        return out;
    }

    private static Map<String, Object> doc(String id, String title, String text) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("title", title);
        d.put("text", text);
        return d;
    }

    private static Map<String, Object> question(String id, Map<String, Object> failure) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "question");
        m.put("method", "agrag");
        m.put("pass", "first");
        m.put("id", id);
        m.put("exactMatch", 0.0);
        m.put("f1", 0.0);
        m.put("documents", List.of());
        m.put("llmCalls", 0L);
        m.put("promptTokens", 0L);
        m.put("ms", 10L);
        m.put("failure", failure);
        return m;
    }
}
