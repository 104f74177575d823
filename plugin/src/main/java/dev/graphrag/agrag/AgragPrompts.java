package dev.graphrag.agrag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** AGRAG's three LLM calls (paper Eq. 4, 9 and 22): messages and reply checks. */
public final class AgragPrompts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AgragPrompts() {}

    static final String RE_SYSTEM = """
            Your task is to construct an RDF (Resource Description Framework) graph from the given passage and named entity list.
            Respond with a JSON object {"triples": [[subject, predicate, object], ...]}.
            Each triple should contain at least one, but preferably two, of the named entities in the list.
            Clearly resolve pronouns to their specific names to maintain clarity.""";

    static final String RE_EXAMPLE_USER = """
            Convert the paragraph into a JSON dict, it has a named entity list and a triple list.
            Paragraph:
            ```
            Radio City is India's first private FM radio station and was started on 3 July 2001. It plays Hindi, English and regional songs.
            ```
            {"named_entities": ["radio city", "india", "3 july 2001", "hindi", "english"]}""";

    static final String RE_EXAMPLE_ASSISTANT = """
            {"triples": [["Radio City", "located in", "India"], ["Radio City", "is", "private FM radio station"],
            ["Radio City", "started on", "3 July 2001"], ["Radio City", "plays songs in", "Hindi"], ["Radio City", "plays songs in", "English"]]}""";

    public static List<Map<String, Object>> relationExtraction(String passage, List<String> entities) {
        String user = "Convert the paragraph into a JSON dict, it has a named entity list and a triple list.\nParagraph:\n```\n" + passage
                + "\n```\n" + json(Map.of("named_entities", entities));
        return List.of(Map.of("role", "system", "content", RE_SYSTEM), Map.of("role", "user", "content", RE_EXAMPLE_USER),
                Map.of("role", "assistant", "content", RE_EXAMPLE_ASSISTANT), Map.of("role", "user", "content", user));
    }

    static final String FILTER_SYSTEM = """
            You are a critical component of a high-stakes question-answering system. Given a question and candidate facts
            [subject, predicate, object] retrieved from a knowledge graph, select up to 4 facts that are relevant to answering
            the question, possibly over several hops. Never invent facts: copy them exactly from the candidates. If no fact is
            relevant, return an empty list. Respond with a JSON object {"fact": [[subject, predicate, object], ...]}.""";

    public static List<Map<String, Object>> tripleFilter(String question, List<List<String>> candidates) {
        return List.of(Map.of("role", "system", "content", FILTER_SYSTEM),
                Map.of("role", "user", "content", "Question: Which film did the director of Inception make in 2014?\nCandidate facts: "
                        + json(Map.of("fact", List.of(List.of("inception", "directed by", "christopher nolan"),
                        List.of("inception", "released in", "2010"), List.of("christopher nolan", "directed", "interstellar"))))),
                Map.of("role", "assistant", "content", json(Map.of("fact", List.of(List.of("inception", "directed by", "christopher nolan"),
                        List.of("christopher nolan", "directed", "interstellar"))))),
                Map.of("role", "user", "content", "Question: " + question + "\nCandidate facts: " + json(Map.of("fact", candidates))));
    }

    static final String QA_SYSTEM = """
            As an advanced reading comprehension assistant, you analyse the reasoning subgraph and the passages to answer the
            question. Think step by step, then give a concise final answer. Respond with a JSON object {"thought": "...", "answer": "..."}.""";

    public static List<Map<String, Object>> answer(String question, List<String> graphStrings, List<String> pathChunks, List<String> retrieved) {
        StringBuilder b = new StringBuilder();
        if (!graphStrings.isEmpty()) {
            b.append("Reasoning subgraph (subject [SEP] relation [SEP] object):\n");
            for (String g : graphStrings) b.append(g).append('\n');
            b.append('\n');
        }
        if (!pathChunks.isEmpty()) {
            b.append("Passages on the reasoning subgraph:\n");
            for (int i = 0; i < pathChunks.size(); i++) b.append("[P").append(i + 1).append("] ").append(pathChunks.get(i)).append('\n');
            b.append('\n');
        }
        if (!retrieved.isEmpty()) {
            b.append("Retrieved passages:\n");
            for (int i = 0; i < retrieved.size(); i++) b.append("[R").append(i + 1).append("] ").append(retrieved.get(i)).append('\n');
            b.append('\n');
        }
        b.append("Question: ").append(question);
        return List.of(Map.of("role", "system", "content", QA_SYSTEM), Map.of("role", "user", "content", b.toString()));
    }

    /** Valid [s, p, o] string triples of a reply, duplicates dropped; null when "key" is not a list. */
    public static List<List<String>> triples(JsonNode reply, String key) {
        JsonNode arr = reply.path(key);
        if (!arr.isArray()) return null;
        Set<List<String>> out = new LinkedHashSet<>();
        for (JsonNode t : arr) {
            if (t.isArray() && t.size() == 3 && t.get(0).isValueNode() && t.get(1).isValueNode() && t.get(2).isValueNode()) {
                out.add(List.of(t.get(0).asText(), t.get(1).asText(), t.get(2).asText()));
            }
        }
        return new ArrayList<>(out);
    }

    static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
