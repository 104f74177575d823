package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Mehlhorn's 2-approximate minimum-cost Steiner tree (paper Alg. 3 l. 1-10, Thm. 2): Voronoi regions of the terminals by a
 * multi-source Dijkstra, the terminal distance graph over bridge edges, its MST expanded to paths, an MST of
 * that, then non-terminal leaves pruned. Ties go to smaller node ids, so the result is deterministic.
 */
public final class SteinerTree {
    /**
     * The tree: its nodes and edges (a forest when terminals lie in different components); settledNodes = how
     * many nodes the Voronoi search settled before it could stop; networkWeight = the length of the terminal
     * distance graph's spanning tree it was built from (the tree costs at most that); cut = null when the search
     * ran to its end, else where the node budget stopped it.
     */
    public record Tree(Set<Integer> nodes, List<CostGraph.Edge> edges, long settledNodes, double networkWeight, Cut cut) {
        public double cost() {
            return edges.stream().mapToDouble(CostGraph.Edge::cost).sum();
        }
    }

    /**
     * A search stopped at its node budget before its own stopping rule held: the distance graph's edges shorter than
     * exactBelow (twice the distance out to which every node was settled) were all known, so Kruskal joined with them
     * exactly as the full search would; joins = the lengths of the known paths (each at least exactBelow) that joined
     * the groups left. The full search joins those groups with edges of length at least exactBelow too, hence the bound
     * the tests hold it to: networkWeight &le; the full search's networkWeight + slack(), slack = &Sigma; (join &minus; exactBelow).
     */
    public record Cut(double exactBelow, double[] joins) {
        public double slack() {
            double s = 0;
            for (double j : joins) s += j - exactBelow;
            return s;
        }
    }

    /** One edge of the terminal distance graph: regions a and b, the bridge edge between them and the path's length. */
    private record Join(int a, int b, int edge, double length) {}

    private SteinerTree() {}

    /** The full search: settles every node it needs, however many. */
    public static Tree mehlhorn(CostGraph g, Set<Integer> terminals) {
        return mehlhorn(g, terminals, Long.MAX_VALUE);
    }

    /**
     * @param maxSettled the node budget: past it, the search stops at the first check where the shortest paths found so
     *                   far join every terminal ({@link Cut}); it settles no more nodes than the full search would
     */
    public static Tree mehlhorn(CostGraph g, Set<Integer> terminals, long maxSettled) {
        return mehlhorn(g, terminals, 64, maxSettled);
    }

    /** @param firstCheck settled nodes before the first early-stop check (then at every doubling); tests vary it */
    static Tree mehlhorn(CostGraph g, Set<Integer> terminals, long firstCheck, long maxSettled) {
        Set<Integer> terms = new TreeSet<>(terminals);
        if (terms.isEmpty()) return new Tree(Set.of(), List.of(), 0, 0, null);
        if (terms.size() == 1) return new Tree(new LinkedHashSet<>(terms), List.of(), 0, 0, null);
        int n = g.nodeCount();
        double[] dist = new double[n];
        int[] src = new int[n];
        int[] pred = new int[n]; // edge id into the node on its shortest path from its terminal, -1 at terminals
        Arrays.fill(dist, Double.POSITIVE_INFINITY);
        Arrays.fill(src, -1);
        Arrays.fill(pred, -1);
        CostGraph.NodeHeap pq = new CostGraph.NodeHeap();
        for (int t : terms) {
            dist[t] = 0;
            src[t] = t;
            pq.push(0, t);
        }
        boolean[] done = new boolean[n];
        // Bridge edges (ends in different regions) are recorded as their second end settles. With every node nearer
        // than r settled (r the heap's least key), a bridge not yet recorded has an unsettled end v, whose distance is at
        // least r, and its path to v's terminal runs through its other end u, so dist[u] + cost >= r too: it is at
        // least 2r long. The search stops once the recorded bridges shorter than 2r join all terminals: every other
        // bridge sorts after those, so Kruskal below picks exactly what the full search would.
        List<Integer> bridges = new ArrayList<>();
        List<Integer> settledOrder = new ArrayList<>();
        List<Join> h = null;
        double cutBelow = Double.NaN; // set where the budget stopped the search: its exactBelow
        long settled = 0, nextCheck = firstCheck, nextBudgetCheck = maxSettled;
        while (!pq.isEmpty()) {
            int u = pq.pop();
            if (done[u]) continue;
            done[u] = true;
            settledOrder.add(u);
            for (int k = g.first(u), end = g.first(u + 1); k < end; k++) {
                int e = g.edgeAt(k), v = g.nodeAt(k);
                if (done[v]) {
                    if (src[v] != src[u]) bridges.add(e);
                    continue;
                }
                double d = dist[u] + g.cost(e);
                if (d < dist[v] || (d == dist[v] && src[u] < src[v])) {
                    dist[v] = d;
                    src[v] = src[u];
                    pred[v] = e;
                    pq.push(d, v);
                }
            }
            // the full search's checks (firstCheck, then every doubling) and the budget's (maxSettled, then every
            // doubling): a budget never skips a check the full search makes, so it never settles more nodes
            if (++settled == nextCheck || settled == nextBudgetCheck) {
                if (settled == nextCheck) nextCheck = doubled(nextCheck);
                if (settled == nextBudgetCheck) nextBudgetCheck = doubled(nextBudgetCheck);
                while (!pq.isEmpty() && done[pq.topNode()]) pq.pop();
                if (pq.isEmpty()) break;
                double exactBelow = 2 * pq.topKey();
                List<Join> order = bridgeOrder(g, bridges, dist, src, exactBelow);
                if (joins(order, terms)) {
                    h = order;
                    break;
                }
                if (settled >= maxSettled) {
                    // past the budget: the edges shorter than exactBelow are exact; the groups they leave apart may be joined by
                    // the shortest paths known, through settled bridges or edges to nodes reached but not settled. Where
                    // those do not join every terminal yet, the search goes on to the next check (at most doubling its work)
                    order = bridgeOrder(g, frontierBridges(g, bridges, settledOrder, done, src), dist, src, Double.POSITIVE_INFINITY);
                    if (joins(order, terms)) {
                        h = order;
                        cutBelow = exactBelow;
                        break;
                    }
                }
            }
        }
        if (h == null) h = bridgeOrder(g, bridges, dist, src, Double.POSITIVE_INFINITY);
        UnionFind uf = new UnionFind(n);
        Set<Integer> g3 = new TreeSet<>();
        double networkWeight = 0;
        List<Double> beyond = new ArrayList<>();
        for (Join j : h) {
            if (!uf.union(j.a(), j.b())) continue;
            networkWeight += j.length();
            if (!Double.isNaN(cutBelow) && !(j.length() < cutBelow)) beyond.add(j.length());
            g3.add(j.edge());
            for (int end : new int[] {g.u(j.edge()), g.v(j.edge())}) {
                for (int x = end; pred[x] >= 0; x = g.other(pred[x], x)) g3.add(pred[x]);
            }
        }
        Cut cut = Double.isNaN(cutBelow) ? null : new Cut(cutBelow, beyond.stream().mapToDouble(Double::doubleValue).toArray());
        // MST of the expanded paths, then prune non-terminal leaves
        List<CostGraph.Edge> candidates = new ArrayList<>();
        for (int id : g3) candidates.add(g.edge(id));
        candidates.sort(Comparator.comparingDouble(CostGraph.Edge::cost).thenComparingInt(CostGraph.Edge::id));
        UnionFind mst = new UnionFind(n);
        List<CostGraph.Edge> tree = new ArrayList<>();
        for (CostGraph.Edge e : candidates) if (mst.union(e.u(), e.v())) tree.add(e);
        boolean pruned = true;
        while (pruned) {
            pruned = false;
            Map<Integer, Integer> degree = new HashMap<>();
            for (CostGraph.Edge e : tree) {
                degree.merge(e.u(), 1, Integer::sum);
                degree.merge(e.v(), 1, Integer::sum);
            }
            for (int i = tree.size() - 1; i >= 0; i--) {
                CostGraph.Edge e = tree.get(i);
                if ((degree.get(e.u()) == 1 && !terms.contains(e.u())) || (degree.get(e.v()) == 1 && !terms.contains(e.v()))) {
                    tree.remove(i);
                    pruned = true;
                }
            }
        }
        Set<Integer> nodes = new LinkedHashSet<>(terms);
        for (CostGraph.Edge e : tree) {
            nodes.add(e.u());
            nodes.add(e.v());
        }
        return new Tree(nodes, tree, settled, networkWeight, cut);
    }

    /**
     * The terminal distance graph's edges below {@code limit}: the cheapest bridge per pair of regions (ties to
     * the smaller edge id), sorted by length, then a, then b. A bridge's length is its ends' distances from their
     * terminals plus its cost: exact where both ends are settled, a path's length (an upper bound) where one is only reached.
     */
    private static List<Join> bridgeOrder(CostGraph g, List<Integer> bridges, double[] dist, int[] src, double limit) {
        Map<Long, Join> best = new HashMap<>();
        for (int e : bridges) {
            int a = src[g.u(e)], b = src[g.v(e)];
            double d = dist[g.u(e)] + g.cost(e) + dist[g.v(e)];
            if (!(d < limit)) continue;
            long key = ((long) Math.min(a, b) << 32) | Math.max(a, b);
            Join cur = best.get(key);
            if (cur == null || d < cur.length() || (d == cur.length() && e < cur.edge())) best.put(key, new Join(Math.min(a, b), Math.max(a, b), e, d));
        }
        List<Join> h = new ArrayList<>(best.values());
        h.sort(Comparator.comparingDouble(Join::length).thenComparingInt(Join::a).thenComparingInt(Join::b));
        return h;
    }

    private static long doubled(long x) {
        return x > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * x;
    }

    /** The settled bridges and every edge from a settled node to a reached, unsettled one of another region. */
    private static List<Integer> frontierBridges(CostGraph g, List<Integer> bridges, List<Integer> settled, boolean[] done, int[] src) {
        List<Integer> out = new ArrayList<>(bridges);
        for (int x : settled) {
            for (int k = g.first(x), end = g.first(x + 1); k < end; k++) {
                int v = g.nodeAt(k);
                if (!done[v] && src[v] >= 0 && src[v] != src[x]) out.add(g.edgeAt(k));
            }
        }
        return out;
    }

    /** Whether these distance-graph edges connect all terminals. */
    private static boolean joins(List<Join> order, Set<Integer> terms) {
        Map<Integer, Integer> parent = new HashMap<>();
        for (int t : terms) parent.put(t, t);
        int unions = 0;
        for (Join j : order) {
            int ra = root(parent, j.a()), rb = root(parent, j.b());
            if (ra != rb) {
                parent.put(ra, rb);
                if (++unions == terms.size() - 1) return true;
            }
        }
        return false;
    }

    private static int root(Map<Integer, Integer> parent, int x) {
        while (parent.get(x) != x) x = parent.get(x);
        return x;
    }

    static final class UnionFind {
        private final int[] parent;

        UnionFind(int n) {
            parent = new int[n];
            for (int i = 0; i < n; i++) parent[i] = i;
        }

        int find(int x) {
            while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            return x;
        }

        boolean union(int a, int b) {
            int ra = find(a), rb = find(b);
            if (ra == rb) return false;
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
            return true;
        }
    }
}
