package dev.graphrag.evaluation;

import dev.graphrag.LineIndependent;
import dev.graphrag.procedures.TestJvm;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command as a user runs it, in a JVM of its own with its embedded server and kept store: killed (SIGKILL)
 * mid-run, then run again with the same --out. The second run reuses the store (no document ingested again, no layer
 * rebuilt) and asks only the questions the log does not hold, so every question ends in the log exactly once.
 */
@LineIndependent
class EvaluationResumeTest {
    static final String[] ARGS = {"--questions", EvaluationCommandTest.MUSIQUE.toString(), "--corpus", "questions", "--oracle", "--methods", "dense,agrag,remind",
            "--limit", "4"};

    @Test
    void aKilledRunResumesFromItsLogWithoutAskingAnyQuestionTwice() throws Exception {
        Path out = Files.createTempDirectory("evaluate-resume");
        Path log = out.resolve("results.jsonl");
        Process first = start(out);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        // dense's four, then agrag's: kill while the methods after it have questions left
        while (questionLines(log) < 6) {
            assertTrue(first.isAlive(), "the first run ended before the kill: " + Files.readString(out.resolve("console.txt")));
            assertTrue(System.nanoTime() < deadline, "no progress in the log");
            Thread.sleep(20);
        }
        first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        int beforeKill = questionLines(log);
        int total = 4 + 4 + 4 * 2; // dense, agrag, remind's first and repeat passes
        assertTrue(beforeKill < total, "killed mid-run: " + beforeKill + " of " + total);

        Process second = start(out);
        assertTrue(second.waitFor(5, TimeUnit.MINUTES), "the resumed run finished");
        String output = Files.readString(out.resolve("console.txt"));
        assertEquals(0, second.exitValue(), output);
        assertTrue(output.contains("already in the log, resuming"), output);
        assertTrue(output.contains("questions left, about"), "the resumed pass says what is left to pay: " + output);

        List<JsonNode> lines = EvaluationCommandTest.lines(out);
        Map<String, Integer> asked = new HashMap<>();
        List<String> types = new ArrayList<>();
        for (JsonNode e : lines) {
            types.add(e.path("type").asText());
            if (e.path("type").asText().equals("question")) {
                assertTrue(e.path("failure").isNull(), e.toString());
                asked.merge(QuestionLog.key(e.path("method").asText(), e.path("pass").asText(), e.path("id").asText()), 1, Integer::sum);
            }
        }
        assertEquals(total, asked.size(), "every question of every pass is in the log");
        assertTrue(asked.values().stream().allMatch(n -> n == 1), "none asked twice: " + asked);
        assertEquals(2, types.stream().filter("run"::equals).count());
        assertEquals(2, types.stream().filter("index"::equals).count(), "agrag and remind built once each: the second run kept the store's layers");
        List<JsonNode> ingests = lines.stream().filter(e -> e.path("type").asText().equals("ingest")).toList();
        assertEquals(2, ingests.size());
        assertEquals(ingests.get(0).path("documents").asInt(), ingests.get(1).path("status").path("unchanged").asInt(), "the second run ingested nothing again");
        JsonNode results = EvaluationCommandTest.JSON.readTree(out.resolve("results.json").toFile());
        assertEquals(4, results.path("rows").size());
        for (JsonNode row : results.path("rows")) assertEquals(4, row.path("questions").asInt(), row.toString());
    }

    private static Process start(Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1500m"));
        cmd.addAll(TestJvm.jitFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.graphrag.evaluation.Evaluate"));
        cmd.addAll(List.of(ARGS));
        cmd.addAll(List.of("--out", out.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(out.resolve("console.txt").toFile())).start();
    }

    private static int questionLines(Path log) throws Exception {
        if (!Files.exists(log)) return 0;
        int n = 0;
        for (String l : Files.readAllLines(log)) if (l.contains("\"type\":\"question\"")) n++;
        return n;
    }
}
