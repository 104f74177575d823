package dev.graphrag.hgmem;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The index path (docs/hgmem.md#hand-worked-cases): X1 normalisation, duplicate merge, summed weights, UNKNOWN endpoints, the delimiter fallback parser. */
@LineIndependent
class BaseGraphExtractionTest {
    static BaseGraphExtraction.Entity e(String name, String type, String d) {
        return new BaseGraphExtraction.Entity(name, type, d);
    }

    static BaseGraphExtraction.Relationship r(String a, String b, String d, String k, Double s) {
        return new BaseGraphExtraction.Relationship(a, b, d, k, s);
    }

    @Test
    void duplicatesMergePerNormalisedNameAndRelationsPerUnorderedPair() {
        Map<String, BaseGraphExtraction.Extraction> x = new LinkedHashMap<>();
        x.put("c1", new BaseGraphExtraction.Extraction(List.of(e(" \"Xodar\" ", "person", "b: a Dator."), e("Issus", "Person", "a goddess.")),
                List.of(r("Xodar", "Issus", "Issus degrades Xodar.", "punishment", 2.0)), List.of()));
        x.put("c2", new BaseGraphExtraction.Extraction(List.of(e("XODAR", "role", "a: a slave."), e("xodar", "person", "b: a Dator."), e("&quot;", "person", "junk")),
                List.of(r("issus", "XODAR", "Issus punished Xodar.", "anger", null), r("Xodar", "Thark Horde", "fought", "war", 1.5), r("Xodar", "xodar", "self", "", 9.0)),
                List.of()));
        BaseGraphExtraction.Merged m = BaseGraphExtraction.merge(x);
        assertEquals(List.of("XODAR", "ISSUS", "THARK HORDE"), List.copyOf(m.entities().keySet()), "quotes and case normalised, an empty name dropped");
        BaseGraphExtraction.MergedEntity xodar = m.entities().get("XODAR");
        assertEquals("person", xodar.type(), "the most frequent type (2 of 3)");
        assertEquals("a: a slave.<SEP>b: a Dator.", xodar.description(), "distinct descriptions, sorted, joined");
        assertEquals(List.of("c1", "c2"), xodar.chunks());
        assertEquals("person", m.entities().get("ISSUS").type(), "types are lower-cased before counting");
        assertEquals("UNKNOWN", m.entities().get("THARK HORDE").type(), "only ever a relation endpoint");
        assertEquals(List.of("c2"), m.entities().get("THARK HORDE").chunks());
        assertEquals(2, m.relations().size(), "a self-relation is dropped");
        BaseGraphExtraction.MergedRelation ix = m.relations().get("ISSUS\u0000XODAR");
        assertEquals("ISSUS", ix.source());
        assertEquals(3.0, ix.weight(), 1e-12, "2 + a missing strength counted as 1");
        assertEquals("anger<SEP>punishment", ix.keywordText());
        assertEquals(List.of("c1", "c2"), ix.chunks());
    }

    @Test
    void theDelimiterRecordsOfThePaperAreReadWhenAModelIgnoresJson() {
        JsonNode n = BaseGraphExtraction.fromRecords("(\"entity\"<|>\"Tars Tarkas\"<|>\"person\"<|>\"Leads the Tharks.\")##\n"
                + "(\"relationship\"<|>\"Tars Tarkas\"<|>\"Thark horde\"<|>\"Leads it.\"<|>\"leadership\"<|>3)##"
                + "(\"relationship\"<|>\"A\"<|>\"B\"<|>\"d\"<|>\"k\"<|>high)##(\"content_keywords\"<|>\"war, alliance\")<|COMPLETE|>");
        assertEquals("Tars Tarkas", n.path("entities").get(0).path("name").asText());
        assertEquals("person", n.path("entities").get(0).path("type").asText());
        assertEquals(3.0, n.path("relationships").get(0).path("strength").asDouble());
        assertEquals("leadership", n.path("relationships").get(0).path("keywords").asText());
        assertEquals(false, n.path("relationships").get(1).has("strength"), "a strength that is no number is left out (1.0 when merged)");
        assertEquals(List.of("war", "alliance"), List.of(n.path("contentKeywords").get(0).asText(), n.path("contentKeywords").get(1).asText()));
        assertNull(BaseGraphExtraction.fromRecords("I could not find anything."), "no record: not readable, so the repair turn follows");
    }
}
