package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Maps the triple filter's reply back to the candidate facts (paper Eq. 9; the mapping in docs/agrag.md#pipeline-and-defaults): exact match after
 * normalisation, else the candidate with the best normalised Levenshtein similarity on "s|p|o" if it is at
 * least {@code minSimilarity} (ties to the higher-ranked candidate), else dropped. Keeps the LLM's order,
 * removes duplicates, keeps at most k.
 */
public final class FactMatcher {
    public static final double DEFAULT_MIN_SIMILARITY = 0.75;

    private FactMatcher() {}

    /** @return indexes into {@code candidates} */
    public static List<Integer> map(List<List<String>> returned, List<List<String>> candidates, double minSimilarity, int k) {
        List<String> keys = new ArrayList<>();
        for (List<String> c : candidates) keys.add(key(c));
        Set<Integer> out = new LinkedHashSet<>();
        for (List<String> r : returned) {
            if (r == null || r.size() != 3 || out.size() >= k) continue;
            String key = key(r);
            int best = keys.indexOf(key);
            if (best < 0) {
                double bestSim = -1;
                for (int i = 0; i < keys.size(); i++) {
                    double sim = similarity(key, keys.get(i));
                    if (sim > bestSim) {
                        bestSim = sim;
                        best = i;
                    }
                }
                if (bestSim < minSimilarity) best = -1;
            }
            if (best >= 0) out.add(best);
        }
        return new ArrayList<>(out);
    }

    static String key(List<String> t) {
        return EntityStatistics.norm(t.get(0)) + "|" + EntityStatistics.norm(t.get(1)) + "|" + EntityStatistics.norm(t.get(2));
    }

    /** 1 - editDistance / length of the longer string. */
    public static double similarity(String a, String b) {
        int longer = Math.max(a.length(), b.length());
        return longer == 0 ? 1 : 1 - (double) levenshtein(a, b) / longer;
    }

    static int levenshtein(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
