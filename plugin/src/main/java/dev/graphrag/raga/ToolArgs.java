package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reading a tool's JSON arguments (already checked against its schema): optional text, lists, maps and clamped counts. */
final class ToolArgs {
    private ToolArgs() {}

    static String opt(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    static List<String> list(JsonNode a, String key) {
        List<String> out = new ArrayList<>();
        JsonNode v = a.get(key);
        if (v != null && v.isArray()) v.forEach(x -> out.add(x.asText()));
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : KnowledgeStore.JSON.convertValue(v, Map.class);
    }

    static int clamp(JsonNode a, String key, int dflt) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? dflt : Math.max(1, Math.min(50, v.asInt()));
    }
}
