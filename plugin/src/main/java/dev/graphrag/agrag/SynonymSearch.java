package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.PairSearch;
import dev.graphrag.core.embed.PairSearch.Workers;
import dev.graphrag.core.embed.QuantisedCosines;
import dev.graphrag.core.embed.SphericalKMeans;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;

/**
 * AGRAG's synonym edges (paper Eq. 5): entities u and w are synonyms when their name embeddings have cosine above
 * the threshold and w is among u's {@code maxPerNode} most similar entities above it, or u among w's (ties by name).
 * Names of two characters or fewer (spaces aside) take no part. A function of the entity set alone, so an
 * incremental index equals a rebuild and two builds give the same edges (the HNSW entity index of the reference code
 * is approximate and depends on insertion order).
 *
 * <p>Which pairs are compared is the {@link Plan}:
 * <ul>
 * <li>{@link Plan#EXACT}: every pair. Quadratic: about 46 minutes for 439k entities on 2 cores.</li>
 * <li>{@link Plan#cells}: an inverted file. Spherical k-means on a seeded sample splits the entities into about
 * √n cells; each entity is compared with the members of its {@code probes} nearest cells, about probes·√n pairs
 * each. A pair whose ends lie in cells far apart can be missed, so this is approximate, as the reference code's
 * HNSW is; the sample and the k-means start are drawn from the entities in name order, so the edges are still a
 * function of the entity set. {@code agrag.index} takes it above {@code exactSynonymsUpTo} entities;
 * docs/benchmarks.md#scaling gives the edges it keeps against the exact search on real corpora.</li>
 * </ul>
 *
 * <p>A first pass on 12-bit integer copies of the unit vectors (int arithmetic, which the JIT vectorises) keeps every
 * pair whose cosine can exceed the threshold given each vector's rounding error, bounded per pair; the exact float
 * cosine then decides. {@code threads} workers on the given pool share the work.
 */
public final class SynonymSearch {
    /** An edge between entities lo and hi (indexes into the names; lo's name sorts first). */
    public record Edge(int lo, int hi, double cos) {}

    /** Which pairs are compared: every pair ({@code probes} 0), or the members of each entity's {@code probes} nearest cells. */
    public record Plan(int probes) {
        public static final Plan EXACT = new Plan(0);

        public Plan {
            if (probes < 0) throw new IllegalArgumentException("probes " + probes);
        }

        public static Plan cells(int probes) {
            if (probes < 1) throw new IllegalArgumentException("probes " + probes);
            return new Plan(probes);
        }

        public boolean exact() {
            return probes == 0;
        }

        /** What AgMeta records, so that a layer built under another plan is searched again. */
        public String recorded() {
            return exact() ? "exact" : "cells, " + probes + " probes";
        }
    }

    private static final int SCALE = SphericalKMeans.SCALE;
    private static final int BLOCK = PairSearch.BLOCK;
    /**
     * Cells per √n entities, sample points per cell for k-means, and its rounds. Four times √n cells probed 64 at a time
     * kept 98.8 % of the exact edges of 111k real entities at a fifth of the exact search's time; √n cells needed a
     * larger share of the cells probed for the same edges (docs/benchmarks.md#scaling).
     */
    private static final double CELLS_PER_ROOT = 4;
    private static final int SAMPLE_PER_CELL = 16;
    private static final int KMEANS_ROUNDS = 5;
    private static final long SAMPLE_SEED = 0x5E7_0F_CE11L;

    private SynonymSearch() {}

    static List<Edge> edges(List<String> names, List<float[]> vectors, double threshold, int maxPerNode, ExecutorService pool, int threads,
                            BooleanSupplier cancelled) {
        return edges(names, vectors, threshold, maxPerNode, Plan.EXACT, pool, threads, cancelled);
    }

    public static List<Edge> edges(List<String> names, List<float[]> vectors, double threshold, int maxPerNode, Plan plan, ExecutorService pool,
                            int threads, BooleanSupplier cancelled) {
        int n = names.size();
        if (maxPerNode <= 0 || n < 2) return List.of();
        Quantised q = new Quantised(names, vectors, threshold);
        Workers workers = new Workers(pool, threads, cancelled, "agrag.index", "searching synonyms");
        List<double[]> pairs = plan.exact() ? PairSearch.pairs(q.n, 0, q.eligible, q::compare, workers) : cellPairs(q, names, plan.probes(), workers);
        List<List<double[]>> neighbours = new ArrayList<>(n);
        for (int i = 0; i < n; i++) neighbours.add(new ArrayList<>());
        for (double[] p : pairs) {
            neighbours.get((int) p[0]).add(new double[] {p[1], p[2]});
            neighbours.get((int) p[1]).add(new double[] {p[0], p[2]});
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

    /**
     * The pairs above the threshold among each entity and the members of its {@code probes} nearest cells. A pair is
     * reported once: from its smaller end, or from the larger when the smaller's probes do not reach the larger's cell.
     */
    private static List<double[]> cellPairs(Quantised q, List<String> names, int probes, Workers workers) {
        // the eligible entities in name order, so that the sample and the start depend on the entity set alone
        int[] order = java.util.stream.IntStream.range(0, q.n).filter(i -> q.eligible[i]).boxed()
                .sorted(Comparator.comparing(names::get)).mapToInt(Integer::intValue).toArray();
        int m = order.length;
        if (m < 2) return List.of();
        int cells = Math.max(1, Math.min(m, (int) Math.round(CELLS_PER_ROOT * Math.sqrt(m))));
        int p = Math.min(probes, cells);
        int[][] centroids = SphericalKMeans.fit(q.quant, i -> q.unit[i], order, cells, SAMPLE_PER_CELL, KMEANS_ROUNDS, SAMPLE_SEED, workers,
                workers::checkCancelled);
        // each entity's p nearest cells, nearest first; its cell is the first
        int[][] near = new int[q.n][];
        workers.run(m, BLOCK, (lo, hi) -> {
            long[] dots = new long[centroids.length];
            for (int k = lo; k < hi; k++) near[order[k]] = SphericalKMeans.nearestCells(q.quant[order[k]], centroids, p, dots);
        });
        workers.checkCancelled();
        int[] size = new int[cells];
        for (int x : order) size[near[x][0]]++;
        int[] start = new int[cells + 1];
        for (int c = 0; c < cells; c++) start[c + 1] = start[c] + size[c];
        int[] members = new int[m];
        int[] fill = Arrays.copyOf(start, cells);
        for (int x : order) members[fill[near[x][0]]++] = x;
        // cell by cell: the entities that probe a cell, a block at a time, against its members, which stay in cache
        int[] probing = new int[cells + 1];
        for (int x : order) for (int c : near[x]) probing[c + 1]++;
        for (int c = 0; c < cells; c++) probing[c + 1] += probing[c];
        int[] probers = new int[m * p];
        int[] at = Arrays.copyOf(probing, cells);
        for (int x : order) for (int c : near[x]) probers[at[c]++] = x;
        return workers.run(cells, 1, (lo, hi, found) -> {
            for (int c = lo; c < hi; c++) {
                workers.checkCancelled();
                for (int from = probing[c]; from < probing[c + 1]; from += BLOCK) {
                    int to = Math.min(probing[c + 1], from + BLOCK);
                    for (int r = start[c]; r < start[c + 1]; r++) {
                        int y = members[r];
                        for (int k = from; k < to; k++) {
                            int x = probers[k];
                            if (y == x || y < x && reaches(near[y], near[x][0])) continue;
                            q.compare(Math.min(x, y), Math.max(x, y), found);
                        }
                    }
                }
            }
        });
    }

    private static boolean reaches(int[] near, int cell) {
        for (int c : near) if (c == cell) return true;
        return false;
    }

    /** Unit vectors, their 12-bit integer copies and rounding bounds, and which entities take part. */
    private static final class Quantised {
        final int n, dim;
        final boolean[] eligible;
        final float[][] unit;
        final int[][] quant;
        final double[] slack;
        final double threshold, cut;

        Quantised(List<String> names, List<float[]> vectors, double threshold) {
            n = names.size();
            dim = vectors.get(0).length;
            if (dim > 512) throw new RagException("agrag: entity embeddings of " + dim + " dimensions are over the synonym search's 512");
            this.threshold = threshold;
            eligible = new boolean[n];
            unit = new float[n][];
            quant = new int[n][];
            slack = new double[n];
            for (int i = 0; i < n; i++) {
                eligible[i] = names.get(i).replace(" ", "").length() > 2;
                QuantisedCosines.Unit u = QuantisedCosines.of(vectors.get(i));
                unit[i] = u.unit();
                quant[i] = u.quant();
                slack[i] = u.slack();
            }
            cut = threshold * SCALE * (double) SCALE;
        }

        /** Adds {i, j, cos} to found when the pair's cosine is above the threshold (i < j). */
        void compare(int i, int j, List<double[]> found) {
            int s = SphericalKMeans.dot(quant[i], quant[j]);
            if (s + QuantisedCosines.bound(slack[i], slack[j], dim) <= cut) return;
            double cos = EmbeddingService.dot(unit[i], unit[j]);
            if (cos > threshold) found.add(new double[] {i, j, cos});
        }
    }

    /** Threads for the search, at most the machine's cores and 8. */
    public static int threads() {
        return PairSearch.threads();
    }
}
