package dev.graphrag.remind;

import dev.graphrag.core.embed.EmbeddingService;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** remind.index's synonym search with its first pass against comparing every entity exactly, as merging does. */
class EntityIndexTest {
    /** The search before the first pass: every entity's exact cosine, the highest at or above the threshold, the later on a tie. */
    static int everyEntity(List<float[]> entities, float[] v, double threshold) {
        int best = -1;
        double bestCos = threshold;
        for (int i = 0; i < entities.size(); i++) {
            double cos = EmbeddingService.cosine(v, entities.get(i));
            if (cos >= bestCos) {
                best = i;
                bestCos = cos;
            }
        }
        return best;
    }

    @Test
    void mergesAreThoseOfComparingEveryEntity() {
        Random r = new Random(3);
        for (double threshold : new double[] {0.85, 0.6, 0.95, 0.0}) {
            float[] common = new float[384];
            for (int k = 0; k < 384; k++) common[k] = (float) r.nextGaussian();
            EntityIndex index = new EntityIndex(threshold);
            List<float[]> entities = new ArrayList<>();
            int merges = 0;
            // surface forms in the order a build meets them: some near an earlier form (a synonym), some repeated exactly
            List<float[]> forms = new ArrayList<>();
            for (int f = 0; f < 1500; f++) {
                float[] v = new float[384];
                if (f > 10 && r.nextInt(4) == 0) {
                    float[] base = forms.get(r.nextInt(forms.size()));
                    double noise = r.nextInt(5) == 0 ? 0 : r.nextDouble() * 0.6;
                    for (int k = 0; k < 384; k++) v[k] = (float) (base[k] * (1 + r.nextDouble()) + noise * r.nextGaussian());
                } else {
                    double noise = 0.5 + r.nextDouble();
                    for (int k = 0; k < 384; k++) v[k] = (float) (common[k] + noise * r.nextGaussian());
                }
                forms.add(v);
                int expected = everyEntity(entities, v, threshold);
                assertEquals(expected, index.nearest(v), "threshold " + threshold + ", form " + f);
                if (expected < 0) {
                    entities.add(v);
                    index.add(v);
                } else {
                    merges++;
                }
            }
            assertEquals(entities.size(), index.size());
            assertTrue(merges > 100 && entities.size() > 100 || threshold == 0.0, "threshold " + threshold + ": " + merges + " merges");
        }
    }
}
