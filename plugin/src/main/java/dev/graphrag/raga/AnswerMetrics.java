package dev.graphrag.raga;

import dev.graphrag.core.text.TokenOverlap;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The paper's QASPER metrics (paper §4.2; functions raga.eval.*): answer token F1 and evidence F1, each the best over the golds. */
public final class AnswerMetrics {
    private AnswerMetrics() {}

    /** SQuAD-style token F1 against the best-matching gold answer (lower case, punctuation and articles dropped). */
    public static double answerF1(String prediction, List<String> golds) {
        double best = 0;
        List<String> p = tokens(prediction);
        for (String g : golds) best = Math.max(best, TokenOverlap.f1(p, tokens(g)));
        return best;
    }

    /** F1 between the predicted evidence ids and the best-matching gold set; both empty is 1. */
    public static double evidenceF1(List<String> predicted, List<List<String>> goldSets) {
        double best = 0;
        Set<String> p = new LinkedHashSet<>(predicted);
        for (List<String> g : goldSets) {
            Set<String> gs = new LinkedHashSet<>(g);
            if (p.isEmpty() && gs.isEmpty()) return 1.0;
            long common = p.stream().filter(gs::contains).count();
            if (common == 0) continue;
            double precision = (double) common / p.size(), recall = (double) common / gs.size();
            best = Math.max(best, 2 * precision * recall / (precision + recall));
        }
        return best;
    }

    static List<String> tokens(String s) {
        String t = Normalizer.normalize(s == null ? "" : s, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s]", " ");
        List<String> out = new ArrayList<>();
        for (String w : t.trim().split("\\s+")) if (!w.isEmpty() && !w.equals("a") && !w.equals("an") && !w.equals("the")) out.add(w);
        return out;
    }
}
