package dev.graphrag.core.llm;

import java.util.List;
import java.util.Map;

/**
 * One completion. toolCalls are OpenAI maps {id, type, function: {name, arguments}}; tokens come from the
 * reply's usage, or are estimated (about 4 characters a token) with {@code tokensEstimated} set.
 * {@code calls} counts HTTP exchanges that produced a reply (a repair turn makes it 2); cached replies count 0.
 */
public record ChatResponse(String content, List<Map<String, Object>> toolCalls, String finishReason, long promptTokens,
                           long completionTokens, boolean tokensEstimated, int calls, boolean cached, long ms) {

    public ChatResponse plus(ChatResponse earlier) {
        return new ChatResponse(content, toolCalls, finishReason, promptTokens + earlier.promptTokens,
                completionTokens + earlier.completionTokens, tokensEstimated || earlier.tokensEstimated, calls + earlier.calls,
                false, ms + earlier.ms);
    }

    public ChatResponse asCached() {
        return new ChatResponse(content, toolCalls, finishReason, 0, 0, false, 0, true, 0);
    }
}
