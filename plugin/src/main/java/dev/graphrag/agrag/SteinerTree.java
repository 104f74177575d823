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
 * Mehlhorn's 2-approximate minimum-cost Steiner tree (spec §2.3 B6): Voronoi regions of the terminals by a
 * multi-source Dijkstra, the terminal distance graph over bridge edges, its MST expanded to paths, an MST of
 * that, then non-terminal leaves pruned. Ties go to smaller node ids, so the result is deterministic.
 */
public final class SteinerTree {
    /**
     * The tree: its nodes and edges (a forest when terminals lie in different components); settledNodes = how
     * many nodes the Voronoi search settled before it could stop.
     */
    public record Tree(Set<Integer> nodes, List<CostGraph.Edge> edges, long settledNodes) {
        public double cost() {
            return edges.stream().mapToDouble(CostGraph.Edge::cost).sum();
        }
    }

    private SteinerTree() {}

    public static Tree mehlhorn(CostGraph g, Set<Integer> terminals) {
        return mehlhorn(g, terminals, 64);
    }

    /** @param firstCheck settled nodes before the first early-stop check (then at every doubling); tests vary it */
    static Tree mehlhorn(CostGraph g, Set<Integer> terminals, long firstCheck) {
        Set<Integer> terms = new TreeSet<>(terminals);
        if (terms.isEmpty()) return new Tree(Set.of(), List.of(), 0);
        if (terms.size() == 1) return new Tree(new LinkedHashSet<>(terms), List.of(), 0);
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
        // Bridge edges (ends in different regions) are recorded as their second end settles. The search stops
        // early once the bridges cheaper than every unsettled distance already join all terminals: any other
        // bridge sorts after those, so Kruskal below picks exactly what the full search would.
        List<Integer> bridges = new ArrayList<>();
        List<long[]> h = null;
        long settled = 0, nextCheck = firstCheck;
        while (!pq.isEmpty()) {
            int u = pq.pop();
            if (done[u]) continue;
            done[u] = true;
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
            if (++settled == nextCheck) {
                nextCheck *= 2;
                while (!pq.isEmpty() && done[pq.topNode()]) pq.pop();
                if (pq.isEmpty()) break;
                List<long[]> order = bridgeOrder(g, bridges, dist, src, pq.topKey());
                if (joins(order, terms)) {
                    h = order;
                    break;
                }
            }
        }
        if (h == null) h = bridgeOrder(g, bridges, dist, src, Double.POSITIVE_INFINITY);
        UnionFind uf = new UnionFind(n);
        Set<Integer> g3 = new TreeSet<>();
        for (long[] item : h) {
            if (!uf.union((int) item[0], (int) item[1])) continue;
            int e = (int) item[2];
            g3.add(e);
            for (int end : new int[] {g.u(e), g.v(e)}) {
                for (int x = end; pred[x] >= 0; x = g.other(pred[x], x)) g3.add(pred[x]);
            }
        }
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
        return new Tree(nodes, tree, settled);
    }

    /**
     * The terminal distance graph's edges below {@code limit}: the cheapest bridge per pair of regions (ties to
     * the smaller edge id) as {a, b, edge id}, sorted by distance, then a, then b.
     */
    private static List<long[]> bridgeOrder(CostGraph g, List<Integer> bridges, double[] dist, int[] src, double limit) {
        Map<Long, double[]> best = new HashMap<>(); // (a,b) -> {distance, edge id}
        for (int e : bridges) {
            int a = src[g.u(e)], b = src[g.v(e)];
            double d = dist[g.u(e)] + g.cost(e) + dist[g.v(e)];
            if (!(d < limit)) continue;
            long key = ((long) Math.min(a, b) << 32) | Math.max(a, b);
            double[] cur = best.get(key);
            if (cur == null || d < cur[0] || (d == cur[0] && e < cur[1])) best.put(key, new double[] {d, e});
        }
        List<long[]> h = new ArrayList<>();
        Map<long[], Double> hd = new HashMap<>();
        for (Map.Entry<Long, double[]> en : best.entrySet()) {
            long[] item = {en.getKey() >>> 32, en.getKey() & 0xffffffffL, (long) en.getValue()[1]};
            h.add(item);
            hd.put(item, en.getValue()[0]);
        }
        h.sort(Comparator.<long[]>comparingDouble(hd::get).thenComparingLong(x -> x[0]).thenComparingLong(x -> x[1]));
        return h;
    }

    /** Whether these distance-graph edges connect all terminals. */
    private static boolean joins(List<long[]> order, Set<Integer> terms) {
        Map<Integer, Integer> parent = new HashMap<>();
        for (int t : terms) parent.put(t, t);
        int unions = 0;
        for (long[] item : order) {
            int ra = root(parent, (int) item[0]), rb = root(parent, (int) item[1]);
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
