package dev.graphrag.core.embed;

/**
 * A first pass for threshold searches over cosines: each vector's unit copy rounded to 1/{@link #SCALE} as integers
 * (whose dot products the JIT vectorises), with the sum of |u_k| that bounds the rounding error of any pair. A pair
 * whose integer dot product plus {@link #bound} stays below the threshold cannot reach it, so only the pairs that may
 * are given the exact cosine. Used by AGRAG's synonym edges and ReMind's synonym merging.
 */
public final class QuantisedCosines {
    public static final int SCALE = SphericalKMeans.SCALE;
    /** The rounding error of one component. */
    private static final double D = 0.5 / SCALE;

    /** A vector's unit copy (in float), that copy rounded to 1/SCALE, and the sum of its components' magnitudes. */
    public record Unit(float[] unit, int[] quant, double slack) {}

    private QuantisedCosines() {}

    public static Unit of(float[] v) {
        float[] u = new float[v.length];
        int[] q = new int[v.length];
        return new Unit(u, q, quantise(v, u, q));
    }

    /** The integer copy and its slack without the unit copy, for callers that keep the vector itself. */
    public static Quantised quantOf(float[] v) {
        int[] q = new int[v.length];
        return new Quantised(q, quantise(v, null, q));
    }

    public record Quantised(int[] quant, double slack) {}

    /** Fills q (and u, when given) with v's unit copy and its integer copy; returns the unit copy's L1 norm (the slack). */
    private static double quantise(float[] v, float[] u, int[] q) {
        double norm = EmbeddingService.norm(v);
        double l1 = 0;
        for (int k = 0; k < v.length; k++) {
            float unit = norm > 0 ? (float) (v[k] / norm) : 0f;
            if (u != null) u[k] = unit;
            q[k] = Math.round(unit * SCALE);
            l1 += Math.abs(unit);
        }
        return l1;
    }

    /**
     * How far, in the integer dot product's units (SCALE²), the copies' dot product may lie from the unit copies' own:
     * |a.b - qa.qb/S²| <= (|a|₁ + |b|₁)·d + dim·d² with d = 0.5/S.
     */
    public static double bound(double slackA, double slackB, int dim) {
        return ((slackA + slackB) * D + dim * D * D) * SCALE * (double) SCALE;
    }

    /** An upper bound of the unit copies' dot product of a and b. */
    public static double upper(Unit a, Unit b) {
        return upper(a.quant(), a.slack(), b.quant(), b.slack());
    }

    /** As above from the integer copies and slacks alone, for a caller that need not keep the float unit copies. */
    public static double upper(int[] qa, double slackA, int[] qb, double slackB) {
        if (qa.length != qb.length) throw new dev.graphrag.core.RagException("vectors have different dimensions: " + qa.length + " vs " + qb.length);
        return (SphericalKMeans.dot(qa, qb) + bound(slackA, slackB, qa.length)) / (SCALE * (double) SCALE);
    }
}
