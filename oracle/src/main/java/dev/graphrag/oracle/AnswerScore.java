package dev.graphrag.oracle;

import dev.graphrag.core.text.TokenOverlap;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Answer exact match and token F1 as the SQuAD evaluation script computes them (lower case, punctuation and the
 * articles a, an, the removed, whitespace collapsed), taking the best over the answer and its aliases, as MuSiQue's
 * and HotpotQA's official scripts do.
 */
public final class AnswerScore {
    private static final Pattern ARTICLES = Pattern.compile("\\b(a|an|the)\\b");
    private static final Pattern PUNCTUATION = Pattern.compile("\\p{Punct}");

    /** A prediction's exact match (0 or 1) and token F1 against the best-matching gold answer. */
    public record Score(double exactMatch, double f1) {}

    private AnswerScore() {}

    public static String normalize(String s) {
        String t = s.toLowerCase(Locale.ROOT);
        t = PUNCTUATION.matcher(t).replaceAll("");
        t = ARTICLES.matcher(t).replaceAll(" ");
        return String.join(" ", t.trim().split("\\s+")).trim();
    }

    /** The best exact match and the best F1 over {@code answers}; a null or blank prediction scores 0. */
    public static Score of(String prediction, List<String> answers) {
        if (prediction == null || prediction.isBlank() || answers.isEmpty()) return new Score(0, 0);
        String p = normalize(prediction);
        double em = 0, f1 = 0;
        for (String a : answers) {
            String g = normalize(a);
            if (p.equals(g)) em = 1;
            f1 = Math.max(f1, f1(p, g));
        }
        return new Score(em, f1);
    }

    static double f1(String prediction, String gold) {
        return TokenOverlap.f1(tokens(prediction), tokens(gold));
    }

    private static List<String> tokens(String normalized) {
        return normalized.isEmpty() ? List.of() : List.of(normalized.split(" "));
    }
}
