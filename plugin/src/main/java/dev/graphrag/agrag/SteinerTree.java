package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Mehlhorn's 2-approximate minimum-cost Steiner tree (spec §2.3 B6): Voronoi regions of the terminals by a
 * multi-source Dijkstra, the terminal distance graph over bridge edges, its MST expanded to paths, an MST of
 * that, then non-terminal leaves pruned. Ties go to smaller node ids, so the result is deterministic.
 */
public final class SteinerTree {
    /** The tree: its nodes and edges (a forest when terminals lie in different components). */
    public record Tree(Set<Integer> nodes, List<CostGraph.Edge> edges) {
        public double cost() {
            return edges.stream().mapToDouble(CostGraph.Edge::cost).sum();
        }
    }

    private SteinerTree() {}

    public static Tree mehlhorn(CostGraph g, Set<Integer> terminals) {
        Set<Integer> terms = new TreeSet<>(terminals);
        if (terms.isEmpty()) return new Tree(Set.of(), List.of());
        if (terms.size() == 1) return new Tree(new LinkedHashSet<>(terms), List.of());
        int n = g.nodeCount();
        double[] dist = new double[n];
        int[] src = new int[n];
        CostGraph.Edge[] pred = new CostGraph.Edge[n];
        Arrays.fill(dist, Double.POSITIVE_INFINITY);
        Arrays.fill(src, -1);
        PriorityQueue<double[]> pq = new PriorityQueue<>(Comparator.<double[]>comparingDouble(a -> a[0]).thenComparingDouble(a -> a[1]));
        for (int t : terms) {
            dist[t] = 0;
            src[t] = t;
            pq.add(new double[] {0, t});
        }
        boolean[] done = new boolean[n];
        while (!pq.isEmpty()) {
            double[] top = pq.poll();
            int u = (int) top[1];
            if (done[u]) continue;
            done[u] = true;
            for (CostGraph.Edge e : g.adjacent(u)) {
                int v = e.other(u);
                double d = dist[u] + e.cost();
                if (d < dist[v] || (d == dist[v] && !done[v] && src[u] < src[v])) {
                    dist[v] = d;
                    src[v] = src[u];
                    pred[v] = e;
                    pq.add(new double[] {d, v});
                }
            }
        }
        // terminal distance graph: cheapest bridge edge per pair of Voronoi regions
        Map<Long, double[]> bridge = new HashMap<>(); // (a,b) -> {distance, edge id}
        for (CostGraph.Edge e : g.edges()) {
            int a = src[e.u()], b = src[e.v()];
            if (a < 0 || b < 0 || a == b) continue;
            double d = dist[e.u()] + e.cost() + dist[e.v()];
            long key = ((long) Math.min(a, b) << 32) | Math.max(a, b);
            double[] cur = bridge.get(key);
            if (cur == null || d < cur[0]) bridge.put(key, new double[] {d, e.id()});
        }
        List<long[]> h = new ArrayList<>(); // {a, b, edge id}, sorted by distance, a, b
        Map<long[], Double> hd = new HashMap<>();
        for (Map.Entry<Long, double[]> en : bridge.entrySet()) {
            long[] item = {en.getKey() >>> 32, en.getKey() & 0xffffffffL, (long) en.getValue()[1]};
            h.add(item);
            hd.put(item, en.getValue()[0]);
        }
        h.sort(Comparator.<long[]>comparingDouble(hd::get).thenComparingLong(x -> x[0]).thenComparingLong(x -> x[1]));
        UnionFind uf = new UnionFind(n);
        Set<Integer> g3 = new TreeSet<>();
        for (long[] item : h) {
            if (!uf.union((int) item[0], (int) item[1])) continue;
            CostGraph.Edge e = g.edges().get((int) item[2]);
            g3.add(e.id());
            for (int end : new int[] {e.u(), e.v()}) {
                for (int x = end; pred[x] != null; x = pred[x].other(x)) g3.add(pred[x].id());
            }
        }
        // MST of the expanded paths, then prune non-terminal leaves
        List<CostGraph.Edge> candidates = new ArrayList<>();
        for (int id : g3) candidates.add(g.edges().get(id));
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
        return new Tree(nodes, tree);
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
