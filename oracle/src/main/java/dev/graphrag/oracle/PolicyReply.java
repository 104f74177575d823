package dev.graphrag.oracle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a policy answers: message content, or tool calls (OpenAI shape: id, type, function {name, arguments}).
 * {@code json} marks content that is a JSON object, to which the server adds the reasoning pad.
 */
public record PolicyReply(String content, boolean json, List<Map<String, Object>> toolCalls) {
    public static PolicyReply text(String content) { return new PolicyReply(content, false, List.of()); }

    public static PolicyReply json(String jsonObject) { return new PolicyReply(jsonObject, true, List.of()); }

    /** A value (map, list, record) serialised as the JSON object content, map keys sorted. */
    public static PolicyReply jsonOf(Object value) {
        return json(write(value));
    }

    public static PolicyReply tools(List<Map<String, Object>> calls) { return new PolicyReply(null, false, List.copyOf(calls)); }

    /** One tool call in the OpenAI shape, its arguments serialised with sorted keys. */
    public static Map<String, Object> toolCall(String id, String name, Map<String, Object> arguments) {
        return rawToolCall(id, name, write(arguments));
    }

    /** A tool call whose arguments text is given as is (for malformed arguments). */
    public static Map<String, Object> rawToolCall(String id, String name, String arguments) {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", name);
        function.put("arguments", arguments);
        Map<String, Object> call = new LinkedHashMap<>();
        call.put("id", id);
        call.put("type", "function");
        call.put("function", function);
        return call;
    }

    /*
     * Map keys sorted: policies build replies with Map.of, whose iteration order Java draws anew in each JVM run, and the
     * stand-in counts a reply's tokens on its text, so unsorted maps made completion tokens differ between runs.
     */
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + e.getOriginalMessage());
        }
    }
}
