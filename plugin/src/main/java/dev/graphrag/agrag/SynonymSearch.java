package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * AGRAG's synonym edges (spec §2.2 A4), exact: entities u and w are synonyms when their name embeddings have cosine
 * above the threshold and w is among u's {@code maxPerNode} most similar entities above it, or u among w's (ties by
 * name). Names of two characters or fewer (spaces aside) take no part. A function of the entity set alone, so an
 * incremental index equals a rebuild and two builds give the same edges (the HNSW entity index it replaces is
 * approximate and depends on insertion order).
 *
 * <p>All pairs are compared. A first pass on 12-bit integer copies of the unit vectors (int arithmetic, which the
 * JIT vectorises) keeps every pair whose cosine can exceed the threshold given each vector's rounding error, bounded
 * per pair; the exact float cosine then decides. {@code threads} workers on the given pool share the row blocks.
 */
final class SynonymSearch {
    /** An edge between entities lo and hi (indexes into the names; lo's name sorts first). */
    record Edge(int lo, int hi, double cos) {}

    private static final int SCALE = 2048; // |component| <= 1, so products fit an int over 512 dimensions
    private static final int BLOCK = 64;

    private SynonymSearch() {}

    static List<Edge> edges(List<String> names, List<float[]> vectors, double threshold, int maxPerNode, ExecutorService pool, int threads,
                            BooleanSupplier cancelled) {
        int n = names.size();
        if (maxPerNode <= 0 || n < 2) return List.of();
        int dim = vectors.get(0).length;
        if (dim > 512) throw new RagException("agrag: entity embeddings of " + dim + " dimensions are over the synonym search's 512");
        boolean[] eligible = new boolean[n];
        float[][] unit = new float[n][];
        int[][] quant = new int[n][];
        double[] slack = new double[n];
        for (int i = 0; i < n; i++) {
            eligible[i] = names.get(i).replace(" ", "").length() > 2;
            float[] v = vectors.get(i);
            double norm = EmbeddingService.norm(v);
            float[] u = new float[dim];
            int[] q = new int[dim];
            double l1 = 0;
            for (int k = 0; k < dim; k++) {
                u[k] = norm > 0 ? (float) (v[k] / norm) : 0f;
                q[k] = Math.round(u[k] * SCALE);
                l1 += Math.abs(u[k]);
            }
            unit[i] = u;
            quant[i] = q;
            slack[i] = l1;
        }
        // |a.b - qa.qb/S^2| <= (|a|_1 + |b|_1) * d + dim * d^2 with d = 0.5/S, the rounding error of one component
        double d = 0.5 / SCALE;
        double cut = threshold * SCALE * (double) SCALE;
        // candidate pairs above the threshold: `threads` workers take row blocks in turn
        java.util.concurrent.atomic.AtomicInteger nextBlock = new java.util.concurrent.atomic.AtomicInteger();
        List<Future<List<double[]>>> parts = new ArrayList<>();
        for (int w = 0; w < Math.max(1, threads); w++) {
            parts.add(pool.submit(() -> {
                List<double[]> found = new ArrayList<>();
                for (int from = nextBlock.getAndAdd(BLOCK); from < n; from = nextBlock.getAndAdd(BLOCK)) {
                    int lo = from, hi = Math.min(n, from + BLOCK);
                    // the block's rows stay in cache while every later row streams past once
                    for (int j = lo + 1; j < n; j++) {
                        if (!eligible[j]) continue;
                        if ((j & 1023) == 0 && cancelled.getAsBoolean()) {
                            throw new RagException("agrag.index: terminated while searching synonyms; run it again to finish");
                        }
                        int[] qj = quant[j];
                        for (int i = lo, end = Math.min(hi, j); i < end; i++) {
                            if (!eligible[i]) continue;
                            int s = dot(quant[i], qj);
                            double bound = ((slack[i] + slack[j]) * d + dim * d * d) * SCALE * (double) SCALE;
                            if (s + bound <= cut) continue;
                            double cos = EmbeddingService.dot(unit[i], unit[j]);
                            if (cos > threshold) found.add(new double[] {i, j, cos});
                        }
                    }
                }
                return found;
            }));
        }
        List<List<double[]>> neighbours = new ArrayList<>(n);
        for (int i = 0; i < n; i++) neighbours.add(new ArrayList<>());
        try {
            for (Future<List<double[]>> f : parts) {
                for (double[] p : f.get()) {
                    neighbours.get((int) p[0]).add(new double[] {p[1], p[2]});
                    neighbours.get((int) p[1]).add(new double[] {p[0], p[2]});
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException("agrag.index: interrupted while searching synonyms; run it again to finish");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new RagException("agrag.index: synonym search failed: " + e.getCause(), e.getCause());
        }
        // each entity's maxPerNode best; an edge when either end keeps the other
        java.util.Set<Long> kept = new java.util.HashSet<>();
        List<Edge> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<double[]> list = neighbours.get(i);
            int me = i;
            list.sort(Comparator.<double[]>comparingDouble(p -> -p[1]).thenComparing(p -> names.get((int) p[0])));
            for (int r = 0; r < list.size() && r < maxPerNode; r++) {
                int j = (int) list.get(r)[0];
                int a = names.get(me).compareTo(names.get(j)) <= 0 ? me : j, b = a == me ? j : me;
                if (kept.add(((long) a << 32) | b)) out.add(new Edge(a, b, list.get(r)[1]));
            }
        }
        out.sort(Comparator.comparing((Edge e) -> names.get(e.lo())).thenComparing(e -> names.get(e.hi())));
        return out;
    }

    /** Integer dot product: a plain reduction the JIT turns into vector instructions. */
    static int dot(int[] a, int[] b) {
        int s = 0;
        for (int k = 0; k < a.length; k++) s += a[k] * b[k];
        return s;
    }

    /** Threads for the search, at most the machine's cores and 8. */
    static int threads() {
        return Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
    }

}
