package dev.graphrag.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.RemindEvaluation;
import dev.graphrag.oracle.ScoredQuestion;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The paraphrased questions of RemindBenchmark's paraphrase passes (docs/evaluation.md#remindrag-the-oracle-walker-and-the-passes): the template paraphrase built from each
 * question's hops, the 20 hand-written ones, and how far a paraphrase's walk follows its original's path.
 */
final class RemindParaphrases {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RemindParaphrases() {}

    /** Hop questions joined, "X >> relation" as a question, each "#k" as "that": the decomposition paraphrase of §3.0. */
    static String templateParaphrase(OracleGold.Question q) {
        List<String> parts = new ArrayList<>();
        for (OracleGold.Hop h : q.hops()) {
            String s = h.question().trim();
            int arrow = s.indexOf(">>");
            if (arrow >= 0) s = "What is the " + s.substring(arrow + 2).trim() + " of " + s.substring(0, arrow).trim() + "?";
            s = s.replaceAll("#\\d+", "that").replaceAll("\\s+([?,.])", "$1");
            if (!s.endsWith("?")) s += "?";
            parts.add(Character.toUpperCase(s.charAt(0)) + s.substring(1));
        }
        return String.join(" ", parts);
    }

    /** The 20 hand-written paraphrases (lab/benchmarks/src/main/resources/eval/musique-paraphrases.json), by question id. */
    static Map<String, String> handParaphrases() throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        try (InputStream in = RemindParaphrases.class.getResourceAsStream("/eval/musique-paraphrases.json")) {
            for (JsonNode p : JSON.readTree(in)) out.put(p.path("id").asText(), p.path("paraphrase").asText());
        }
        return out;
    }

    /** The paraphrases (question id + suffix, "#tp" or "#hw") of {@code questions} that the gold file holds, with the original's gold. */
    static List<ScoredQuestion> paraphrased(OracleGold gold, List<ScoredQuestion> questions, String suffix) {
        List<ScoredQuestion> out = new ArrayList<>();
        for (ScoredQuestion q : questions) {
            OracleGold.Question p = gold.questions().stream().filter(x -> x.id().equals(q.id() + suffix)).findFirst().orElse(null);
            if (p != null) out.add(new ScoredQuestion(p.id(), p.question(), q.goldIds()));
        }
        return out;
    }

    /** Mean path Jaccard between each question's walk and its paraphrase's (walks matched by question id). */
    static double jaccard(List<RemindEvaluation.Walked> original, List<ScoredQuestion> questions, List<RemindEvaluation.Walked> para,
                                  List<ScoredQuestion> paraQuestions) {
        Map<String, RemindEvaluation.Walked> byId = new LinkedHashMap<>();
        for (int i = 0; i < questions.size(); i++) byId.put(questions.get(i).id(), original.get(i));
        double sum = 0;
        for (int i = 0; i < paraQuestions.size(); i++) {
            String id = paraQuestions.get(i).id();
            sum += RemindEvaluation.pathJaccard(byId.get(id.substring(0, id.indexOf('#'))).relationships(), para.get(i).relationships());
        }
        return paraQuestions.isEmpty() ? Double.NaN : sum / paraQuestions.size();
    }
}
