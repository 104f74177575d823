package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * rag.llm.check's engine: each method's structured steps, with their real prompts, sent to an endpoint on a tiny
 * built-in sample ({@link CheckSample}), never the user's data; every reply judged as the method would read it
 * (usable on the first try, after the repair turn, or not at all) and for what it says (a name not in the passage,
 * an id not offered, an answer that is not the sample's): a verdict per step and per method with the advice the docs
 * give (docs/llm.md#choosing-a-model). Knows nothing of the methods: each gives its probes.
 */
public final class ModelCheck {
    private ModelCheck() {}

    /** One try of one probe: what the model did and what it cost. {@code wrong} says why a usable reply is wrong (null: right). */
    public record Trial(boolean usable, boolean repaired, String problem, String wrong, long calls, long promptTokens, long completionTokens,
                        long reasoningTokens, long ms) {
        static Trial of(boolean usable, boolean repaired, String problem, String wrong, ChatResponse r) {
            return r == null ? new Trial(usable, repaired, problem, wrong, 0, 0, 0, 0, 0)
                    : new Trial(usable, repaired, problem, wrong, r.calls(), r.promptTokens(), r.completionTokens(), r.reasoningTokens(), r.ms());
        }
    }

    /** One step of one method, tried once per sample case. */
    public interface Probe {
        String method();

        String step();

        /** Sends the step's prompt for {@code sampleCase} and judges the reply. Endpoint faults throw. */
        Trial run(LlmClient llm, LlmConfig cfg, int sampleCase, BooleanSupplier cancelled);

        /** The prompt's tokens for {@code sampleCase} as the client counts them (the dry run's estimate of one call). */
        long promptTokens(int sampleCase);

        /** The most calls one try can take (2 for a structured step: the reply and a repair turn; the rounds of a tool loop). */
        int maxCallsPerTry();
    }

    /**
     * A structured step: {@code messages(case)} sent as the method sends them, the reply parsed and checked by
     * {@code out}, then judged by {@code wrong} (why it is wrong, or null).
     */
    public static <T> Probe structured(String method, String step, Function<Integer, List<Map<String, Object>>> messages, StructuredOutput<T> out,
                                       java.util.function.BiFunction<Integer, T, String> wrong) {
        return new Probe() {
            public String method() { return method; }

            public String step() { return step; }

            public int maxCallsPerTry() { return 2; }

            public long promptTokens(int sampleCase) {
                return TokenCounter.withMargin(TokenCounter.prompt(ChatRequest.of(step, messages.apply(sampleCase))));
            }

            public Trial run(LlmClient llm, LlmConfig cfg, int sampleCase, BooleanSupplier cancelled) {
                try {
                    LlmClient.Typed<T> t = llm.structured(cfg, ChatRequest.of(step, messages.apply(sampleCase)), out, false, cancelled);
                    ChatResponse r = t.response();
                    return Trial.of(true, r.repairs() > 0, null, wrong.apply(sampleCase, t.value()), r);
                } catch (UnusableReply e) {
                    return unusable(e);
                }
            }
        };
    }

    /** A step that asks for a JSON object (json_object) checked by {@code check}, as {@link LlmClient#chatJson} reads it. */
    public static Probe json(String method, String step, Function<Integer, List<Map<String, Object>>> messages, LlmClient.JsonCheck check,
                             java.util.function.BiFunction<Integer, com.fasterxml.jackson.databind.JsonNode, String> wrong) {
        return new Probe() {
            public String method() { return method; }

            public String step() { return step; }

            public int maxCallsPerTry() { return 2; }

            public long promptTokens(int sampleCase) {
                return TokenCounter.withMargin(TokenCounter.prompt(new ChatRequest(step, messages.apply(sampleCase), null, null, "json_object", null)));
            }

            public Trial run(LlmClient llm, LlmConfig cfg, int sampleCase, BooleanSupplier cancelled) {
                try {
                    LlmClient.JsonReply j = llm.chatJson(cfg, new ChatRequest(step, messages.apply(sampleCase), null, null, "json_object", null), check, false, cancelled);
                    ChatResponse r = j.response();
                    return Trial.of(true, r.repairs() > 0, null, wrong.apply(sampleCase, j.json()), r);
                } catch (UnusableReply e) {
                    return unusable(e);
                }
            }
        };
    }

    private static Trial unusable(UnusableReply e) {
        return Trial.of(false, false, e.problem(), null, e.spent());
    }

    /**
     * An agent step: a tool loop over sandbox tools (they check arguments as the real ones do and write nothing);
     * usable when it ends as {@code finished} says, repaired when some calls were refused on the way, wrong as
     * {@code wrong} judges the calls.
     */
    public static Probe toolLoop(String method, String step, Function<Integer, List<Map<String, Object>>> messages,
                                 Function<Integer, List<ToolLoop.Tool>> tools, ToolLoop.Budget budget,
                                 java.util.function.BiFunction<Integer, ToolLoop.Outcome, String> wrong) {
        return new Probe() {
            public String method() { return method; }

            public String step() { return step; }

            public int maxCallsPerTry() { return budget.maxRounds(); }

            public long promptTokens(int sampleCase) {
                return TokenCounter.withMargin(TokenCounter.prompt(new ChatRequest(step, messages.apply(sampleCase), tools.apply(sampleCase).stream()
                        .map(ToolLoop.Tool::openAi).toList(), "auto", null, null)));
            }

            public Trial run(LlmClient llm, LlmConfig cfg, int sampleCase, BooleanSupplier cancelled) {
                long t0 = System.nanoTime();
                ToolLoop.Outcome o = new ToolLoop(llm, cfg, step, tools.apply(sampleCase), budget, cancelled).run(messages.apply(sampleCase), ToolLoop.Mode.AUTO);
                boolean finished = o.stopReason().equals("final");
                Usage u = o.usage();
                return new Trial(finished, finished && (o.invalidCalls() > 0 || u.repairs() > 0),
                        finished ? null : "the loop stopped at " + o.stopReason() + " after " + o.calls().size() + " tool calls (" + o.invalidCalls() + " refused)",
                        finished ? wrong.apply(sampleCase, o) : null, u.calls(), u.promptTokens(), u.completionTokens(),
                        u.byStep().values().stream().mapToLong(Usage.Step::reasoningTokens).sum(), (System.nanoTime() - t0) / 1_000_000);
            }
        };
    }

    /** rag.llm.check's row for one step (method columns repeated on each of the method's rows). */
    public record StepReport(String method, String step, long trials, long calls, long firstTry, long repaired, long unusable, long wrong,
                             double meanMs, long promptTokens, long completionTokens, long reasoningTokens, String problem, String verdict,
                             String methodVerdict, String advice) {}

    /** What each verdict means for a user, as docs/llm.md#choosing-a-model says it. */
    public static final Map<String, String> ADVICE = Map.of(
            "ok", "The model gives usable replies at every step: build and query with it.",
            "usable with repairs", "Usable: some replies needed the client's repair turn, a second call each. An endpoint with json_schema outputs"
                    + " (vLLM, llama.cpp with grammars, Ollama's format) or a larger model avoids them.",
            "weak", "The method runs, but degrades where replies were unusable or wrong (docs/llm.md#when-the-model-gets-it-wrong): expect"
                    + " skipped chunks and weaker answers. Try a larger model, temperature 0, or a model tuned for JSON.",
            "not usable", "Most replies of a step were unusable or wrong: a build would skip most chunks or stop, and answers would fail."
                    + " Use a larger model, or one tuned for JSON and tool calling (for RAGA, an endpoint with native tool calls).",
            "dry run", "Nothing was sent: calls and promptTokens are what the check would send at most.");

    /** Runs every probe on {@code cases} sample cases and judges each step and method. */
    public static List<StepReport> run(LlmClient llm, LlmConfig cfg, List<Probe> probes, int cases, BooleanSupplier cancelled) {
        Map<String, List<Trial>> trials = new LinkedHashMap<>();
        for (Probe p : probes) {
            List<Trial> list = new ArrayList<>();
            for (int c = 0; c < cases; c++) {
                if (cancelled.getAsBoolean()) throw new RagException("rag.llm.check: terminated");
                list.add(p.run(llm, cfg, c, cancelled));
            }
            trials.put(key(p), list);
        }
        List<StepReport> steps = new ArrayList<>();
        for (Probe p : probes) steps.add(judge(p, trials.get(key(p))));
        return withMethodVerdicts(steps);
    }

    /** What the check would send, without sending it. */
    public static List<StepReport> plan(List<Probe> probes, int cases) {
        List<StepReport> out = new ArrayList<>();
        for (Probe p : probes) {
            long tokens = 0;
            for (int c = 0; c < cases; c++) tokens += p.promptTokens(c);
            // at most: every try repaired (twice the prompt) or, for a tool loop, every round taken (each round resends the prompt)
            out.add(new StepReport(p.method(), p.step(), cases, (long) cases * p.maxCallsPerTry(), 0, 0, 0, 0, 0, tokens * p.maxCallsPerTry(),
                    0, 0, null, "dry run", "dry run", ADVICE.get("dry run")));
        }
        return out;
    }

    private static String key(Probe p) {
        return p.method() + "\u0000" + p.step();
    }

    static StepReport judge(Probe p, List<Trial> list) {
        long n = list.size(), calls = 0, first = 0, repaired = 0, unusable = 0, wrong = 0, prompt = 0, completion = 0, reasoning = 0, ms = 0;
        String problem = null;
        for (Trial t : list) {
            calls += t.calls();
            prompt += t.promptTokens();
            completion += t.completionTokens();
            reasoning += t.reasoningTokens();
            ms += t.ms();
            if (!t.usable()) unusable++;
            else if (t.repaired()) repaired++;
            else first++;
            if (t.wrong() != null) wrong++;
            if (problem == null) problem = !t.usable() ? t.problem() : t.wrong();
        }
        String verdict;
        if (2 * (unusable + wrong) >= n && unusable + wrong > 0) verdict = "not usable";
        else if (unusable + wrong > 0) verdict = "weak";
        else if (repaired > 0) verdict = "usable with repairs";
        else verdict = "ok";
        return new StepReport(p.method(), p.step(), n, calls, first, repaired, unusable, wrong, n == 0 ? 0 : (double) ms / n, prompt, completion, reasoning,
                problem, describe(verdict, n, repaired, unusable, wrong), null, null);
    }

    private static String describe(String verdict, long n, long repaired, long unusable, long wrong) {
        return switch (verdict) {
            case "usable with repairs" -> "usable with " + percent(repaired, n) + " repairs";
            case "weak", "not usable" -> verdict + ": " + percent(unusable, n) + " unusable, " + percent(wrong, n) + " wrong";
            default -> verdict;
        };
    }

    private static String percent(long part, long whole) {
        return String.format(Locale.ROOT, "%.0f %%", whole == 0 ? 0.0 : 100.0 * part / whole);
    }

    /** Each method's verdict is its worst step's, naming that step; the advice is the verdict's. */
    static List<StepReport> withMethodVerdicts(List<StepReport> steps) {
        List<String> order = List.of("ok", "usable with repairs", "weak", "not usable");
        Map<String, StepReport> worst = new LinkedHashMap<>();
        Map<String, long[]> repairs = new LinkedHashMap<>();
        for (StepReport s : steps) {
            worst.merge(s.method(), s, (a, b) -> order.indexOf(kind(b.verdict())) > order.indexOf(kind(a.verdict())) ? b : a);
            long[] r = repairs.computeIfAbsent(s.method(), k -> new long[4]);
            r[0] += s.repaired();
            r[1] += s.trials();
            r[2] += s.reasoningTokens();
            r[3] += s.calls();
        }
        List<StepReport> out = new ArrayList<>();
        for (StepReport s : steps) {
            StepReport w = worst.get(s.method());
            String kind = kind(w.verdict());
            long[] r = repairs.get(s.method());
            String methodVerdict = switch (kind) {
                case "ok" -> "ok";
                case "usable with repairs" -> "usable with " + percent(r[0], r[1]) + " repairs";
                default -> kind + ": " + w.step() + " " + w.verdict().substring(kind.length() + 2) + (w.problem() == null ? "" : " (" + cut(w.problem()) + ")");
            };
            // a reasoning model works as well, but each call also pays for its thinking: worth knowing before a build
            if (r[2] > 0 && r[3] > 0) methodVerdict += String.format(Locale.ROOT, "; a reasoning model: %.0f thinking tokens a call", (double) r[2] / r[3]);
            out.add(new StepReport(s.method(), s.step(), s.trials(), s.calls(), s.firstTry(), s.repaired(), s.unusable(), s.wrong(), s.meanMs(),
                    s.promptTokens(), s.completionTokens(), s.reasoningTokens(), s.problem(), s.verdict(), methodVerdict, ADVICE.get(kind)));
        }
        return out;
    }

    private static String kind(String verdict) {
        if (verdict.startsWith("not usable")) return "not usable";
        if (verdict.startsWith("weak")) return "weak";
        return verdict.startsWith("usable with") ? "usable with repairs" : "ok";
    }

    private static String cut(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }
}
