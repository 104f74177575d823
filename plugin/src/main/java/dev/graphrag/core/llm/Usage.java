package dev.graphrag.core.llm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What LLM work cost: exchanges, prompt and completion tokens, and the same per step (the step names every request
 * carries in its X-Rag-Step header, so an LLM server's own log can be matched to what a procedure reports), with per
 * step what the client repaired, the reasoning tokens within the completion tokens, and what was trimmed to fit the
 * context window. Immutable; {@link UsageMeter} adds up a run that calls from several threads.
 */
public record Usage(long calls, long promptTokens, long completionTokens, Map<String, Step> byStep) {
    /**
     * One step's share: {@code repairs} are the replies the client had to fix (and repair turns), {@code trimmed} the
     * retrieved or transcript items left out of its prompts to fit the window and {@code trimmedTokens} their tokens;
     * {@code unusable} the replies no repair made usable, and {@code fallbacks} what the method did instead of each,
     * by name ("chunk skipped", "all triples kept"; docs/llm.md "When the model gets it wrong").
     */
    public record Step(long calls, long promptTokens, long completionTokens, long repairs, long reasoningTokens, long trimmed, long trimmedTokens,
                       long unusable, Map<String, Long> fallbacks) {
        public Step {
            fallbacks = Collections.unmodifiableMap(new TreeMap<>(fallbacks));
        }

        public Step(long calls, long promptTokens, long completionTokens, long repairs, long reasoningTokens, long trimmed, long trimmedTokens) {
            this(calls, promptTokens, completionTokens, repairs, reasoningTokens, trimmed, trimmedTokens, 0, Map.of());
        }

        public Step(long calls, long promptTokens, long completionTokens) {
            this(calls, promptTokens, completionTokens, 0, 0, 0, 0);
        }

        Step plus(Step o) {
            Map<String, Long> f = new TreeMap<>(fallbacks);
            o.fallbacks.forEach((k, v) -> f.merge(k, v, Long::sum));
            return new Step(calls + o.calls, promptTokens + o.promptTokens, completionTokens + o.completionTokens, repairs + o.repairs,
                    reasoningTokens + o.reasoningTokens, trimmed + o.trimmed, trimmedTokens + o.trimmedTokens, unusable + o.unusable, f);
        }
    }

    public static final Usage NONE = new Usage(0, 0, 0, Map.of());

    public Usage {
        byStep = Collections.unmodifiableMap(new TreeMap<>(byStep));
    }

    /** One response's usage under its step (a cached reply costs nothing and counts no call). */
    public static Usage of(String step, ChatResponse r) {
        Step s = new Step(r.calls(), r.promptTokens(), r.completionTokens(), r.repairs(), r.reasoningTokens(), 0, 0);
        return new Usage(s.calls(), s.promptTokens(), s.completionTokens(), Map.of(step, s));
    }

    /** Items left out of a step's prompt to fit the window: no call, no tokens spent. */
    public static Usage trimmed(String step, long items, long tokens) {
        return new Usage(0, 0, 0, Map.of(step, new Step(0, 0, 0, 0, 0, items, tokens)));
    }

    /**
     * A reply the step could not use ({@link UnusableReply}): what its exchanges cost, one unusable reply, and the
     * {@code fallback} the method took instead (null: none, the caller fails).
     */
    public static Usage unusable(UnusableReply e, String fallback) {
        Usage spent = e.spent() == null ? NONE : of(e.step(), e.spent());
        return spent.plus(fallback(e.step(), 1, fallback));
    }

    /** A fallback a method took at a step without a reply to blame (a loop bound reached, a walk without progress). */
    public static Usage fallback(String step, long unusable, String fallback) {
        Map<String, Long> f = fallback == null ? Map.of() : Map.of(fallback, 1L);
        return new Usage(0, 0, 0, Map.of(step, new Step(0, 0, 0, 0, 0, 0, 0, unusable, f)));
    }

    public Usage plus(Usage o) {
        Map<String, Step> merged = new TreeMap<>(byStep);
        o.byStep.forEach((k, v) -> merged.merge(k, v, Step::plus));
        return new Usage(calls + o.calls, promptTokens + o.promptTokens, completionTokens + o.completionTokens, merged);
    }

    public long totalTokens() {
        return promptTokens + completionTokens;
    }

    /** Repairs over all steps. */
    public long repairs() {
        return byStep.values().stream().mapToLong(Step::repairs).sum();
    }

    /** Unusable replies over all steps. */
    public long unusable() {
        return byStep.values().stream().mapToLong(Step::unusable).sum();
    }

    /** Fallbacks over all steps, by "step: fallback". */
    public Map<String, Long> fallbacks() {
        Map<String, Long> out = new TreeMap<>();
        byStep.forEach((k, v) -> v.fallbacks().forEach((f, n) -> out.merge(k + ": " + f, n, Long::sum)));
        return out;
    }

    /**
     * The {@code tokensByStep} column: step -> {calls, promptTokens, completionTokens, repairs, reasoningTokens, trimmed,
     * trimmedTokens, unusable, fallbacks (a map: what the method did instead -> times)}.
     */
    public Map<String, Object> tokensByStep() {
        Map<String, Object> out = new LinkedHashMap<>();
        byStep.forEach((k, v) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("calls", v.calls());
            m.put("promptTokens", v.promptTokens());
            m.put("completionTokens", v.completionTokens());
            m.put("repairs", v.repairs());
            m.put("reasoningTokens", v.reasoningTokens());
            m.put("trimmed", v.trimmed());
            m.put("trimmedTokens", v.trimmedTokens());
            m.put("unusable", v.unusable());
            m.put("fallbacks", v.fallbacks());
            out.put(k, Collections.unmodifiableMap(m));
        });
        return out;
    }
}
