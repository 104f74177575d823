package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.Locale;

/**
 * The reply shapes of real OpenAI-compatible servers, applied to an assistant message the evaluation server (or the
 * test stand-in) would otherwise send plainly, so every LLM step is exercised with the replies users get:
 * <ul>
 *   <li>{@code reasoning}: a {@code <think>} block before the answer in {@code content} (Qwen3, DeepSeek-R1 on Ollama,
 *   on llama.cpp without a reasoning parser, on vLLM without {@code --reasoning-parser});</li>
 *   <li>{@code chatty}: a JSON answer wrapped in prose around a fenced block;</li>
 *   <li>{@code ollama}: tool-call arguments as JSON objects, finish_reason "stop" with tool calls; a prompt over the
 *   window is cut from the front and reported cut in usage;</li>
 *   <li>{@code llamacpp}: reasoning in {@code reasoning_content}, tool calls with no type, an empty-string content
 *   beside tool calls; a prompt over the window is refused with llama.cpp's 400;</li>
 *   <li>{@code vllm}: reasoning in {@code reasoning_content} (with {@code --reasoning-parser}), null content
 *   beside tool calls; a prompt over {@code --max-model-len} is refused with vLLM's 400.</li>
 * </ul>
 */
public enum ServerDialect {
    PLAIN, REASONING, CHATTY, OLLAMA, LLAMACPP, VLLM;

    /** The reasoning every reasoning-shaped reply carries. */
    public static final String THOUGHT = "The user wants the reply in the requested format. I will check the input block and answer exactly that.";

    private static final ObjectMapper JSON = new ObjectMapper();

    public static ServerDialect of(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown dialect '" + name + "': one of plain, reasoning, chatty, ollama, llamacpp, vllm");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The assistant message as this server sends it (a new node; the given one is not changed). */
    public ObjectNode shape(JsonNode message) {
        ObjectNode m = message.deepCopy();
        boolean tools = m.path("tool_calls").isArray() && !m.path("tool_calls").isEmpty();
        switch (this) {
            case PLAIN -> { }
            case REASONING -> m.put("content", "<think>\n" + THOUGHT + "\n</think>\n\n" + m.path("content").asText(""));
            case CHATTY -> {
                String c = m.path("content").asText(null);
                JsonNode j = c == null ? null : parse(c);
                if (j != null && j.isContainerNode()) {
                    m.put("content", "Sure! Here is the JSON you asked for:\n\n```json\n" + j.toPrettyString() + "\n```\n\nLet me know if you need anything else!");
                }
            }
            case OLLAMA -> {
                if (tools) {
                    for (JsonNode tc : m.path("tool_calls")) {
                        ObjectNode fn = (ObjectNode) tc.path("function");
                        JsonNode args = parse(fn.path("arguments").asText("{}"));
                        fn.set("arguments", args == null ? JSON.createObjectNode() : args);
                    }
                }
            }
            case LLAMACPP -> {
                m.put("reasoning_content", THOUGHT);
                if (tools) {
                    // no "type" (ids missing altogether, as older builds sent them, are covered by the client's own tests:
                    // the oracle construction policy finds its results by the ids it issued)
                    for (JsonNode tc : m.path("tool_calls")) ((ObjectNode) tc).remove("type");
                    m.put("content", "");
                } else if (m.path("content").isTextual()) {
                    m.put("content", m.get("content").asText() + "\n");
                }
            }
            case VLLM -> {
                m.put("reasoning_content", THOUGHT);
                // null content beside tool calls; the ids stay the policy's (vLLM's own "chatcmpl-tool-..." ids are opaque strings the
                // client passes through, and the oracle construction policy finds its results by the ids it issued)
                if (tools) m.putNull("content");
            }
        }
        return m;
    }

    /** The finish reason this server gives a message. */
    public String finishReason(JsonNode message) {
        boolean tools = message.path("tool_calls").isArray() && !message.path("tool_calls").isEmpty();
        return tools && this != OLLAMA ? "tool_calls" : "stop";
    }

    /**
     * What this server does with a prompt of {@code promptTokens} over a window of {@code window} tokens: null when it
     * runs it (Ollama cuts it from the front and says so only in usage), else the error body it answers with (HTTP 400).
     */
    public String refusal(int promptTokens, int window, int maxTokens) {
        return switch (this) {
            case LLAMACPP -> "{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size, try increasing it\","
                    + "\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":" + promptTokens + ",\"n_ctx\":" + window + "}}";
            case VLLM -> "{\"object\":\"error\",\"message\":\"This model's maximum context length is " + window + " tokens. However, you requested "
                    + (promptTokens + maxTokens) + " tokens (" + promptTokens + " in the messages, " + maxTokens + " in the completion). Please reduce "
                    + "the length of the messages or completion.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}";
            default -> null;
        };
    }

    private static JsonNode parse(String s) {
        try {
            return JSON.readTree(s.trim());
        } catch (IOException e) {
            return null;
        }
    }

}
