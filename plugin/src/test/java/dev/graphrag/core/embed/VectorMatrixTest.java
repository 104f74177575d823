package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class VectorMatrixTest {
    static float[] random(Random r, int dim) {
        float[] v = new float[dim];
        for (int i = 0; i < dim; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    /** count random rows of dim dimensions, every gapEvery-th missing (null) */
    static List<float[]> rowsWithGaps(Random r, int count, int dim, int gapEvery) {
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) rows.add(i % gapEvery == gapEvery / 2 ? null : random(r, dim));
        return rows;
    }

    @Test
    void cosinesMatchTheDirectFormulaAndMissingRowsScoreZero() {
        Random r = new Random(7);
        List<float[]> rows = rowsWithGaps(r, 50, 37, 7);
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = random(r, 37);
        double[] all = m.cosines(q);
        for (int i = 0; i < rows.size(); i++) {
            double expected = rows.get(i) == null ? 0 : EmbeddingService.cosine(q, rows.get(i));
            assertEquals(expected, all[i], 1e-6, "row " + i);
        }
        assertThrows(RagException.class, () -> m.cosines(new float[5]));
    }

    @Test
    void bothDotKernelsEqualADoublePrecisionSumAtAnyOffsetAndLength() {
        Random r = new Random(5);
        for (int dim : new int[] {1, 7, 8, 9, 16, 37, 384}) {
            float[] q = random(r, dim), many = random(r, 3 * dim);
            for (int row = 0; row < 3; row++) {
                double exact = 0;
                for (int i = 0; i < dim; i++) exact += (double) q[i] * many[row * dim + i];
                // float accumulators over at most 48 terms each: a few float ulps of the magnitudes summed
                double tolerance = 1e-5 * Math.sqrt(dim) * 4;
                assertEquals(exact, EmbeddingService.dotFused(q, many, row * dim), tolerance, "fused, dim " + dim);
                assertEquals(exact, EmbeddingService.dotSeparate(q, many, row * dim), tolerance, "separate, dim " + dim);
                assertEquals(EmbeddingService.FMA ? EmbeddingService.dotFused(q, many, row * dim) : EmbeddingService.dotSeparate(q, many, row * dim),
                        EmbeddingService.dot(q, many, row * dim), "dot picks the kernel this CPU runs fast");
            }
        }
    }

    @Test
    void theScorerGivesExactlyTheFullScansValuesInAnyOrderAndTwice() {
        Random r = new Random(11);
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) rows.add(i == 17 ? null : random(r, 16));
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = random(r, 16);
        double[] all = m.cosines(q);
        VectorMatrix.Scorer scorer = m.scorer(q);
        for (int i : new int[] {39, 0, 5, 17, 6, 5, 39}) assertEquals(all[i], scorer.cosine(i), 0.0, "row " + i);
        assertEquals(0, scorer.cosine(17));
        assertEquals(0, m.scorer(new float[16]).cosine(3));
        assertThrows(RagException.class, () -> m.scorer(new float[5]));
    }

    @Test
    void equalRowsAreScoredOnceWithExactlyTheValueEachRowWouldGetAlone() {
        Random r = new Random(13);
        List<float[]> distinct = new ArrayList<>();
        for (int i = 0; i < 6; i++) distinct.add(random(r, 24));
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            // copies, not the same arrays: equal values are what makes rows share
            rows.add(i % 11 == 5 ? null : i % 13 == 7 ? new float[24] : distinct.get(i % distinct.size()).clone());
        }
        VectorMatrix m = new VectorMatrix("test", rows);
        assertEquals(distinct.size(), m.distinctCount());
        float[] q = random(r, 24);
        double qn = EmbeddingService.norm(q);
        double[] all = m.cosines(q);
        VectorMatrix.Scorer scorer = m.scorer(q);
        for (int i = 0; i < rows.size(); i++) {
            float[] v = rows.get(i);
            boolean missing = v == null || EmbeddingService.norm(v) == 0;
            assertEquals(!missing, m.has(i), "row " + i);
            double alone = missing ? 0 : EmbeddingService.dot(q, v) / (EmbeddingService.norm(v) * qn);
            assertEquals(alone, all[i], 0.0, "row " + i);
            assertEquals(alone, scorer.cosine(i), 0.0, "row " + i);
        }
    }

    @Test
    void aHelperThreadFillingAheadChangesNoValueAndStopsWhenTold() throws Exception {
        Random r = new Random(17);
        List<float[]> rows = rowsWithGaps(r, 3000, 64, 97);
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = random(r, 64);
        double[] all = m.cosines(q);
        int[] every = new int[rows.size()];
        for (int i = 0; i < every.length; i++) every[i] = i;
        for (int round = 0; round < 20; round++) {
            VectorMatrix.Scorer shared = m.scorer(q);
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger filled = new java.util.concurrent.atomic.AtomicInteger();
            Thread helper = new Thread(() -> filled.set(shared.fill(every, done::get)));
            helper.start();
            // the owner reads from the other end while the helper fills from the start: every value is the full scan's
            for (int i = rows.size() - 1; i >= 0; i--) assertEquals(all[i], shared.cosine(i), 0.0, "round " + round + ", row " + i);
            done.set(true);
            helper.join();
            assertTrue(filled.get() <= m.distinctCount(), "each distinct row at most once");
        }
        // a helper told to stop before it starts computes nothing, and one left alone computes each distinct row once
        assertEquals(0, m.scorer(q).fill(every, () -> true));
        VectorMatrix.Scorer alone = m.scorer(q);
        assertEquals(m.distinctCount(), alone.fill(every, () -> false));
        assertEquals(0, alone.fill(every, () -> false));
        for (int i = 0; i < rows.size(); i++) assertEquals(all[i], alone.cosine(i), 0.0);
    }
}
