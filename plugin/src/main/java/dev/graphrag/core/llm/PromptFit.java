package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Fits a prompt to the endpoint's context window ({@link LlmConfig#promptBudget()}, counted with
 * {@link TokenCounter#MARGIN}): the prompt is rendered from the first k of n ranked items (retrieved passages, facts,
 * candidates) and the largest k that fits is kept, so instructions, output schema and question are never cut and the
 * weakest material goes first. A prompt that does not fit even with no item fails before any request, naming the
 * step, its size and the setting.
 */
public final class PromptFit {
    private PromptFit() {}

    /** The messages for the first {@code kept} items, and what was left out: {@code trimmed} items of {@code trimmedTokens}. */
    public record Fitted(List<Map<String, Object>> messages, int kept, int trimmed, long trimmedTokens) {}

    /**
     * The largest prefix of {@code items} ranked items whose rendering fits, {@code overhead} tokens (tool schemas,
     * response format) included; a binary search, since a longer prefix never renders shorter.
     */
    public static Fitted fit(LlmConfig cfg, String step, int items, IntFunction<List<Map<String, Object>>> render, long overhead) {
        long budget = cfg.promptBudget();
        List<Map<String, Object>> all = render.apply(items);
        long full = TokenCounter.messages(all) + overhead;
        if (TokenCounter.withMargin(full) <= budget) return new Fitted(all, items, 0, 0);
        List<Map<String, Object>> none = render.apply(0);
        long bare = TokenCounter.messages(none) + overhead;
        if (TokenCounter.withMargin(bare) > budget) throw tooLarge(cfg, step, bare, items);
        int lo = 0, hi = items; // lo fits, hi does not
        List<Map<String, Object>> best = none;
        long bestTokens = bare;
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            List<Map<String, Object>> m = render.apply(mid);
            long t = TokenCounter.messages(m) + overhead;
            if (TokenCounter.withMargin(t) <= budget) {
                lo = mid;
                best = m;
                bestTokens = t;
            } else {
                hi = mid;
            }
        }
        return new Fitted(best, lo, items - lo, full - bestTokens);
    }

    /** Fits a prompt whose reply is typed by {@code out} (its schema is sent with it). */
    public static Fitted fit(LlmConfig cfg, String step, int items, IntFunction<List<Map<String, Object>>> render, StructuredOutput<?> out) {
        return fit(cfg, step, items, render, overhead(out));
    }

    /** The tokens a typed output adds to its request (its json_schema response format). */
    public static long overhead(StructuredOutput<?> out) {
        return TokenCounter.responseFormat(out.responseFormat());
    }

    /** Fits and records the trim under {@code step} in {@code usage}. */
    public static List<Map<String, Object>> fit(LlmConfig cfg, String step, int items, IntFunction<List<Map<String, Object>>> render, long overhead,
                                                UsageMeter usage) {
        Fitted f = fit(cfg, step, items, render, overhead);
        usage.trimmed(step, f.trimmed(), f.trimmedTokens());
        return f.messages();
    }

    /** The error for a prompt of {@code rawTokens} (cl100k_base) that cannot fit; {@code optional} items were already left out. */
    static RagException tooLarge(LlmConfig cfg, String step, long rawTokens, int optional) {
        long needed = TokenCounter.withMargin(rawTokens);
        return new PromptTooLargeException("LLM step '" + step + "': the prompt needs " + needed + " tokens (" + rawTokens + " counted with cl100k_base, x"
                + TokenCounter.MARGIN + " for an unknown tokenizer)" + (optional > 0 ? " even with all " + optional + " optional items left out" : "")
                + ", but the context window leaves " + cfg.promptBudget() + " (contextTokens=" + cfg.contextTokens() + " minus maxTokens="
                + cfg.maxTokens() + "); raise graphrag.llm.contextTokens (or config.llm.contextTokens) to at least " + (needed + cfg.maxTokens())
                + " and the server's window with it (docs/llm.md#context-windows)");
    }

    /** A prompt that cannot fit the configured window: raised before any request is sent. */
    public static final class PromptTooLargeException extends RagException {
        PromptTooLargeException(String message) {
            super(message);
        }
    }
}
