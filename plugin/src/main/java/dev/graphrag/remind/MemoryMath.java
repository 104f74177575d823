package dev.graphrag.remind;

/**
 * ReMindRAG's closed-form edge memory (paper Eq. 1 and 2), in double precision. Every query vector is used as
 * its unit direction; a memory is a vector of the embedding's dimension whose norm never exceeds 1.
 */
public final class MemoryMath {
    /** How an ineffective edge loses its query-aligned component (Eq. 1 read as docs/remind.md#memory-and-replay says). */
    public enum Penalty { PAPER, STRONG, NONE }

    private MemoryMath() {}

    /** δ(x) = (2/π)·cos((π/2)·x), clamped at 0 above 1 (rounding drift must never push against the query). */
    public static double delta(double norm) {
        double x = Math.abs(norm);
        if (x >= 1) return 0;
        return 2 / Math.PI * Math.cos(Math.PI / 2 * x);
    }

    /** v + δ(‖v‖)·q̂; a null memory is the zero vector. */
    public static double[] enhance(double[] v, double[] q) {
        double[] u = unit(q);
        double[] m = v == null ? new double[u.length] : checked(v, u);
        double d = delta(norm(m));
        double[] out = new double[u.length];
        for (int i = 0; i < u.length; i++) out[i] = m[i] + d * u[i];
        return out;
    }

    /** With p = v·q̂ > 0: v − c(p)·p·q̂, c = δ(p) (paper) or max(δ(p), p) (strong); unchanged otherwise or with NONE. */
    public static double[] penalize(double[] v, double[] q, Penalty mode) {
        double[] u = unit(q);
        if (v == null) return new double[u.length];
        double[] m = checked(v, u);
        double p = dot(m, u);
        if (p <= 0 || mode == Penalty.NONE) return m.clone();
        double c = mode == Penalty.STRONG ? Math.max(delta(p), p) : delta(p);
        double[] out = new double[u.length];
        for (int i = 0; i < u.length; i++) out[i] = m[i] - c * p * u[i];
        return out;
    }

    /**
     * Eq. 2: α·sim(from, to) + (1−α)·(q̂·memory). Endpoint embeddings are unit (cosine is their dot); a null memory
     * contributes 0.
     */
    public static double edgeWeight(double similarity, double[] memory, double[] queryUnit, double alpha) {
        double recall = memory == null ? 0 : dot(memory, queryUnit);
        return alpha * similarity + (1 - alpha) * recall;
    }

    /**
     * The largest memory norm an edge can have and still fail λ whatever the query and endpoints:
     * w ≤ α + (1−α)·‖v‖, so an edge whose norm is at most (λ−α)/(1−α) never passes (docs/remind.md#memory-and-replay: skip it unread).
     */
    public static double replayNormBound(double alpha, double lambda) {
        return (lambda - alpha) / (1 - alpha);
    }

    /** §2.7's closed form: the largest pairwise angle (degrees) of queries one memory can serve, cos θ* = λ². */
    public static double maxMemorizableAngle(double lambda) {
        if (!(lambda >= 0 && lambda <= 1)) throw new IllegalArgumentException("lambda must be in [0, 1], got " + lambda);
        return Math.toDegrees(Math.acos(lambda * lambda));
    }

    public static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += a[i] * b[i];
        return s;
    }

    public static double norm(double[] a) {
        return Math.sqrt(dot(a, a));
    }

    public static double[] unit(double[] q) {
        double n = norm(q);
        if (!(n > 0) || Double.isInfinite(n)) throw new IllegalArgumentException("the query vector must be non-zero and finite");
        double[] out = new double[q.length];
        for (int i = 0; i < q.length; i++) out[i] = q[i] / n;
        return out;
    }

    public static double[] toDouble(float[] v) {
        if (v == null) return null;
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) out[i] = v[i];
        return out;
    }

    public static float[] toFloat(double[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (float) v[i];
        return out;
    }

    private static double[] checked(double[] v, double[] q) {
        if (v.length != q.length) {
            throw new IllegalArgumentException("memory has " + v.length + " dimensions but the query has " + q.length);
        }
        for (double x : v) if (!Double.isFinite(x)) throw new IllegalArgumentException("memory holds a non-finite value");
        return v;
    }
}
