package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Many vectors of one dimension back to back in one float array, with their norms, for scoring a query
 * against all of them: one contiguous pass instead of a pointer chase per vector. A missing vector (null)
 * has norm 0 and cosine 0.
 * <p>
 * Equal vectors are stored and scored once: AGRAG's facts carry the embedding of their evidence sentence, and
 * a sentence naming k entities gives k(k-1)/2 facts with one vector (62,243 facts, 10,874 distinct vectors on
 * 2Wiki). Each row reads its distinct vector's score, so every value is exactly the one a scan of all rows gives.
 */
public final class VectorMatrix {
    private final String what;
    final int dimension;
    private final int size;
    /** The distinct vectors back to back, their norms, and which distinct vector each row is (-1: missing). */
    final float[] data;
    final double[] norm;
    private final int[] distinctOf;
    /** Rows by distinct vector, each distinct vector's run starting at rowsStart[j] (for candidates from an index: every row of a hit's vector). */
    final int[] rowsStart, rowsByDistinct;
    private final boolean anyMissing;
    /** The distinct vectors cut into cells, made on first use (a corpus that never asks for them never pays for them). */
    private volatile VectorCells cells;

    /** @param what names the vectors in errors, e.g. "agrag fact" */
    public VectorMatrix(String what, List<float[]> vectors) {
        this.what = what;
        int dim = 0;
        for (float[] v : vectors) {
            if (v == null) continue;
            if (dim == 0) dim = v.length;
            else if (v.length != dim) throw new RagException(what + " embeddings differ in dimension (" + dim + " and " + v.length + "): re-index");
        }
        if ((long) vectors.size() * dim > Integer.MAX_VALUE - 8) {
            throw new RagException(vectors.size() + " " + what + " embeddings of dimension " + dim + " do not fit one in-memory matrix");
        }
        this.dimension = dim;
        this.size = vectors.size();
        this.distinctOf = new int[size];
        Map<Distinct, Integer> seen = new HashMap<>();
        List<float[]> distinct = new ArrayList<>();
        List<Double> distinctNorms = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            float[] v = vectors.get(i);
            double n = v == null ? 0 : EmbeddingService.norm(v);
            if (n == 0) {
                distinctOf[i] = -1;
                continue;
            }
            distinctOf[i] = seen.computeIfAbsent(new Distinct(v), k -> {
                distinct.add(v);
                distinctNorms.add(n);
                return distinct.size() - 1;
            });
        }
        this.data = new float[distinct.size() * dim];
        this.norm = new double[distinct.size()];
        for (int j = 0; j < distinct.size(); j++) {
            System.arraycopy(distinct.get(j), 0, data, j * dim, dim);
            norm[j] = distinctNorms.get(j);
        }
        this.rowsStart = new int[distinct.size() + 1];
        boolean missing = false;
        for (int j : distinctOf) {
            if (j >= 0) rowsStart[j + 1]++;
            else missing = true;
        }
        this.anyMissing = missing;
        for (int j = 0; j < distinct.size(); j++) rowsStart[j + 1] += rowsStart[j];
        this.rowsByDistinct = new int[rowsStart[distinct.size()]];
        int[] fill = Arrays.copyOf(rowsStart, distinct.size());
        for (int i = 0; i < size; i++) if (distinctOf[i] >= 0) rowsByDistinct[fill[distinctOf[i]]++] = i;
    }

    /** A vector compared by its values, for finding equal rows. */
    private record Distinct(float[] v) {
        @Override
        public boolean equals(Object o) { return o instanceof Distinct d && Arrays.equals(v, d.v); }

        @Override
        public int hashCode() { return Arrays.hashCode(v); }
    }

    public int size() { return size; }

    /** How many distinct vectors a full scan scores. */
    public int distinctCount() { return norm.length; }

    public boolean has(int i) { return distinctOf[i] >= 0; }

    /** Whether some row has no vector (its cosine is 0, which a full scan's minimum and maximum then include). */
    public boolean anyMissing() { return anyMissing; }

    /** Every row whose vector equals row i's, ascending (row i included); none for a missing row. */
    public int[] rowsLike(int i) {
        int j = distinctOf[i];
        return j < 0 ? new int[0] : Arrays.copyOfRange(rowsByDistinct, rowsStart[j], rowsStart[j + 1]);
    }

    /** The distinct vectors cut into about √n k-means cells ({@link VectorCells}), made on the first call. */
    public VectorCells cells() {
        VectorCells c = cells;
        if (c == null) {
            synchronized (this) {
                c = cells;
                if (c == null) cells = c = VectorCells.of(this);
            }
        }
        return c;
    }

    /** The query's norm after checking its dimension (0: nothing to score), for VectorCells. */
    double normOf(float[] q) {
        return queryNorm(q);
    }

    /** Cosine of q with every vector (0 for missing ones). */
    public double[] cosines(float[] q) {
        double[] out = new double[size];
        double qn = queryNorm(q);
        if (qn == 0) return out;
        double[] distinct = new double[norm.length];
        for (int j = 0; j < distinct.length; j++) distinct[j] = EmbeddingService.dot(q, data, j * dimension) / (norm[j] * qn);
        for (int i = 0; i < size; i++) if (distinctOf[i] >= 0) out[i] = distinct[distinctOf[i]];
        return out;
    }

    /**
     * The cosines of one query, computed as rows are asked for, each distinct vector once: for callers that read
     * few rows of a large matrix and only learn which while they search. Each value equals the full scan's.
     */
    public Scorer scorer(float[] q) {
        return new Scorer(q, queryNorm(q));
    }

    /**
     * One query's cosines on demand. Two threads may share one: a helper {@link #fill}s rows ahead while the owner
     * asks for the rows it needs, and whichever computes a value first stores it; both compute the same double, so
     * who did changes nothing.
     */
    public final class Scorer {
        private static final java.lang.invoke.VarHandle SLOT = java.lang.invoke.MethodHandles.arrayElementVarHandle(double[].class);
        private final float[] q;
        private final double queryNorm;
        private final double[] distinct; // NaN until computed; read and written whole (acquire/release)

        private Scorer(float[] q, double queryNorm) {
            this.q = q;
            this.queryNorm = queryNorm;
            this.distinct = new double[norm.length];
            Arrays.fill(distinct, Double.NaN);
        }

        /** Cosine of the query with row i (0 for a missing row). */
        public double cosine(int i) {
            int j = distinctOf[i];
            if (j < 0 || queryNorm == 0) return 0;
            double c = (double) SLOT.getAcquire(distinct, j);
            if (c != c) {
                c = EmbeddingService.dot(q, data, j * dimension) / (norm[j] * queryNorm);
                SLOT.setRelease(distinct, j, c);
            }
            return c;
        }

        /** Computes the rows' cosines in order, skipping those already known, until {@code stop} says so; returns how many it computed. */
        public int fill(int[] rows, java.util.function.BooleanSupplier stop) {
            int computed = 0;
            for (int i : rows) {
                if (stop.getAsBoolean()) break;
                int j = distinctOf[i];
                if (j < 0 || queryNorm == 0 || !Double.isNaN((double) SLOT.getAcquire(distinct, j))) continue;
                cosine(i);
                computed++;
            }
            return computed;
        }
    }

    /** The query's norm after checking its dimension; 0 when there is nothing to score. */
    private double queryNorm(float[] q) {
        if (dimension == 0) return 0;
        if (q.length != dimension) {
            throw new RagException("the query embedding has " + q.length + " dimensions but the " + what + " embeddings have " + dimension
                    + ": the embedding model changed since indexing; re-index");
        }
        return EmbeddingService.norm(q);
    }
}
