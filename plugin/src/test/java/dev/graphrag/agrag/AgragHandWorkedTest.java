package dev.graphrag.agrag;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-worked cases of docs/agrag.md#hand-worked-cases, as plain Java. */
class AgragHandWorkedTest {
    static final double TOL = 1e-4;

    // ---- T1: entity extraction -------------------------------------------------------------------------
    static Map<String, Double> scores(String text, List<String> corpus, EntityStatistics.Scoring scoring, double threshold) {
        List<EntityStatistics.Terms> all = corpus.stream().map(t -> EntityStatistics.terms(t, 3)).toList();
        Map<String, Integer> df = new java.util.HashMap<>();
        for (EntityStatistics.Terms t : all) for (String term : t.counts().keySet()) df.merge(term, 1, Integer::sum);
        EntityStatistics.Terms mine = EntityStatistics.terms(text, 3);
        return EntityStatistics.candidates(mine, df::get, corpus.size(), scoring, threshold).stream()
                .collect(Collectors.toMap(EntityStatistics.Candidate::term, EntityStatistics.Candidate::score, (a, b) -> a, java.util.LinkedHashMap::new));
    }

    static final List<String> T1 = List.of("alice bob alice", "bob carol", "dave");

    @Test
    void t1TfidfScoresEqualSklearn() {
        Map<String, Double> t1 = scores(T1.get(0), T1, EntityStatistics.Scoring.TFIDF, 0);
        assertEquals(0.7265, t1.get("alice"), TOL);
        assertEquals(0.3633, t1.get("alice bob"), TOL);
        assertEquals(0.3633, t1.get("bob alice"), TOL);
        assertEquals(0.3633, t1.get("alice bob alice"), TOL);
        assertEquals(0.2763, t1.get("bob"), TOL);
        Map<String, Double> t2 = scores(T1.get(1), T1, EntityStatistics.Scoring.TFIDF, 0);
        assertEquals(0.6228, t2.get("carol"), TOL);
        assertEquals(0.6228, t2.get("bob carol"), TOL);
        assertEquals(0.4736, t2.get("bob"), TOL);
        assertEquals(1.0, scores(T1.get(2), T1, EntityStatistics.Scoring.TFIDF, 0).get("dave"), TOL);
        assertEquals(List.of("alice"), List.copyOf(scores(T1.get(0), T1, EntityStatistics.Scoring.TFIDF, 0.5).keySet()));
        assertEquals(List.of("bob carol", "carol"), List.copyOf(scores(T1.get(1), T1, EntityStatistics.Scoring.TFIDF, 0.5).keySet()),
                "tie at 0.6228 broken by term");
        assertEquals(List.of("dave"), List.copyOf(scores(T1.get(2), T1, EntityStatistics.Scoring.TFIDF, 0.5).keySet()));
    }

    @Test
    void t1PaperScores() {
        Map<String, Double> t1 = scores(T1.get(0), T1, EntityStatistics.Scoring.PAPER, 0);
        assertEquals(0.3333, t1.get("alice"), TOL);
        assertEquals(0.0692, t1.get("bob"), TOL);
        assertEquals(0.1667, t1.get("alice bob alice"), TOL);
        Map<String, Double> t2 = scores(T1.get(1), T1, EntityStatistics.Scoring.PAPER, 0);
        assertEquals(0.25, t2.get("carol"), TOL);
        assertEquals(0.1038, t2.get("bob"), TOL);
        assertEquals(0.5, scores(T1.get(2), T1, EntityStatistics.Scoring.PAPER, 0).get("dave"), TOL);
        assertEquals(List.of("alice"), List.copyOf(scores(T1.get(0), T1, EntityStatistics.Scoring.PAPER, 0.2).keySet()));
        assertEquals(List.of("bob carol", "carol"), List.copyOf(scores(T1.get(1), T1, EntityStatistics.Scoring.PAPER, 0.2).keySet()));
        for (String t : T1) assertTrue(scores(t, T1, EntityStatistics.Scoring.PAPER, 0.5).isEmpty(), "nothing is > 0.5");
    }

    @Test
    void tokensDropStopWordsAndShortTokensBeforeNgrams() {
        assertEquals(List.of("bank", "england"), EntityStatistics.tokens("The Bank of England, a."));
        assertTrue(EntityStatistics.terms("the bank of england", 3).counts().containsKey("bank england"));
        assertEquals("paris city", EntityStatistics.norm("  Paris-City! "));
        assertEquals("lives in", EntityStatistics.norm("Lives  in"));
    }

    // ---- T3: PPR -----------------------------------------------------------------------------------------
    @Test
    void t3PersonalizedPageRankOnAPath() {
        double[] x = PersonalizedPageRank.compute(3, new int[] {0, 1}, new int[] {1, 2}, null, new int[] {0}, 0.5, 1e-7, 100);
        assertArrayEquals(new double[] {7 / 12.0, 1 / 3.0, 1 / 12.0}, x, 1e-6);
        assertEquals(0.05 / 12, 0.05 * x[2], 1e-6, "the passage factor on a chunk node");
    }

    // ---- T4: hybrid score and costs -------------------------------------------------------------------------
    @Test
    void t4HybridScoresAndCosts() {
        assertArrayEquals(new double[] {0.5, 0.75, 0.25}, HybridScores.compute(new double[] {0.8, 0.5, 0.2}, new double[] {0, 4, 2}, false), 1e-9);
        assertArrayEquals(new double[] {1, 0.5, 0}, HybridScores.compute(new double[] {0.8, 0.5, 0.2}, new double[] {0, 0, 0}, false), 1e-9);
        assertEquals(0.2, EdgeCosts.HALF.cost(0.6), 1e-9);
        assertEquals(0.4, EdgeCosts.REFERENCE.cost(0.6), 1e-9);
        assertEquals(0.25, EdgeCosts.HALF.synonym(0.3, 0.5), 1e-9);
        assertEquals(0.125, EdgeCosts.HALF.cost(0.75), 1e-9);
        assertEquals(0.25, EdgeCosts.HALF.cost(0.5), 1e-9);
        assertEquals(10, EdgeCosts.PSEUDO_COST);
    }

    // ---- T5: Mehlhorn ------------------------------------------------------------------------------------------
    @Test
    void t5MehlhornReturnsTheTwoApproximation() {
        int t1 = 0, t2 = 1, t3 = 2, x = 3;
        CostGraph.Builder g = CostGraph.builder(4);
        g.add(x, t1, 1.0, CostGraph.EdgeType.OTHER);
        g.add(x, t2, 1.05, CostGraph.EdgeType.OTHER);
        g.add(x, t3, 1.1, CostGraph.EdgeType.OTHER);
        g.add(t1, t2, 1.7, CostGraph.EdgeType.OTHER);
        g.add(t2, t3, 1.8, CostGraph.EdgeType.OTHER);
        g.add(t1, t3, 1.9, CostGraph.EdgeType.OTHER);
        SteinerTree.Tree tree = SteinerTree.mehlhorn(g.build(), Set.of(t1, t2, t3));
        assertEquals(Set.of(t1, t2, t3), tree.nodes());
        assertEquals(Set.of(Set.of(t1, t2), Set.of(t2, t3)), pairs(tree.edges()));
        assertEquals(3.5, tree.cost(), 1e-9);
        assertTrue(tree.cost() <= 2 * (1 - 1 / 3.0) * 3.15 + 1e-9);
    }

    @Test
    void steinerEdgeCasesSingleTerminalAndPaths() {
        CostGraph.Builder g = CostGraph.builder(4);
        g.add(0, 1, 0.1, CostGraph.EdgeType.OTHER);
        g.add(1, 2, 0.1, CostGraph.EdgeType.OTHER);
        g.add(0, 2, 0.5, CostGraph.EdgeType.OTHER);
        g.add(2, 3, 0.1, CostGraph.EdgeType.OTHER);
        CostGraph built = g.build();
        assertEquals(Set.of(1), SteinerTree.mehlhorn(built, Set.of(1)).nodes());
        assertTrue(SteinerTree.mehlhorn(built, Set.of(1)).edges().isEmpty());
        SteinerTree.Tree path = SteinerTree.mehlhorn(built, Set.of(0, 2));
        assertEquals(Set.of(0, 1, 2), path.nodes(), "a cheaper path through a Steiner node, and no dangling leaf 3");
        assertEquals(0.2, path.cost(), 1e-9);
    }

    // ---- T6: MCMI greedy expansion ---------------------------------------------------------------------------
    static final String NAMES = "ABCDEFG";

    static CostGraph t6Graph() {
        CostGraph.Builder g = CostGraph.builder(7);
        Object[][] edges = {{"A", "B", .10}, {"B", "C", .10}, {"A", "C", .45}, {"B", "D", .30}, {"C", "D", .04}, {"A", "F", .20},
                {"C", "E", .10}, {"A", "G", .10}};
        for (Object[] e : edges) g.add(id((String) e[0]), id((String) e[1]), (Double) e[2], CostGraph.EdgeType.OTHER);
        return g.build();
    }

    static final double[] T6_S = {.30, .10, .30, .20, .01, .04, .25};

    static int id(String n) {
        return NAMES.indexOf(n);
    }

    static McmiExpansion.Result t6(McmiExpansion.Rule rule) {
        CostGraph g = t6Graph();
        SteinerTree.Tree tree = SteinerTree.mehlhorn(g, Set.of(id("A"), id("C")));
        return McmiExpansion.expand(g, T6_S, tree, rule, true, 20, true, -1);
    }

    @Test
    void t6MeanRule() {
        McmiExpansion.Result r = t6(McmiExpansion.Rule.MEAN);
        assertEquals(names(Set.of(0, 1, 2)), names(r.mcstNodes()));
        assertEquals(0.25, McmiExpansion.ratio(r.mcstEdges(), T6_S, McmiExpansion.Rule.MEAN), 1e-9);
        assertEquals("ABCD", names(r.nodes()));
        assertEquals(1, r.expansions());
        assertEquals(0.19333, r.ratio(), 1e-4);
        assertEquals(Set.of(Set.of(2, 3)), pairs(r.selected().subList(2, 3)), "selected edge C-D");
        assertEquals(Set.of(Set.of(0, 1), Set.of(0, 2), Set.of(1, 2), Set.of(1, 3), Set.of(2, 3)), pairs(r.output()), "induced: 5 edges with cycles");
    }

    @Test
    void t6SumRule() {
        McmiExpansion.Result r = t6(McmiExpansion.Rule.SUM);
        assertEquals("ABCDG", names(r.nodes()));
        assertEquals(2, r.expansions());
        assertEquals(0.7618, r.ratio(), 1e-4);
        assertEquals(6, r.output().size());
    }

    @Test
    void t6ReferenceRule() {
        McmiExpansion.Result r = t6(McmiExpansion.Rule.REFERENCE);
        assertEquals("ABCDEFG", names(r.nodes()));
        List<Integer> order = new ArrayList<>(r.nodes()).subList(3, 7);
        assertEquals(List.of(id("D"), id("G"), id("F"), id("E")), order);
    }

    @Test
    void expansionOffKeepsTheTreeAndTheCapHolds() {
        CostGraph g = t6Graph();
        SteinerTree.Tree tree = SteinerTree.mehlhorn(g, Set.of(id("A"), id("C")));
        assertEquals("ABC", names(McmiExpansion.expand(g, T6_S, tree, McmiExpansion.Rule.MEAN, false, 20, true, -1).nodes()));
        assertEquals(2, McmiExpansion.expand(g, T6_S, tree, McmiExpansion.Rule.REFERENCE, true, 2, false, -1).expansions());
    }

    // ---- T7: serialisation ------------------------------------------------------------------------------------
    @Test
    void t7SerialisationAndPathChunks() {
        String[] names = {"alice", "bob", "paris", "c0", "paris city"};
        CostGraph.Builder g = CostGraph.builder(5);
        g.add(0, 2, 0.3, CostGraph.EdgeType.REL, "alice", "visited", "paris", 2);
        g.add(1, 0, 0.2, CostGraph.EdgeType.REL, "alice", "met", "bob", 1);
        g.add(3, 0, 0.1, CostGraph.EdgeType.CONTAINS);
        g.add(3, 1, 0.1, CostGraph.EdgeType.CONTAINS);
        g.add(3, 2, 0.1, CostGraph.EdgeType.CONTAINS);
        Set<Integer> v = new java.util.LinkedHashSet<>(List.of(0, 1, 2, 3));
        List<CostGraph.Edge> out = g.build().edges().stream().filter(e -> v.contains(e.u()) && v.contains(e.v())).toList();
        SubgraphText.Rendered r = SubgraphText.render(v, out, new double[] {.3, .3, .2, .01, 0}, i -> i != 3, i -> names[i]);
        assertEquals(List.of("(alice [SEP] met [SEP] bob) [SEP_REC] (alice [SEP] visited [SEP] paris)"), r.graphStrings());
        assertEquals(List.of(3), r.pathChunks());
    }

    // ---- T8: filter mapping -------------------------------------------------------------------------------------
    @Test
    void t8FilterMapping() {
        List<List<String>> candidates = List.of(List.of("alice", "met", "bob"), List.of("alice", "visited", "paris"),
                List.of("bob", "lives in", "paris city"));
        List<List<String>> returned = List.of(List.of("Alice", "met", "Bob"), List.of("bob", "lives in", "paris"), List.of("carol", "knows", "dave"));
        assertEquals(0.783, FactMatcher.similarity("bob|lives in|paris", "bob|lives in|paris city"), 1e-3);
        assertEquals(List.of(0, 2), FactMatcher.map(returned, candidates, FactMatcher.DEFAULT_MIN_SIMILARITY, 5));
        assertEquals(List.of(0), FactMatcher.map(returned, candidates, FactMatcher.DEFAULT_MIN_SIMILARITY, 1), "truncated to k");
        assertFalse(FactMatcher.map(List.of(List.of("carol", "knows", "dave")), candidates, 0.75, 5).contains(1));
    }

    static Set<Set<Integer>> pairs(List<CostGraph.Edge> edges) {
        return edges.stream().map(e -> Set.of(e.u(), e.v())).collect(Collectors.toSet());
    }

    static String names(Set<Integer> nodes) {
        return nodes.stream().sorted().map(i -> String.valueOf(NAMES.charAt(i))).collect(Collectors.joining());
    }
}
