package dev.graphrag.agrag;

/**
 * Native Personalized PageRank (paper Eq. 10-13, read as docs/agrag.md#where-the-paper-and-the-code-differ says): the fixed point of x = (1-d) p + d P^T x over an undirected
 * weighted graph, P[u][v] = w(u,v) / sum_z w(u,z), reset p normalised, swept until the L1 change of a sweep is
 * below the tolerance; the result is normalised to sum 1. The fixed point GDS's PageRank converges to; used by
 * default (GDS's call costs ~100 ms on 2Wiki), by the HippoRAG 2 passage ranking, and as the tests' oracle.
 */
public final class PersonalizedPageRank {
    private PersonalizedPageRank() {}

    /**
     * The walk over compressed rows, built once per graph: node v's row is slots {@code offset[v] .. offset[v+1]}, each
     * with its edge id and the node at the other end, in ascending edge id; only edges below {@code limit} take part,
     * so a row ends at its first edge past it. The snapshot's transition walks its cost graph's own rows instead of a
     * copy; the per-slot shares each engine reads are made on its first run.
     */
    public static final class Transition {
        final int n;
        final int[] offset, slotEdge, slotNode;
        /** Weight per edge id, null = unweighted. */
        private final double[] weight;
        private final int limit;
        /** Each node's weighted degree. */
        final double[] out;
        private volatile double[] coefficient, forward;

        /** Edges as parallel arrays (each undirected edge once); weights null = unweighted. */
        public Transition(int n, int[] from, int[] to, double[] weight) {
            this(n, from, to, weight, from.length);
        }

        /** The first {@code edges} edges of the arrays; a self loop is a row's slot twice, as it counts twice in the degree. */
        public Transition(int n, int[] from, int[] to, double[] weight, int edges) {
            this(n, CostGraph.Topology.rows(n, from, to, edges, true), from, to, weight, edges);
        }

        /**
         * Over a cost graph's own rows (not copied: they never change), its first {@code limit} edges with these
         * weights (null = unweighted). Those rows hold a self loop once where the walk counts it twice, so a graph with
         * one below the limit gets rows of its own instead.
         */
        static Transition over(CostGraph.Topology t, double[] weight, int limit) {
            for (int e = 0; e < limit; e++) if (t.u[e] == t.v[e]) return new Transition(t.n, t.u, t.v, weight, limit);
            return new Transition(t.n, new int[][] {t.offset, t.slotEdge, t.slotNode}, t.u, t.v, weight, limit);
        }

        private Transition(int n, int[][] rows, int[] from, int[] to, double[] weight, int limit) {
            double[] out = new double[n];
            for (int i = 0; i < limit; i++) {
                double w = weight == null ? 1 : weight[i];
                out[from[i]] += w;
                out[to[i]] += w;
            }
            this.n = n;
            this.offset = rows[0];
            this.slotEdge = rows[1];
            this.slotNode = rows[2];
            this.weight = weight;
            this.limit = limit;
            this.out = out;
        }

        public int nodeCount() { return n; }

        /** The end of node v's walk row: its slots up to the first edge past the limit. */
        int end(int v) {
            int k = offset[v], end = offset[v + 1];
            while (k < end && slotEdge[k] < limit) k++;
            return k;
        }

        double weight(int e) {
            return weight == null ? 1 : weight[e];
        }

        /** coefficient[k] = w(u,v) / out(u) for slot k of v's row with u at the other end: what v gathers from u, for the sweeps. */
        double[] coefficient() {
            return made(true);
        }

        /** forward[k] = w(v,u) / out(v) for slot k of v's row with u at the other end: what v pushes to u, for the push. */
        double[] forward() {
            return made(false);
        }

        /**
         * One of the two per-slot arrays, made on its engine's first run (the push, the default, never holds the
         * coefficients): each is read in row order beside the rows, where a share computed per read (a weight looked up
         * by edge id) made the push about twice as slow on a 550,000-node graph.
         */
        private double[] made(boolean gather) {
            double[] a = gather ? coefficient : forward;
            if (a != null) return a;
            synchronized (this) {
                a = gather ? coefficient : forward;
                if (a == null) {
                    a = new double[slotEdge.length];
                    for (int v = 0; v < n; v++) {
                        for (int k = offset[v], end = end(v); k < end; k++) {
                            int u = slotNode[k];
                            if (out[u] > 0) a[k] = gather ? weight(slotEdge[k]) / out[u] : out[v] > 0 ? weight(slotEdge[k]) / out[v] : 0;
                        }
                    }
                    if (gather) coefficient = a;
                    else forward = a;
                }
            }
            return a;
        }
    }

    /** Reset uniform over the sources. */
    public static double[] compute(int n, int[] from, int[] to, double[] weight, int[] sources, double damping, double tolerance,
                                   int maxIterations) {
        double[] p = new double[n];
        for (int s : sources) p[s] += 1.0 / sources.length;
        return compute(new Transition(n, from, to, weight), p, damping, tolerance, maxIterations);
    }

    /**
     * With an explicit reset distribution (normalised here).
     * <p>
     * Successive over-relaxation sweeps: each row reads the values this sweep already updated instead of last
     * sweep's (Gauss-Seidel) and moves a factor omega past them. With y = x / out-weight the system is
     * (D - dW) y = (1-d) p, symmetric positive definite, so the sweeps converge for any omega in (0, 2) to the same
     * fixed point as the Jacobi iteration; omega = 2 / (1 + sqrt(1 - d^2)) is the textbook optimum for a Jacobi
     * spectral radius d (the bound here). On the 2Wiki graph at tolerance 1e-7 this takes 10.5 sweeps instead of
     * Jacobi's 19.5 (d 0.5; 21.8 instead of 43 Gauss-Seidel sweeps at d 0.85), and ends closer to the fixed
     * point (docs/benchmarks.md). A value the over-relaxation would push below 0 is held at 0, where the fixed
     * point's values all are or above.
     */
    public static double[] compute(Transition t, double[] reset, double damping, double tolerance, int maxIterations) {
        int n = t.n;
        double total = 0;
        for (double r : reset) total += r;
        double[] p = new double[n];
        if (total > 0) for (int v = 0; v < n; v++) p[v] = reset[v] / total;
        double[] x = p.clone();
        int[] offset = t.offset, slotNode = t.slotNode;
        double[] coefficient = t.coefficient();
        double omega = 2 / (1 + Math.sqrt(1 - damping * damping));
        for (int it = 0; it < maxIterations; it++) {
            double change = 0;
            for (int v = 0; v < n; v++) {
                double in = 0;
                // as in the push: a slot past the walk's edges, or from a node with no weight, has a coefficient of 0
                for (int k = offset[v], end = offset[v + 1]; k < end; k++) in += x[slotNode[k]] * coefficient[k];
                double value = Math.max(0, x[v] + omega * ((1 - damping) * p[v] + damping * in - x[v]));
                change += Math.abs(value - x[v]);
                x[v] = value;
            }
            if (change < tolerance) break;
        }
        double sum = 0;
        for (double value : x) sum += value;
        if (sum > 0) for (int v = 0; v < n; v++) x[v] /= sum;
        return x;
    }

    /**
     * Forward push (Andersen, Chung and Lang, FOCS 2006) on the same walk: mass starts as residual on the reset
     * distribution; pushing a node u keeps (1-d) of its residual as its value and spreads d of it to its neighbours
     * by edge weight. It stops once every node's residual is at most {@code epsilon} times its weighted degree, and
     * then the exact values satisfy x(v) - epsilon·deg(v) &lt;= result(v) &lt;= x(v) for every v, before the final
     * normalisation (the missing mass is the PPR of the residuals, which on an undirected graph is at most
     * epsilon·deg(v) at v). The work, at most 1 / (epsilon (1 - d)) in pushed edge volume, depends on the seeds'
     * neighbourhood and epsilon, not on the size of the graph, where the sweeps of {@link #compute} each read every edge.
     */
    public static double[] push(Transition t, double[] reset, double damping, double epsilon) {
        double[] x = pushUnnormalised(t, reset, damping, epsilon);
        double sum = 0;
        for (double value : x) sum += value;
        if (sum > 0) for (int v = 0; v < x.length; v++) x[v] /= sum;
        return x;
    }

    /** The push's values before normalisation: within the bound above of the exact, unnormalised PPR. */
    static double[] pushUnnormalised(Transition t, double[] reset, double damping, double epsilon) {
        int n = t.n;
        double total = 0;
        for (double v : reset) total += v;
        double[] x = new double[n], r = new double[n];
        if (total <= 0) return x;
        int[] queue = new int[Math.max(16, n)];
        int head = 0, size = 0;
        boolean[] queued = new boolean[n];
        for (int v = 0; v < n; v++) {
            if (reset[v] <= 0) continue;
            r[v] = reset[v] / total;
            queue[(head + size++) % queue.length] = v;
            queued[v] = true;
        }
        int[] offset = t.offset, slotNode = t.slotNode;
        double[] out = t.out, forward = t.forward();
        while (size > 0) {
            int u = queue[head];
            head = (head + 1) % queue.length;
            size--;
            queued[u] = false;
            double ru = r[u];
            if (ru <= epsilon * out[u] && out[u] > 0) continue;
            x[u] += (1 - damping) * ru;
            r[u] = 0;
            double spread = damping * ru;
            for (int k = offset[u], end = offset[u + 1]; k < end; k++) {
                // a slot past the walk's edges, or to a node with no weight, has a share of 0: adding it changes nothing
                int w = slotNode[k];
                r[w] += spread * forward[k];
                if (!queued[w] && r[w] > epsilon * out[w]) {
                    queued[w] = true;
                    queue[(head + size++) % queue.length] = w; // at most n queued at once: each node once
                }
            }
        }
        return x;
    }
}
