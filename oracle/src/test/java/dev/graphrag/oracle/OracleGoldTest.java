package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sanitised gold carries no passage field, and a file that does is refused. */
@LineIndependent
public class OracleGoldTest {
    /**
     * Samples of the data sets in their original formats (oracle/src/test/resources/eval/README.md), found from this
     * module or from demo/, whose server tests use them too.
     */
    public static final Path SAMPLES = java.util.stream.Stream.of("src/test/resources/eval", "../oracle/src/test/resources/eval").map(Path::of)
            .filter(java.nio.file.Files::isDirectory).findFirst().orElseThrow(() -> new AssertionError("no oracle/src/test/resources/eval from " + Path.of("").toAbsolutePath()));
    public static final Path MUSIQUE = SAMPLES.resolve("musique_sample.json");
    static final Path HOTPOT = SAMPLES.resolve("hotpotqa_sample.json");
    static final ObjectMapper JSON = new ObjectMapper();

    /** The MuSiQue sample's passages, as the harness ingests them ({title, text}), in file order. */
    public static java.util.List<java.util.Map<String, Object>> musiquePassages() throws java.io.IOException {
        java.util.List<java.util.Map<String, Object>> passages = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode q : JSON.readTree(MUSIQUE.toFile())) {
            for (com.fasterxml.jackson.databind.JsonNode p : q.path("paragraphs")) {
                passages.add(java.util.Map.of("title", p.path("title").asText(), "text", p.path("paragraph_text").asText()));
            }
        }
        return passages;
    }

    /** The MuSiQue sample's sanitised gold, built into a temporary file and loaded. */
    public static OracleGold musiqueGold() throws java.io.IOException {
        Path file = java.nio.file.Files.createTempDirectory("oracle").resolve("musique_oracle.json");
        OracleGold.build(OracleGold.fromMusique(MUSIQUE), file);
        return OracleGold.load(file);
    }
    static final Set<String> FORBIDDEN = Set.of("paragraphs", "is_supporting", "paragraph_support_idx", "paragraph_text", "title", "idx",
            "supporting_facts", "context", "question_decomposition", "answerable");

    @Test
    void musiqueGoldHasHopsAndNoPassageField(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("musique_oracle.json");
        OracleGold.build(OracleGold.fromMusique(MUSIQUE), file);
        JsonNode root = JSON.readTree(file.toFile());
        assertEquals(6, root.size());
        Set<String> seen = new HashSet<>();
        collectFields(root, seen);
        assertEquals(Set.of("id", "question", "answer", "aliases", "hops"), seen, "every field name in the file");
        for (String f : FORBIDDEN) assertFalse(Files.readString(file).contains("\"" + f + "\""), f);
        OracleGold gold = OracleGold.load(file);
        OracleGold.Question q = gold.find("What country was the author of Brand a citizen of?");
        assertNotNull(q, "found by its normalised text");
        assertEquals(List.of(new OracleGold.Hop("Brand >> author", "Henrik Ibsen"), new OracleGold.Hop("#1 >> country of citizenship", "Norway")), q.hops());
        assertEquals(List.of("Norway", "NO", "NOR", "no"), q.answers());
        int hops = 0;
        for (OracleGold.Question x : gold.questions()) hops += x.hops().size();
        assertEquals(2 + 4 + 3 + 2 + 2 + 3, hops, "the sample's decompositions, hop for hop");
    }

    @Test
    void hotpotGoldIsAnswerOnly(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hotpotqa_oracle.json");
        OracleGold.build(OracleGold.fromHotpot(HOTPOT), file);
        Set<String> seen = new HashSet<>();
        collectFields(JSON.readTree(file.toFile()), seen);
        assertEquals(Set.of("id", "question", "answer", "aliases", "hops"), seen);
        for (String f : FORBIDDEN) assertFalse(Files.readString(file).contains("\"" + f + "\""), f);
        assertTrue(OracleGold.load(file).questions().stream().allMatch(q -> q.hops().isEmpty() && !q.answer().isBlank()));
    }

    @Test
    void loadRefusesAnyOtherField(@TempDir Path dir) throws Exception {
        Path q = dir.resolve("q.json");
        Files.writeString(q, "[{\"id\":\"1\",\"question\":\"q?\",\"answer\":\"a\",\"aliases\":[],\"hops\":[],\"paragraphs\":[]}]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OracleGold.load(q));
        assertTrue(e.getMessage().contains("'paragraphs'"), e.getMessage());
        Path h = dir.resolve("h.json");
        Files.writeString(h, "[{\"id\":\"1\",\"question\":\"q?\",\"answer\":\"a\",\"aliases\":[],\"hops\":[{\"question\":\"x\",\"answer\":\"y\",\"paragraph_support_idx\":3}]}]");
        e = assertThrows(IllegalArgumentException.class, () -> OracleGold.load(h));
        assertTrue(e.getMessage().contains("'paragraph_support_idx'"), e.getMessage());
    }

    static void collectFields(JsonNode n, Set<String> out) {
        if (n.isObject()) {
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                out.add(f);
                collectFields(n.get(f), out);
            }
        } else if (n.isArray()) {
            for (JsonNode c : n) collectFields(c, out);
        }
    }
}
