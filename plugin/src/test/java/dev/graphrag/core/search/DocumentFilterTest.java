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
    void andOrAndNotNestAsLangChain4jAndSpringAiTreesDo() {
        assertTrue(matches(Map.of("$or", List.of(Map.of("team", "b"), Map.of("year", 2025L)))), "one branch of an or is enough");
        assertFalse(matches(Map.of("or", List.of(Map.of("team", "b"), Map.of("year", 2024L)))));
        assertTrue(matches(Map.of("and", List.of(Map.of("team", "a"), Map.of("tags", "pump")))));
        assertFalse(matches(Map.of("$and", List.of(Map.of("team", "a"), Map.of("tags", "oil")))));
        assertFalse(matches(Map.of("not", Map.of("team", "a"))));
        assertTrue(matches(Map.of("$not", Map.of("team", "a", "year", 2024L))), "not negates the whole map: not (a and 2024)");
        assertTrue(matches(Map.of("not", Map.of("author", "x"))), "not of a missing property's equality holds");
        assertFalse(matches(Map.of("year", Map.of("not", Map.of("gte", 2025)))), "a not on a property negates its operators");
        assertTrue(matches(Map.of("year", Map.of("$not", Map.of("gt", 2025)))));
        // (team = b or (year >= 2025 and not draft)) and not (tags contains "oil")
        assertTrue(matches(Map.of("or", List.of(Map.of("team", "b"), Map.of("and", List.of(Map.of("year", Map.of("gte", 2025)),
                Map.of("not", Map.of("draft", true))))), "not", Map.of("tags", Map.of("contains", "oil")))));
        assertTrue(matches(Map.of("documentId", Map.of("contains", "/2025/"))), "contains is a substring test");
        assertFalse(matches(Map.of("tags", Map.of("contains", "oil"))));
        assertTrue(matches(Map.of("or", List.of(Map.of("team", "a")))), "an or of one is that one");
        assertTrue(DocumentFilter.parse("t", Map.of("or", List.of(Map.of("team", "b"), Map.of("and", List.of(Map.of("year", 2025L), Map.of("not", Map.of("draft", true)))))))
                .toString().matches("team eq b OR \\(year eq 2025 AND NOT \\(draft eq true\\)\\)"), "the filter reads back as it was written");
    }

    @Test
    void badTreesNameThePartThatIsWrong() {
        assertError(Map.of("or", List.of()), "where $or needs a non-empty LIST of filter maps");
        assertError(Map.of("$or", Map.of("team", "a")), "where $or needs a non-empty LIST", "MAP");
        assertError(Map.of("or", List.of(Map.of("team", "a"), "team = b")), "where $or[1] must be a MAP");
        assertError(Map.of("or", List.of(Map.of("team", "a"), Map.of())), "where $or[1] is an empty map");
        assertError(Map.of("not", List.of(Map.of("team", "a"))), "where $not needs a MAP");
        assertError(Map.of("and", List.of(Map.of("team", Map.of("in", "a")))), "where $and[0].team.$in needs a non-empty LIST");
        assertError(Map.of("or", List.of(Map.of("year", Map.of("not", Map.of("gt", List.of(1)))))), "where $or[0].year.$not.$gt needs a number or a string");
        assertError(Map.of("year", Map.of("not", 3)), "where year.$not needs a MAP of operators");
        assertError(Map.of("$nor", List.of(Map.of("team", "a"))), "'$nor' is not a property name", "$and, $or, $not");
        Map<String, Object> deep = Map.of("team", "a");
        for (int i = 0; i <= DocumentFilter.MAX_DEPTH; i++) deep = Map.of("not", deep);
        assertError(deep, "deeper than " + DocumentFilter.MAX_DEPTH);
        List<Map<String, Object>> many = new java.util.ArrayList<>();
        for (int i = 0; i <= DocumentFilter.MAX_CONDITIONS; i++) many.add(Map.of("year", (long) i));
        assertError(Map.of("or", many), "more than " + DocumentFilter.MAX_CONDITIONS + " conditions");
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
