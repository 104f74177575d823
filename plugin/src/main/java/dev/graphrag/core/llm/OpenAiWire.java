package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAI chat-completions wire format, as Ollama, vLLM, llama.cpp and OpenAI speak it: the request body, the reply
 * read into a {@link ChatResponse} (content, reasoning in any of the servers' shapes, tool calls, usage or the client's
 * estimate), and the excerpt of an error body an error message may quote. No HTTP here.
 */
final class OpenAiWire {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How vLLM, llama.cpp, OpenAI and (for embeddings) TEI word a prompt over the window. */
    private static final java.util.regex.Pattern CONTEXT_REFUSAL = java.util.regex.Pattern.compile(
            "maximum context length|context size|context length|context window|exceed_context|must have less than \\d+ tokens", java.util.regex.Pattern.CASE_INSENSITIVE);
    /** The most of a remote error body an error message quotes. */
    static final int MAX_EXCERPT_CHARS = 200;

    private OpenAiWire() {}

    /** Whether an error excerpt says the prompt does not fit the server's window. */
    static boolean refusesContext(String excerpt) {
        return CONTEXT_REFUSAL.matcher(excerpt).find();
    }

    /** The request body of a chat completion for {@code req} under {@code cfg}. */
    static ObjectNode body(LlmConfig cfg, ChatRequest req) {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", cfg.model());
        b.set("messages", JSON.valueToTree(req.messages()));
        b.put("temperature", cfg.temperature());
        b.put("max_tokens", cfg.maxTokens());
        if (cfg.seed() != null) b.put("seed", cfg.seed());
        if (!req.stop().isEmpty()) b.set("stop", JSON.valueToTree(req.stop()));
        if (!req.tools().isEmpty()) b.set("tools", JSON.valueToTree(canonical(req.tools())));
        if (req.toolChoice() != null) b.set("tool_choice", JSON.valueToTree(canonical(req.toolChoice())));
        Object rf = req.responseFormat();
        if ("json_object".equals(rf)) {
            b.set("response_format", JSON.createObjectNode().put("type", "json_object"));
        } else if (rf instanceof Map<?, ?> m) {
            if (m.containsKey("type")) {
                b.set("response_format", JSON.valueToTree(canonical(m)));
            } else {
                ObjectNode f = JSON.createObjectNode().put("type", "json_schema");
                f.set("json_schema", JSON.valueToTree(canonical(m)));
                b.set("response_format", f);
            }
        } else if (rf != null && !"text".equals(rf)) {
            throw new RagException("responseFormat must be 'json_object', 'text' or a json_schema map {name, schema}");
        }
        return b;
    }

    /**
     * A schema (tools, a response format) with its keys in the same order on every run: an object's properties in the
     * order of its {@code required} list, then by name; every other map's keys by name. The schemas are built with
     * {@code Map.of}, which iterates in an order drawn anew at each JVM start, and a server that constrains decoding to
     * the schema (llama.cpp's grammars, Ollama's format, vLLM's guided decoding) has the model write the properties in
     * the schema's order: without this, the same build sent a different request, and could get a differently ordered
     * reply, after each restart.
     */
    static Object canonical(Object value) {
        return canonical(value, List.of());
    }

    private static Object canonical(Object value, List<?> first) {
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object x : list) out.add(canonical(x, List.of()));
            return out;
        }
        if (!(value instanceof Map<?, ?> map)) return value;
        Map<String, Object> byName = new TreeMap<>();
        map.forEach((k, v) -> byName.put(String.valueOf(k), v));
        List<String> order = new ArrayList<>();
        for (Object k : first) if (byName.containsKey(String.valueOf(k)) && !order.contains(String.valueOf(k))) order.add(String.valueOf(k));
        for (String k : byName.keySet()) if (!order.contains(k)) order.add(k);
        List<?> required = map.get("required") instanceof List<?> r ? r : List.of();
        Map<String, Object> out = new LinkedHashMap<>();
        for (String k : order) out.put(k, canonical(byName.get(k), k.equals("properties") ? required : List.of()));
        return out;
    }

    /**
     * What an error message may quote of a remote body: its {@code error.message} when it is OpenAI-shaped JSON,
     * else its start; at most MAX_EXCERPT_CHARS printable characters, the key redacted.
     */
    static String excerpt(LlmConfig cfg, String body) {
        if (body == null || body.isBlank()) return "(empty body)";
        String text = body;
        try {
            JsonNode n = JSON.readTree(body);
            JsonNode m = n.path("error").isTextual() ? n.path("error") : n.path("error").path("message");
            if (m.isTextual()) text = m.asText();
        } catch (JsonProcessingException | RuntimeException e) {
            // not JSON: quote the start of the text
        }
        text = cfg.redact(text);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < MAX_EXCERPT_CHARS; i++) {
            char c = text.charAt(i);
            b.append(Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? ' ' : c);
        }
        String out = b.toString().replaceAll(" {2,}", " ").trim();
        return text.length() > MAX_EXCERPT_CHARS ? out + "..." : out;
    }

    /** {@code sentTokens}: the client's count of what the server reads as the prompt ({@link TokenCounter#promptAsRead}). */
    static ChatResponse parseReply(LlmConfig cfg, String step, String body, long sentTokens, long ms) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new RagException("LLM step '" + step + "': " + cfg.host() + " answered with a body that is not JSON");
        }
        JsonNode choice = root.path("choices").path(0);
        if (choice.isMissingNode()) throw new RagException("LLM step '" + step + "': the reply has no choices[0]");
        JsonNode msg = choice.path("message");
        String content = msg.path("content").isTextual() ? msg.path("content").asText() : null;
        String finish = choice.path("finish_reason").asText(null);
        // reasoning: a separate field (vLLM --reasoning-parser, DeepSeek, Ollama) or a leading block in the content
        String reasoning = msg.path("reasoning_content").isTextual() ? msg.path("reasoning_content").asText()
                : msg.path("reasoning").isTextual() ? msg.path("reasoning").asText() : null;
        if (content != null) {
            try {
                ReplyReader.Answer a = ReplyReader.answer(content, finish, cfg.maxTokens());
                if (a.hadReasoning()) {
                    content = a.text().strip();
                    reasoning = reasoning == null ? a.reasoning() : reasoning + "\n" + a.reasoning();
                }
            } catch (ReplyReader.Problem p) {
                // an unterminated block stays in the content: the step that reads it reports the problem
            }
        }
        ToolCalls calls = ToolCalls.read(msg, content);
        if (calls.fromContent()) content = calls.contentLeft();
        JsonNode usage = root.path("usage");
        boolean estimated = !usage.path("prompt_tokens").isNumber();
        long prompt = estimated ? sentTokens : usage.path("prompt_tokens").asLong();
        if (!estimated && sentTokens >= TokenCounter.MIN_CHECKED && prompt < TokenCounter.CUT_RATIO * sentTokens) {
            throw new PromptCutException("LLM step '" + step + "': " + cfg.host() + " read only " + prompt + " prompt tokens of the " + sentTokens
                    + " this client sent (its usage.prompt_tokens is under " + Math.round(TokenCounter.CUT_RATIO * 100) + "% of the client's cl100k_base"
                    + " count): the server cut the prompt to its context window, so the instructions were lost. Raise the server's window (Ollama: "
                    + "OLLAMA_CONTEXT_LENGTH or the model's num_ctx; llama.cpp: --ctx-size; vLLM: --max-model-len) and set graphrag.llm.contextTokens"
                    + " (now " + cfg.contextTokens() + ") to it (docs/llm.md#context-windows)");
        }
        long reasoningTokens = usage.path("completion_tokens_details").path("reasoning_tokens").isNumber()
                ? usage.path("completion_tokens_details").path("reasoning_tokens").asLong() : TokenCounter.count(reasoning);
        long completion = usage.path("completion_tokens").isNumber() ? usage.path("completion_tokens").asLong()
                : TokenCounter.count(content) + reasoningTokens + (calls.calls().isEmpty() ? 0 : TokenCounter.count(TokenCounter.json(calls.calls())));
        estimated |= !usage.path("completion_tokens").isNumber();
        return new ChatResponse(content, calls.calls(), finish, prompt, completion, estimated, 1, false, ms, reasoning, reasoningTokens, calls.repairs());
    }
}
