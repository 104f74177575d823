package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One chat-completions call: messages as OpenAI maps ({role, content, tool_calls?, tool_call_id?, name?}),
 * optional tools, tool choice, response format ("json_object" or a json_schema map) and stop sequences.
 * {@code step} names the caller's step in error messages.
 */
public record ChatRequest(String step, List<Map<String, Object>> messages, List<Map<String, Object>> tools, Object toolChoice,
                          Object responseFormat, List<String> stop) {
    private static final Set<String> ROLES = Set.of("system", "user", "assistant", "tool", "developer");
    public static final int MAX_MESSAGES = 1000;

    public ChatRequest {
        messages = List.copyOf(messages);
        tools = tools == null ? List.of() : List.copyOf(tools);
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    public static ChatRequest of(String step, List<Map<String, Object>> messages) {
        return new ChatRequest(step, messages, null, null, null, null);
    }

    public ChatRequest withMessages(List<Map<String, Object>> m) {
        return new ChatRequest(step, m, tools, toolChoice, responseFormat, stop);
    }

    public ChatRequest withResponseFormat(Object format) {
        return new ChatRequest(step, messages, tools, toolChoice, format, stop);
    }


    /** Checks Cypher-supplied messages; errors name the message and the field. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> checkMessages(String owner, List<?> raw) {
        if (raw == null || raw.isEmpty()) throw new RagException(owner + ": messages must be a non-empty list of maps {role, content}");
        if (raw.size() > MAX_MESSAGES) throw new RagException(owner + ": at most " + MAX_MESSAGES + " messages, got " + raw.size());
        ConfigReader.checkNesting(owner, "messages", raw);
        for (int i = 0; i < raw.size(); i++) {
            Object o = raw.get(i);
            if (!(o instanceof Map<?, ?> m)) throw new RagException(owner + ": message " + i + " must be a map {role, content}, got " + ConfigReader.typeName(o));
            Object role = m.get("role");
            if (!(role instanceof String r) || !ROLES.contains(r)) {
                throw new RagException(owner + ": message " + i + " needs a role in " + ROLES + ", got " + role);
            }
            Object content = m.get("content");
            if (content != null && !(content instanceof String) && !(content instanceof List)) {
                throw new RagException(owner + ": message " + i + " content must be a STRING, got " + ConfigReader.typeName(content));
            }
            if (content == null && m.get("tool_calls") == null) throw new RagException(owner + ": message " + i + " has no content");
            if (r.equals("tool") && !(m.get("tool_call_id") instanceof String)) {
                throw new RagException(owner + ": message " + i + " has role 'tool' but no tool_call_id");
            }
        }
        return (List<Map<String, Object>>) raw;
    }
}
