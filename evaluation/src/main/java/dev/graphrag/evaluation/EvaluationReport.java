package dev.graphrag.evaluation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.Scores;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The results of a run, computed from the log alone (so a resumed run reports every question, whichever run asked
 * it): per method and pass, answer exact match and F1, Recall@2/@5 and the recall of everything shown, LLM calls and
 * tokens per question and per step, latency p50/p95, failures by cause; per method the layer build's calls and
 * tokens. Written as results.md and results.json beside the log.
 */
final class EvaluationReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One (method, pass) row. */
    record Row(String method, String pass, int questions, int failed, Map<String, Integer> failures, double exactMatch, double f1, int retrievalScored,
               Double recall2, Double recall5, Double recallShown, double passagesShown, double callsPerQuestion, double promptTokensPerQuestion,
               double completionTokensPerQuestion, Map<String, Map<String, Double>> perStepPerQuestion, double latencyMsP50, double latencyMsP95,
               Map<String, Map<String, Long>> degraded) {}

    /** A method's layer build, summed over the runs that built it. */
    record Build(String method, String procedure, long calls, long promptTokens, long completionTokens, Double promptTokensPerChunk, double seconds,
                 Map<String, Map<String, Long>> byStep, JsonNode details, JsonNode census) {
        /** The census's state and problems in a cell: "ready, sound", or the problems found. */
        String integrity() {
            if (census == null || census.isMissingNode() || census.isEmpty()) return "-";
            List<String> problems = new ArrayList<>();
            census.path("problems").forEach(p -> problems.add(p.asText()));
            return census.path("state").asText("?") + ", " + (problems.isEmpty() ? "sound" : String.join("; ", problems));
        }
    }

    private final Map<String, Object> heading;
    private final List<Row> rows;
    private final List<Build> builds;

    private EvaluationReport(Map<String, Object> heading, List<Row> rows, List<Build> builds) {
        this.heading = heading;
        this.rows = rows;
        this.builds = builds;
    }

    List<Row> rows() { return rows; }

    List<Build> builds() { return builds; }

    /**
     * @param plan the (method, pass, question ids) the run covers, in order; a question of the plan not in the log is
     *             simply not counted (the run was stopped before it)
     */
    static EvaluationReport of(Map<String, Object> heading, QuestionLog log, Map<String, List<String>> plan, long chunks) {
        Map<String, JsonNode> latest = log.latestQuestions();
        List<Row> rows = new ArrayList<>();
        plan.forEach((methodPass, ids) -> {
            String[] mp = methodPass.split("/", 2);
            List<JsonNode> entries = new ArrayList<>();
            for (String id : ids) {
                JsonNode e = latest.get(QuestionLog.key(mp[0], mp[1], id));
                if (e != null) entries.add(e);
            }
            if (!entries.isEmpty()) rows.add(row(mp[0], mp[1], entries));
        });
        List<Build> builds = new ArrayList<>();
        for (String method : plan.keySet().stream().map(k -> k.split("/", 2)[0]).distinct().toList()) {
            List<JsonNode> runs = log.builds(method);
            if (runs.isEmpty()) continue;
            long calls = 0, prompt = 0, completion = 0, ms = 0;
            Map<String, Map<String, Long>> steps = new TreeMap<>();
            for (JsonNode b : runs) {
                calls += b.path("llmCalls").asLong();
                prompt += b.path("promptTokens").asLong();
                completion += b.path("completionTokens").asLong();
                ms += b.path("ms").asLong();
                b.path("tokensByStep").fields().forEachRemaining(s -> s.getValue().fields().forEachRemaining(f ->
                        steps.computeIfAbsent(s.getKey(), k -> new TreeMap<>()).merge(f.getKey(), f.getValue().asLong(), Long::sum)));
            }
            builds.add(new Build(method, runs.get(0).path("procedure").asText(), calls, prompt, completion, chunks > 0 ? (double) prompt / chunks : null, ms / 1000.0,
                    steps, runs.get(runs.size() - 1).path("details"), runs.get(runs.size() - 1).path("census")));
        }
        return new EvaluationReport(heading, rows, builds);
    }

    private static Row row(String method, String pass, List<JsonNode> entries) {
        int n = entries.size(), failed = 0, scored = 0, ok = 0;
        double em = 0, f1 = 0, r2 = 0, r5 = 0, rs = 0, shown = 0, calls = 0, prompt = 0, completion = 0;
        Map<String, Integer> failures = new TreeMap<>();
        Map<String, Map<String, Double>> steps = new TreeMap<>();
        Map<String, Map<String, Long>> degraded = new TreeMap<>();
        List<Double> ms = new ArrayList<>();
        for (JsonNode e : entries) {
            em += e.path("exactMatch").asDouble();
            f1 += e.path("f1").asDouble();
            if (e.path("goldComplete").asBoolean()) {
                scored++;
                r2 += e.path("recall2").asDouble();
                r5 += e.path("recall5").asDouble();
                rs += e.path("recallShown").asDouble();
            }
            e.path("tokensByStep").fields().forEachRemaining(s -> degradedOf(s.getKey(), s.getValue(), degraded));
            if (!e.path("failure").isNull()) {
                failed++;
                failures.merge(e.path("failure").path("cause").asText(), 1, Integer::sum);
                continue;
            }
            ok++;
            shown += e.path("documents").size();
            calls += e.path("llmCalls").asDouble();
            prompt += e.path("promptTokens").asDouble();
            completion += e.path("completionTokens").asDouble();
            ms.add(e.path("ms").asDouble());
            e.path("tokensByStep").fields().forEachRemaining(s -> {
                Map<String, Double> f = steps.computeIfAbsent(s.getKey(), k -> new LinkedHashMap<>());
                for (String k : List.of("calls", "promptTokens", "completionTokens")) f.merge(k, s.getValue().path(k).asDouble(), Double::sum);
            });
        }
        int answered = Math.max(ok, 1);
        steps.values().forEach(f -> f.replaceAll((k, v) -> v / answered));
        return new Row(method, pass, n, failed, failures, em / n, f1 / n, scored, scored == 0 ? null : r2 / scored, scored == 0 ? null : r5 / scored,
                scored == 0 ? null : rs / scored, shown / answered, calls / answered, prompt / answered, completion / answered, steps,
                Scores.percentile(ms, 50), Scores.percentile(ms, 95), degraded);
    }

    /** A step's unusable replies and fallbacks ("fallback: ..." counts), added into {@code into}. */
    private static void degradedOf(String step, JsonNode figures, Map<String, Map<String, Long>> into) {
        figures.fields().forEachRemaining(f -> {
            if ((f.getKey().equals("unusable") || f.getKey().startsWith(EvaluatedMethod.Usage.FALLBACK)) && f.getValue().asLong() > 0) {
                into.computeIfAbsent(step, k -> new TreeMap<>()).merge(f.getKey(), f.getValue().asLong(), Long::sum);
            }
        });
    }

    /** The table of unusable replies and what the methods did instead, for question rows and builds alike. */
    private void degradationTable(StringBuilder b) {
        List<String> lines = new ArrayList<>();
        for (Row r : rows) r.degraded().forEach((step, f) -> lines.add(line(r.method(), r.pass(), step, f)));
        for (Build x : builds) {
            x.byStep().forEach((step, f) -> {
                Map<String, Long> d = new TreeMap<>();
                f.forEach((k, v) -> { if ((k.equals("unusable") || k.startsWith(EvaluatedMethod.Usage.FALLBACK)) && v > 0) d.put(k, v); });
                if (!d.isEmpty()) lines.add(line(x.method(), "build", step, d));
            });
        }
        if (lines.isEmpty()) return;
        b.append("\n## Unusable replies and fallbacks\n\n| method | pass | step | unusable replies | what the method did instead |\n|---|---|---|---|---|\n");
        lines.forEach(b::append);
        b.append("\nA reply is unusable when the client's repair turn could not mend it; docs/llm.md#when-the-model-gets-it-wrong says what each step"
                + " does then. A question fails only where no honest answer was possible.\n");
    }

    private static String line(String method, String pass, String step, Map<String, Long> f) {
        List<String> fallbacks = new ArrayList<>();
        f.forEach((k, v) -> { if (k.startsWith(EvaluatedMethod.Usage.FALLBACK)) fallbacks.add(k.substring(EvaluatedMethod.Usage.FALLBACK.length()) + ": " + v); });
        return "| " + method + " | " + pass + " | " + step + " | " + f.getOrDefault("unusable", 0L) + " | "
                + (fallbacks.isEmpty() ? "- (the question or build failed)" : String.join("; ", fallbacks)) + " |\n";
    }

    void write(Path dir) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>(heading);
        json.put("rows", rows);
        json.put("builds", builds);
        Files.writeString(dir.resolve("results.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
        Files.writeString(dir.resolve("results.md"), markdown());
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        boolean oracle = Boolean.TRUE.equals(heading.get("oracle"));
        b.append("# Evaluation: ").append(oracle ? "ORACLE POLICY (a scripted stand-in, not a model)" : heading.get("model")).append("\n\n");
        if (oracle) {
            b.append("**Every row is an ORACLE POLICY figure**: a scripted policy that knows the answers played the LLM (docs/evaluation.md). It bounds"
                    + " the machinery from above; it says nothing of a model's quality.\n\n");
        }
        b.append("- questions: ").append(heading.get("questions")).append(" (").append(heading.get("questionCount")).append(" asked")
                .append(heading.get("seed") == null ? "" : ", seed " + heading.get("seed")).append(")\n");
        b.append("- corpus: ").append(heading.get("corpus")).append(" (").append(heading.get("chunks")).append(" chunks)\n");
        b.append("- database: ").append(heading.get("database")).append("\n");
        b.append("- LLM: ").append(heading.get("model")).append("\n");
        if (heading.get("latency") != null) {
            b.append("- stand-in latency: ").append(heading.get("latency")).append(" (times are at that pace, docs/evaluation.md#latency)\n");
        }
        if (heading.get("weakModel") != null) {
            b.append("- weak model: ").append(heading.get("weakModel")).append(" (the policy's replies broken at that rate, docs/evaluation.md#weak-models)\n");
        }
        b.append("- log: results.jsonl (one line per question: the passages shown, the answer, its score, tokens by step)\n\n");
        b.append("| method | pass | questions | failed | EM | F1 | R@2 | R@5 | R@shown | passages shown | LLM calls/q | prompt tok/q | completion tok/q | p50 ms | p95 ms |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            boolean answers = !r.method().equals(EvaluatedMethod.DENSE.key());
            b.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %.1f | %.2f | %.0f | %.0f | %.0f | %.0f |%n", r.method(), r.pass(),
                    r.questions(), r.failed(), answers ? fmt(r.exactMatch()) : "-", answers ? fmt(r.f1()) : "-", fmt(r.recall2()), fmt(r.recall5()), fmt(r.recallShown()),
                    r.passagesShown(), r.callsPerQuestion(), r.promptTokensPerQuestion(), r.completionTokensPerQuestion(), r.latencyMsP50(), r.latencyMsP95()));
        }
        b.append("\nEM and F1: SQuAD normalisation, best over the answer and its aliases; a failed question scores 0. R@k: the share of gold")
                .append(" passages among the first k distinct documents the reader was shown (R@shown: among all of them), over the questions whose")
                .append(" gold passages are all in the corpus");
        rows.stream().filter(r -> r.retrievalScored() < r.questions()).findFirst()
                .ifPresent(r -> b.append(" (").append(r.retrievalScored()).append(" of ").append(r.questions()).append(" here)"));
        b.append(". Calls, tokens and latency are over the questions that did not fail.\n");
        rows.stream().filter(r -> r.pass().equals("repeat")).forEach(rep -> rows.stream()
                .filter(r -> r.method().equals(rep.method()) && r.pass().equals("first")).findFirst().ifPresent(first -> b.append(String.format(Locale.ROOT,
                        "%n%s repeat pass: %.0f prompt tokens a question against %.0f on the first pass (%.0f%%), answered from the memory the first pass wrote.%n",
                        rep.method(), rep.promptTokensPerQuestion(), first.promptTokensPerQuestion(),
                        first.promptTokensPerQuestion() == 0 ? 0.0 : 100 * rep.promptTokensPerQuestion() / first.promptTokensPerQuestion()))));
        if (!builds.isEmpty()) {
            b.append("\n## Building each layer\n\n| method | procedure | LLM calls | prompt tokens | completion tokens | prompt tok/chunk | seconds | layer after the build |\n|---|---|---|---|---|---|---|---|\n");
            for (Build x : builds) {
                b.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %s | %.1f | %s |%n", x.method(), x.procedure(), x.calls(), x.promptTokens(), x.completionTokens(),
                        x.promptTokensPerChunk() == null ? "-" : String.format(Locale.ROOT, "%.0f", x.promptTokensPerChunk()), x.seconds(), x.integrity()));
            }
            b.append("\nLayer after the build: its state and the census's problems (duplicate keys, nodes no chunk reaches, chunks with two anchors,"
                    + " facts or relations without provenance, quotes not at their offsets); \"sound\" when there are none.\n");
        }
        b.append("\n## Tokens by step, a question\n\n| method | pass | step | calls | prompt tokens | completion tokens |\n|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            r.perStepPerQuestion().forEach((step, f) -> b.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %.0f | %.0f |%n", r.method(), r.pass(), step,
                    f.getOrDefault("calls", 0.0), f.getOrDefault("promptTokens", 0.0), f.getOrDefault("completionTokens", 0.0))));
        }
        degradationTable(b);
        List<Row> failing = rows.stream().filter(r -> r.failed() > 0).toList();
        if (!failing.isEmpty()) {
            b.append("\n## Failures by cause\n\n| method | pass | cause | questions |\n|---|---|---|---|\n");
            for (Row r : failing) r.failures().forEach((cause, n) -> b.append("| ").append(r.method()).append(" | ").append(r.pass()).append(" | ").append(cause)
                    .append(" | ").append(n).append(" |\n"));
            b.append("\nThe messages are in results.jsonl; a resumed run asks failed questions again.\n");
        }
        return b.toString();
    }

    private static String fmt(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }
}
