package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cypher/ walk-throughs as the tests run them: the files in order, their statements, and stand-in replies for
 * every LLM step they send. RealServerTest runs every statement over Bolt against the deployable jar, ProcedurePagesTest
 * runs them embedded as its example data (the two that need GDS included), and the demo's test runs getting-started.md
 * with the same splitter.
 */
public final class CypherScripts {
    static final Path CYPHER = Path.of("..", "cypher");

    private CypherScripts() {}

    /** The walk-through files, in order. */
    public static List<Path> files() throws IOException {
        try (Stream<Path> s = Files.walk(CYPHER)) {
            return s.filter(p -> p.toString().endsWith(".cypher")).sorted().toList();
        }
    }

    /** Stand-in replies for every step the walk-throughs send: JSON each step accepts. */
    public static void standInRules(StandInLlm llm) {
        // remind.* steps: every ReMind reply shape at once (the walk judges the replayed subgraph sufficient)
        llm.when(r -> r.step() != null && r.step().startsWith("remind")).replyJson(Map.ofEntries(Map.entry("entities", List.of("Scott Derrickson", "Ethan Hawke")),
                 Map.entry("triples", List.of(Map.of("subject", "Scott Derrickson", "sentence", "Scott Derrickson directed Sinister.", "object", "Ethan Hawke"))),
                Map.entry("title", "A film and its people"), Map.entry("summary", "Ethan Hawke was born in Austin."), Map.entry("sufficient", true),
                Map.entry("type", "entity"), Map.entry("id", "E1"), Map.entry("edges", List.of()), Map.entry("chunks", List.of("C1")),
                Map.entry("answer", "Austin, Texas"), Map.entry("citedChunks", List.of("C1")), Map.entry("reasoning", "stand-in")));
        // hgmem.* steps: every HGMem reply shape at once (memory is judged sufficient after the first step)
        llm.when(r -> r.step() != null && r.step().startsWith("hgmem")).replyJson(Map.ofEntries(
                Map.entry("entities", List.of(Map.of("name", "Xodar", "type", "person", "description", "Xodar is a Dator of the First Born."),
                        Map.of("name", "Issus", "type", "person", "description", "Issus is the goddess of the First Born."))),
                Map.entry("relationships", List.of(Map.of("source", "Issus", "target", "Xodar", "description", "Issus degraded Xodar.",
                        "keywords", "punishment", "strength", 5))),
                Map.entry("contentKeywords", List.of("mars")), Map.entry("summary", "Xodar is a Dator of the First Born."),
                Map.entry("inserted", List.of(Map.of("entities", List.of("XODAR", "ISSUS"), "description", "Issus degraded Xodar and gave him to Carter."))),
                Map.entry("updated", List.of()), Map.entry("merges", List.of()), Map.entry("judgement", "1"), Map.entry("concerns", List.of()),
                Map.entry("subqueries", List.of()), Map.entry("answer", "Issus punished Xodar for his defeat."), Map.entry("citedSources", List.of())));
        // raga.* steps: the reader creates what each demo chunk states, then completes; schema, todos, analysis and answer replies
        java.util.function.Predicate<StandInLlm.Request> read = r -> "raga.L3".equals(r.step());
        java.util.function.Predicate<StandInLlm.Request> firstRound = r -> {
            for (com.fasterxml.jackson.databind.JsonNode m : r.body().path("messages")) if ("tool".equals(m.path("role").asText())) return false;
            return true;
        };
        llm.when(read.and(firstRound).and(r -> r.body().toString().contains("discovered polonium"))).toolCalls(
                StandInLlm.toolCall("r1", "search_kg", "{\"query\":\"Marie Curie\"}"),
                StandInLlm.toolCall("r2", "create_entity", "{\"name\":\"Marie Curie\",\"entity_type\":\"Person\",\"evidence\":\"Marie Curie discovered polonium\",\"certainty\":\"high\"}"),
                StandInLlm.toolCall("r3", "create_entity", "{\"name\":\"Polonium\",\"entity_type\":\"Element\",\"evidence\":\"discovered polonium in 1898\"}"),
                StandInLlm.toolCall("r4", "create_relation", "{\"head\":\"Marie Curie\",\"relation_type\":\"DISCOVERED\",\"tail\":\"Polonium\",\"evidence\":\"Marie Curie discovered polonium in 1898\",\"certainty\":\"high\"}"));
        llm.when(read.and(firstRound).and(r -> r.body().toString().contains("Nobel Prize"))).toolCalls(
                StandInLlm.toolCall("n1", "search_kg", "{\"query\":\"Pierre Curie\"}"),
                StandInLlm.toolCall("n2", "create_entity", "{\"name\":\"Pierre Curie\",\"entity_type\":\"Person\",\"evidence\":\"Pierre Curie shared the 1903 Nobel Prize\"}"),
                StandInLlm.toolCall("n3", "create_entity", "{\"name\":\"Marie Curie\",\"entity_type\":\"Person\",\"evidence\":\"Nobel Prize in Physics with Marie Curie\"}"),
                StandInLlm.toolCall("n4", "create_relation", "{\"head\":\"Pierre Curie\",\"relation_type\":\"SHARED_PRIZE_WITH\",\"tail\":\"Marie Curie\",\"evidence\":\"Pierre Curie shared the 1903 Nobel Prize in Physics with Marie Curie\"}"));
        llm.when(r -> r.step() != null && r.step().startsWith("raga")).replyJson(Map.ofEntries(Map.entry("status", "chunk_complete"),
                Map.entry("summary", "stand-in"), Map.entry("domain", "science history"),
                Map.entry("entity_types", List.of(Map.of("name", "Person", "description", "a human being"), Map.of("name", "Element", "description", "a chemical element"))),
                Map.entry("relation_types", List.of(Map.of("name", "DISCOVERED", "description", "found first", "domain", "Person", "range", "Element", "quality", 0.9))),
                Map.entry("resolved", List.of()), Map.entry("entities", List.of("Marie Curie")), Map.entry("answer", "Marie Curie"),
                Map.entry("answer_type", "extractive"), Map.entry("evidence_chunk_ids", List.of("raga_demo:curie:0"))));
        llm.always().replyJson(Map.of("thought", "Dejah Thoris is the granddaughter of Tardos Mors.", "answer", "Tardos Mors",
                "fact", List.of(), "triples", List.of(List.of("Dejah Thoris", "granddaughter of", "Tardos Mors"),
                        List.of("John Carter", "married", "Dejah Thoris"))));
    }

    /** Statements end with ';' at the end of a line (a '//' comment may follow it); '//' comment lines are dropped. */
    public static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : script.split("\n")) {
            if (line.trim().startsWith("//")) continue;
            line = line.replaceFirst(";\\s+//.*$", ";");
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
