package dev.graphrag.hgmem;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-worked memory cases of docs/hgmem.md#hand-worked-cases (T1's insert, T2, T3, T4, T5, T7) as plain Java. */
@LineIndependent
class HypergraphMemoryTest {
    static Supplier<String> counter() {
        AtomicInteger n = new AtomicInteger();
        return () -> "u" + n.getAndIncrement();
    }

    static HypergraphMemory memory(List<List<String>> units) {
        HypergraphMemory m = new HypergraphMemory(counter());
        for (int i = 0; i < units.size(); i++) m.insert(units.get(i), "d" + i, 0);
        return m;
    }

    static List<List<String>> listing(HypergraphMemory m) {
        List<List<String>> out = new ArrayList<>();
        for (MemoryUnit u : m.listing()) out.add(u.vertices());
        return out;
    }

    @Test
    void t1InsertResolvesNamesAndKeepsTheLlmOrder() {
        HypergraphMemory m = new HypergraphMemory(counter());
        m.insert(List.of("Xodar", "Issus", "Degradation"), "Issus degrades Xodar to a slave of slaves.", 0);
        m.insert(List.of("xodar", " John Carter "), "Carter defeated Xodar.", 0);
        assertEquals(List.of(List.of("XODAR", "ISSUS", "DEGRADATION"), List.of("XODAR", "JOHN CARTER")), listing(m));
        assertEquals(2, m.listing().size());
        assertEquals(4, m.vertices().size());
        assertEquals(5, m.memberships());
        assertEquals(2.5, m.averageVerticesPerUnit());
        assertEquals(List.of("A", "B"), HypergraphMemory.resolve(List.of(" \"a\" ", "A", "", "b", "  ", "&quot;B&quot;")),
                "quotes, HTML entities, empty names and duplicates");
        assertNull(m.insert(List.of(" ", ""), "nothing", 0), "a point naming no entity is dropped");
        assertEquals(1, m.warnings().size());
    }

    @Test
    void t2UpdatePoliciesAndAnOutOfRangeIndex() {
        for (HypergraphMemory.VertexPolicy policy : HypergraphMemory.VertexPolicy.values()) {
            HypergraphMemory m = memory(List.of(List.of("A", "B"), List.of("C", "D")));
            String id1 = m.listing().get(1).id();
            assertTrue(m.update(1, List.of("C", "D", "E"), "d1x", 2, policy));
            assertFalse(m.update(7, List.of("A"), "bad", 2, policy));
            m.insert(List.of("A", "E"), "d2", 2);
            MemoryUnit u1 = m.listing().get(1);
            assertEquals(id1, u1.id(), "an update keeps the unit's id and position");
            assertEquals("d1x", u1.description());
            assertEquals(2, u1.updatedStep());
            assertEquals(1, m.warnings().size(), "the index-7 update is recorded");
            assertEquals(3, m.listing().size());
            assertEquals(5, m.vertices().size());
            switch (policy) {
                case KEEP -> {
                    assertEquals(List.of("C", "D"), u1.vertices());
                    assertEquals(6, m.memberships());
                }
                case REPLACE, UNION -> {
                    assertEquals(List.of("C", "D", "E"), u1.vertices());
                    assertEquals(7, m.memberships());
                }
            }
        }
    }

    @Test
    void t3MergeReplacesTheSourcesWithTheOrderedUnion() {
        HypergraphMemory m = memory(List.of(List.of("A", "B"), List.of("B", "C"), List.of("D", "E")));
        String id0 = m.listing().get(0).id(), id1 = m.listing().get(1).id();
        assertEquals(2.0, m.averageVerticesPerUnit());
        List<MemoryUnit> created = m.merge(List.of(new HypergraphMemory.MergeGroup(List.of(1, 0), "m")), 1);
        assertEquals(List.of(List.of("D", "E"), List.of("B", "C", "A")), listing(m), "union in group order [1,0]");
        MemoryUnit merged = created.get(0);
        assertEquals("m", merged.description());
        assertEquals(MemoryUnit.Origin.MERGE, merged.origin());
        assertEquals(List.of(id1, id0), merged.mergedFrom());
        for (String id : List.of(id0, id1)) {
            assertEquals(MemoryUnit.Status.MERGED, m.unit(id).status());
            assertEquals(List.of(merged.id()), m.unit(id).mergedInto());
        }
        assertEquals(5, m.vertices().size());
        assertEquals(2.5, m.averageVerticesPerUnit());
        // T7: a concern's target index is kept as the unit's id, and the anchors are the merged unit's vertices
        List<String> targets = m.idsAt(List.of(1));
        assertEquals(List.of(merged.id()), targets);
        assertEquals(List.of("B", "C", "A"), m.anchors(targets));
        assertEquals(List.of(), m.anchors(List.of(id0)), "a retired unit anchors nothing");
    }

    @Test
    void t4OverlappingAndInvalidMergeGroups() {
        HypergraphMemory m = memory(List.of(List.of("A", "B"), List.of("C", "D"), List.of("D", "E"), List.of("F", "G"), List.of("H", "I"), List.of("I", "J")));
        List<String> ids = m.listing().stream().map(MemoryUnit::id).toList();
        m.merge(List.of(new HypergraphMemory.MergeGroup(List.of(1, 2), "x"), new HypergraphMemory.MergeGroup(List.of(2, 4, 5), "y"),
                new HypergraphMemory.MergeGroup(List.of(3), "z"), new HypergraphMemory.MergeGroup(List.of(0, 9), "w")), 1);
        assertEquals(List.of(List.of("A", "B"), List.of("F", "G"), List.of("C", "D", "E"), List.of("D", "E", "H", "I", "J")), listing(m));
        assertEquals(List.of("d0", "d3", "x", "y"), m.listing().stream().map(MemoryUnit::description).toList());
        assertEquals(10, m.vertices().size());
        assertEquals(3.0, m.averageVerticesPerUnit());
        assertEquals(2, m.unit(ids.get(2)).mergedInto().size(), "former unit 2 fed both groups");
        for (int i : List.of(1, 2, 4, 5)) assertEquals(MemoryUnit.Status.MERGED, m.unit(ids.get(i)).status());
        for (int i : List.of(0, 3)) assertEquals(MemoryUnit.Status.ACTIVE, m.unit(ids.get(i)).status());
        assertEquals(3, m.warnings().size(), "index 9 dropped, then [3] and [0] skipped");
    }

    @Test
    void t5CandidateSetsAndEquation1WithToyVectors() {
        Map<String, List<String>> g = Map.of("A", List.of("B", "F"), "B", List.of("A", "C"), "C", List.of("B", "D"), "D", List.of("C", "E"),
                "E", List.of("D"), "F", List.of("A"));
        Map<String, float[]> vec = Map.of("A", new float[] {1, 0}, "B", new float[] {0.6f, 0.8f}, "C", new float[] {0.8f, 0.6f},
                "D", new float[] {0, 1}, "E", new float[] {0.28f, 0.96f}, "F", new float[] {-1, 0});
        float[] q = {1, 0};
        HypergraphMemory m = memory(List.of(List.of("A", "B"), List.of("B", "E")));
        List<String> anchors = m.anchors(m.idsAt(List.of(0)));
        Set<String> local1 = Candidates.local(anchors, m, v -> g.getOrDefault(v, List.of()), 1);
        assertEquals(Set.of("A", "B", "C", "E", "F"), local1);
        assertEquals(List.of("A", "C"), Candidates.retrieve(q, local1, vec, 2, 0.2));
        Set<String> local2 = Candidates.local(anchors, m, v -> g.getOrDefault(v, List.of()), 2);
        assertTrue(local2.contains("D"));
        assertEquals(List.of("A", "C"), Candidates.retrieve(q, local2, vec, 2, 0.2));
        Set<String> global = Candidates.global(g.keySet(), m, true);
        assertEquals(Set.of("C", "D", "F"), global);
        assertEquals(List.of("C"), Candidates.retrieve(q, global, vec, 2, 0.2), "D fails minSim, F is negative");
        assertEquals(List.of("A", "C"), Candidates.retrieve(q, Candidates.global(g.keySet(), m, false), vec, 2, 0.2));
    }

    @Test
    void t8FinalContextTakesRetrievedChunksOfMemoryVerticesAndTheirNeighbours() {
        HypergraphMemory m = memory(List.of(List.of("A", "B")));
        Map<String, List<String>> g = Map.of("A", List.of("B", "F"), "B", List.of("A"), "F", List.of("A"));
        Map<String, List<String>> chunks = Map.of("A", List.of("c1", "c2"), "B", List.of("c3"), "F", List.of("c4", "c5"));
        FinalContext.Sources src = new FinalContext.Sources(v -> g.getOrDefault(v, List.of()), v -> chunks.getOrDefault(v, List.of()),
                Set.of("c1", "c3", "c4"), (u, c) -> 0, (q, c) -> 0, java.util.Comparator.naturalOrder(), c -> 10);
        assertEquals(List.of("c1", "c3", "c4"), FinalContext.chunks(m, src, "q", FinalContext.Settings.DEFAULTS),
                "inner {c1,c3}, outer {c4}; c2 and c5 were never retrieved");
        assertEquals(List.of("c1", "c3"), FinalContext.chunks(m, src, "q", new FinalContext.Settings(5, 5, 50, 25, 5)), "cut to the token budget");
        assertEquals(List.of("c3", "c4"), FinalContext.chunks(m, new FinalContext.Sources(src.neighbours(), src.chunksOf(), src.history(), (u, c) -> 0,
                (q, c) -> c.equals("c1") ? 0 : 1, src.documentOrder(), src.tokens()), "q", new FinalContext.Settings(5, 5, 2, 10_000, 5)),
                "over maxChunks: the chunks most like the subqueries");
    }

    @Test
    void anEmptyMemoryAnswersFromTheRetrievedChunksNearestTheSubqueries() {
        HypergraphMemory empty = new HypergraphMemory(counter());
        Map<String, Double> near = Map.of("c1", 0.2, "c3", 0.9, "c4", 0.5, "c6", 0.7);
        FinalContext.Sources src = new FinalContext.Sources(v -> List.of(), v -> List.of(), Set.of("c1", "c3", "c4", "c6"), (u, c) -> 0,
                (q, c) -> near.get(c), java.util.Comparator.naturalOrder(), c -> 10);
        assertEquals(List.of("c3", "c4", "c6"), FinalContext.chunks(empty, src, "q", new FinalContext.Settings(5, 5, 50, 10_000, 3)),
                "the 3 retrieved chunks most like the subqueries, in document order");
        assertEquals(List.of(), FinalContext.chunks(empty, src, "q", new FinalContext.Settings(5, 5, 50, 10_000, 0)), "0: no context, as the paper's");
        HypergraphMemory one = memory(List.of(List.of("A")));
        assertEquals(List.of(), FinalContext.chunks(one, src, "q", new FinalContext.Settings(5, 5, 50, 10_000, 3)),
                "a memory with a point reads only through its entities (none of A's chunks were retrieved)");
    }

    @Test
    void theListingIsRenderedAsThePromptsShowIt() {
        HypergraphMemory m = memory(List.of(List.of("Xodar", "Issus")));
        assertEquals("- Point (0)\nInvolved Objects: XODAR, ISSUS\nDescription: d0\n", m.render());
        assertEquals("", new HypergraphMemory(counter()).render());
    }
}
