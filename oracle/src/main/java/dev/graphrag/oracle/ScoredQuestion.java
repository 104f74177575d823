package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A question as the scorer sees it: its id, text and gold passage ids. Only the scorer reads this; policies get
 * {@link OracleGold}, which has no passage field.
 */
public record ScoredQuestion(String id, String text, Set<String> goldIds) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** MuSiQue: the is_supporting paragraphs, by the content-hash id of (title, paragraph_text). */
    public static List<ScoredQuestion> musique(Path dataset, EvalCorpus corpus) throws IOException {
        List<ScoredQuestion> out = new ArrayList<>();
        for (JsonNode q : JSON.readTree(dataset.toFile())) {
            Set<String> gold = new LinkedHashSet<>();
            for (JsonNode p : q.path("paragraphs")) {
                if (!p.path("is_supporting").asBoolean()) continue;
                String id = EvalCorpus.id(p.path("title").asText(), p.path("paragraph_text").asText());
                if (!corpus.contains(id)) throw new IllegalStateException("MuSiQue question " + q.path("id").asText() + ": a gold paragraph is not in the corpus");
                gold.add(id);
            }
            out.add(new ScoredQuestion(q.path("id").asText(), q.path("question").asText(), gold));
        }
        return out;
    }

    /**
     * MuSiQue's hop-1 sub-questions as questions of their own (docs/evaluation.md#remindrag-the-oracle-walker-and-the-passes: a different answer on a
     * shared path): the text is {@link EvidenceGate#query} of hop 1, the gold its supporting paragraph; each distinct
     * text once, id "&lt;question id&gt;#hop1".
     */
    public static List<ScoredQuestion> musiqueHop1(Path dataset, EvalCorpus corpus) throws IOException {
        List<ScoredQuestion> out = new ArrayList<>();
        Set<String> texts = new java.util.HashSet<>();
        for (JsonNode q : JSON.readTree(dataset.toFile())) {
            JsonNode hop = q.path("question_decomposition").path(0);
            String text = EvidenceGate.query(new OracleGold.Hop(hop.path("question").asText(), hop.path("answer").asText()), new String[0]);
            if (!texts.add(EvidenceGate.normalize(text))) continue;
            JsonNode p = q.path("paragraphs").path(hop.path("paragraph_support_idx").asInt());
            String id = EvalCorpus.id(p.path("title").asText(), p.path("paragraph_text").asText());
            if (!corpus.contains(id)) throw new IllegalStateException("MuSiQue question " + q.path("id").asText() + ": the hop-1 paragraph is not in the corpus");
            out.add(new ScoredQuestion(q.path("id").asText() + "#hop1", text, Set.of(id)));
        }
        return out;
    }

    /** HotpotQA: the supporting-fact titles, each the key of one corpus passage. */
    public static List<ScoredQuestion> hotpot(Path dataset, EvalCorpus corpus) throws IOException {
        Map<String, String> idByTitle = new java.util.HashMap<>();
        for (Map<String, Object> d : corpus.documents()) idByTitle.put((String) d.get("title"), (String) d.get("id"));
        List<ScoredQuestion> out = new ArrayList<>();
        for (JsonNode q : JSON.readTree(dataset.toFile())) {
            Set<String> gold = new LinkedHashSet<>();
            for (JsonNode f : q.path("supporting_facts")) {
                String id = idByTitle.get(f.path(0).asText());
                if (id == null) throw new IllegalStateException("HotpotQA question " + q.path("_id").asText() + ": no passage titled " + f.path(0));
                gold.add(id);
            }
            out.add(new ScoredQuestion(q.path("_id").asText(), q.path("question").asText(), gold));
        }
        return out;
    }

    /**
     * The fixed MuSiQue split: a question is for tuning when the first hex digit of its id's hash is below 8, for
     * reporting otherwise (about half each, independent of order).
     */
    public boolean tuning() {
        return Character.digit(EvalCorpus.id("split", id).charAt(1), 16) < 8;
    }
}
