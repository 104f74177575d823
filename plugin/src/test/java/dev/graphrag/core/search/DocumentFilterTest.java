package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class DocumentFilterTest {
    static final Map<String, Object> DOC = Map.of("id", "manuals/2025/pump.pdf", "team", "a", "year", 2025L, "score", 0.5,
            "tags", new String[] {"pump", "water"}, "modified", "2025-06-01T10:00:00Z", "draft", false);

    static boolean matches(Map<String, Object> filter) {
        return DocumentFilter.parse("t", filter).matches(DOC::get);
    }

    @Test
    void equalityListsRangesExistsAndPrefixesAsNeo4jGraphragWritesThem() {
        assertTrue(matches(Map.of("team", "a")));
        assertFalse(matches(Map.of("team", "b")));
        assertTrue(matches(Map.of("tags", "water")), "a list property matches when any element does");
        assertTrue(matches(Map.of("year", 2025.0)), "numbers compare by value, whatever their type");
        assertTrue(matches(Map.of("draft", false)));
        assertTrue(matches(Map.of("team", Map.of("in", List.of("a", "c")))));
        assertTrue(matches(Map.of("team", Map.of("$in", List.of("a")))), "the $ may be written");
        assertFalse(matches(Map.of("tags", Map.of("nin", List.of("pump")))));
        assertTrue(matches(Map.of("team", Map.of("ne", "b"))));
        assertTrue(matches(Map.of("year", Map.of("gte", 2025, "lt", 2026))), "several operators on one key all hold");
        assertFalse(matches(Map.of("year", Map.of("gt", 2025))));
        assertTrue(matches(Map.of("score", Map.of("lte", 0.5))));
        assertTrue(matches(Map.of("modified", Map.of("gte", "2025-01-01"))), "ISO dates as strings compare in order");
        assertFalse(matches(Map.of("team", Map.of("gt", 3))), "a string is not compared with a number");
        assertTrue(matches(Map.of("author", Map.of("exists", false))));
        assertFalse(matches(Map.of("author", Map.of("exists", true))));
        assertFalse(matches(Map.of("author", "x")), "a missing property equals nothing");
        assertTrue(matches(Map.of("documentId", Map.of("startsWith", "manuals/2025/"))), "documentId is the Document's id");
        assertTrue(matches(Map.of("team", "a", "year", 2025L)));
        assertFalse(matches(Map.of("team", "a", "year", 2024L)), "every condition must hold");
        assertNull(DocumentFilter.parse("t", null));
        assertNull(DocumentFilter.parse("t", Map.of()), "an empty filter is no filter");
    }

    @Test
    void badFiltersAreErrorsThatNameTheKeyAndWhatIsWrong() {
        assertError(Map.of("team", Map.of("like", "a")), "unknown operator 'like'", "startsWith");
        assertError(Map.of("team) OR true //", "a"), "is not a property name");
        assertError(Map.of("team", Map.of()), "no operator");
        assertError(Map.of("team", Map.of("in", List.of())), "where team.$in", "non-empty LIST");
        assertError(Map.of("team", Map.of("in", "a")), "non-empty LIST");
        assertError(Map.of("team", Map.of("exists", "yes")), "true or false");
        assertError(Map.of("team", Map.of("startsWith", 3)), "needs a STRING");
        assertError(Map.of("year", Map.of("gt", List.of(1))), "a number or a string");
        assertError(Map.of("team", List.of("a")), "string, number or boolean");
        RagException e = assertThrows(RagException.class, () -> DocumentFilter.parse("rag.search", "team = 'a'"));
        assertTrue(e.getMessage().contains("rag.search: where must be a MAP"), e.getMessage());
    }

    private static void assertError(Map<String, Object> filter, String... fragments) {
        RagException e = assertThrows(RagException.class, () -> DocumentFilter.parse("t", filter));
        for (String f : fragments) assertTrue(e.getMessage().contains(f), e.getMessage());
    }
}
