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

    public static PolicyReply tools(List<Map<String, Object>> calls) { return new PolicyReply(null, false, List.copyOf(calls)); }
}
