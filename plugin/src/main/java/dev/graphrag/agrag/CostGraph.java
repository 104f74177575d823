package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

/**
 * The per-query weighted graph of AGRAG's retrieval (paper Eq. 14-18): undirected, nodes 0..n-1, edges 0..m-1.
 * A fixed {@link Topology} (ends, types, fact labels, adjacency) is built once per corpus snapshot and shared;
 * each query only supplies a cost array, so a query allocates no per-edge objects. Edges are materialised as
 * {@link Edge} records only for the few that end up in a result. Plain Java, no Neo4j.
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

    /**
     * The query-independent part: edge ends, types, references, fact labels and the edges at each node. The label
     * arrays may be shorter than the edges: edges past their end have none (a snapshot puts its facts first and keeps
     * no label slots for its millions of synonym and contains edges). The edges at a node are one row of compressed
     * arrays (no array per node, whose headers alone are tens of MB on the largest graphs), in ascending edge id,
     * and PPR walks the same rows ({@link PersonalizedPageRank.Transition}).
     */
    public static final class Topology {
        final int n;
        final int[] u, v;
        final EdgeType[] type;
        final long[] ref;
        final String[] subject, predicate, object;
        /** Node x's row is slots offset[x] .. offset[x+1]: slotEdge the edge id, slotNode the node at its other end. */
        final int[] offset, slotEdge, slotNode;

        public Topology(int n, int[] u, int[] v, EdgeType[] type, long[] ref, String[] subject, String[] predicate, String[] object) {
            int m = u.length;
            if (v.length != m || type.length != m || ref.length != m || subject.length > m || predicate.length != subject.length
                    || object.length != subject.length) {
                throw new IllegalArgumentException("edge arrays differ in length");
            }
            for (int e = 0; e < m; e++) {
                if (u[e] < 0 || v[e] < 0 || u[e] >= n || v[e] >= n) throw new IllegalArgumentException("node out of range: " + u[e] + "-" + v[e]);
            }
            int[][] rows = rows(n, u, v, m, false);
            offset = rows[0];
            slotEdge = rows[1];
            slotNode = rows[2];
            this.n = n;
            this.u = u;
            this.v = v;
            this.type = type;
            this.ref = ref;
            this.subject = subject;
            this.predicate = predicate;
            this.object = object;
        }

        /**
         * {offset, slotEdge, slotNode} of the first m edges: each node's row lists its edges in ascending id, the
         * lower end's slot first; a self loop takes one slot, or two where a walk counts it twice ({@code loopsTwice}).
         */
        static int[][] rows(int n, int[] u, int[] v, int m, boolean loopsTwice) {
            int[] degree = new int[n];
            for (int e = 0; e < m; e++) {
                degree[u[e]]++;
                if (v[e] != u[e] || loopsTwice) degree[v[e]]++;
            }
            int[] offset = new int[n + 1];
            for (int x = 0; x < n; x++) offset[x + 1] = offset[x] + degree[x];
            int[] slotEdge = new int[offset[n]], slotNode = new int[offset[n]];
            int[] fill = Arrays.copyOf(offset, n);
            for (int e = 0; e < m; e++) {
                slotNode[fill[u[e]]] = v[e];
                slotEdge[fill[u[e]]++] = e;
                if (v[e] != u[e] || loopsTwice) {
                    slotNode[fill[v[e]]] = u[e];
                    slotEdge[fill[v[e]]++] = e;
                }
            }
            return new int[][] {offset, slotEdge, slotNode};
        }

        public int nodeCount() { return n; }
        public int edgeCount() { return u.length; }
    }

    private final Topology t;
    /** Every edge's cost (null where they are kept in {@link #pages}). */
    private final double[] cost;
    /**
     * Where every cost is computed on demand: pages of {@link #PAGE} edges, each made (NaN-filled) when an edge of it is
     * first read. A query that reaches a few thousand edges of a graph of millions then allocates and fills a few
     * hundred kilobytes, not one slot per edge (on a 100k-chunk corpus, making and checking that per-query array took
     * about 5 % of agrag.mcmi's time: docs/benchmarks.md "AGRAG at 109k chunks").
     */
    private final double[][] pages;
    private final IntToDoubleFunction onDemand;
    static final int PAGE_BITS = 7, PAGE = 1 << PAGE_BITS;

    /** The topology with this query's costs ({@code cost[e]} for edge e, finite and >= 0). */
    public CostGraph(Topology topology, double[] cost) {
        this(topology, cost, null);
    }

    /**
     * The topology with this query's costs, where a NaN in {@code cost} is computed by {@code onDemand} the first
     * time a search reads it (then kept): a query then pays only for the edges its searches reach. The array is
     * filled in place, so it belongs to this graph.
     */
    public CostGraph(Topology topology, double[] cost, IntToDoubleFunction onDemand) {
        if (cost.length != topology.edgeCount()) throw new IllegalArgumentException("one cost per edge: " + cost.length + " for " + topology.edgeCount());
        for (int e = 0; e < cost.length; e++) if (!(onDemand != null && Double.isNaN(cost[e]))) checked(cost[e]);
        this.t = topology;
        this.cost = cost;
        this.pages = null;
        this.onDemand = onDemand;
    }

    /** The topology with every cost computed by {@code onDemand} the first time a search reads it (then kept). */
    public CostGraph(Topology topology, IntToDoubleFunction onDemand) {
        this.t = topology;
        this.cost = null;
        this.pages = new double[(topology.edgeCount() + PAGE - 1) >>> PAGE_BITS][];
        this.onDemand = java.util.Objects.requireNonNull(onDemand, "onDemand");
    }

    private static double checked(double cost) {
        if (!(cost >= 0) || Double.isInfinite(cost)) throw new IllegalArgumentException("edge cost must be finite and >= 0, got " + cost);
        return cost;
    }

    public int nodeCount() { return t.n; }
    public int edgeCount() { return t.edgeCount(); }
    public int u(int e) { return t.u[e]; }
    public int v(int e) { return t.v[e]; }
    public int other(int e, int x) { return t.u[e] == x ? t.v[e] : t.u[e]; }
    public double cost(int e) {
        if (pages != null) return paged(e);
        double c = cost[e];
        if (c != c) c = cost[e] = checked(onDemand.applyAsDouble(e));
        return c;
    }

    private double paged(int e) {
        double[] page = pages[e >>> PAGE_BITS];
        if (page == null) {
            page = pages[e >>> PAGE_BITS] = new double[PAGE];
            Arrays.fill(page, Double.NaN);
        }
        int i = e & (PAGE - 1);
        double c = page[i];
        if (c != c) c = page[i] = checked(onDemand.applyAsDouble(e));
        return c;
    }

    /** How many cost pages this graph has made (0 where every cost was given): what a query's costs took. */
    int pagesMade() {
        if (pages == null) return 0;
        int made = 0;
        for (double[] page : pages) if (page != null) made++;
        return made;
    }
    public EdgeType type(int e) { return t.type[e]; }

    /** The fixed part, for another set of costs over the same graph. */
    Topology topology() { return t; }

    /** The first slot of node x's row: its edges are {@link #edgeAt} and their other ends {@link #nodeAt}, for slots first(x) .. first(x+1). */
    public int first(int x) { return t.offset[x]; }

    /** The edge id in a slot of a node's row. */
    public int edgeAt(int slot) { return t.slotEdge[slot]; }

    /** The other end of the edge in a slot of a node's row. */
    public int nodeAt(int slot) { return t.slotNode[slot]; }

    public Edge edge(int e) {
        boolean labelled = e < t.subject.length;
        return new Edge(e, t.u[e], t.v[e], cost(e), t.type[e], labelled ? t.subject[e] : null, labelled ? t.predicate[e] : null,
                labelled ? t.object[e] : null, t.ref[e]);
    }

    public List<Edge> edges() {
        List<Edge> out = new ArrayList<>(edgeCount());
        for (int e = 0; e < edgeCount(); e++) out.add(edge(e));
        return out;
    }

    public static Builder builder(int n) {
        return new Builder(n);
    }

    /** A small graph edge by edge (tests, hand-worked cases): one edge per node pair, the cheapest kept; self loops ignored. */
    public static final class Builder {
        private final int n;
        private final List<Edge> edges = new ArrayList<>();
        private final Map<Long, Integer> byPair = new HashMap<>();

        private Builder(int n) {
            this.n = n;
        }

        public Builder add(int u, int v, double cost, EdgeType type) {
            return add(u, v, cost, type, null, null, null, -1);
        }

        public Builder add(int u, int v, double cost, EdgeType type, String subject, String predicate, String object, long ref) {
            if (u == v) return this;
            if (u < 0 || v < 0 || u >= n || v >= n) throw new IllegalArgumentException("node out of range: " + u + "-" + v);
            if (!(cost >= 0) || Double.isInfinite(cost)) throw new IllegalArgumentException("edge cost must be finite and >= 0, got " + cost);
            long key = ((long) Math.min(u, v) << 32) | Math.max(u, v);
            Integer existing = byPair.get(key);
            if (existing == null) {
                byPair.put(key, edges.size());
                edges.add(new Edge(edges.size(), u, v, cost, type, subject, predicate, object, ref));
            } else if (cost < edges.get(existing).cost()) {
                edges.set(existing, new Edge(existing, u, v, cost, type, subject, predicate, object, ref));
            }
            return this;
        }

        public CostGraph build() {
            int m = edges.size();
            int[] u = new int[m], v = new int[m];
            EdgeType[] type = new EdgeType[m];
            long[] ref = new long[m];
            String[] s = new String[m], p = new String[m], o = new String[m];
            double[] cost = new double[m];
            for (Edge e : edges) {
                int i = e.id();
                u[i] = e.u();
                v[i] = e.v();
                type[i] = e.type();
                ref[i] = e.ref();
                s[i] = e.subject();
                p[i] = e.predicate();
                o[i] = e.object();
                cost[i] = e.cost();
            }
            return new CostGraph(new Topology(n, u, v, type, ref, s, p, o), cost);
        }
    }

    /**
     * A min-heap of (key, node), ties to the smaller node; stale entries are skipped by the caller. Four children
     * per entry: half the levels of a binary heap, so a pop, the Dijkstra searches' main cost, moves fewer
     * entries. The order entries leave in is the (key, node) order whatever the arity.
     */
    static final class NodeHeap {
        private double[] key = new double[64];
        private int[] node = new int[64];
        private int size;

        boolean isEmpty() { return size == 0; }

        void push(double k, int x) {
            if (size == key.length) {
                key = Arrays.copyOf(key, size * 2);
                node = Arrays.copyOf(node, size * 2);
            }
            int i = size++;
            while (i > 0) {
                int parent = (i - 1) >>> 2;
                if (!less(k, x, key[parent], node[parent])) break;
                key[i] = key[parent];
                node[i] = node[parent];
                i = parent;
            }
            key[i] = k;
            node[i] = x;
        }

        double topKey() { return key[0]; }

        int topNode() { return node[0]; }

        /** Removes the smallest entry and returns its node. */
        int pop() {
            int top = node[0];
            double k = key[--size];
            int x = node[size];
            int i = 0;
            while (true) {
                int first = 4 * i + 1;
                if (first >= size) break;
                int c = first;
                for (int j = first + 1, end = Math.min(first + 4, size); j < end; j++) if (less(key[j], node[j], key[c], node[c])) c = j;
                if (!less(key[c], node[c], k, x)) break;
                key[i] = key[c];
                node[i] = node[c];
                i = c;
            }
            key[i] = k;
            node[i] = x;
            return top;
        }

        private static boolean less(double k1, int n1, double k2, int n2) {
            return k1 < k2 || (k1 == k2 && n1 < n2);
        }
    }
}
