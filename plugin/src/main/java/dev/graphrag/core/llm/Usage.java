package dev.graphrag.core.llm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What LLM work cost: exchanges, prompt and completion tokens, and the same per step (the step names every request
 * carries in its X-Rag-Step header, so an LLM server's own log can be matched to what a procedure reports).
 * Immutable; {@link UsageMeter} adds up a run that calls from several threads.
 */
public record Usage(long calls, long promptTokens, long completionTokens, Map<String, Step> byStep) {
    /** One step's share. */
    public record Step(long calls, long promptTokens, long completionTokens) {
        Step plus(Step o) {
            return new Step(calls + o.calls, promptTokens + o.promptTokens, completionTokens + o.completionTokens);
        }
    }

    public static final Usage NONE = new Usage(0, 0, 0, Map.of());

    public Usage {
        byStep = Collections.unmodifiableMap(new TreeMap<>(byStep));
    }

    /** One response's usage under its step (a cached reply costs nothing and counts no call). */
    public static Usage of(String step, ChatResponse r) {
        Step s = new Step(r.calls(), r.promptTokens(), r.completionTokens());
        return new Usage(s.calls(), s.promptTokens(), s.completionTokens(), Map.of(step, s));
    }

    public Usage plus(Usage o) {
        Map<String, Step> merged = new TreeMap<>(byStep);
        o.byStep.forEach((k, v) -> merged.merge(k, v, Step::plus));
        return new Usage(calls + o.calls, promptTokens + o.promptTokens, completionTokens + o.completionTokens, merged);
    }

    public long totalTokens() {
        return promptTokens + completionTokens;
    }

    /** The {@code tokensByStep} column: step -> {calls, promptTokens, completionTokens}. */
    public Map<String, Object> tokensByStep() {
        Map<String, Object> out = new LinkedHashMap<>();
        byStep.forEach((k, v) -> out.put(k, Map.of("calls", v.calls(), "promptTokens", v.promptTokens(), "completionTokens", v.completionTokens())));
        return out;
    }
}
