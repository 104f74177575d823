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
        int expansions = 0;
        while (expansion && expansions < maxExpansions) {
            int best = -1;
            CostGraph.Edge bestEdge = null;
            double bestKey = 0;
            for (int u : nodes) {
                for (CostGraph.Edge e : g.adjacent(u)) {
                    int v = e.other(u);
                    if (nodes.contains(v) || v == pseudo || e.type() == CostGraph.EdgeType.PSEUDO || !(s[v] > 0)) continue;
                    CostGraph.Edge via = cheapestInto(g, v, nodes, pseudo);
                    if (bestEdge != null && v == best) continue;
                    double key = rule == Rule.REFERENCE ? -(via.cost() == 0 ? Double.POSITIVE_INFINITY : s[v] / via.cost()) : via.cost() / s[v];
                    if (best < 0 || better(key, s[v], via.cost(), v, bestKey, s[best], bestEdge.cost(), best)) {
                        best = v;
                        bestEdge = via;
                        bestKey = key;
                    }
                }
            }
            if (best < 0) break;
            if (rule == Rule.REFERENCE) {
                if (-bestKey < refThreshold) break;
            } else if (bestKey >= ratio(selected, s, rule)) {
                break;
            }
            nodes.add(best);
            selected.add(bestEdge);
            expansions++;
        }
        List<CostGraph.Edge> output;
        if (induced) {
            java.util.Map<Long, CostGraph.Edge> byPair = new java.util.HashMap<>();
            for (int u : nodes) {
                for (CostGraph.Edge e : g.adjacent(u)) {
                    if (e.type() == CostGraph.EdgeType.PSEUDO || !nodes.contains(e.other(u))) continue;
                    long key = ((long) Math.min(e.u(), e.v()) << 32) | Math.max(e.u(), e.v());
                    byPair.merge(key, e, (a, b) -> b.cost() < a.cost() || (b.cost() == a.cost() && b.id() < a.id()) ? b : a);
                }
            }
            output = new ArrayList<>(byPair.values());
        } else {
            output = new ArrayList<>(selected);
            output.removeIf(e -> e.type() == CostGraph.EdgeType.PSEUDO);
        }
        output.sort(Comparator.comparingInt(CostGraph.Edge::id));
        return new Result(new LinkedHashSet<>(tree.nodes()), List.copyOf(tree.edges()), nodes, selected, output,
                ratio(selected, s, rule == Rule.REFERENCE ? Rule.MEAN : rule), expansions);
    }

    /** min over non-pseudo edges u-v with u in the set of (cost, u). */
    private static CostGraph.Edge cheapestInto(CostGraph g, int v, Set<Integer> nodes, int pseudo) {
        CostGraph.Edge best = null;
        for (CostGraph.Edge e : g.adjacent(v)) {
            int u = e.other(v);
            if (!nodes.contains(u) || u == pseudo || e.type() == CostGraph.EdgeType.PSEUDO) continue;
            if (best == null || e.cost() < best.cost() || (e.cost() == best.cost() && u < best.other(v))) best = e;
        }
        return best;
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
