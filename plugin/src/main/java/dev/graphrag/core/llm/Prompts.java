package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.List;
import java.util.Map;

/**
 * The parts every method's prompts are built from (one shape for every method, so a model and a reply reader see one format): chat messages, the one fenced JSON input block
 * a prompt ends with (so small models, tests and evaluation policies read the same structure), and the JSON-schema
 * fragments of typed outputs.
 */
public final class Prompts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Prompts() {}

    public static Map<String, Object> system(String text) {
        return Map.of("role", "system", "content", text);
    }

    public static Map<String, Object> user(String text) {
        return Map.of("role", "user", "content", text);
    }

    /**
     * An input block's fields in the order given ({@code Map.of} iterates in an order that changes from one JVM to the
     * next, and a prompt must be the same bytes every time: for its token count, and for servers' prefix caches).
     */
    public static Map<String, Object> fields(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) throw new IllegalArgumentException("fields come in key, value pairs");
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }

    /** "Input:" and the block as a fenced json code block: what every structured prompt ends with. */
    public static String inputBlock(Map<String, Object> block) {
        return "Input:\n```json\n" + json(block) + "\n```";
    }

    public static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a prompt block is not serialisable: " + e.getOriginalMessage(), e);
        }
    }

    public static Map<String, Object> string() {
        return Map.of("type", "string");
    }

    public static Map<String, Object> integer() {
        return Map.of("type", "integer");
    }

    public static Map<String, Object> bool() {
        return Map.of("type", "boolean");
    }

    public static Map<String, Object> arrayOf(Map<String, Object> items) {
        return Map.of("type", "array", "items", items);
    }

    public static Map<String, Object> strings() {
        return arrayOf(string());
    }

    public static Map<String, Object> object(List<String> required, Map<String, Object> properties) {
        return Map.of("type", "object", "required", required, "properties", properties);
    }
}
