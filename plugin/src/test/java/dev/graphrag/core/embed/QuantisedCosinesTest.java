package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The first pass of the synonym searches: its bound never falls below a pair's cosine, and the cached-norm cosine is the cosine. */
@LineIndependent
class QuantisedCosinesTest {
    /** Vectors like a text model's: a shared direction plus noise (cosines of 0.5 to 1, where thresholds sit), scaled at random. */
    static float[][] anisotropic(Random r, int n, int dim) {
        float[] common = new float[dim];
        for (int k = 0; k < dim; k++) common[k] = (float) r.nextGaussian();
        float[][] out = new float[n][dim];
        for (int i = 0; i < n; i++) {
            double noise = r.nextDouble() * 1.5, scale = Math.exp(r.nextGaussian() * 3);
            for (int k = 0; k < dim; k++) out[i][k] = (float) ((common[k] + noise * r.nextGaussian()) * scale);
        }
        return out;
    }

    @Test
    void theBoundIsNeverBelowTheCosineAndIsTight() {
        Random r = new Random(7);
        for (int dim : new int[] {8, 384, 512}) {
            float[][] v = anisotropic(r, 300, dim);
            // near-duplicates, the pairs a threshold of 0.85 and above decides on
            for (int i = 0; i < 50; i++) for (int k = 0; k < dim; k++) v[250 + i][k] = v[i][k] * 3.7f + (float) (1e-3 * r.nextGaussian());
            QuantisedCosines.Unit[] u = new QuantisedCosines.Unit[v.length];
            for (int i = 0; i < v.length; i++) u[i] = QuantisedCosines.of(v[i]);
            double worst = 0;
            for (int i = 0; i < v.length; i++) {
                for (int j = 0; j < v.length; j++) {
                    double cos = EmbeddingService.cosine(v[i], v[j]), upper = QuantisedCosines.upper(u[i], u[j]);
                    assertTrue(upper >= cos - 1e-5, "dim " + dim + " pair " + i + "," + j + ": bound " + upper + " under cosine " + cos);
                    worst = Math.max(worst, upper - cos);
                }
            }
            // loose enough never to fail, tight enough to rule out most pairs under a threshold
            assertTrue(worst < 0.25, "dim " + dim + ": bound exceeds a cosine by " + worst);
        }
    }

    @Test
    void aZeroVectorIsBoundedNearZeroAndDimensionsMustAgree() {
        QuantisedCosines.Unit zero = QuantisedCosines.of(new float[4]), one = QuantisedCosines.of(new float[] {1, 0, 0, 0});
        assertEquals(0, zero.slack());
        assertTrue(QuantisedCosines.upper(zero, one) >= 0 && QuantisedCosines.upper(zero, one) < 1e-3);
        RagException x = assertThrows(RagException.class, () -> QuantisedCosines.upper(one, QuantisedCosines.of(new float[3])));
        assertTrue(x.getMessage().contains("different dimensions: 4 vs 3"), x.getMessage());
    }

    @Test
    void theCosineWithSquaresComputedOnceIsTheCosineToTheBit() {
        Random r = new Random(11);
        float[][] v = anisotropic(r, 60, 384);
        v[3] = new float[384];
        for (float[] a : v) {
            for (float[] b : v) {
                assertEquals(Double.doubleToLongBits(EmbeddingService.cosine(a, b)),
                        Double.doubleToLongBits(EmbeddingService.cosine(a, EmbeddingService.squares(a), b, EmbeddingService.squares(b))));
            }
        }
    }
}
