package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The only gold an oracle policy may read (docs/evaluation.md): per question its id, text, answer, aliases and
 * MuSiQue's decomposition as {question, answer} hops. No paragraph, title or support field: in HotpotQA the
 * supporting-fact titles are the corpus keys, and a policy that saw them would find the gold passages by lookup.
 * {@link #build} writes the file from the dataset; {@link #load} reads it back and refuses any other field, so a
 * policy built from a loaded file cannot have seen more.
 */
public final class OracleGold {
    public record Hop(String question, String answer) {}

    public record Question(String id, String question, String answer, List<String> aliases, List<Hop> hops) {
        public Question {
            aliases = List.copyOf(aliases);
            hops = List.copyOf(hops);
        }

        /** The answer and its aliases, the strings that count as the final answer. */
        public List<String> answers() {
            List<String> all = new ArrayList<>();
            all.add(answer);
            all.addAll(aliases);
            return all;
        }

        /** Whether a method's answer is this question's answer or an alias, after the gate's normalisation; null is not. */
        public boolean isAnswer(String candidate) {
            return candidate != null && answers().stream().anyMatch(a -> EvidenceGate.normalize(a).equals(EvidenceGate.normalize(candidate)));
        }
    }

    /** The fields a sanitised file may hold, per level; anything else fails {@link #load}. */
    static final Set<String> QUESTION_FIELDS = Set.of("id", "question", "answer", "aliases", "hops");
    static final Set<String> HOP_FIELDS = Set.of("question", "answer");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Question> byText = new LinkedHashMap<>();

    private OracleGold(List<Question> questions) {
        for (Question q : questions) byText.put(EvidenceGate.normalize(q.question()), q);
    }

    public List<Question> questions() { return List.copyOf(byText.values()); }

    /** The gold question a prompt asks, found by its normalised text (a policy holds no state, so this is how it knows). */
    public Question find(String questionText) {
        return questionText == null ? null : byText.get(EvidenceGate.normalize(questionText));
    }

    /** MuSiQue: question, answer, answer_aliases and question_decomposition's {question, answer}; nothing else. */
    public static List<Question> fromMusique(Path dataset) throws IOException {
        List<Question> out = new ArrayList<>();
        for (JsonNode q : JSON.readTree(dataset.toFile())) {
            List<Hop> hops = new ArrayList<>();
            for (JsonNode h : q.path("question_decomposition")) hops.add(new Hop(h.path("question").asText(), h.path("answer").asText()));
            out.add(new Question(q.path("id").asText(), q.path("question").asText(), q.path("answer").asText(), strings(q.path("answer_aliases")), hops));
        }
        return out;
    }

    /** HotpotQA: answer only (its supporting facts name the gold passages, so no hop or title is carried). */
    public static List<Question> fromHotpot(Path dataset) throws IOException {
        List<Question> out = new ArrayList<>();
        for (JsonNode q : JSON.readTree(dataset.toFile())) {
            out.add(new Question(q.path("_id").asText(), q.path("question").asText(), q.path("answer").asText(), List.of(), List.of()));
        }
        return out;
    }

    /** Writes the sanitised file. */
    public static void build(List<Question> questions, Path file) throws IOException {
        ArrayNode arr = JSON.createArrayNode();
        for (Question q : questions) {
            ObjectNode o = arr.addObject();
            o.put("id", q.id()).put("question", q.question()).put("answer", q.answer());
            ArrayNode aliases = o.putArray("aliases");
            q.aliases().forEach(aliases::add);
            ArrayNode hops = o.putArray("hops");
            for (Hop h : q.hops()) hops.addObject().put("question", h.question()).put("answer", h.answer());
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), arr);
    }

    /** Reads a sanitised file; a field outside {@link #QUESTION_FIELDS} / {@link #HOP_FIELDS} is an error naming it. */
    public static OracleGold load(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (!root.isArray()) throw new IllegalArgumentException(file + ": a sanitised gold file holds a JSON list");
        List<Question> out = new ArrayList<>();
        for (JsonNode q : root) {
            onlyFields(q, QUESTION_FIELDS, file + " question");
            List<Hop> hops = new ArrayList<>();
            for (JsonNode h : q.path("hops")) {
                onlyFields(h, HOP_FIELDS, file + " hop");
                hops.add(new Hop(h.path("question").asText(), h.path("answer").asText()));
            }
            out.add(new Question(q.path("id").asText(), q.path("question").asText(), q.path("answer").asText(), strings(q.path("aliases")), hops));
        }
        return new OracleGold(out);
    }

    private static void onlyFields(JsonNode n, Set<String> allowed, String where) {
        if (!n.isObject()) throw new IllegalArgumentException(where + " is not a JSON object");
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) throw new IllegalArgumentException(where + " has the field '" + f + "', which sanitised gold must not carry");
        }
    }

    private static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        for (JsonNode s : arr) out.add(s.asText());
        return out;
    }
}
