package dev.graphrag.hgmem;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What E1, E2 and E6 are shown of the retrieved tables (docs/hgmem.md "What the prompts hold"). */
@LineIndependent
class HgmemPromptTablesTest {
    static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static final List<Map<String, Object>> SOURCES = List.of(row("id", "c:1", "title", "Xodar",
            "content", "Xodar was a dator of the First Born.  He was degraded by Issus. Carter freed him."));

    @Test
    void descriptionSentencesTheSourcesHoldAreLeftOut() {
        List<Map<String, Object>> rows = List.of(
                row("entity", "XODAR", "type", "person", "description", "Xodar was a dator of the First Born. A proud warrior of the Black Pirates."),
                row("entity", "ISSUS", "type", "deity", "description", "He was degraded by Issus."),
                row("entity", "CARTER", "type", "person", "description", "Carter freed him."),
                row("entity", "DEJAH", "type", "person", "description", ""),
                row("entity", "FIRST BORN", "type", "group", "description", "Xodar was a dator of the First Born.<SEP>Issus rules the First Born from her temple."));
        List<Map<String, Object>> shown = HgmemPrompts.withoutQuoted(rows, SOURCES);
        assertEquals("A proud warrior of the Black Pirates.", shown.get(0).get("description"), "the quoted sentence goes (spacing aside), the rest stays");
        assertEquals(row("entity", "ISSUS", "type", "deity"), shown.get(1), "a description wholly in a source leaves the names alone");
        assertEquals(rows.get(2), shown.get(2), "a sentence under 20 characters is kept: too short to tell a quote from a coincidence");
        assertEquals(rows.get(3), shown.get(3));
        assertEquals("Issus rules the First Born from her temple.", shown.get(4).get("description"), "descriptions merged at index time split at <SEP>");
        assertEquals(rows, HgmemPrompts.withoutQuoted(rows, List.of()), "no sources, nothing to leave out");
    }

    @Test
    void e1AndE2SeeSourcesWithoutIdsAndE6WithThem() {
        Map<String, Object> shown = HgmemPrompts.tables(new Evolution.Tables(List.of(), List.of(), SOURCES));
        assertEquals(List.of(row("title", "Xodar", "content", SOURCES.get(0).get("content"))), shown.get("sources"));
        String e6 = HgmemPrompts.answer("Who freed Xodar?", List.of(), List.of(), SOURCES, "one sentence").get(1).get("content").toString();
        assertEquals(true, e6.contains("\"id\":\"c:1\""), e6);
    }

    @Test
    void describeAbsentReadsOnlyTheRowsThatNameItsTargets() {
        Evolution.Tables t = new Evolution.Tables(
                List.of(row("entity", "XODAR", "description", "A dator."), row("entity", "ISSUS", "description", "The goddess.")),
                List.of(row("source", "ISSUS", "target", "FIRST BORN", "description", "Worshipped by the First Born.")),
                List.of(row("id", "c:1", "content", "The Thark horde rode at dawn."), row("id", "c:2", "title", "Barsoom", "content", "The Fírst-Born of Barsoom.")));
        Evolution.Tables named = Neo4jHypergraph.naming(t, Set.of("First Born"));
        assertEquals(List.of(), named.entities());
        assertEquals(t.relationships(), named.relationships(), "names in any column count");
        assertEquals(List.of(t.sources().get(1)), named.sources(), "case, accents, punctuation and articles aside");
        assertEquals(List.of(t.entities().get(0)), Neo4jHypergraph.naming(t, Set.of("Xodar")).entities());
        assertEquals(List.of(), Neo4jHypergraph.naming(t, Set.of("Dor")).sources(), "whole words only: 'Dor' is not in 'dator'");
    }
}
