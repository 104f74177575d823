package dev.graphrag.demo;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every file in cypher/ runs, statement by statement, and every statement returns rows. The {@code $llm}
 * parameter points at the stand-in LLM, which answers every step with JSON the step accepts.
 */
class CypherExamplesTest {
    static final Path CYPHER = Path.of("..", "cypher");
    static final StandInLlm LLM = StandInLlm.start();

    @AfterAll
    static void stop() {
        LLM.close();
    }

    /** The walk-through files, in order. */
    static List<Path> files() throws IOException {
        try (Stream<Path> s = Files.walk(CYPHER)) {
            return s.filter(p -> p.toString().endsWith(".cypher")).sorted().toList();
        }
    }

    /** Stand-in replies for every step the walk-throughs send: JSON each step accepts. */
    static void standInRules(StandInLlm llm) {
        // remind.* steps: every ReMind reply shape at once (the walk judges the replayed subgraph sufficient)
        llm.when(r -> r.step() != null && r.step().startsWith("remind")).replyJson(Map.ofEntries(Map.entry("entities", List.of("Scott Derrickson", "Ethan Hawke")),
                 Map.entry("triples", List.of(Map.of("subject", "Scott Derrickson", "sentence", "Scott Derrickson directed Sinister.", "object", "Ethan Hawke"))),
                Map.entry("title", "A film and its people"), Map.entry("summary", "Ethan Hawke was born in Austin."), Map.entry("sufficient", true),
                Map.entry("type", "entity"), Map.entry("id", "E1"), Map.entry("edges", List.of()), Map.entry("chunks", List.of("C1")),
                Map.entry("answer", "Austin, Texas"), Map.entry("citedChunks", List.of("C1")), Map.entry("reasoning", "stand-in")));
        llm.always().replyJson(Map.of("thought", "Dejah Thoris is the granddaughter of Tardos Mors.", "answer", "Tardos Mors",
                "fact", List.of(), "triples", List.of(List.of("Dejah Thoris", "granddaughter of", "Tardos Mors"),
                        List.of("John Carter", "married", "Dejah Thoris"))));
    }

    @TestFactory
    Stream<DynamicTest> everyCypherFileRuns() throws IOException {
        List<Path> files = files();
        assertFalse(files.isEmpty(), "no cypher/ examples found");
        standInRules(LLM);
        Map<String, Object> params = Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "stand-in"));
        return files.stream().map(f -> DynamicTest.dynamicTest(CYPHER.relativize(f).toString(), () -> {
            for (String statement : statements(Files.readString(f))) {
                assertFalse(TestServer.rows(statement, params).isEmpty(), "no rows from: " + statement);
            }
        }));
    }

    /** Statements end with ';' at the end of a line; '//' comment lines are dropped. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : script.split("\n")) {
            if (line.trim().startsWith("//")) continue;
            cur.append(line).append('\n');
            if (line.trim().endsWith(";")) {
                String st = cur.toString().trim();
                out.add(st.substring(0, st.length() - 1));
                cur.setLength(0);
            }
        }
        assertTrue(cur.toString().isBlank(), "statement without ';' at the end of the file");
        return out;
    }
}
