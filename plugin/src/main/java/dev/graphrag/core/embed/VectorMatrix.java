package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;

import java.util.List;

/**
 * Many vectors of one dimension back to back in one float array, with their norms, for scoring a query
 * against all of them: one contiguous pass instead of a pointer chase per vector. A missing vector (null)
 * has norm 0 and cosine 0.
 */
public final class VectorMatrix {
    private final String what;
    private final int dimension;
    private final int size;
    private final float[] data;
    private final double[] norm;

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
        this.data = new float[size * dim];
        this.norm = new double[size];
        for (int i = 0; i < size; i++) {
            float[] v = vectors.get(i);
            if (v == null) continue;
            System.arraycopy(v, 0, data, i * dim, dim);
            norm[i] = EmbeddingService.norm(v);
        }
    }

    public int size() { return size; }

    public boolean has(int i) { return norm[i] > 0; }

    /** Cosine of q with every vector (0 for missing ones). */
    public double[] cosines(float[] q) {
        double[] out = new double[size];
        double qn = queryNorm(q);
        if (qn == 0) return out;
        for (int i = 0; i < size; i++) {
            if (norm[i] > 0) out[i] = EmbeddingService.dot(q, data, i * dimension) / (norm[i] * qn);
        }
        return out;
    }

    /**
     * Cosine of q with the given rows only, at their positions of a full-size array (0 elsewhere): the same values
     * {@link #cosines} gives them, for callers that read a few rows of a large matrix.
     */
    public double[] cosines(float[] q, int[] rows) {
        double[] out = new double[size];
        double qn = queryNorm(q);
        if (qn == 0) return out;
        for (int i : rows) {
            if (norm[i] > 0) out[i] = EmbeddingService.dot(q, data, i * dimension) / (norm[i] * qn);
        }
        return out;
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
