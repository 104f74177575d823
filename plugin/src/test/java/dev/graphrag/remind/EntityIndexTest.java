package dev.graphrag.remind;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.embed.EmbeddingService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** remind.index's synonym search, planned or form by form, against comparing every entity exactly, as merging does. */
@LineIndependent
class EntityIndexTest {
    static final ExecutorService POOL = Executors.newFixedThreadPool(2);

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

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

    /** Vectors as a build meets surface forms: some near an earlier one (a synonym), some the same direction exactly. */
    static List<float[]> forms(Random r, int count, List<float[]> earlier) {
        float[] common = new float[384];
        for (int k = 0; k < 384; k++) common[k] = (float) r.nextGaussian();
        List<float[]> all = new ArrayList<>(earlier), out = new ArrayList<>();
        for (int f = 0; f < count; f++) {
            float[] v = new float[384];
            if (all.size() > 10 && r.nextInt(4) == 0) {
                float[] base = all.get(r.nextInt(all.size()));
                double noise = r.nextInt(5) == 0 ? 0 : r.nextDouble() * 0.6;
                for (int k = 0; k < 384; k++) v[k] = (float) (base[k] * (1 + r.nextDouble()) + noise * r.nextGaussian());
            } else {
                double noise = 0.5 + r.nextDouble();
                for (int k = 0; k < 384; k++) v[k] = (float) (common[k] + noise * r.nextGaussian());
            }
            all.add(v);
            out.add(v);
        }
        return out;
    }

    @Test
    void formByFormMergesAreThoseOfComparingEveryEntity() {
        Random r = new Random(3);
        for (double threshold : new double[] {0.85, 0.6, 0.95, 0.0}) {
            EntityIndex index = new EntityIndex(threshold);
            List<float[]> entities = new ArrayList<>();
            int merges = 0, f = 0;
            for (float[] v : forms(r, 1500, List.of())) {
                int expected = everyEntity(entities, v, threshold);
                assertEquals(expected, index.nearest(v), "threshold " + threshold + ", form " + f++);
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

    /**
     * A build's plan: stored entities first, then the new forms, some never resolved (a triple whose ends are both
     * unknown is dropped). Each planned merge equals comparing every entity so far; a cap of pairs below what the
     * threshold finds falls back to form by form with the same merges.
     */
    @Test
    void plannedMergesAreThoseOfComparingEveryEntity() {
        for (double threshold : new double[] {0.85, 0.6, 0.95, 0.0}) {
            for (long cap : new long[] {EntityIndex.MAX_PLANNED_PAIRS, 50}) {
                Random r = new Random(7);
                List<float[]> stored = forms(r, 300, List.of());
                List<float[]> fresh = forms(r, 1200, stored);
                EntityIndex index = new EntityIndex(threshold, cap);
                List<float[]> entities = new ArrayList<>();
                for (float[] s : stored) {
                    index.add(s);
                    entities.add(s);
                }
                boolean planned = index.plan(fresh, POOL, 2, () -> false);
                assertEquals(cap > 50, planned, "threshold " + threshold + ", cap " + cap);
                int merges = 0, created = 0;
                for (int k = 0; k < fresh.size(); k++) {
                    if (r.nextInt(10) == 0) continue;
                    float[] v = fresh.get(k);
                    int expected = everyEntity(entities, v, threshold);
                    assertEquals(expected, index.nearestForm(k), "threshold " + threshold + ", cap " + cap + ", form " + k);
                    if (expected < 0) {
                        entities.add(v);
                        index.addForm(k);
                        assertEquals(v, index.vector(index.size() - 1));
                        created++;
                    } else {
                        merges++;
                    }
                }
                assertEquals(entities.size(), index.size());
                assertTrue(threshold == 0.0 || merges > 100 && created > 100, "threshold " + threshold + ": " + merges + " merges, " + created + " created");
                final int last = fresh.size() - 1;
                if (index.vector(index.size() - 1) == fresh.get(last)) assertThrows(IllegalStateException.class, () -> index.addForm(last));
            }
        }
    }

    @Test
    void aCancelledPlanStopsWithTheCallsMessage() {
        Random r = new Random(11);
        EntityIndex index = new EntityIndex(0.85);
        var e = assertThrows(RuntimeException.class, () -> index.plan(forms(r, 3000, List.of()), POOL, 2, () -> true));
        assertTrue(e.getMessage().startsWith("remind.index: terminated while searching synonyms"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> index.nearestForm(0));
    }

    @Test
    void aBuildWithNoNewFormsPlansNothing() {
        EntityIndex index = new EntityIndex(0.85);
        index.add(new float[] {1, 0, 0});
        assertTrue(index.plan(List.of(), POOL, 2, () -> false));
        assertFalse(index.size() != 1);
    }
}
