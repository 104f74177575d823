package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;

import java.util.List;
import java.util.Map;

/**
 * Counts what the client sends, with a real tokenizer: tiktoken's cl100k_base (through jtokkit), by the OpenAI chat
 * formula (3 tokens a message for its framing, its role and content, tool calls, tool-call ids and names; 3 to prime
 * the reply) plus the tool schemas and the response format sent with it. The endpoint's own tokenizer is unknown, so
 * what must fit a window is counted with {@link #MARGIN}: Llama 3 and Qwen 2.5/3 tokenizers come within about 5% of
 * cl100k_base on English prose and JSON, SentencePiece models (Mistral, Gemma) up to about 15% above it.
 */
public final class TokenCounter {
    /** The safety factor on cl100k_base counts when a prompt must fit a window whose tokenizer is unknown. */
    public static final double MARGIN = 1.15;
    /** Client counts below this are not checked against the server's (framing differences dominate tiny prompts). */
    static final long MIN_CHECKED = 256;
    /** A server count under this share of the client's own means the server cut the prompt. */
    static final double CUT_RATIO = 0.8;

    private static final Encoding CL100K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenCounter() {}

    /** cl100k_base tokens of a text (special-token markers in it count as ordinary text). */
    public static int count(String text) {
        return text == null || text.isEmpty() ? 0 : CL100K.countTokensOrdinary(text);
    }

    /** A raw count scaled by {@link #MARGIN}: what a window must hold for it. */
    public static long withMargin(long raw) {
        return (long) Math.ceil(raw * MARGIN);
    }

    /** The prompt tokens of a request as sent: its messages plus {@link #overhead}. */
    public static long prompt(ChatRequest req) {
        return promptAsRead(req) + overhead(req);
    }

    /** What a request sends besides its messages: its tool schemas and its response format. */
    public static long overhead(ChatRequest req) {
        return (req.tools().isEmpty() ? 0 : count(json(req.tools()))) + responseFormat(req.responseFormat());
    }

    /** The tokens of a response format: a json_schema map counted as sent, json_object as its small object. */
    public static long responseFormat(Object format) {
        return format instanceof Map<?, ?> m ? count(json(m)) : format == null || "text".equals(format) ? 0 : JSON_OBJECT_TOKENS;
    }

    /** {"type": "json_object"} in cl100k_base. */
    private static final long JSON_OBJECT_TOKENS = 6;

    /**
     * What a server counts as its prompt: messages and tool schemas (which chat templates render into the prompt), not
     * a json_schema response format (servers turn it into a sampling grammar): the figure a cut is judged against.
     */
    public static long promptAsRead(ChatRequest req) {
        return messages(req.messages()); // tool schemas left out: servers render them differently, and a cut must be certain
    }

    /** The prompt tokens of a message list by the chat formula. */
    public static long messages(List<Map<String, Object>> messages) {
        long n = 3;
        for (Map<String, Object> m : messages) {
            n += 3 + count(String.valueOf(m.getOrDefault("role", "")));
            Object content = m.get("content");
            if (content instanceof String s) n += count(s);
            else if (content != null) n += count(json(content));
            if (m.get("tool_calls") != null) n += count(json(m.get("tool_calls")));
            if (m.get("tool_call_id") != null) n += count(String.valueOf(m.get("tool_call_id")));
            if (m.get("name") != null) n += 1 + count(String.valueOf(m.get("name")));
        }
        return n;
    }

    static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return String.valueOf(o);
        }
    }
}
