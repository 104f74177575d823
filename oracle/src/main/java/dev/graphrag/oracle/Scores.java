package dev.graphrag.oracle;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One retriever's figures over a question set: Recall@2/@5 for ranked outputs; for set outputs, set recall at the
 * retriever's own per-question budget (the number of distinct passages it returned) and the all-gold rate (every
 * gold passage found: the multi-hop "evidence complete" figure); plus latency and the LLM usage it yielded.
 */
public final class Scores {
    private final String name;
    private int n;
    private boolean ranked;
    private double r2, r5, setRecall, allGold, passages, calls, promptTokens, completionTokens, answered;
    private final List<Double> ms = new ArrayList<>();

    public Scores(String name) { this.name = name; }

    /** Records one question's output: document ids in rank order (or a set, in any order, when {@code ranked} is false). */
    public void add(List<String> documentIds, boolean ranked, Set<String> gold, double millis) {
        Set<String> distinct = new LinkedHashSet<>(documentIds);
        n++;
        if (ranked) {
            this.ranked = true;
            r2 += recallAt(documentIds, 2, gold);
            r5 += recallAt(documentIds, 5, gold);
        }
        double recall = setRecall(documentIds, gold);
        setRecall += recall;
        allGold += !gold.isEmpty() && recall == 1 ? 1 : 0;
        passages += distinct.size();
        ms.add(millis);
    }

    public void usage(long llmCalls, long prompt, long completion) {
        calls += llmCalls;
        promptTokens += prompt;
        completionTokens += completion;
    }

    /** Whether the (oracle) reader answered this question correctly. */
    public void answer(boolean correct) { answered += correct ? 1 : 0; }

    /** The share of gold passages among every id of the output (0 for no gold). */
    public static double setRecall(List<String> ids, Set<String> gold) {
        Set<String> distinct = new LinkedHashSet<>(ids);
        return gold.isEmpty() ? 0 : (double) gold.stream().filter(distinct::contains).count() / gold.size();
    }

    /** The share of gold passages among the first {@code k} distinct ids (0 for no gold). */
    public static double recallAt(List<String> ids, int k, Set<String> gold) {
        Set<String> top = new LinkedHashSet<>();
        for (String id : ids) {
            if (top.size() >= k) break;
            top.add(id);
        }
        return gold.isEmpty() ? 0 : (double) gold.stream().filter(top::contains).count() / gold.size();
    }

    public String name() { return name; }
    /** Whether the outputs were ranked (Recall@k applies) rather than sets. */
    public boolean ranked() { return ranked; }
    public int questions() { return n; }
    public double recall2() { return r2 / n; }
    public double recall5() { return r5 / n; }
    public double setRecall() { return setRecall / n; }
    public double allGold() { return allGold / n; }
    public double budget() { return passages / n; }
    public double callsPerQuestion() { return calls / n; }
    public double promptTokensPerQuestion() { return promptTokens / n; }
    public double completionTokensPerQuestion() { return completionTokens / n; }
    public double answerRate() { return answered / n; }

    public double p50() { return percentile(ms, 50); }

    public double p95() { return percentile(ms, 95); }

    /** The nearest-rank percentile (0 for no values). */
    public static double percentile(List<Double> xs, int p) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.isEmpty() ? 0 : s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
    }
}
