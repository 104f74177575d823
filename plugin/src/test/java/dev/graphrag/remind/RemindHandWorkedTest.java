package dev.graphrag.remind;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-worked cases of docs/remind.md#hand-worked-cases, on plain Java. */
@LineIndependent
class RemindHandWorkedTest {
    static final double TOL = 1e-5;

    @Test
    void t1EnhanceFromZeroWakesFastAndSaturatesAtNormOne() {
        double[] q = {3, 4};
        double[] v1 = MemoryMath.enhance(null, q);
        assertArrayEquals(new double[] {0.381972, 0.509296}, v1, TOL);
        assertEquals(0.636620, MemoryMath.norm(v1), TOL);
        double[] v2 = MemoryMath.enhance(v1, q);
        assertEquals(0.343967, MemoryMath.delta(MemoryMath.norm(v1)), TOL);
        assertArrayEquals(new double[] {0.588352, 0.784470}, v2, TOL);
        assertEquals(0.980587, MemoryMath.norm(v2), TOL);
        double[] v = MemoryMath.enhance(v2, q);
        assertArrayEquals(new double[] {0.599998, 0.799998}, v, TOL);
        for (int i = 0; i < 10; i++) v = MemoryMath.enhance(v, q);
        assertTrue(MemoryMath.norm(v) <= 1 + 1e-12);
        assertEquals(2 / Math.PI, MemoryMath.delta(0), 1e-12);
        assertEquals(0, MemoryMath.delta(1), 1e-12);
        assertEquals(0, MemoryMath.delta(1.0000001), 0, "delta is clamped at 0 above norm 1");
    }

    @Test
    void t2PenaltiesShrinkOnlyTheQueryAlignedComponent() {
        double[] v = {0.8, 0};
        double[] q = {1, 1};
        assertArrayEquals(new double[] {0.639440, -0.160560}, MemoryMath.penalize(v, q, MemoryMath.Penalty.PAPER), TOL);
        double[] paper = MemoryMath.penalize(v, q, MemoryMath.Penalty.PAPER);
        assertEquals(0.338619, MemoryMath.dot(paper, MemoryMath.unit(q)), TOL);
        assertEquals(0.659290, MemoryMath.norm(paper), TOL);
        assertArrayEquals(new double[] {0.573726, -0.226274}, MemoryMath.penalize(v, q, MemoryMath.Penalty.STRONG), TOL);
        assertArrayEquals(v, MemoryMath.penalize(v, q, MemoryMath.Penalty.NONE), 0);
        double[] negative = {0, 0.5};
        for (MemoryMath.Penalty p : MemoryMath.Penalty.values()) {
            assertArrayEquals(negative, MemoryMath.penalize(negative, new double[] {1, -1}, p), 0, "a negative projection is left alone in " + p);
        }
    }

    /** T3's graph: S, X, Y, Z entities with explicit 3-d embeddings and memories. */
    static ToyGraph t3() {
        return new ToyGraph()
                .node("S", MemoryGraph.Kind.ENTITY, 0.6, 0.8, 0).node("X", MemoryGraph.Kind.ENTITY, 0.8, 0.6, 0)
                .node("Y", MemoryGraph.Kind.ENTITY, 0, 0, 1).node("Z", MemoryGraph.Kind.ENTITY, 0.6, 0, 0.8)
                .edge("SX", "S", "X", 0.7, 0, 0).edge("SY", "S", "Y", 0, 0.9, 0).edge("SZ", "S", "Z", 0.9, 0, 0).edge("XZ", "X", "Z", 0.6, 0, 0);
    }

    static List<String> path(Subgraph s) {
        return s.path().stream().map(e -> e.from() + ">" + e.to()).toList();
    }

    @Test
    void t3ReplayFollowsTheStrongestEdgesFirstAgainstLambda() {
        double[] q = {1, 0, 0};
        Subgraph s = new Replay(t3(), q, new Replay.Settings(0.1, 0.55, 200, true)).run(List.of("S"));
        assertEquals(List.of("S", "Z", "X"), s.nodes());
        assertEquals(List.of("S>Z", "Z>X"), path(s));
        assertEquals(0.846, s.path().get(0).weight(), TOL);
        assertEquals(0.588, s.path().get(1).weight(), TOL);
        Subgraph s6 = new Replay(t3(), q, new Replay.Settings(0.1, 0.6, 200, true)).run(List.of("S"));
        assertEquals(List.of("S", "Z", "X"), s6.nodes());
        assertEquals(List.of("S>Z", "S>X"), path(s6));
        assertEquals(List.of("S"), new Replay(t3(), q, new Replay.Settings(0.1, 0.85, 200, true)).run(List.of("S")).nodes());
        assertEquals(List.of("S", "Z"), new Replay(t3(), q, new Replay.Settings(0.1, 0.55, 2, true)).run(List.of("S")).nodes(),
                "replayMaxNodes bounds S");
    }

    /** T4's graph: entities SD, CB, CA; anchors A2, A9 with chunks C2, C9; all memory zero; non-negative embeddings. */
    static ToyGraph t4() {
        return new ToyGraph()
                .node("SD", MemoryGraph.Kind.ENTITY, 1, 0, 0).node("CB", MemoryGraph.Kind.ENTITY, 0, 1, 0).node("CA", MemoryGraph.Kind.ENTITY, 0, 0, 1)
                .node("A2", MemoryGraph.Kind.ANCHOR, 0.6, 0, 0.8).node("A9", MemoryGraph.Kind.ANCHOR, 0, 0.8, 0.6)
                .node("C2", MemoryGraph.Kind.CHUNK, 0.6, 0, 0.8).node("C9", MemoryGraph.Kind.CHUNK, 0, 0.8, 0.6)
                .edge("SD-A2", "SD", "A2").edge("CA-A2", "CA", "A2").edge("CB-A9", "CB", "A9").edge("A2-C2", "A2", "C2").edge("A9-C9", "A9", "C9");
    }

    /** A guide replaying scripted L7 and L8 replies in order and counting its calls. */
    static final class Script implements Walk.Guide {
        final Deque<Boolean> sufficient = new ArrayDeque<>();
        final Deque<Walk.Choice> moves = new ArrayDeque<>();
        int l7, l8;
        final List<List<String>> corrections = new ArrayList<>();

        Script judge(Boolean... replies) {
            sufficient.addAll(List.of(replies));
            return this;
        }

        Script move(String node) {
            // "?" stands for a reply the guide could not resolve to any node
            moves.add(new Walk.Choice(node.startsWith("C") && !node.equals("CA") && !node.equals("CB"), node.equals("?") ? null : node));
            return this;
        }

        @Override public boolean sufficient(Subgraph s) {
            l7++;
            return sufficient.isEmpty() ? false : sufficient.poll();
        }

        @Override public Walk.Choice next(Subgraph s, String current, List<Walk.Candidate> candidates, List<String> history, List<String> c) {
            l8++;
            corrections.add(List.copyOf(c));
            return moves.isEmpty() ? new Walk.Choice(false, "nowhere") : moves.poll();
        }

        @Override public String summary(Subgraph s, String chunk) {
            return "summary of " + chunk;
        }
    }

    static final Walk.Settings WALK = new Walk.Settings(10, 30, 20, 3);
    static final Replay.Settings REPLAY = new Replay.Settings(0.1, 0.55, 200, true);

    static Walk.Outcome walk(ToyGraph g, double[] q, List<String> seeds, Script script, Walk.Settings settings) {
        Replay replay = new Replay(g, q, REPLAY);
        return new Walk(g, replay, script, settings).run(replay.run(seeds));
    }

    @Test
    void t4ScriptedColdTraversalTakesElevenCallsAndConfirmsTheUsefulPaths() {
        ToyGraph g = t4();
        double[] q = {0.5, 0.5, 0.7071};
        // Algorithm 1's thirteen calls less the two L7 judgements after the backward moves, which leave S as the last
        // judgement saw it (docs/remind.md#where-we-differ-from-the-paper-and-the-reference-code)
        Script script = new Script().judge(false, false, false, false, false, true)
                .move("A2").move("A2").move("CA").move("CB").move("A9");
        Walk.Outcome o = walk(g, q, List.of("SD", "CB"), script, WALK);
        assertEquals(Walk.StopReason.SUFFICIENT, o.stopReason());
        assertEquals(List.of("SD>A2", "A2>C2", "A2>CA", "CB>A9", "A9>C9"), path(o.subgraph()));
        assertEquals(6, script.l7);
        assertEquals(5, script.l8);
        assertEquals(5, o.jumps());
        assertEquals(List.of("forward", "forced", "backward", "forward", "backward", "forward", "forced"),
                o.trace().stream().map(Walk.TraceStep::move).toList());
        Confirmation.Split split = Confirmation.split(o.subgraph().seeds(), o.subgraph().path(), Set.of("C2", "C9"), Set.of(), Set.of("C2", "C9"),
                Confirmation.Rule.ALL);
        assertEquals(List.of("SD>A2", "A2>C2", "CB>A9", "A9>C9"), split.confirmed().stream().map(e -> e.from() + ">" + e.to()).toList());
        assertEquals(List.of("A2>CA"), split.ineffective().stream().map(e -> e.from() + ">" + e.to()).toList());
        assertEquals(split, Confirmation.split(o.subgraph().seeds(), o.subgraph().path(), Set.of("C2", "C9"), Set.of(), Set.of("C2", "C9"),
                Confirmation.Rule.FIRST), "the rules agree on T4");

        // memorise as remind.memorize does, then T5: the same query replays the whole useful subgraph with no L8
        for (Subgraph.PathEdge e : split.confirmed()) g.memories.put(e.edge(), MemoryMath.enhance(g.memories.get(e.edge()), q));
        for (Subgraph.PathEdge e : split.ineffective()) {
            g.memories.put(e.edge(), MemoryMath.penalize(g.memories.get(e.edge()), q, MemoryMath.Penalty.PAPER));
        }
        assertEquals(0.636620, MemoryMath.norm(g.memories.get("SD-A2")), TOL);
        assertEquals(0, MemoryMath.norm(g.memories.get("CA-A2")), 0, "p = 0: the penalty leaves the zero memory alone");
        Script again = new Script().judge(true);
        Walk.Outcome o2 = walk(g, q, List.of("SD", "CB"), again, WALK);
        assertEquals(Set.of("SD", "CB", "A2", "A9"), new HashSet<>(o2.subgraph().nodes()));
        assertEquals(Set.of("C2", "C9"), new HashSet<>(o2.subgraph().chunks()));
        assertEquals(0, o2.jumps());
        assertEquals(1, again.l7);
        assertEquals(0, again.l8);
        assertTrue(o2.subgraph().path().stream().allMatch(e -> e.origin() == Subgraph.Origin.REPLAY));
    }

    @Test
    void replayOnAColdGraphReadsNoEmbeddingAndAddsOnlySeedAnchorChunks() {
        ToyGraph g = t4();
        Subgraph s = new Replay(g, new double[] {1, 0, 0}, REPLAY).run(List.of("A2", "SD"));
        assertEquals(0, g.embeddingReads, "cold edges cannot pass lambda and are skipped unread");
        assertEquals(List.of("A2", "SD"), s.nodes());
        assertEquals(List.of("C2"), s.chunks(), "a seed anchor brings its chunk in (docs/remind.md#memory-and-replay)");
        assertEquals(Subgraph.Origin.SEED, s.path().get(0).origin());
        assertEquals(List.of(), new Replay(g, new double[] {1, 0, 0}, new Replay.Settings(0.1, 0.55, 200, false)).run(List.of("A2")).chunks());
    }

    @Test
    void t6ASimilarQueryReplaysAfterTwoEnhancementsNotOne() {
        double[] q1 = {1, 0};
        double c = 0.8;
        double[] q2 = {c, Math.sqrt(1 - c * c)};
        double[] once = MemoryMath.enhance(null, q1);
        assertEquals(0.508366, MemoryMath.edgeWeight(0.5, once, q2, 0.1), TOL);
        double[] twice = MemoryMath.enhance(once, q1);
        assertEquals(0.756023, MemoryMath.edgeWeight(0.5, twice, q2, 0.1), TOL);
        // the thresholds: 0.05 + 0.9 * n * c > 0.55
        assertEquals(0.872665, 0.5 / (0.9 * MemoryMath.norm(once)), TOL);
        assertEquals(0.566554, 0.5 / (0.9 * MemoryMath.norm(twice)), TOL);
    }

    @Test
    void t7MaxMemorizableAngle() {
        assertEquals(72.392, MemoryMath.maxMemorizableAngle(0.55), 1e-3);
        assertEquals(75.522, MemoryMath.maxMemorizableAngle(0.5), 1e-3);
        assertEquals(53.085, MemoryMath.maxMemorizableAngle(0.775), 1e-3);
        assertEquals(53.130, MemoryMath.maxMemorizableAngle(Math.sqrt(0.6)), 1e-3);
    }

    @Test
    void t8RandomEnhanceAndPenaltySequencesKeepTheInvariants() {
        Random rnd = new Random(8);
        for (int run = 0; run < 1000; run++) {
            double[] v = null;
            for (int step = 0; step < 20; step++) {
                double[] q = new double[16];
                for (int i = 0; i < q.length; i++) q[i] = rnd.nextGaussian();
                double[] u = MemoryMath.unit(q);
                if (rnd.nextBoolean() || v == null) {
                    v = MemoryMath.enhance(v, q);
                } else {
                    double before = MemoryMath.dot(v, u);
                    double[] orthBefore = orthogonal(v, u);
                    v = MemoryMath.penalize(v, q, MemoryMath.Penalty.PAPER);
                    double after = MemoryMath.dot(v, u);
                    assertFalse(before > 0 && after < 0 || before < 0 && after > 0, "a penalty flipped the sign");
                    assertArrayEquals(orthBefore, orthogonal(v, u), 1e-12, "a penalty changed the orthogonal part");
                }
                assertTrue(MemoryMath.norm(v) <= 1 + 1e-9, "norm " + MemoryMath.norm(v));
            }
        }
    }

    static double[] orthogonal(double[] v, double[] u) {
        double p = MemoryMath.dot(v, u);
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) out[i] = v[i] - p * u[i];
        return out;
    }

    @Test
    void confirmRulesDisagreeWhenANodeHasTwoUsefulBranches() {
        // A2 -> C2 (useful chunk) and A2 -> CA where the edge A2-CA itself is useful
        List<Subgraph.PathEdge> path = List.of(
                new Subgraph.PathEdge("SD-A2", "SD", "A2", Subgraph.Origin.LLM, 0),
                new Subgraph.PathEdge("A2-C2", "A2", "C2", Subgraph.Origin.LLM, 0),
                new Subgraph.PathEdge("CA-A2", "A2", "CA", Subgraph.Origin.LLM, 0));
        Confirmation.Split all = Confirmation.split(List.of("SD"), path, Set.of("C2"), Set.of("CA-A2"), Set.of("C2"), Confirmation.Rule.ALL);
        Confirmation.Split first = Confirmation.split(List.of("SD"), path, Set.of("C2"), Set.of("CA-A2"), Set.of("C2"), Confirmation.Rule.FIRST);
        assertEquals(3, all.confirmed().size());
        assertEquals(List.of(), all.ineffective());
        assertEquals(List.of("CA-A2"), first.ineffective().stream().map(Subgraph.PathEdge::edge).toList(), "first penalises the second branch");
    }

    @Test
    void eachStopReason() {
        double[] q = {1, 0, 0};
        // EXHAUSTED: everything reachable collected, L7 still unsatisfied
        Script ex = new Script().move("A2").move("A2").move("CA");
        Walk.Outcome exhausted = walk(t4(), q, List.of("SD"), ex, WALK);
        assertEquals(Walk.StopReason.EXHAUSTED, exhausted.stopReason());
        assertEquals(List.of("SD>A2", "A2>C2", "A2>CA"), path(exhausted.subgraph()));
        assertTrue(exhausted.memorizeAllowed());
        // LLM_FAILURE: three replies naming nothing valid; memorisation is refused, corrections were shown
        Script bad = new Script().move("C9").move("?").move("CB");
        Walk.Outcome failed = walk(t4(), q, List.of("SD"), bad, WALK);
        assertEquals(Walk.StopReason.LLM_FAILURE, failed.stopReason());
        assertFalse(failed.memorizeAllowed());
        assertEquals(3, bad.l8);
        String unreachable = "That chunk is not reachable: only chunks of collected anchors can be entered.";
        String nothing = "That reply named no node of the lists. Pick a candidate, a node already collected, or an unvisited chunk of a collected anchor.";
        assertEquals(List.of(List.of(), List.of(unreachable), List.of(unreachable, nothing)), bad.corrections, "each retry sees what was wrong");
        // a visited chunk gets the "already visited" correction
        Script revisit = new Script().move("A2").move("C2").move("CA");
        walk(t4(), q, List.of("SD"), revisit, WALK);
        assertTrue(revisit.corrections.get(2).get(0).contains("already visited"), revisit.corrections.toString());
        // MAX_ITERATIONS: backward moves cost no jump, so only the iteration guard stops a looping guide
        Script loop = new Script();
        for (int i = 0; i < 10; i++) loop.move("SD");
        Walk.Outcome looping = walk(t4(), q, List.of("SD"), loop, new Walk.Settings(10, 4, 20, 3));
        assertEquals(Walk.StopReason.MAX_ITERATIONS, looping.stopReason());
        assertEquals(0, looping.jumps());
        // MAX_JUMPS
        Walk.Outcome jumps = walk(t4(), q, List.of("SD"), new Script().move("A2"), new Walk.Settings(2, 30, 20, 3));
        assertEquals(Walk.StopReason.MAX_JUMPS, jumps.stopReason());
        assertEquals(2, jumps.jumps());
    }

    @Test
    void candidatesAreCappedByWeightSoAHubCannotFloodThePrompt() {
        ToyGraph g = new ToyGraph().node("H", MemoryGraph.Kind.ENTITY, 1, 0);
        for (int i = 0; i < 50; i++) {
            double a = i / 50.0;
            g.node("N" + i, MemoryGraph.Kind.ENTITY, Math.cos(a), Math.sin(a)).edge("e" + i, "H", "N" + i);
        }
        Replay weights = new Replay(g, new double[] {1, 0}, REPLAY);
        List<Walk.Candidate> c = new Walk(g, weights, new Script(), new Walk.Settings(10, 30, 5, 3)).candidates(new Subgraph(List.of("H")), "H");
        assertEquals(List.of("N0", "N1", "N2", "N3", "N4"), c.stream().map(x -> x.edge().other()).toList());
    }
}
