package dev.graphrag.core.embed;

/** How token vectors become one sentence vector; the model card says which (CLS for BGE, mean for MiniLM). */
public enum Pooling {
    CLS, MEAN;

    /**
     * Pools one sequence of {@code hidden[token][dim]} over the first {@code length} (unpadded) tokens
     * and L2-normalises the result when asked.
     */
    public float[] pool(float[][] hidden, int length, boolean normalize) {
        int dims = hidden[0].length;
        float[] out = new float[dims];
        if (this == CLS) {
            System.arraycopy(hidden[0], 0, out, 0, dims);
        } else {
            for (int t = 0; t < length; t++) {
                float[] row = hidden[t];
                for (int d = 0; d < dims; d++) out[d] += row[d];
            }
            for (int d = 0; d < dims; d++) out[d] /= Math.max(1, length);
        }
        if (normalize) l2normalize(out);
        return out;
    }

    /**
     * As above, from a batch's output buffer ({@code [batch][token][dims]} row-major): the sequence starting at
     * {@code offset}. Reads only what the pooling needs (one row for CLS) and adds in the same order, so the vector is
     * the same as from nested arrays, without building {@code batch x tokens} Java arrays first.
     */
    public float[] pool(java.nio.FloatBuffer hidden, int offset, int dims, int length, boolean normalize) {
        float[] out = new float[dims];
        if (this == CLS) {
            hidden.get(offset, out, 0, dims);
        } else {
            for (int t = 0; t < length; t++) {
                int row = offset + t * dims;
                for (int d = 0; d < dims; d++) out[d] += hidden.get(row + d);
            }
            for (int d = 0; d < dims; d++) out[d] /= Math.max(1, length);
        }
        if (normalize) l2normalize(out);
        return out;
    }

    public static void l2normalize(float[] v) {
        double sum = 0;
        for (float x : v) sum += (double) x * x;
        double norm = Math.sqrt(sum);
        if (norm < 1e-12) return;
        for (int i = 0; i < v.length; i++) v[i] = (float) (v[i] / norm);
    }
}
