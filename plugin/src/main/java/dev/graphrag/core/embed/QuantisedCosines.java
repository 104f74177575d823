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
        int dim = v.length;
        double norm = EmbeddingService.norm(v);
        float[] u = new float[dim];
        int[] q = new int[dim];
        double l1 = 0;
        for (int k = 0; k < dim; k++) {
            u[k] = norm > 0 ? (float) (v[k] / norm) : 0f;
            q[k] = Math.round(u[k] * SCALE);
            l1 += Math.abs(u[k]);
        }
        return new Unit(u, q, l1);
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
