package dev.graphrag.raga;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the construction agent is shown of a tool result (docs/raga.md "What the agent is shown"). */
@LineIndependent
class ObservationTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CHUNK = "c:d1:0";

    static Map<String, Object> span(long start, long end, String chunk) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("end", end);
        m.put("start", start);
        m.put("chunk_id", chunk);
        return m;
    }

    static Map<String, Object> hit(String name, String description, String evidence, double score) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("entity_id", "4bb3de8b-0dbc-47a2-9357-e19e972a5b31");
        m.put("name", name);
        m.put("type", "Person");
        m.put("aliases", name.equals("Marie Curie") ? List.of("Maria Sklodowska") : List.of());
        m.put("description", description);
        m.put("score", score);
        m.put("reasons", List.of("vector"));
        m.put("evidence_count", 3L);
        m.put("sample_evidence", evidence);
        return m;
    }

    @Test
    void aCreateKeepsNameAndSpanAndLeavesOutWhatTheAgentKnows() throws Exception {
        Observation o = new Observation(CHUNK);
        Map<String, Object> created = new LinkedHashMap<>();
        created.put("entity_id", "4bb3de8b-0dbc-47a2-9357-e19e972a5b31");
        created.put("name", "Marie Curie");
        created.put("reused", false);
        created.put("evidence_span", span(0, 31, CHUNK));
        assertEquals("{\"ok\":true,\"result\":{\"name\":\"Marie Curie\",\"span\":[0,31]}}",
                JSON.writeValueAsString(o.of(ToolResult.success("create_entity", created, List.of()).envelope())));
        Map<String, Object> reused = new LinkedHashMap<>(created);
        reused.put("reused", true);
        reused.put("evidence_span", span(4, 9, "c:d1:1"));
        assertEquals("{\"ok\":true,\"result\":{\"name\":\"Marie Curie\",\"reused\":true,\"span\":[4,9,\"c:d1:1\"]},\"warnings\":[\"w\"]}",
                JSON.writeValueAsString(o.of(ToolResult.success("create_entity", reused, List.of("w")).envelope())), "another chunk's span names it");
        Map<String, Object> refused = o.of(ToolResult.failure("create_relation", new ToolError("ENTITY_NOT_FOUND", "no entity 'X'", "tail", "search first",
                List.of(Map.of("name", "Xodar")))).envelope());
        assertEquals("{\"ok\":false,\"error\":{\"code\":\"ENTITY_NOT_FOUND\",\"message\":\"no entity 'X'\",\"field\":\"tail\",\"hint\":\"search first\","
                + "\"candidates\":[{\"name\":\"Xodar\"}]}}", JSON.writeValueAsString(refused));
    }

    @Test
    void aSearchHitShowsItsSnippetOnceAChunkAndItsDigestKeepsTheNames() throws Exception {
        Observation o = new Observation(CHUNK);
        String longEvidence = "Marie Curie discovered polonium and radium with Pierre Curie in Paris, and was the first person to win two Nobel Prizes in the sciences.";
        Map<String, Object> first = o.of(ToolResult.success("search_kg", Map.of("entities", List.of(hit("Marie Curie", "", longEvidence, 0.0163934),
                hit("Pierre Curie", "French physicist.", "Pierre Curie was a French physicist.", 0.016129))), List.of()).envelope());
        JsonNode hits = JSON.valueToTree(first).path("result").path("entities");
        assertEquals("{\"name\":\"Marie Curie\",\"type\":\"Person\",\"aliases\":[\"Maria Sklodowska\"],\"score\":0.02,"
                + "\"sample_evidence\":\"" + Observation.snippet(longEvidence) + "\"}", hits.get(0).toString());
        assertTrue(Observation.snippet(longEvidence).length() <= Observation.SNIPPET + 1 && Observation.snippet(longEvidence).endsWith("…"));
        assertEquals("{\"name\":\"Pierre Curie\",\"type\":\"Person\",\"description\":\"French physicist.\",\"score\":0.02}", hits.get(1).toString(),
                "a description is shown instead of the sample evidence");
        Map<String, Object> again = o.of(ToolResult.success("search_kg", Map.of("entities", List.of(hit("Marie Curie", "", longEvidence, 0.5))), List.of()).envelope());
        assertEquals("{\"name\":\"Marie Curie\",\"type\":\"Person\",\"score\":0.5}", JSON.valueToTree(again).path("result").path("entities").get(0).toString(),
                "the chunk's transcript already shows this entity");
        assertEquals("{\"ok\":true,\"result\":{\"entities\":[{\"name\":\"Marie Curie\",\"type\":\"Person\",\"aliases\":[\"Maria Sklodowska\"]},"
                + "{\"name\":\"Pierre Curie\",\"type\":\"Person\"}]}}", Observation.digest(JSON.valueToTree(first)).toString());
        assertNull(Observation.digest(JSON.readTree("{\"ok\":true,\"result\":{\"name\":\"Marie Curie\",\"span\":[0,31]}}")), "nothing to digest");
        Map<String, Object> batch = o.of(ToolResult.success("batch_kg_ops", Map.of("counters", Map.of("searched", 1L, "created", 0L),
                "results", List.of(Map.of("op", "search_kg", "ok", true, "result", Map.of("entities", List.of(hit("Irene Curie", "", "Irene.", 0.01)))))), List.of()).envelope());
        assertEquals(Map.of("searched", 1L), batch.get("result") instanceof Map<?, ?> r ? r.get("counters") : null, "zero counters left out");
        assertTrue(Observation.digest(JSON.valueToTree(batch)).toString().contains("{\"name\":\"Irene Curie\",\"type\":\"Person\"}"), "hits inside a batch are digested too");
    }

    @Test
    void aResultOverTheCapLosesItsLastSnippetsFirstAndStaysJsonTheDigestCanRead() {
        List<Object> searches = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<Object> hits = new java.util.ArrayList<>();
            for (int j = 0; j < 4; j++) hits.add(Map.of("name", "Entity " + i + "." + j, "type", "Concept", "score", 0.5,
                    "sample_evidence", "a sentence of about sixty characters that the agent may judge by"));
            searches.add(Map.of("op", "search_kg", "result", Map.of("entities", hits)));
        }
        Map<String, Object> result = Map.of("ok", true, "result", Map.of("results", searches));
        int full = JSON.valueToTree(result).toString().length();
        Map<String, Object> fitted = Observation.withoutSnippets(result, full - 150);
        JsonNode tree = JSON.valueToTree(fitted);
        assertTrue(tree.toString().length() <= full - 150, tree.toString());
        List<JsonNode> all = tree.findParents("score");
        assertEquals(12, all.size(), "every hit keeps its name, type and score");
        assertTrue(all.get(0).has("sample_evidence"), "the first hits keep their snippets");
        assertTrue(!all.get(11).has("sample_evidence"), "the last ones lose theirs first");
        assertEquals(tree.path("snippets_left_out").asInt(), all.stream().filter(h -> !h.has("sample_evidence")).count());
        assertTrue(Observation.digest(tree) != null, "a later round can still digest it");
        assertNull(Observation.withoutSnippets(result, 100), "what does not fit even without snippets is left to the text cut");
    }
}
