package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-query weighted graph of AGRAG's retrieval (spec §2.3 B5-B8): undirected, nodes 0..n-1, one edge
 * per node pair (parallel edges collapse to the cheapest, as B5 says). Plain Java, no Neo4j.
 */
public final class CostGraph {
    public enum EdgeType { REL, SYNONYM, CONTAINS, PSEUDO, OTHER }

    /**
     * An edge u-v. For REL, {@code subject}/{@code predicate}/{@code object} carry the fact in its own direction
     * and {@code ref} the caller's reference (e.g. the relationship id); {@code ref} is -1 for virtual edges.
     */
    public record Edge(int id, int u, int v, double cost, EdgeType type, String subject, String predicate, String object, long ref) {
        public int other(int x) {
            return x == u ? v : u;
        }
    }

    private final int n;
    private final List<Edge> edges = new ArrayList<>();
    private final List<List<Edge>> adjacency;
    private final Map<Long, Integer> byPair = new HashMap<>();

    public CostGraph(int n) {
        this.n = n;
        this.adjacency = new ArrayList<>(n);
        for (int i = 0; i < n; i++) adjacency.add(new ArrayList<>());
    }

    /**
     * A graph over a fixed topology with per-query costs: {@code edges[i].id() == i}, adjacency lists hold edge ids.
     * Parallel edges are kept (Dijkstra and the expansion take the cheapest; the induced output keeps one per pair).
     */
    public static CostGraph of(int n, Edge[] edges, int[][] adjacency) {
        CostGraph g = new CostGraph(n);
        g.edges.addAll(java.util.Arrays.asList(edges));
        for (int u = 0; u < n; u++) {
            List<Edge> list = g.adjacency.get(u);
            for (int id : adjacency[u]) list.add(edges[id]);
        }
        return g;
    }

    public int nodeCount() { return n; }
    public List<Edge> edges() { return edges; }
    public List<Edge> adjacent(int u) { return adjacency.get(u); }

    public Edge add(int u, int v, double cost, EdgeType type) {
        return add(u, v, cost, type, null, null, null, -1);
    }

    /** Adds u-v, or keeps the existing pair edge when it is at least as cheap. Self loops are ignored. */
    public Edge add(int u, int v, double cost, EdgeType type, String subject, String predicate, String object, long ref) {
        if (u == v) return null;
        if (u < 0 || v < 0 || u >= n || v >= n) throw new IllegalArgumentException("node out of range: " + u + "-" + v);
        if (!(cost >= 0) || Double.isInfinite(cost)) throw new IllegalArgumentException("edge cost must be finite and >= 0, got " + cost);
        long key = pairKey(u, v);
        Integer existing = byPair.get(key);
        if (existing != null) {
            Edge old = edges.get(existing);
            if (old.cost() <= cost) return old;
            Edge replaced = new Edge(old.id(), u, v, cost, type, subject, predicate, object, ref);
            edges.set(old.id(), replaced);
            replaceIn(adjacency.get(u), replaced);
            replaceIn(adjacency.get(v), replaced);
            return replaced;
        }
        Edge e = new Edge(edges.size(), u, v, cost, type, subject, predicate, object, ref);
        edges.add(e);
        byPair.put(key, e.id());
        adjacency.get(u).add(e);
        adjacency.get(v).add(e);
        return e;
    }

    private static void replaceIn(List<Edge> list, Edge e) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id() == e.id()) list.set(i, e);
        }
    }

    private static long pairKey(int u, int v) {
        int a = Math.min(u, v), b = Math.max(u, v);
        return ((long) a << 32) | (b & 0xffffffffL);
    }
}
