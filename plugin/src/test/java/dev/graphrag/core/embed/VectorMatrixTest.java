package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class VectorMatrixTest {
    static float[] random(Random r, int dim) {
        float[] v = new float[dim];
        for (int i = 0; i < dim; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    @Test
    void cosinesMatchTheDirectFormulaAndMissingRowsScoreZero() {
        Random r = new Random(7);
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) rows.add(i % 7 == 3 ? null : random(r, 37));
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
    void selectedRowsGetExactlyTheFullScansValuesAndTheRestZero() {
        Random r = new Random(11);
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) rows.add(random(r, 16));
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = random(r, 16);
        double[] all = m.cosines(q);
        int[] picked = {0, 5, 6, 39};
        double[] some = m.cosines(q, picked);
        double[] expected = new double[all.length];
        for (int i : picked) expected[i] = all[i];
        assertArrayEquals(expected, some);
        assertEquals(0, Arrays.stream(m.cosines(q, new int[0])).filter(x -> x != 0).count());
    }
}
