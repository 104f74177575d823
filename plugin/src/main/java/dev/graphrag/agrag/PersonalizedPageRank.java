package dev.graphrag.agrag;

import java.util.Arrays;

/**
 * Native Personalized PageRank (spec §2.3 B4): x <- (1-d) p + d P^T x over an undirected weighted graph,
 * P[u][v] = w(u,v) / sum_z w(u,z), reset p uniform over the sources, until the L1 change is below the
 * tolerance; the result is normalised to sum 1. The same iteration GDS runs; used where GDS is absent and
 * as the tests' oracle.
 */
public final class PersonalizedPageRank {
    private PersonalizedPageRank() {}

    /** Edges as parallel arrays (each undirected edge once); weights null = unweighted; reset uniform over the sources. */
    public static double[] compute(int n, int[] from, int[] to, double[] weight, int[] sources, double damping, double tolerance,
                                   int maxIterations) {
        double[] p = new double[n];
        for (int s : sources) p[s] += 1.0 / sources.length;
        return compute(n, from, to, weight, p, damping, tolerance, maxIterations);
    }

    /** As above with an explicit reset distribution p (normalised here). */
    public static double[] compute(int n, int[] from, int[] to, double[] weight, double[] reset, double damping, double tolerance,
                                   int maxIterations) {
        double total = Arrays.stream(reset).sum();
        double[] p = new double[n];
        if (total > 0) for (int v = 0; v < n; v++) p[v] = reset[v] / total;
        double[] out = new double[n];
        for (int i = 0; i < from.length; i++) {
            double w = weight == null ? 1 : weight[i];
            out[from[i]] += w;
            out[to[i]] += w;
        }
        double[] x = p.clone();
        double[] next = new double[n];
        for (int it = 0; it < maxIterations; it++) {
            for (int v = 0; v < n; v++) next[v] = (1 - damping) * p[v];
            for (int i = 0; i < from.length; i++) {
                double w = weight == null ? 1 : weight[i];
                int a = from[i], b = to[i];
                if (out[a] > 0) next[b] += damping * x[a] * w / out[a];
                if (out[b] > 0) next[a] += damping * x[b] * w / out[b];
            }
            double change = 0;
            for (int v = 0; v < n; v++) change += Math.abs(next[v] - x[v]);
            double[] t = x;
            x = next;
            next = t;
            if (change < tolerance) break;
        }
        double sum = Arrays.stream(x).sum();
        if (sum > 0) for (int v = 0; v < n; v++) x[v] /= sum;
        return x;
    }
}
