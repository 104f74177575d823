package dev.graphrag.benchmarks;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scaling benchmark's corpus: copy 0 is the corpus, each further copy renames entity words consistently. */
@LineIndependent
class ScaledCorpusTest {
    static final List<Map<String, Object>> BASE = List.of(
            Map.of("title", "Anna Berg", "text", "Anna Berg starred in The Prize Film. She was born in Oslo."),
            Map.of("title", "The Prize Film", "text", "The Prize Film is a 1950 film. Anna Berg played the lead."),
            Map.of("title", "Oslo", "text", "Oslo is the capital of Norway."));

    @Test
    void eachCopyRenamesEntityWordsByOneBijectionAndKeepsTheRest() {
        List<Map<String, Object>> docs = ScaledCorpus.of(BASE, 3, 7);
        assertEquals(9, docs.size());
        for (int n = 0; n < 3; n++) {
            assertEquals(BASE.get(n).get("text"), docs.get(n).get("text"), "copy 0 is the corpus");
            assertEquals("x0:" + n, docs.get(n).get("id"));
        }
        assertEquals(List.of("Anna", "Berg", "Prize", "Film", "Oslo"), ScaledCorpus.vocabulary(BASE), "title words, function words excepted");
        for (int c = 1; c < 3; c++) {
            Map<String, Object> anna = docs.get(3 * c), film = docs.get(3 * c + 1), oslo = docs.get(3 * c + 2);
            assertTrue(((String) anna.get("text")).startsWith(anna.get("title") + " starred in The " + ((String) film.get("title")).substring(4)),
                    "a title named in another passage is renamed as that passage's title: " + anna + " / " + film);
            assertTrue(((String) film.get("title")).startsWith("The "), "function words stay");
            assertTrue(((String) oslo.get("text")).endsWith(" is the capital of Norway."), "words outside the titles stay: " + oslo);
            assertEquals(((String) BASE.get(2).get("text")).split(" ").length, ((String) oslo.get("text")).split(" ").length);
        }
        assertEquals(ScaledCorpus.of(BASE, 3, 7), docs, "seeded");
        assertNotEquals(ScaledCorpus.of(BASE, 3, 8).get(3).get("text"), docs.get(3).get("text"), "another seed, other names");
        assertThrows(IllegalArgumentException.class, () -> ScaledCorpus.of(BASE, 0, 7));
    }
}
