package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * remind.calibrate: where λ sits for the configured embedder (docs/remind.md#defaults). Replay over an edge needs
 * α·sim + (1−α)·n_k·cos(q, q') > λ, n_k the memory norm after k enhancements; so the cosines of unrelated question
 * pairs (which must not replay each other's memories) and of paraphrases (which should) decide the usable window.
 */
public final class Calibration {
    /** The result row. */
    public record Result(double alpha, double lambda, long questions, long unrelatedPairs, Map<String, Object> unrelated, long paraphrasePairs,
                         Map<String, Object> paraphrases, List<Map<String, Object>> window, double suggestedLambda, double sameQuestionLimit) {}

    /** Questions of unrelated topics, used when the caller gives none. */
    public static final List<String> DEFAULT_QUESTIONS = List.of(
            "Who directed the film that won the Academy Award for Best Picture in 1998?",
            "What is the capital of the country where the Danube river ends?",
            "When was the university attended by the author of Pride and Prejudice's first biographer founded?",
            "Which company manufactures the processor used in the first iPhone?",
            "How many moons does the largest planet of the solar system have?",
            "What language is spoken in the region where Gouda cheese is produced?",
            "Who was the head coach of the team that won the 2010 FIFA World Cup?",
            "In which year did the composer of the Moonlight Sonata lose his hearing?",
            "What is the population of the city that hosted the 1992 Summer Olympics?",
            "Which element has the highest melting point?",
            "Who founded the record label that signed the Beatles?",
            "What river flows through the birthplace of Mozart?",
            "When did the architect of the Sydney Opera House die?",
            "Which political party did the first female prime minister of the United Kingdom lead?",
            "What is the main ingredient of the national dish of Japan?",
            "Who wrote the novel on which the film Blade Runner is based?",
            "Which ocean borders the country with the longest coastline?",
            "What award did the discoverer of penicillin receive in 1945?",
            "In which city is the headquarters of the company that makes the PlayStation?",
            "Who painted the ceiling of the Sistine Chapel?",
            "What is the currency of the country whose capital is Nairobi?",
            "Which mountain range contains the highest peak in South America?",
            "Who is the spouse of the actor who played Jack in Titanic's director's next film?",
            "What sport is played at the stadium known as the Maracana?",
            "When was the treaty that ended the First World War signed?",
            "Which programming language was created by the inventor of the C++ standard library's STL?",
            "What is the boiling point of water at the top of Mount Everest?",
            "Who succeeded the founder of the Mughal Empire?",
            "Which band released the album that contains the song Bohemian Rhapsody?",
            "What is the official language of the country where the Inca capital Cusco lies?");

    /** Pairs that ask the same thing in other words. */
    public static final List<List<String>> DEFAULT_PARAPHRASES = List.of(
            List.of("Who directed the film that won the Academy Award for Best Picture in 1998?",
                    "The 1998 Best Picture Oscar winner was directed by whom?"),
            List.of("What is the capital of the country where the Danube river ends?",
                    "The Danube flows into the sea in a country; what is that country's capital city?"),
            List.of("Which company manufactures the processor used in the first iPhone?", "Who made the chip inside the original iPhone?"),
            List.of("How many moons does the largest planet of the solar system have?", "What is the number of natural satellites of Jupiter?"),
            List.of("Who was the head coach of the team that won the 2010 FIFA World Cup?", "Which manager led the 2010 World Cup champions?"),
            List.of("When did the architect of the Sydney Opera House die?", "In what year did the man who designed the Sydney Opera House pass away?"),
            List.of("Who wrote the novel on which the film Blade Runner is based?", "Blade Runner was adapted from a book by which author?"),
            List.of("Who painted the ceiling of the Sistine Chapel?", "Which artist created the frescoes on the Sistine Chapel ceiling?"),
            List.of("What is the currency of the country whose capital is Nairobi?", "Which money is used in Kenya?"),
            List.of("When was the treaty that ended the First World War signed?", "In which year was the Treaty of Versailles signed?"),
            List.of("Which band released the album that contains the song Bohemian Rhapsody?", "Bohemian Rhapsody appears on an album by which group?"),
            List.of("What sport is played at the stadium known as the Maracana?", "Which game is played at the Maracana stadium?"));

    private Calibration() {}

    public static Result run(EmbeddingService embeddings, List<String> questions, List<List<String>> paraphrases, double alpha, double lambda) {
        if (questions.size() < 5) throw new RagException("remind.calibrate: questions needs at least 5 questions, got " + questions.size());
        if (questions.size() > 2000) throw new RagException("remind.calibrate: at most 2000 questions, got " + questions.size());
        for (List<String> p : paraphrases) {
            if (p.size() != 2) throw new RagException("remind.calibrate: each paraphrase must be a pair [question, paraphrase], got " + p.size() + " texts");
        }
        float[][] q = embeddings.embedAll(questions, true);
        List<Double> unrelated = new ArrayList<>();
        for (int i = 0; i < q.length; i++) for (int j = i + 1; j < q.length; j++) unrelated.add(EmbeddingService.cosine(q[i], q[j]));
        List<Double> similar = new ArrayList<>();
        for (List<String> p : paraphrases) {
            float[][] v = embeddings.embedAll(p, true);
            similar.add(EmbeddingService.cosine(v[0], v[1]));
        }
        double[] u = sorted(unrelated), s = sorted(similar);
        List<Map<String, Object>> window = new ArrayList<>();
        double norm = 0;
        for (int k = 1; k <= 3; k++) {
            norm = MemoryMath.norm(new double[] {norm + MemoryMath.delta(norm)});
            for (double sim : new double[] {0.3, 0.5, 0.7}) {
                double needed = (lambda - alpha * sim) / ((1 - alpha) * norm);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("enhancements", (long) k);
                row.put("nodeSimilarity", sim);
                row.put("neededCosine", needed);
                row.put("unrelatedAbove", above(u, needed));
                row.put("paraphrasesAbove", s.length == 0 ? null : above(s, needed));
                window.add(row);
            }
        }
        // the least λ (0.01 steps) at which 99 % of unrelated pairs fail even on a saturated memory with node similarity 0.5
        double suggested = Math.ceil((alpha * 0.5 + (1 - alpha) * percentile(u, 0.99)) * 100) / 100;
        double sameQuestion = alpha * 0.5 + (1 - alpha) * MemoryMath.delta(0);
        return new Result(alpha, lambda, questions.size(), u.length, percentiles(u), s.length, s.length == 0 ? Map.of() : percentiles(s), window,
                suggested, sameQuestion);
    }

    private static double[] sorted(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a;
    }

    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double above(double[] sorted, double x) {
        int n = 0;
        for (double v : sorted) if (v > x) n++;
        return sorted.length == 0 ? 0 : (double) n / sorted.length;
    }

    private static Map<String, Object> percentiles(double[] v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("min", v[0]);
        m.put("p10", percentile(v, 0.10));
        m.put("p50", percentile(v, 0.50));
        m.put("p90", percentile(v, 0.90));
        m.put("p99", percentile(v, 0.99));
        m.put("max", v[v.length - 1]);
        return m;
    }
}
