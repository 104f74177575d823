package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The Minimum-Cost Maximum-Influence subgraph (spec §2.3 B7): the Steiner tree grown greedily by the
 * neighbour with the best cost/influence ratio while it beats the subgraph's ratio r. Rules: MEAN (default,
 * r strictly decreases, so it terminates, Thm 3), SUM (the paper's literal Eq. 15) and REFERENCE (the
 * reference code's fixed threshold). Pseudo edges never count in r and never bring candidates.
 */
public final class McmiExpansion {
    public enum Rule { MEAN, SUM, REFERENCE }

    /** The result: the tree, the grown node set, the selected edges (tree + one per added node) and the output edges. */
    public record Result(Set<Integer> mcstNodes, List<CostGraph.Edge> mcstEdges, Set<Integer> nodes, List<CostGraph.Edge> selected,
                         List<CostGraph.Edge> output, double ratio, int expansions) {}

    static final double EPS = 1e-12;

    private McmiExpansion() {}

    /**
     * @param s      influence score per node (0 for the pseudo node)
     * @param pseudo the pseudo node's id, or -1
     * @param induced output = all edges of g among the nodes (minus pseudo edges); else the selected edges
     */
    public static Result expand(CostGraph g, double[] s, SteinerTree.Tree tree, Rule rule, boolean expansion, int maxExpansions,
                                boolean induced, int pseudo) {
        Set<Integer> nodes = new LinkedHashSet<>(tree.nodes());
        List<CostGraph.Edge> selected = new ArrayList<>(tree.edges());
        double refThreshold = 0;
        if (rule == Rule.REFERENCE) {
            double sum = 0;
            int k = 0;
            for (CostGraph.Edge e : tree.edges()) {
                if (e.type() == CostGraph.EdgeType.PSEUDO) continue;
                sum += (s[e.u()] + s[e.v()]) / 2 * e.cost();
                k++;
            }
            refThreshold = k == 0 ? 0 : sum / k;
        }
        Frontier frontier = new Frontier(g, s, pseudo);
        if (expansion) for (int u : nodes) frontier.add(u);
        int expansions = 0;
        while (expansion && expansions < maxExpansions) {
            int best = -1;
            double bestKey = 0;
            for (int i = 0; i < frontier.candidates.size(); i++) {
                int v = frontier.candidates.get(i);
                if (frontier.in[v]) continue;
                double c = g.cost(frontier.via[v]);
                double key = rule == Rule.REFERENCE ? -(c == 0 ? Double.POSITIVE_INFINITY : s[v] / c) : c / s[v];
                if (best < 0 || better(key, s[v], c, v, bestKey, s[best], g.cost(frontier.via[best]), best)) {
                    best = v;
                    bestKey = key;
                }
            }
            if (best < 0) break;
            if (rule == Rule.REFERENCE) {
                if (-bestKey < refThreshold) break;
            } else if (bestKey >= ratio(selected, s, rule)) {
                break;
            }
            nodes.add(best);
            selected.add(g.edge(frontier.via[best]));
            frontier.add(best);
            expansions++;
        }
        List<CostGraph.Edge> output;
        if (induced) {
            java.util.Map<Long, Integer> byPair = new java.util.HashMap<>();
            for (int u : nodes) {
                for (int k = g.first(u), end = g.first(u + 1); k < end; k++) {
                    int e = g.edgeAt(k);
                    if (g.type(e) == CostGraph.EdgeType.PSEUDO || !nodes.contains(g.other(e, u))) continue;
                    long key = ((long) Math.min(g.u(e), g.v(e)) << 32) | Math.max(g.u(e), g.v(e));
                    byPair.merge(key, e, (a, b) -> g.cost(b) < g.cost(a) || (g.cost(b) == g.cost(a) && b < a) ? b : a);
                }
            }
            output = new ArrayList<>();
            for (int e : byPair.values()) output.add(g.edge(e));
        } else {
            output = new ArrayList<>(selected);
            output.removeIf(e -> e.type() == CostGraph.EdgeType.PSEUDO);
        }
        output.sort(Comparator.comparingInt(CostGraph.Edge::id));
        return new Result(new LinkedHashSet<>(tree.nodes()), List.copyOf(tree.edges()), nodes, selected, output,
                ratio(selected, s, rule == Rule.REFERENCE ? Rule.MEAN : rule), expansions);
    }

    /**
     * The expansion candidates: nodes outside the set with influence > 0 that a non-pseudo edge joins to a set
     * node other than the pseudo node, each with its cheapest such edge (ties to the smaller set node). Kept up
     * to date as nodes join, so a step costs one pass over the candidates instead of a rescan of every set
     * node's neighbourhood.
     */
    private static final class Frontier {
        final CostGraph g;
        final double[] s;
        final int pseudo;
        final boolean[] in;
        final int[] via;
        final List<Integer> candidates = new ArrayList<>();

        Frontier(CostGraph g, double[] s, int pseudo) {
            this.g = g;
            this.s = s;
            this.pseudo = pseudo;
            this.in = new boolean[g.nodeCount()];
            this.via = new int[g.nodeCount()];
            java.util.Arrays.fill(via, -1);
        }

        void add(int u) {
            in[u] = true;
            if (u == pseudo) return;
            for (int k = g.first(u), end = g.first(u + 1); k < end; k++) {
                int e = g.edgeAt(k);
                if (g.type(e) == CostGraph.EdgeType.PSEUDO) continue;
                int v = g.nodeAt(k);
                if (in[v] || v == pseudo || !(s[v] > 0)) continue;
                int cur = via[v];
                if (cur < 0) {
                    candidates.add(v);
                    via[v] = e;
                } else if (g.cost(e) < g.cost(cur) || (g.cost(e) == g.cost(cur) && u < g.other(cur, v))) {
                    via[v] = e;
                }
            }
        }
    }

    /** Smaller key first; then larger s, then smaller c, then smaller id. */
    private static boolean better(double key, double s, double c, int id, double bKey, double bS, double bC, int bId) {
        if (key != bKey) return key < bKey;
        if (s != bS) return s > bS;
        if (c != bC) return c < bC;
        return id < bId;
    }

    /** r(E_sel): mean (or sum) of c_e / (s_u + s_v) over non-pseudo edges; +inf when there are none. */
    public static double ratio(List<CostGraph.Edge> edges, double[] s, Rule rule) {
        double sum = 0;
        int k = 0;
        for (CostGraph.Edge e : edges) {
            if (e.type() == CostGraph.EdgeType.PSEUDO) continue;
            sum += e.cost() / Math.max(s[e.u()] + s[e.v()], EPS);
            k++;
        }
        if (k == 0) return Double.POSITIVE_INFINITY;
        return rule == Rule.SUM ? sum : sum / k;
    }
}
