package dev.graphrag.core.text;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** F1 of two token bags (each token counted as often as it occurs), as SQuAD-style answer F1 computes it on normalised tokens. */
public final class TokenOverlap {
    private TokenOverlap() {}

    /** 1 when both are empty, 0 when one is; else the harmonic mean of the shared tokens' precision and recall. */
    public static double f1(List<String> predicted, List<String> gold) {
        if (predicted.isEmpty() || gold.isEmpty()) return predicted.equals(gold) ? 1 : 0;
        Map<String, Integer> counts = new HashMap<>();
        for (String t : gold) counts.merge(t, 1, Integer::sum);
        int common = 0;
        for (String t : predicted) {
            Integer c = counts.get(t);
            if (c != null && c > 0) {
                common++;
                counts.put(t, c - 1);
            }
        }
        if (common == 0) return 0;
        double precision = (double) common / predicted.size(), recall = (double) common / gold.size();
        return 2 * precision * recall / (precision + recall);
    }
}
