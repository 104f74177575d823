package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reply's tool calls in the one shape the tool loop reads ({id, type: "function", function: {name, arguments}} with
 * arguments as a JSON string), from the shapes servers send: arguments as a string (OpenAI, vLLM) or as an object
 * (Ollama), a missing call id (older llama.cpp), the legacy single {@code function_call}, and calls a server left in the
 * content as Hermes-style {@code <tool_call>{"name": ..., "arguments": ...}</tool_call>} blocks (a model's template
 * without the server's tool parser). The last is counted as a repair; the others are dialects, not mistakes.
 */
record ToolCalls(List<Map<String, Object>> calls, int repairs, boolean fromContent, String contentLeft) {
    private static final java.util.concurrent.atomic.AtomicLong NEXT_ID = new java.util.concurrent.atomic.AtomicLong(36L * 36 * 36);
    private static final Pattern HERMES = Pattern.compile("<tool_call>\\s*(.*?)\\s*</tool_call>", Pattern.DOTALL);

    static ToolCalls read(JsonNode message, String content) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (message.path("tool_calls").isArray()) {
            for (JsonNode tc : message.path("tool_calls")) {
                JsonNode fn = tc.path("function");
                String id = tc.path("id").isTextual() && !tc.path("id").asText().isBlank() ? tc.path("id").asText() : null;
                out.add(call(id, fn.path("name").asText(""), fn.path("arguments")));
            }
        } else if (message.path("function_call").isObject()) {
            JsonNode fn = message.path("function_call");
            out.add(call(null, fn.path("name").asText(""), fn.path("arguments")));
        }
        if (!out.isEmpty() || content == null || !content.contains("<tool_call>")) return new ToolCalls(List.copyOf(out), 0, false, content);
        Matcher m = HERMES.matcher(content);
        while (m.find()) {
            try {
                JsonNode c = ReplyReader.json(m.group(1)).value();
                if (c.path("name").isTextual()) out.add(call(null, c.path("name").asText(), c.path("arguments")));
            } catch (ReplyReader.Problem p) {
                // not a call: left in the content for the loop to refuse
            }
        }
        if (out.isEmpty()) return new ToolCalls(List.of(), 0, false, content);
        String left = HERMES.matcher(content).replaceAll("").strip();
        return new ToolCalls(List.copyOf(out), 1, true, left);
    }

    /** One call in the loop's shape; a null id gets one unique in the transcript. */
    static Map<String, Object> call(String id, String name, JsonNode arguments) {
        String args = arguments.isTextual() ? arguments.asText() : arguments.isMissingNode() || arguments.isNull() ? "{}" : arguments.toString();
        Map<String, Object> fn = new LinkedHashMap<>();
        fn.put("name", name);
        fn.put("arguments", args);
        Map<String, Object> c = new LinkedHashMap<>();
        // a missing id gets one unique in the transcript: results are matched to calls by id across rounds
        c.put("id", id != null ? id : "call_" + Long.toString(NEXT_ID.incrementAndGet(), 36));
        c.put("type", "function");
        c.put("function", fn);
        return c;
    }
}
