package dev.graphrag.agrag;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast array-based Steiner tree, expansion and PPR against slow, obviously correct references on random
 * small graphs: exact Steiner trees by enumeration, the expansion rule re-evaluated from scratch at every
 * step, and PPR by dense matrix iteration.
 */
@LineIndependent
class AgragAlgorithmsRandomTest {

    static CostGraph randomGraph(Random rnd, int n, double density) {
        CostGraph.Builder b = CostGraph.builder(n);
        for (int i = 1; i < n; i++) b.add(i, rnd.nextInt(i), 0.05 + rnd.nextInt(20) / 20.0, CostGraph.EdgeType.OTHER); // connected
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) if (rnd.nextDouble() < density) b.add(i, j, 0.05 + rnd.nextInt(20) / 20.0, CostGraph.EdgeType.OTHER);
        }
        return b.build();
    }

    /** Minimum spanning tree cost of the subgraph induced by the node mask, or +inf when it is disconnected. */
    /** k distinct random nodes of 0..n-1. */
    static Set<Integer> randomTerminals(Random rnd, int n, int k) {
        Set<Integer> terminals = new TreeSet<>();
        while (terminals.size() < k) terminals.add(rnd.nextInt(n));
        return terminals;
    }

    static double mstCost(CostGraph g, boolean[] in) {
        List<Integer> edges = new ArrayList<>();
        for (int e = 0; e < g.edgeCount(); e++) if (in[g.u(e)] && in[g.v(e)]) edges.add(e);
        edges.sort((a, b) -> Double.compare(g.cost(a), g.cost(b)));
        SteinerTree.UnionFind uf = new SteinerTree.UnionFind(g.nodeCount());
        double cost = 0;
        int joined = 0, size = 0;
        for (boolean x : in) if (x) size++;
        for (int e : edges) {
            if (uf.union(g.u(e), g.v(e))) {
                cost += g.cost(e);
                joined++;
            }
        }
        return joined == size - 1 ? cost : Double.POSITIVE_INFINITY;
    }

    /** The optimal Steiner tree cost: the best MST over terminals plus every subset of the other nodes. */
    static double exactSteiner(CostGraph g, Set<Integer> terminals) {
        List<Integer> others = new ArrayList<>();
        for (int v = 0; v < g.nodeCount(); v++) if (!terminals.contains(v)) others.add(v);
        double best = Double.POSITIVE_INFINITY;
        for (int mask = 0; mask < (1 << others.size()); mask++) {
            boolean[] in = new boolean[g.nodeCount()];
            for (int t : terminals) in[t] = true;
            for (int i = 0; i < others.size(); i++) if ((mask & (1 << i)) != 0) in[others.get(i)] = true;
            best = Math.min(best, mstCost(g, in));
        }
        return best;
    }

    @Test
    void theNodeHeapPopsInKeyThenNodeOrderLikeAPriorityQueue() {
        Random rnd = new Random(13);
        for (int round = 0; round < 100; round++) {
            CostGraph.NodeHeap heap = new CostGraph.NodeHeap();
            java.util.PriorityQueue<double[]> reference = new java.util.PriorityQueue<>(
                    java.util.Comparator.<double[]>comparingDouble(e -> e[0]).thenComparingDouble(e -> e[1]));
            int operations = 1 + rnd.nextInt(500);
            for (int op = 0; op < operations; op++) {
                if (!reference.isEmpty() && rnd.nextInt(3) == 0) {
                    double[] expected = reference.poll();
                    assertEquals(expected[0], heap.topKey(), "round " + round);
                    assertEquals((int) expected[1], heap.pop(), "round " + round);
                } else {
                    // few distinct keys, so ties (broken by node) are common
                    double key = rnd.nextInt(20) / 4.0;
                    int node = rnd.nextInt(50);
                    heap.push(key, node);
                    reference.add(new double[] {key, node});
                }
            }
            while (!reference.isEmpty()) assertEquals((int) reference.poll()[1], heap.pop(), "round " + round);
            assertTrue(heap.isEmpty());
        }
    }

    @Test
    void mehlhornIsATreeOverTheTerminalsWithinTwiceTheOptimum() {
        Random rnd = new Random(7);
        for (int round = 0; round < 300; round++) {
            int n = 4 + rnd.nextInt(7);
            CostGraph g = randomGraph(rnd, n, 0.3);
            Set<Integer> terminals = randomTerminals(rnd, n, 2 + rnd.nextInt(Math.min(4, n - 1)));
            SteinerTree.Tree tree = SteinerTree.mehlhorn(g, terminals);
            assertTrue(tree.nodes().containsAll(terminals), "round " + round);
            assertEquals(tree.nodes().size() - 1, tree.edges().size(), "a tree, round " + round);
            boolean[] in = new boolean[n];
            for (int v : tree.nodes()) in[v] = true;
            assertTrue(mstCost(g, in) < Double.POSITIVE_INFINITY, "connected, round " + round);
            double opt = exactSteiner(g, terminals);
            assertTrue(tree.cost() <= 2 * (1 - 1.0 / terminals.size()) * opt + 1e-9,
                    "round " + round + ": " + tree.cost() + " vs optimum " + opt);
        }
    }

    @Test
    void stoppingTheVoronoiSearchEarlyGivesTheSameTree() {
        Random rnd = new Random(5);
        int stoppedEarly = 0;
        for (int round = 0; round < 300; round++) {
            int n = 20 + rnd.nextInt(200);
            CostGraph g = randomGraph(rnd, n, 4.0 / n);
            Set<Integer> terminals = randomTerminals(rnd, n, 2 + rnd.nextInt(6));
            SteinerTree.Tree full = SteinerTree.mehlhorn(g, terminals, Long.MAX_VALUE, Long.MAX_VALUE);
            for (long first : new long[] {1, 4, 64}) {
                SteinerTree.Tree early = SteinerTree.mehlhorn(g, terminals, first, Long.MAX_VALUE);
                assertEquals(full.nodes(), early.nodes(), "round " + round + ", first check " + first);
                assertEquals(full.edges(), early.edges(), "round " + round + ", first check " + first);
            }
            if (SteinerTree.mehlhorn(g, terminals, 1, Long.MAX_VALUE).settledNodes() < full.settledNodes()) stoppedEarly++;
        }
        assertTrue(stoppedEarly > 50, "the early stop is exercised: " + stoppedEarly);
    }

    /** Whether the tree's edges join all of these nodes. */
    static boolean joinsAll(SteinerTree.Tree tree, Set<Integer> terminals, int n) {
        SteinerTree.UnionFind uf = new SteinerTree.UnionFind(n);
        for (CostGraph.Edge e : tree.edges()) uf.union(e.u(), e.v());
        return terminals.stream().map(uf::find).distinct().count() == 1;
    }

    @Test
    void aNodeBudgetKeepsTheTreeWithinItsStatedBoundOfTheFullSearch() {
        Random rnd = new Random(17);
        int cut = 0, slack = 0;
        for (int round = 0; round < 300; round++) {
            int n = 20 + rnd.nextInt(200);
            CostGraph g = randomGraph(rnd, n, 4.0 / n);
            Set<Integer> terminals = randomTerminals(rnd, n, 2 + rnd.nextInt(6));
            long first = new long[] {1, 4, 64}[rnd.nextInt(3)];
            SteinerTree.Tree full = SteinerTree.mehlhorn(g, terminals, first, Long.MAX_VALUE);
            assertNull(full.cut());
            for (long budget : new long[] {1, 3, 10, n / 4, n / 2, full.settledNodes()}) {
                String at = "round " + round + ", budget " + budget + ", first check " + first;
                SteinerTree.Tree bounded = SteinerTree.mehlhorn(g, terminals, first, Math.max(1, budget));
                assertTrue(joinsAll(bounded, terminals, n), "still joins every terminal, " + at);
                assertEquals(bounded.nodes().size() - 1, bounded.edges().size(), "a tree, " + at);
                assertTrue(bounded.settledNodes() <= full.settledNodes(), "never more work than the full search, " + at);
                assertTrue(bounded.cost() <= bounded.networkWeight() + 1e-9, at);
                if (bounded.cut() == null) {
                    // not cut: the search ended as the full one does, so the tree is the same
                    assertEquals(full.nodes(), bounded.nodes(), at);
                    assertEquals(full.edges(), bounded.edges(), at);
                    continue;
                }
                cut++;
                SteinerTree.Cut c = bounded.cut();
                for (double j : c.joins()) assertTrue(j >= c.exactBelow(), "joins only where the search was not exact, " + at);
                assertTrue(bounded.networkWeight() <= full.networkWeight() + c.slack() + 1e-9,
                        at + ": " + bounded.networkWeight() + " vs the full search's " + full.networkWeight() + " + slack " + c.slack());
                if (c.slack() > 0) slack++;
            }
            // a budget the full search stays within changes nothing
            SteinerTree.Tree roomy = SteinerTree.mehlhorn(g, terminals, first, full.settledNodes() + 1);
            assertEquals(full.edges(), roomy.edges(), "round " + round);
        }
        assertTrue(cut > 100 && slack > 50, "the budget is exercised: " + cut + " cut searches, " + slack + " with joins where the search was not exact");
    }

    @Test
    void aNodeBudgetStaysWithinItsBoundOfTheOptimum() {
        Random rnd = new Random(19);
        int cut = 0;
        for (int round = 0; round < 300; round++) {
            int n = 5 + rnd.nextInt(6);
            CostGraph g = randomGraph(rnd, n, 0.3);
            Set<Integer> terminals = randomTerminals(rnd, n, 2 + rnd.nextInt(Math.min(4, n - 1)));
            double opt = exactSteiner(g, terminals);
            for (long budget = 1; budget <= n; budget++) {
                SteinerTree.Tree bounded = SteinerTree.mehlhorn(g, terminals, 1, budget);
                double slack = bounded.cut() == null ? 0 : bounded.cut().slack();
                if (bounded.cut() != null) cut++;
                assertTrue(bounded.cost() <= 2 * (1 - 1.0 / terminals.size()) * opt + slack + 1e-9,
                        "round " + round + ", budget " + budget + ": " + bounded.cost() + " vs optimum " + opt + " and slack " + slack);
            }
        }
        assertTrue(cut > 100, "the budget is exercised: " + cut);
    }

    @Test
    void costsComputedOnDemandGiveTheSameTreeAndExpansionAndOnlyWhatTheSearchesRead() {
        Random rnd = new Random(9);
        int spared = 0;
        for (int round = 0; round < 200; round++) {
            int n = 30 + rnd.nextInt(300);
            CostGraph g = randomGraph(rnd, n, 4.0 / n);
            double[] lazy = new double[g.edgeCount()];
            for (int e = 0; e < lazy.length; e++) lazy[e] = e % 3 == 0 ? Double.NaN : g.cost(e);
            int[] asked = new int[g.edgeCount()];
            CostGraph onDemand = new CostGraph(g.topology(), lazy, e -> {
                asked[e]++;
                return g.cost(e);
            });
            Set<Integer> terminals = randomTerminals(rnd, n, 2 + rnd.nextInt(5));
            double[] s = new double[n];
            for (int v = 0; v < n; v++) s[v] = rnd.nextDouble();
            SteinerTree.Tree eager = SteinerTree.mehlhorn(g, terminals), tree = SteinerTree.mehlhorn(onDemand, terminals);
            assertEquals(eager.nodes(), tree.nodes(), "round " + round);
            assertEquals(eager.edges(), tree.edges(), "round " + round);
            McmiExpansion.Result a = McmiExpansion.expand(g, s, eager, McmiExpansion.Rule.MEAN, true, 20, true, -1);
            McmiExpansion.Result b = McmiExpansion.expand(onDemand, s, tree, McmiExpansion.Rule.MEAN, true, 20, true, -1);
            assertEquals(a.nodes(), b.nodes(), "round " + round);
            assertEquals(a.output(), b.output(), "round " + round);
            for (int e = 0; e < asked.length; e++) assertTrue(asked[e] <= 1, "each on-demand cost is computed once");
            long computed = java.util.Arrays.stream(asked).filter(x -> x > 0).count();
            if (computed < (g.edgeCount() + 2) / 3) spared++;
            // every cost on demand, kept in pages: the same tree and expansion, each cost computed once, and pages made
            // only where a search read an edge
            int[] read = new int[g.edgeCount()];
            CostGraph paged = new CostGraph(g.topology(), e -> {
                read[e]++;
                return g.cost(e);
            });
            SteinerTree.Tree pagedTree = SteinerTree.mehlhorn(paged, terminals);
            assertEquals(eager.edges(), pagedTree.edges(), "round " + round);
            McmiExpansion.Result c = McmiExpansion.expand(paged, s, pagedTree, McmiExpansion.Rule.MEAN, true, 20, true, -1);
            assertEquals(a.nodes(), c.nodes(), "round " + round);
            assertEquals(a.output(), c.output(), "round " + round);
            java.util.Set<Integer> pagesRead = new java.util.HashSet<>();
            for (int e = 0; e < read.length; e++) {
                assertTrue(read[e] <= 1, "each paged cost is computed once");
                if (read[e] > 0) pagesRead.add(e >>> CostGraph.PAGE_BITS);
            }
            assertEquals(pagesRead.size(), paged.pagesMade(), "round " + round);
        }
        assertTrue(spared > 20, "searches that stop early leave costs uncomputed: " + spared);
        CostGraph bad = new CostGraph(CostGraph.builder(2).add(0, 1, 1, CostGraph.EdgeType.OTHER).build().topology(), new double[] {Double.NaN},
                e -> -1);
        assertThrows(IllegalArgumentException.class, () -> bad.cost(0));
        CostGraph badPaged = new CostGraph(CostGraph.builder(2).add(0, 1, 1, CostGraph.EdgeType.OTHER).build().topology(), e -> Double.NaN);
        assertThrows(IllegalArgumentException.class, () -> badPaged.cost(0));
    }

    @Test
    void aPagedCostGraphMakesOnlyThePagesOfTheEdgesRead() {
        // a path of 10 pages' worth of edges: reading two edges far apart makes two pages, not ten
        int n = 10 * CostGraph.PAGE + 1;
        CostGraph.Builder b = CostGraph.builder(n);
        for (int x = 0; x + 1 < n; x++) b.add(x, x + 1, 1, CostGraph.EdgeType.OTHER);
        CostGraph g = new CostGraph(b.build().topology(), e -> 0.5 + e);
        assertEquals(0, g.pagesMade());
        assertEquals(0.5, g.cost(0));
        assertEquals(0.5 + 9 * CostGraph.PAGE + 3, g.cost(9 * CostGraph.PAGE + 3));
        assertEquals(1.5, g.cost(1));
        assertEquals(2, g.pagesMade());
        assertEquals(10 * CostGraph.PAGE, g.edgeCount());
    }

    @Test
    void topKIsTheHighestScoresWithTiesToTheLowerIndexAsAFullSortGivesThem() {
        Random rnd = new Random(3);
        for (int round = 0; round < 200; round++) {
            double[] score = new double[1 + rnd.nextInt(300)];
            for (int i = 0; i < score.length; i++) score[i] = rnd.nextInt(12) / 4.0 - 1; // many ties
            int k = rnd.nextInt(15);
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < score.length; i++) all.add(i);
            all.sort((a, b) -> score[a] != score[b] ? Double.compare(score[b], score[a]) : Integer.compare(a, b));
            assertEquals(all.subList(0, Math.min(k, all.size())), ChunkRanking.topK(score, k), "round " + round);
        }
    }

    /** The expansion as the paper's Alg. 3 states it: at each step rescan every set node's neighbours for the best candidate. */
    static Set<Integer> referenceExpansion(CostGraph g, double[] s, SteinerTree.Tree tree, McmiExpansion.Rule rule, int max) {
        Set<Integer> nodes = new LinkedHashSet<>(tree.nodes());
        List<CostGraph.Edge> selected = new ArrayList<>(tree.edges());
        double threshold = 0;
        for (CostGraph.Edge e : tree.edges()) threshold += (s[e.u()] + s[e.v()]) / 2 * e.cost() / tree.edges().size();
        for (int step = 0; step < max; step++) {
            int best = -1;
            CostGraph.Edge bestVia = null;
            double bestKey = 0;
            for (int v = 0; v < g.nodeCount(); v++) {
                if (nodes.contains(v) || !(s[v] > 0)) continue;
                CostGraph.Edge via = null;
                for (int k = g.first(v); k < g.first(v + 1); k++) {
                    int e = g.edgeAt(k), u = g.other(e, v);
                    if (!nodes.contains(u)) continue;
                    if (via == null || g.cost(e) < via.cost() || (g.cost(e) == via.cost() && u < via.other(v))) via = g.edge(e);
                }
                if (via == null) continue;
                double key = rule == McmiExpansion.Rule.REFERENCE ? -(via.cost() == 0 ? Double.POSITIVE_INFINITY : s[v] / via.cost()) : via.cost() / s[v];
                boolean better = best < 0 || key < bestKey || (key == bestKey && (s[v] > s[best] || (s[v] == s[best]
                        && (via.cost() < bestVia.cost() || (via.cost() == bestVia.cost() && v < best)))));
                if (better) {
                    best = v;
                    bestVia = via;
                    bestKey = key;
                }
            }
            if (best < 0) break;
            if (rule == McmiExpansion.Rule.REFERENCE ? -bestKey < threshold : bestKey >= McmiExpansion.ratio(selected, s, rule)) break;
            nodes.add(best);
            selected.add(bestVia);
        }
        return nodes;
    }

    @Test
    void expansionMatchesTheRuleEvaluatedFromScratch() {
        Random rnd = new Random(11);
        for (int round = 0; round < 300; round++) {
            int n = 5 + rnd.nextInt(25);
            CostGraph g = randomGraph(rnd, n, 0.15);
            double[] s = new double[n];
            for (int v = 0; v < n; v++) s[v] = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(100) / 100.0;
            Set<Integer> terminals = randomTerminals(rnd, n, 2);
            SteinerTree.Tree tree = SteinerTree.mehlhorn(g, terminals);
            for (McmiExpansion.Rule rule : McmiExpansion.Rule.values()) {
                McmiExpansion.Result r = McmiExpansion.expand(g, s, tree, rule, true, 20, true, -1);
                assertEquals(List.copyOf(referenceExpansion(g, s, tree, rule, 20)), List.copyOf(r.nodes()), "round " + round + " " + rule);
                if (rule == McmiExpansion.Rule.MEAN && r.expansions() > 0) {
                    assertTrue(r.ratio() < McmiExpansion.ratio(r.mcstEdges(), s, rule), "the mean rule lowers r, round " + round);
                }
            }
        }
    }

    /** Graphs of hundreds of nodes, where the hand-sized ones above rarely expand far. */
    @Test
    void expansionOnGraphsOfHundredsOfNodesMatchesTheReference() {
        Random rnd = new Random(13);
        for (int round = 0; round < 30; round++) {
            int n = 200 + rnd.nextInt(1200);
            CostGraph g = randomGraph(rnd, n, 8.0 / n);
            double[] s = new double[n];
            for (int v = 0; v < n; v++) s[v] = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(1000) / 1000.0;
            SteinerTree.Tree tree = SteinerTree.mehlhorn(g, randomTerminals(rnd, n, 2 + rnd.nextInt(8)));
            for (McmiExpansion.Rule rule : McmiExpansion.Rule.values()) {
                McmiExpansion.Result r = McmiExpansion.expand(g, s, tree, rule, true, 100, true, -1);
                assertEquals(List.copyOf(referenceExpansion(g, s, tree, rule, 100)), List.copyOf(r.nodes()), "round " + round + " " + rule);
            }
        }
    }

    @Test
    void pageRankMatchesDenseIteration() {
        Random rnd = new Random(3);
        for (int round = 0; round < 50; round++) {
            int n = 3 + rnd.nextInt(20);
            WeightedGraph g = WeightedGraph.random(rnd, n, 0.25);
            int[] from = g.from(), to = g.to();
            double[] w = g.w();
            double[][] a = g.a();
            double[] reset = new double[n];
            reset[rnd.nextInt(n)] = 1;
            reset[rnd.nextInt(n)] += 0.5;
            // over-relaxation grows with the damping: every damping reaches the dense iteration's fixed point, never below 0
            for (double d : new double[] {0.3, 0.5, 0.85}) {
                double[] x = dense(a, reset, d, 400);
                double[] y = PersonalizedPageRank.compute(new PersonalizedPageRank.Transition(n, from, to, w), reset, d, 1e-12, 1000);
                assertArrayEquals(x, y, 1e-9, "round " + round + ", damping " + d);
                for (double value : y) assertTrue(value >= 0, "round " + round + ", damping " + d);
            }
        }
    }

    @Test
    void aTransitionOverTheFirstEdgesOfSharedArraysEqualsOneOverCopiesWhicheverEngineRunsFirst() {
        Random rnd = new Random(11);
        for (int round = 0; round < 30; round++) {
            int n = 3 + rnd.nextInt(30);
            WeightedGraph g = WeightedGraph.random(rnd, n, 0.25);
            int m = g.from().length;
            // a snapshot's arrays run on past the PPR edges (its pseudo edges): the transition reads only the first m
            int[] from = java.util.Arrays.copyOf(g.from(), m + 3), to = java.util.Arrays.copyOf(g.to(), m + 3);
            double[] w = java.util.Arrays.copyOf(g.w(), m + 3);
            for (int i = m; i < m + 3; i++) {
                from[i] = rnd.nextInt(n);
                to[i] = rnd.nextInt(n);
                w[i] = 100;
            }
            for (int i = 0; i < m; i++) if (rnd.nextInt(6) == 0) w[i] = g.w()[i] = 0; // nodes whose every edge weighs 0 take no part
            double[] reset = new double[n];
            reset[rnd.nextInt(n)] = 1;
            PersonalizedPageRank.Transition copies = new PersonalizedPageRank.Transition(n, g.from(), g.to(), g.w());
            PersonalizedPageRank.Transition shared = new PersonalizedPageRank.Transition(n, from, to, w, m);
            // a cost graph's rows, shared: the edges past the walk's come last in every row (ids ascend)
            CostGraph.Topology topology = new CostGraph.Topology(n, from, to, new CostGraph.EdgeType[m + 3], new long[m + 3], new String[0], new String[0], new String[0]);
            PersonalizedPageRank.Transition rows = PersonalizedPageRank.Transition.over(topology, w, m);
            double[] pushedFirst = PersonalizedPageRank.push(shared, reset, 0.5, 1e-8), rowsPushedFirst = PersonalizedPageRank.push(rows, reset, 0.5, 1e-8);
            double[] swept = PersonalizedPageRank.compute(copies, reset, 0.5, 1e-10, 500);
            assertArrayEquals(swept, PersonalizedPageRank.compute(shared, reset, 0.5, 1e-10, 500), "round " + round);
            assertArrayEquals(swept, PersonalizedPageRank.compute(rows, reset, 0.5, 1e-10, 500), "round " + round);
            double[] pushed = PersonalizedPageRank.push(copies, reset, 0.5, 1e-8);
            assertArrayEquals(pushed, pushedFirst, "round " + round);
            assertArrayEquals(pushed, rowsPushedFirst, "round " + round);
        }
        // a self loop counts twice in the walk but is once in a cost graph's row: such a graph gets rows of its own
        int[] from = {0, 1, 1, 2}, to = {1, 1, 2, 0};
        double[] w = {1, 0.5, 2, 1};
        CostGraph.Topology loop = new CostGraph.Topology(3, from, to, new CostGraph.EdgeType[4], new long[4], new String[0], new String[0], new String[0]);
        double[] reset = {1, 0, 0};
        assertArrayEquals(PersonalizedPageRank.push(new PersonalizedPageRank.Transition(3, from, to, w), reset, 0.5, 1e-9),
                PersonalizedPageRank.push(PersonalizedPageRank.Transition.over(loop, w, 4), reset, 0.5, 1e-9));
        assertArrayEquals(PersonalizedPageRank.compute(new PersonalizedPageRank.Transition(3, from, to, w), reset, 0.5, 1e-12, 500),
                PersonalizedPageRank.compute(PersonalizedPageRank.Transition.over(loop, w, 4), reset, 0.5, 1e-12, 500));
    }

    @Test
    void edgesPastTheLabelArraysHaveNoLabels() {
        CostGraph.Topology t = new CostGraph.Topology(3, new int[] {0, 1}, new int[] {1, 2}, new CostGraph.EdgeType[] {CostGraph.EdgeType.REL,
                CostGraph.EdgeType.SYNONYM}, new long[] {7, 8}, new String[] {"a"}, new String[] {"knows"}, new String[] {"b"});
        CostGraph g = new CostGraph(t, new double[] {1, 2});
        assertEquals(new CostGraph.Edge(0, 0, 1, 1, CostGraph.EdgeType.REL, "a", "knows", "b", 7), g.edge(0));
        assertEquals(new CostGraph.Edge(1, 1, 2, 2, CostGraph.EdgeType.SYNONYM, null, null, null, 8), g.edge(1));
        assertThrows(IllegalArgumentException.class, () -> new CostGraph.Topology(2, new int[] {0}, new int[] {1},
                new CostGraph.EdgeType[] {CostGraph.EdgeType.REL}, new long[] {1}, new String[2], new String[2], new String[2]), "labels past the edges");
        assertThrows(IllegalArgumentException.class, () -> new CostGraph.Topology(2, new int[] {0}, new int[] {1},
                new CostGraph.EdgeType[] {CostGraph.EdgeType.REL}, new long[] {1}, new String[1], new String[0], new String[1]), "label arrays differ");
    }

    @Test
    void forwardPushStaysWithinItsBoundOfTheExactValues() {
        Random rnd = new Random(5);
        for (int round = 0; round < 50; round++) {
            int n = 3 + rnd.nextInt(30);
            WeightedGraph g = WeightedGraph.random(rnd, n, 0.2);
            double[][] a = g.a();
            double[] degree = new double[n];
            for (int v = 0; v < n; v++) for (double x : a[v]) degree[v] += x;
            double[] reset = new double[n];
            reset[rnd.nextInt(n)] = 1;
            reset[rnd.nextInt(n)] += 0.5;
            PersonalizedPageRank.Transition t = new PersonalizedPageRank.Transition(n, g.from(), g.to(), g.w());
            for (double d : new double[] {0.4, 0.5, 0.85}) {
                double[] exact = denseUnnormalised(a, reset, d, 600); // isolated seeds leak their walk, as in the push
                for (double eps : new double[] {1e-2, 1e-4, 1e-7}) {
                    double[] x = PersonalizedPageRank.pushUnnormalised(t, reset, d, eps);
                    for (int v = 0; v < n; v++) {
                        double missing = exact[v] - x[v];
                        assertTrue(missing >= -1e-12 && missing <= eps * degree[v] + 1e-12,
                                "round " + round + ", d " + d + ", eps " + eps + ", node " + v + ": exact " + exact[v] + ", push " + x[v]);
                    }
                }
            }
        }
    }

    @Test
    void forwardPushOnGraphsOfHundredsOfNodesStaysWithinItsBound() {
        Random rnd = new Random(6);
        for (int round = 0; round < 8; round++) {
            int n = 100 + rnd.nextInt(200);
            WeightedGraph g = WeightedGraph.random(rnd, n, 6.0 / n);
            double[][] a = g.a();
            double[] degree = new double[n];
            for (int v = 0; v < n; v++) for (double x : a[v]) degree[v] += x;
            double[] reset = new double[n];
            for (int k = 0; k < 4; k++) reset[rnd.nextInt(n)] += 1 + k;
            double[] exact = denseUnnormalised(a, reset, 0.5, 200);
            for (double eps : new double[] {1e-4, 1e-7}) {
                double[] x = PersonalizedPageRank.pushUnnormalised(new PersonalizedPageRank.Transition(n, g.from(), g.to(), g.w()), reset, 0.5, eps);
                assertTrue(java.util.Arrays.stream(x).filter(v -> v > 0).count() > 64, "round " + round + ": the push reached far past its seeds");
                for (int v = 0; v < n; v++) {
                    double missing = exact[v] - x[v];
                    assertTrue(missing >= -1e-12 && missing <= eps * degree[v] + 1e-12, "round " + round + ", eps " + eps + ", node " + v);
                }
            }
        }
    }

    @Test
    void forwardPushTouchesTheSeedsNeighbourhoodNotTheGraph() {
        int n = 200_000; // a path: the sweeps read every edge; the push reads what the walk reaches above epsilon
        int[] from = new int[n - 1], to = new int[n - 1];
        for (int i = 0; i < n - 1; i++) {
            from[i] = i;
            to[i] = i + 1;
        }
        PersonalizedPageRank.Transition t = new PersonalizedPageRank.Transition(n, from, to, null);
        double[] reset = new double[n];
        reset[n / 2] = 1;
        double[] x = PersonalizedPageRank.push(t, reset, 0.5, 1e-6);
        long reached = java.util.Arrays.stream(x).filter(v -> v > 0).count();
        assertTrue(reached > 10 && reached < 100, "nodes with a value: " + reached);
        double[] exact = PersonalizedPageRank.compute(t, reset, 0.5, 1e-10, 200);
        // within epsilon·degree before normalisation; normalising over the mass the push kept scales that by about 1 / (1 - 2e-5)
        assertEquals(exact[n / 2], x[n / 2], 5e-5);
        assertEquals(exact[n / 2 + 3], x[n / 2 + 3], 5e-5);
    }

    /** An undirected graph with each pair linked with probability p, weights in [0.1, 1.1), and its dense adjacency. */
    record WeightedGraph(int[] from, int[] to, double[] w, double[][] a) {
        static WeightedGraph random(Random rnd, int n, double p) {
            List<int[]> pairs = new ArrayList<>();
            for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (rnd.nextDouble() < p) pairs.add(new int[] {i, j});
            int[] from = pairs.stream().mapToInt(e -> e[0]).toArray(), to = pairs.stream().mapToInt(e -> e[1]).toArray();
            double[] w = new double[from.length];
            for (int i = 0; i < w.length; i++) w[i] = 0.1 + rnd.nextDouble();
            double[][] a = new double[n][n];
            for (int i = 0; i < from.length; i++) {
                a[from[i]][to[i]] += w[i];
                a[to[i]][from[i]] += w[i];
            }
            return new WeightedGraph(from, to, w, a);
        }
    }

    static double[] denseUnnormalised(double[][] a, double[] reset, double d, int iterations) {
        int n = a.length;
        double total = 0;
        for (double r : reset) total += r;
        double[] p = new double[n];
        for (int v = 0; v < n; v++) p[v] = reset[v] / total;
        double[] out = new double[n];
        for (int u = 0; u < n; u++) for (int v = 0; v < n; v++) out[u] += a[u][v];
        double[] x = p.clone();
        for (int it = 0; it < iterations; it++) {
            double[] next = new double[n];
            for (int v = 0; v < n; v++) {
                next[v] = (1 - d) * p[v];
                for (int u = 0; u < n; u++) if (out[u] > 0) next[v] += d * x[u] * a[u][v] / out[u];
            }
            x = next;
        }
        return x;
    }

    static double[] dense(double[][] a, double[] reset, double d, int iterations) {
        double[] x = denseUnnormalised(a, reset, d, iterations);
        double sum = 0;
        for (double v : x) sum += v;
        for (int v = 0; v < x.length; v++) x[v] /= sum;
        return x;
    }

}
