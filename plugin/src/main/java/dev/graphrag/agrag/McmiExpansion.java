package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The Minimum-Cost Maximum-Influence subgraph (paper Def. 1, Eq. 15-17, Alg. 3 l. 11-16; the rules in docs/agrag.md#where-the-paper-and-the-code-differ): the Steiner tree grown greedily by the
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
        Frontier frontier = new Frontier(g, s, pseudo, rule);
        if (expansion) for (int u : nodes) frontier.add(u);
        int expansions = 0;
        while (expansion && expansions < maxExpansions) {
            Frontier.Candidate best = frontier.best();
            if (best == null) break;
            if (rule == Rule.REFERENCE) {
                if (-best.key() < refThreshold) break;
            } else if (best.key() >= ratio(selected, s, rule)) {
                break;
            }
            nodes.add(best.node());
            selected.add(g.edge(frontier.via[best.node()]));
            frontier.add(best.node());
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
     * node other than the pseudo node, each with its cheapest such edge (ties to the smaller set node). Kept in a
     * heap by the rule's order, an entry pushed each time a candidate's edge gets cheaper and skipped when it is
     * stale, so a step costs a logarithm of the candidates instead of a pass over them: a hub in the set brings
     * every neighbour it has.
     */
    private static final class Frontier {
        /** A candidate as it was pushed: its key, influence and edge cost then. */
        record Candidate(double key, double s, double c, int node, int via) {}

        final CostGraph g;
        final double[] s;
        final int pseudo;
        final Rule rule;
        final boolean[] in;
        final int[] via;
        final java.util.PriorityQueue<Candidate> heap = new java.util.PriorityQueue<>((a, b) ->
                better(a.key(), a.s(), a.c(), a.node(), b.key(), b.s(), b.c(), b.node()) ? -1
                        : better(b.key(), b.s(), b.c(), b.node(), a.key(), a.s(), a.c(), a.node()) ? 1 : 0);

        Frontier(CostGraph g, double[] s, int pseudo, Rule rule) {
            this.g = g;
            this.s = s;
            this.pseudo = pseudo;
            this.rule = rule;
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
                if (cur < 0 || g.cost(e) < g.cost(cur) || (g.cost(e) == g.cost(cur) && u < g.other(cur, v))) {
                    via[v] = e;
                    double c = g.cost(e);
                    heap.add(new Candidate(rule == Rule.REFERENCE ? -(c == 0 ? Double.POSITIVE_INFINITY : s[v] / c) : c / s[v], s[v], c, v, e));
                }
            }
        }

        /** The best candidate by the rule's order, or null when none is left. */
        Candidate best() {
            while (!heap.isEmpty()) {
                Candidate top = heap.peek();
                if (!in[top.node()] && via[top.node()] == top.via()) return top;
                heap.poll();
            }
            return null;
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
