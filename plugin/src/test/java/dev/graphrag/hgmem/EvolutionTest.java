package dev.graphrag.hgmem;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-worked T1 (absent vertex), T6 (loop control and call sequence), T7 (targets across a merge) of docs/hgmem.md#hand-worked-cases, and the lenient E4/E5 rules. */
@LineIndependent
class EvolutionTest {
    /** A scripted LLM: queued replies per call kind (empty ones when the queue is dry), and the call kinds in order. */
    static class Script implements Evolution.Llm {
        final List<String> calls = new ArrayList<>();
        final Deque<Evolution.Evolved> e1 = new ArrayDeque<>();
        final Deque<List<HypergraphMemory.MergeGroup>> e3 = new ArrayDeque<>();
        final Deque<Evolution.Plan> e4 = new ArrayDeque<>();
        final Deque<List<String>> e5 = new ArrayDeque<>();
        Evolution.Strategy lastStrategy;
        List<String> lastPrevious;

        @Override public Evolution.Evolved evolve(String q, List<MemoryUnit> listing, List<String> subqueries, Evolution.Retrieved r) {
            calls.add("E1");
            return e1.isEmpty() ? new Evolution.Evolved(List.of(), List.of()) : e1.poll();
        }
        @Override public List<HypergraphMemory.MergeGroup> merge(String q, List<MemoryUnit> listing) {
            calls.add("E3");
            return e3.isEmpty() ? List.of() : e3.poll();
        }
        @Override public Evolution.Plan plan(String q, List<MemoryUnit> listing, String hint, int n, Evolution.Strategy strategy) {
            calls.add("E4");
            lastStrategy = strategy;
            return e4.isEmpty() ? new Evolution.Plan("1", List.of()) : e4.poll();
        }
        @Override public List<String> subqueries(String q, List<MemoryUnit> listing, List<Evolution.Concern> concerns, List<String> previous, String hint) {
            calls.add("E5");
            lastPrevious = previous;
            return e5.isEmpty() ? List.of() : e5.poll();
        }
    }

    /** A graph of known names; absent ones are recorded as created (E2 when described). */
    static class Graph implements Evolution.Graph {
        final Set<String> known = new LinkedHashSet<>();
        final List<String> created = new ArrayList<>();
        final List<List<Evolution.Task>> retrievals = new ArrayList<>();
        final List<String> calls;

        Graph(List<String> calls, String... names) {
            this.calls = calls;
            known.addAll(List.of(names));
        }

        @Override public Evolution.Retrieved retrieve(List<Evolution.Task> tasks, HypergraphMemory memory) {
            retrievals.add(tasks);
            return new Evolution.Retrieved(List.of(), List.of("c" + retrievals.size()), Evolution.Tables.EMPTY);
        }
        @Override public Set<String> absent(List<String> names) {
            Set<String> out = new LinkedHashSet<>(names);
            out.removeAll(known);
            return out;
        }
        @Override public void createAbsent(Set<String> names, List<MemoryUnit> units, Evolution.Retrieved context, boolean describe) {
            if (describe) calls.add("E2");
            created.addAll(names);
            known.addAll(names);
        }
        @Override public String hint(HypergraphMemory memory, String query) { return "hint"; }
    }

    static Evolution.Settings settings(int maxTurns, Evolution.AbsentPolicy absent, Evolution.Strategy strategy) {
        Evolution.Settings d = Evolution.Settings.DEFAULTS;
        return new Evolution.Settings(maxTurns, d.numConcerns(), d.mergeFromStep(), true, true, true, strategy, d.vertexPolicy(), absent, d.rereadSources());
    }

    static Evolution.Session session() {
        return new Evolution.Session("Q", new HypergraphMemory(HypergraphMemoryTest.counter()));
    }

    static List<Evolution.StepResult> runAll(Evolution e, Evolution.Session s) {
        List<Evolution.StepResult> out = new ArrayList<>();
        while (!s.done()) out.add(e.step(s));
        return out;
    }

    @Test
    void t1AnAbsentVertexIsDescribedOnceAndNoMergeRunsAtStep0() {
        Script llm = new Script();
        Graph g = new Graph(llm.calls, "XODAR", "ISSUS", "JOHN CARTER");
        llm.e1.add(new Evolution.Evolved(List.of(new Evolution.Insert(List.of("Xodar", "Issus", "Degradation"), "Issus degrades Xodar to a slave of slaves."),
                new Evolution.Insert(List.of("xodar", " John Carter "), "Carter defeated Xodar.")), List.of()));
        Evolution.Session s = session();
        Evolution.StepResult r = new Evolution(llm, g, Evolution.Settings.DEFAULTS).step(s);
        assertEquals(List.of("E1", "E2", "E4"), llm.calls);
        assertEquals(List.of("DEGRADATION"), g.created);
        assertEquals(2, r.inserted());
        assertEquals(2.5, s.memory().averageVerticesPerUnit());
        assertEquals("global", r.mode());
        assertTrue(s.done(), "E4's default reply is judgement 1");

        // policy drop: the unknown name leaves the point, nothing is created
        Script llm2 = new Script();
        Graph g2 = new Graph(llm2.calls, "XODAR", "ISSUS");
        llm2.e1.add(new Evolution.Evolved(List.of(new Evolution.Insert(List.of("Xodar", "Degradation"), "d"), new Evolution.Insert(List.of("Degradation"), "only")), List.of()));
        Evolution.Session s2 = session();
        new Evolution(llm2, g2, settings(3, Evolution.AbsentPolicy.DROP, Evolution.Strategy.ADAPTIVE)).step(s2);
        assertEquals(List.of(List.of("XODAR")), s2.memory().listing().stream().map(MemoryUnit::vertices).toList(), "a point left empty is dropped");
        assertTrue(g2.created.isEmpty());
        assertFalse(llm2.calls.contains("E2"));
    }

    @Test
    void t6LoopControlAndCallSequence() {
        Script llm = new Script();
        Graph g = new Graph(llm.calls, "A");
        llm.e1.add(new Evolution.Evolved(List.of(new Evolution.Insert(List.of("A"), "a")), List.of()));
        llm.e4.add(new Evolution.Plan("2.2", List.of(new Evolution.Concern("c1", List.of()), new Evolution.Concern("c2", List.of()))));
        llm.e5.add(List.of("s1", "s2"));
        Evolution.Session s = session();
        List<Evolution.StepResult> steps = runAll(new Evolution(llm, g, settings(3, Evolution.AbsentPolicy.INSERT, Evolution.Strategy.ADAPTIVE)), s);
        assertEquals(List.of("E1", "E4", "E5", "E1", "E3", "E4"), llm.calls, "E6 is the answer procedure's call");
        assertEquals(2, steps.size());
        assertEquals(List.of("2.2", "1"), s.judgements());
        assertEquals(List.of(List.of("Q"), List.of("s1", "s2")), s.subqueries());
        assertNull(g.retrievals.get(1).get(0).targets(), "2.2 concerns explore globally");
        assertEquals(List.of("c1", "c2"), s.chunkIds());

        // maxTurns 0: one round, no planning
        Script llm0 = new Script();
        runAll(new Evolution(llm0, new Graph(llm0.calls), settings(0, Evolution.AbsentPolicy.INSERT, Evolution.Strategy.ADAPTIVE)), session());
        assertEquals(List.of("E1"), llm0.calls);
        // maxTurns 1 with E4 always 2.2: planning is skipped at the last turn
        Script llm1 = new Script();
        for (int i = 0; i < 3; i++) llm1.e4.add(new Evolution.Plan("2.2", List.of(new Evolution.Concern("c", List.of()))));
        runAll(new Evolution(llm1, new Graph(llm1.calls), settings(1, Evolution.AbsentPolicy.INSERT, Evolution.Strategy.ADAPTIVE)), session());
        assertEquals(List.of("E1", "E4", "E5", "E1", "E3"), llm1.calls);
    }

    @Test
    void t7LocalTargetsAreKeptAsUnitIdsAcrossAMerge() {
        Script llm = new Script();
        Graph g = new Graph(llm.calls, "A", "B", "C", "D", "E");
        llm.e1.add(new Evolution.Evolved(List.of(new Evolution.Insert(List.of("A", "B"), "0"), new Evolution.Insert(List.of("B", "C"), "1"),
                new Evolution.Insert(List.of("D", "E"), "2")), List.of()));
        llm.e4.add(new Evolution.Plan("2.2", List.of(new Evolution.Concern("more", List.of()))));
        llm.e3.add(List.of(new HypergraphMemory.MergeGroup(List.of(1, 0), "m")));
        llm.e4.add(new Evolution.Plan("2.1", List.of(new Evolution.Concern("c", List.of(1)))));
        Evolution e = new Evolution(llm, g, Evolution.Settings.DEFAULTS);
        Evolution.Session s = session();
        e.step(s);
        Evolution.StepResult r1 = e.step(s);
        assertEquals(1, r1.merged());
        String mergedId = s.memory().listing().get(1).id();
        assertEquals(List.of(mergedId), s.pending().get(0).targets());
        assertEquals(List.of("B", "C", "A"), s.memory().anchors(s.pending().get(0).targets()));
        assertEquals(List.of("more"), llm.lastPrevious, "E5 sees the earlier subqueries, not the question");
        Evolution.StepResult r2 = e.step(s);
        assertEquals("local", r2.mode());
    }

    @Test
    void e4AndE5AreReadLeniently() {
        Evolution.Plan mixed = Evolution.lenient(new Evolution.Plan("2.1", List.of(new Evolution.Concern("a", List.of(0, 9)),
                new Evolution.Concern("b", List.of()), new Evolution.Concern(" ", List.of(0)), new Evolution.Concern("c", List.of(1)),
                new Evolution.Concern("d", List.of(0)))), 2, 3);
        assertEquals("2.1", mixed.judgement());
        assertEquals(List.of(new Evolution.Concern("a", List.of(0)), new Evolution.Concern("b", List.of()), new Evolution.Concern("c", List.of(1))),
                mixed.concerns(), "invalid index and blank concern dropped, at most 3, a concern without index goes global");
        assertEquals(new Evolution.Plan("2.2", List.of(new Evolution.Concern("x", List.of()))),
                Evolution.lenient(new Evolution.Plan("3", List.of(new Evolution.Concern("x", List.of(0)))), 2, 3), "another judgement with concerns is 2.2");
        assertEquals("1", Evolution.lenient(new Evolution.Plan("1", List.of(new Evolution.Concern("x", List.of()))), 2, 3).judgement());
        assertEquals("1", Evolution.lenient(new Evolution.Plan("2.2", List.of()), 2, 3).judgement(), "nothing to pursue");
        List<Evolution.Concern> cs = List.of(new Evolution.Concern("c1", List.of()), new Evolution.Concern("c2", List.of()));
        assertEquals(List.of("s1", "c2"), Evolution.matchCount(List.of("s1"), cs), "a missing subquery is the concern itself");
        assertEquals(List.of("s1", "s2"), Evolution.matchCount(List.of("s1", "s2", "s3"), cs), "extras dropped");
        assertEquals(List.of("c1", "s2"), Evolution.matchCount(java.util.Arrays.asList(" ", "s2"), cs));
    }

    @Test
    void localOnlyOnAnEmptyMemoryFallsBackToGlobal() {
        Script llm = new Script();
        new Evolution(llm, new Graph(llm.calls), settings(3, Evolution.AbsentPolicy.INSERT, Evolution.Strategy.LOCAL_ONLY)).step(session());
        assertEquals(Evolution.Strategy.GLOBAL_ONLY, llm.lastStrategy);
    }

    @Test
    void aSourceAnEarlierStepShowedIsReadAgainOnlyWhenItNamesAVertexMemoryGainedSince() {
        java.util.Map<String, String> text = java.util.Map.of("hawke", "Ethan Hawke was born in Austin, Texas.", "sinister", "Ethan Hawke stars in Sinister.",
                "derrickson", "Scott Derrickson directed films.");
        List<List<String>> byStep = List.of(List.of("hawke", "derrickson"), List.of("hawke", "sinister", "derrickson"), List.of("hawke", "derrickson"));
        for (boolean reread : List.of(false, true)) {
            List<List<String>> shown = new ArrayList<>();
            Script llm = new Script() {
                @Override public Evolution.Evolved evolve(String q, List<MemoryUnit> listing, List<String> subqueries, Evolution.Retrieved r) {
                    shown.add(r.tables().sources().stream().map(src -> (String) src.get("id")).toList());
                    return super.evolve(q, listing, subqueries, r);
                }
            };
            Graph g = new Graph(llm.calls, "SINISTER", "ETHAN HAWKE") {
                @Override public Evolution.Retrieved retrieve(List<Evolution.Task> tasks, HypergraphMemory memory) {
                    List<String> ids = byStep.get(retrievals.size());
                    retrievals.add(tasks);
                    List<java.util.Map<String, Object>> sources = ids.stream().map(id -> java.util.Map.<String, Object>of("id", id, "content", text.get(id))).toList();
                    return new Evolution.Retrieved(List.of(), ids, new Evolution.Tables(List.of(), List.of(), sources));
                }
            };
            llm.e1.add(new Evolution.Evolved(List.of(), List.of())); // step 0: Austin means nothing yet
            llm.e1.add(new Evolution.Evolved(List.of(new Evolution.Insert(List.of("Sinister", "Ethan Hawke"), "Ethan Hawke stars in Sinister.")), List.of()));
            for (int i = 0; i < 2; i++) {
                llm.e4.add(new Evolution.Plan("2.2", List.of(new Evolution.Concern("who stars in Sinister", List.of()))));
                llm.e5.add(List.of("Sinister star"));
            }
            Evolution.Session s = session();
            runAll(new Evolution(llm, g, new Evolution.Settings(2, 3, 1, true, true, true, Evolution.Strategy.ADAPTIVE, HypergraphMemory.VertexPolicy.KEEP,
                    Evolution.AbsentPolicy.INSERT, reread)), s);
            if (reread) assertEquals(byStep, shown, "rereadSources: every retrieved source, every step");
            else assertEquals(List.of(List.of("hawke", "derrickson"), List.of("sinister"), List.of("hawke")), shown,
                    "step 1 reads only what is new; step 2 reads Hawke's birthplace again because memory now holds ETHAN HAWKE, not Derrickson's");
            assertEquals(byStep.stream().flatMap(List::stream).distinct().toList(), s.chunkIds(), "the history keeps every retrieved chunk either way");
        }
    }
}
