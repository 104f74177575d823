package dev.graphrag.core.embed;

import java.util.Arrays;

/**
 * A {@link VectorMatrix}'s distinct vectors cut into about √n cells by {@link SphericalKMeans}, so that a query scores
 * the members of its nearest few cells, about probes·√n vectors, instead of all n: the in-memory counterpart of a
 * vector index, with no transaction and no call into Cypher. Approximate as an index is: a row in a cell the query's
 * probes do not reach is not a candidate; its cosine is still exact wherever it is read
 * ({@link QueryCosines#fromIndex}). Deterministic: the cells depend on the matrix alone.
 */
public final class VectorCells {
    static final int SAMPLE_PER_CELL = 16;
    static final int ROUNDS = 5;
    private static final long SEED = 0xCE11_5EEDL;

    private final VectorMatrix m;
    /** Cell centres as unit vectors; the distinct vectors of cell c are members[start[c] .. start[c + 1]). */
    private final float[][] centres;
    private final int[] start, members;

    private VectorCells(VectorMatrix m, float[][] centres, int[] start, int[] members) {
        this.m = m;
        this.centres = centres;
        this.start = start;
        this.members = members;
    }

    static VectorCells of(VectorMatrix m) {
        int n = m.norm.length, dim = m.dimension;
        if (n == 0) return new VectorCells(m, new float[0][], new int[] {0}, new int[0]);
        int cells = Math.max(1, (int) Math.round(Math.sqrt(n)));
        // the sample, drawn with a fixed seed, is all k-means needs quantised; every vector is assigned after
        int[] order = new int[n];
        for (int j = 0; j < n; j++) order[j] = j;
        java.util.Random random = new java.util.Random(SEED);
        int s = Math.min(n, SAMPLE_PER_CELL * cells);
        for (int i = 0; i < s; i++) {
            int j = i + random.nextInt(n - i);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] sample = Arrays.copyOf(order, s);
        int[][] quant = new int[n][];
        for (int j : sample) quant[j] = quantised(m, j);
        int[][] centroids = SphericalKMeans.fit(quant, j -> unit(m, j), sample, cells, SAMPLE_PER_CELL, ROUNDS, SEED, SphericalKMeans.SEQUENTIAL, () -> { });
        int[] cellOf = new int[n];
        long[] scratch = new long[cells];
        for (int j = 0; j < n; j++) cellOf[j] = SphericalKMeans.nearestCells(quant[j] != null ? quant[j] : quantised(m, j), centroids, 1, scratch)[0];
        int[] start = new int[cells + 1];
        for (int c : cellOf) start[c + 1]++;
        for (int c = 0; c < cells; c++) start[c + 1] += start[c];
        int[] members = new int[n];
        int[] fill = Arrays.copyOf(start, cells);
        for (int j = 0; j < n; j++) members[fill[cellOf[j]]++] = j;
        float[][] centres = new float[cells][dim];
        for (int c = 0; c < cells; c++) for (int d = 0; d < dim; d++) centres[c][d] = centroids[c][d] / (float) SphericalKMeans.SCALE;
        return new VectorCells(m, centres, start, members);
    }

    private static int[] quantised(VectorMatrix m, int j) {
        return SphericalKMeans.quantise(Arrays.copyOfRange(m.data, j * m.dimension, (j + 1) * m.dimension), m.norm[j]);
    }

    private static float[] unit(VectorMatrix m, int j) {
        float[] u = Arrays.copyOfRange(m.data, j * m.dimension, (j + 1) * m.dimension);
        for (int d = 0; d < u.length; d++) u[d] /= (float) m.norm[j];
        return u;
    }

    public int cellCount() { return centres.length; }

    /**
     * The rows of the n distinct vectors most like q among the members of q's {@code probes} nearest cells, best
     * first (ties to the lower vector), one row per vector: {@link QueryCosines#fromIndex} brings the rows that share it.
     */
    public int[] nearestRows(float[] q, int n, int probes) {
        double qn = m.normOf(q);
        if (qn == 0 || centres.length == 0) return new int[0];
        long[] byCentre = new long[centres.length];
        // centre order by float cosine, made sortable as longs (the centres are unit vectors, so the dot is the cosine's order)
        for (int c = 0; c < centres.length; c++) byCentre[c] = Double.doubleToLongBits(1.0 + EmbeddingService.dot(q, centres[c]));
        int[] probed = SphericalKMeans.largest(byCentre, centres.length, probes);
        int count = 0;
        for (int c : probed) count += start[c + 1] - start[c];
        int[] vec = new int[count];
        double[] cos = new double[count];
        int k = 0;
        for (int c : probed) {
            for (int r = start[c]; r < start[c + 1]; r++) {
                int j = members[r];
                vec[k] = j;
                cos[k++] = EmbeddingService.dot(q, m.data, j * m.dimension) / (m.norm[j] * qn);
            }
        }
        java.util.List<Integer> best = QueryCosines.topK(cos, Math.min(n, count));
        // topK breaks ties by position; the positions follow the cells, so order equal cosines by vector instead
        best.sort(java.util.Comparator.<Integer>comparingDouble(i -> -cos[i]).thenComparingInt(i -> vec[i]));
        int[] rows = new int[best.size()];
        for (int i = 0; i < rows.length; i++) rows[i] = m.rowsByDistinct[m.rowsStart[vec[best.get(i)]]];
        return rows;
    }
}
