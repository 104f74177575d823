package dev.graphrag.core.llm;

import java.util.List;
import java.util.Map;

/**
 * One completion. {@code content} is the answer: a leading reasoning block the model wrote into it is moved to
 * {@code reasoning}, as is a server's separate {@code reasoning_content}/{@code reasoning} field; {@code reasoningTokens}
 * is the server's count of it where it gives one, else the client's. toolCalls are OpenAI maps
 * {id, type, function: {name, arguments}} with arguments as a JSON string and an id on every call (normalised from the
 * shapes servers send). Tokens come from the reply's usage, or are counted by the client with {@code tokensEstimated}
 * set. {@code calls} counts HTTP exchanges that produced a reply (a repair turn makes it 2); cached replies count 0.
 * {@code repairs} counts what the client had to fix to use the reply (JSON in prose or a fence, lenient syntax, tool-call
 * shapes, repair turns), so a model that needs many can be seen.
 */
public record ChatResponse(String content, List<Map<String, Object>> toolCalls, String finishReason, long promptTokens,
                           long completionTokens, boolean tokensEstimated, int calls, boolean cached, long ms, String reasoning,
                           long reasoningTokens, int repairs) {

    public ChatResponse plus(ChatResponse earlier) {
        return new ChatResponse(content, toolCalls, finishReason, promptTokens + earlier.promptTokens,
                completionTokens + earlier.completionTokens, tokensEstimated || earlier.tokensEstimated, calls + earlier.calls,
                false, ms + earlier.ms, reasoning, reasoningTokens + earlier.reasoningTokens, repairs + earlier.repairs);
    }

    /** The same reply with {@code n} more repairs counted. */
    public ChatResponse withRepairs(int n) {
        return n == 0 ? this : new ChatResponse(content, toolCalls, finishReason, promptTokens, completionTokens, tokensEstimated, calls, cached, ms,
                reasoning, reasoningTokens, repairs + n);
    }

    public ChatResponse asCached() {
        return new ChatResponse(content, toolCalls, finishReason, 0, 0, false, 0, true, 0, reasoning, 0, 0);
    }
}
