package dev.graphrag.demo.eval;

import java.util.List;
import java.util.Map;

/**
 * What a policy answers: message content, or tool calls (OpenAI shape: id, type, function {name, arguments}).
 * {@code json} marks content that is a JSON object, to which the server adds the reasoning pad.
 */
public record PolicyReply(String content, boolean json, List<Map<String, Object>> toolCalls) {
    public static PolicyReply text(String content) { return new PolicyReply(content, false, List.of()); }

    public static PolicyReply json(String jsonObject) { return new PolicyReply(jsonObject, true, List.of()); }

    /** A value (map, list, record) serialised as the JSON object content. */
    public static PolicyReply jsonOf(Object value) {
        try {
            return json(JSON.writeValueAsString(value));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + e.getOriginalMessage());
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    public static PolicyReply tools(List<Map<String, Object>> calls) { return new PolicyReply(null, false, List.copyOf(calls)); }
}
