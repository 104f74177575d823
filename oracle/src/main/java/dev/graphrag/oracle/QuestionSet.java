package dev.graphrag.oracle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A question set for an evaluation with answers: MuSiQue, HotpotQA and 2WikiMultihopQA in their released formats, or
 * JSON Lines of {@code {question, answer, aliases?, gold?: [{title, text?}], id?}} for a user's own set. The format is
 * told by the file (JSON Lines by a {@code .jsonl} name; the three datasets by their fields). Gold passages are
 * only for scoring retrieval; nothing of the gold or the answers may reach a prompt.
 */
public final class QuestionSet {
    /** A gold passage: its title, and its text where the set gives it (HotpotQA and 2Wiki: the question's own context paragraph of that title). */
    public record Gold(String title, String text) {}

    /** One question with the answers that count as right (the answer first, then its aliases) and its gold passages. */
    public record Question(String id, String text, List<String> answers, List<Gold> gold) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private QuestionSet() {}

    public static List<Question> read(Path file) throws IOException {
        if (file.getFileName().toString().endsWith(".jsonl")) return jsonl(file);
        JsonNode root = JSON.readTree(file.toFile());
        if (!root.isArray() || root.isEmpty()) throw new IllegalArgumentException(file + ": expected a JSON array of questions (or a .jsonl file)");
        boolean musique = isMusique(root.get(0));
        List<Question> out = new ArrayList<>();
        for (JsonNode q : root) out.add(musique ? musique(q) : titled(q));
        for (int i = 0; i < out.size(); i++) {
            Question q = out.get(i);
            if (q.text().isBlank() || q.answers().isEmpty()) throw new IllegalArgumentException(file + ": question " + (i + 1) + " has no text or no answer");
        }
        return out;
    }

    /**
     * The passages the file carries for the questions whose ids are in {@code ids}, as {title, text} maps in file order
     * (repeats included; the corpus drops them): MuSiQue's paragraphs, HotpotQA's and 2Wiki's context (a title and its
     * sentences joined, as the HotpotQA corpus files join them), and a JSON Lines set's gold passages that have text.
     */
    public static List<Map<String, Object>> passages(Path file, Set<String> ids) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        if (file.getFileName().toString().endsWith(".jsonl")) {
            int line = 0;
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                line++;
                if (l.isBlank()) continue;
                JsonNode q = JSON.readTree(l);
                if (!ids.contains(q.hasNonNull("id") ? q.path("id").asText() : "q" + line)) continue;
                for (JsonNode g : q.path("gold")) if (g.hasNonNull("text")) out.add(passage(g.path("title").asText(), g.path("text").asText()));
            }
            return out;
        }
        for (JsonNode q : JSON.readTree(file.toFile())) {
            boolean musique = isMusique(q);
            String id = musique || !q.has("_id") ? q.path("id").asText() : q.path("_id").asText();
            if (!ids.contains(id)) continue;
            if (musique) {
                for (JsonNode p : q.path("paragraphs")) out.add(passage(p.path("title").asText(), p.path("paragraph_text").asText()));
            } else {
                for (JsonNode c : q.path("context")) out.add(passage(c.path(0).asText(), joined(c.path(1))));
            }
        }
        return out;
    }

    private static Map<String, Object> passage(String title, String text) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("text", text);
        return m;
    }

    /** MuSiQue has paragraphs with is_supporting; HotpotQA and 2Wiki (which adds evidences) have context and supporting_facts. */
    static boolean isMusique(JsonNode q) {
        if (q.has("paragraphs") && q.has("question_decomposition")) return true;
        if (q.has("context") && q.has("supporting_facts")) return false;
        throw new IllegalArgumentException("not a MuSiQue, HotpotQA or 2WikiMultihopQA question (fields " + fieldNames(q) + "); use JSON Lines for your own set");
    }

    private static Question musique(JsonNode q) {
        List<Gold> gold = new ArrayList<>();
        for (JsonNode p : q.path("paragraphs")) {
            if (p.path("is_supporting").asBoolean()) gold.add(new Gold(p.path("title").asText(), p.path("paragraph_text").asText()));
        }
        List<String> answers = new ArrayList<>();
        answers.add(q.path("answer").asText());
        q.path("answer_aliases").forEach(a -> answers.add(a.asText()));
        return new Question(q.path("id").asText(), q.path("question").asText(), distinct(answers), gold);
    }

    /**
     * HotpotQA and 2Wiki: supporting facts name [title, sentence index]; each title is one gold passage, with the text
     * of the question's own context paragraph of that title (sentences joined as {@link #passages} joins them) where
     * the context has it, so a corpus in which titles repeat still tells the passages apart.
     */
    private static Question titled(JsonNode q) {
        Map<String, String> contextText = new LinkedHashMap<>();
        for (JsonNode c : q.path("context")) contextText.putIfAbsent(c.path(0).asText(), joined(c.path(1)));
        Set<String> titles = new LinkedHashSet<>();
        for (JsonNode fact : q.path("supporting_facts")) titles.add(fact.path(0).asText());
        List<Gold> gold = titles.stream().map(t -> new Gold(t, contextText.get(t))).toList();
        String id = q.has("_id") ? q.path("_id").asText() : q.path("id").asText();
        return new Question(id, q.path("question").asText(), distinct(List.of(q.path("answer").asText())), gold);
    }

    private static String joined(JsonNode sentences) {
        StringBuilder text = new StringBuilder();
        for (JsonNode sentence : sentences) text.append(sentence.asText());
        return text.toString().trim();
    }

    private static List<Question> jsonl(Path file) throws IOException {
        List<Question> out = new ArrayList<>();
        int line = 0;
        for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            line++;
            if (l.isBlank()) continue;
            JsonNode q;
            try {
                q = JSON.readTree(l);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(file + " line " + line + ": not JSON (" + e.getOriginalMessage() + ")");
            }
            String text = q.path("question").asText("");
            String answer = q.path("answer").asText("");
            if (text.isBlank() || answer.isBlank()) throw new IllegalArgumentException(file + " line " + line + ": needs a non-empty question and answer");
            List<String> answers = new ArrayList<>(List.of(answer));
            q.path("aliases").forEach(a -> answers.add(a.asText()));
            List<Gold> gold = new ArrayList<>();
            for (JsonNode g : q.path("gold")) {
                if (!g.hasNonNull("title")) throw new IllegalArgumentException(file + " line " + line + ": each gold passage needs a title");
                gold.add(new Gold(g.path("title").asText(), g.hasNonNull("text") ? g.path("text").asText() : null));
            }
            out.add(new Question(q.hasNonNull("id") ? q.path("id").asText() : "q" + line, text, distinct(answers), gold));
        }
        if (out.isEmpty()) throw new IllegalArgumentException(file + ": no questions");
        return out;
    }

    private static List<String> distinct(List<String> answers) {
        Map<String, String> byNorm = new LinkedHashMap<>();
        for (String a : answers) if (a != null && !AnswerScore.normalize(a).isEmpty()) byNorm.putIfAbsent(AnswerScore.normalize(a), a);
        return List.copyOf(byNorm.values());
    }

    private static List<String> fieldNames(JsonNode q) {
        List<String> names = new ArrayList<>();
        q.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
