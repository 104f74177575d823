package dev.graphrag.agrag;

import java.util.ArrayList;
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
        // per-node state for the nodes the search reaches only, by local id: the search stops early, so on a large
        // graph it reaches a small part of it, and arrays over every node would cost more to set up than the search
        Reached r = new Reached();
        CostGraph.NodeHeap pq = new CostGraph.NodeHeap();
        for (int t : terms) {
            int i = r.reach(t);
            r.dist[i] = 0;
            r.src[i] = t;
            pq.push(0, t);
        }
        // Bridge edges (ends in different regions) are recorded as their second end settles. The search stops
        // early once the bridges cheaper than every unsettled distance already join all terminals: any other
        // bridge sorts after those, so Kruskal below picks exactly what the full search would.
        List<Integer> bridges = new ArrayList<>();
        List<long[]> h = null;
        long settled = 0, nextCheck = firstCheck;
        while (!pq.isEmpty()) {
            int u = pq.pop();
            int iu = r.ids.get(u);
            if (r.done[iu]) continue;
            r.done[iu] = true;
            double du = r.dist[iu];
            int su = r.src[iu];
            for (int k = g.first(u), end = g.first(u + 1); k < end; k++) {
                int e = g.edgeAt(k), x = g.nodeAt(k), iv = r.reach(x);
                if (r.done[iv]) {
                    if (r.src[iv] != su) bridges.add(e);
                    continue;
                }
                double d = du + g.cost(e);
                if (d < r.dist[iv] || (d == r.dist[iv] && su < r.src[iv])) {
                    r.dist[iv] = d;
                    r.src[iv] = su;
                    r.pred[iv] = e;
                    pq.push(d, x);
                }
            }
            if (++settled == nextCheck) {
                nextCheck *= 2;
                while (!pq.isEmpty() && r.done[r.ids.get(pq.topNode())]) pq.pop();
                if (pq.isEmpty()) break;
                List<long[]> order = bridgeOrder(g, bridges, r, pq.topKey());
                if (joins(order, terms)) {
                    h = order;
                    break;
                }
            }
        }
        if (h == null) h = bridgeOrder(g, bridges, r, Double.POSITIVE_INFINITY);
        // every node below (bridge ends, the paths to them, the tree's ends) was reached, so has a local id
        UnionFind uf = new UnionFind(r.ids.size());
        Set<Integer> g3 = new TreeSet<>();
        for (long[] item : h) {
            if (!uf.union(r.ids.get((int) item[0]), r.ids.get((int) item[1]))) continue;
            int e = (int) item[2];
            g3.add(e);
            for (int end : new int[] {g.u(e), g.v(e)}) {
                for (int x = end; r.pred[r.ids.get(x)] >= 0; x = g.other(r.pred[r.ids.get(x)], x)) g3.add(r.pred[r.ids.get(x)]);
            }
        }
        // MST of the expanded paths, then prune non-terminal leaves
        List<CostGraph.Edge> candidates = new ArrayList<>();
        for (int id : g3) candidates.add(g.edge(id));
        candidates.sort(Comparator.comparingDouble(CostGraph.Edge::cost).thenComparingInt(CostGraph.Edge::id));
        UnionFind mst = new UnionFind(r.ids.size());
        List<CostGraph.Edge> tree = new ArrayList<>();
        for (CostGraph.Edge e : candidates) if (mst.union(r.ids.get(e.u()), r.ids.get(e.v()))) tree.add(e);
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
    private static List<long[]> bridgeOrder(CostGraph g, List<Integer> bridges, Reached r, double limit) {
        Map<Long, double[]> best = new HashMap<>(); // (a,b) -> {distance, edge id}
        for (int e : bridges) {
            int iu = r.ids.get(g.u(e)), iv = r.ids.get(g.v(e));
            int a = r.src[iu], b = r.src[iv];
            double d = r.dist[iu] + g.cost(e) + r.dist[iv];
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

    /** The search's state per reached node, by local id: distance, region (its terminal), edge in (-1 at terminals), settled. */
    private static final class Reached {
        final LocalIds ids = new LocalIds();
        double[] dist = new double[64];
        int[] src = new int[64], pred = new int[64];
        boolean[] done = new boolean[64];

        /** The local id of node x, new ones at an infinite distance in no region. */
        int reach(int x) {
            int before = ids.size(), i = ids.add(x);
            if (i == before) {
                if (i == dist.length) {
                    dist = LocalIds.room(dist, i);
                    src = LocalIds.room(src, i);
                    pred = LocalIds.room(pred, i);
                    done = LocalIds.room(done, i);
                }
                dist[i] = Double.POSITIVE_INFINITY;
                src[i] = -1;
                pred[i] = -1;
            }
            return i;
        }
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
