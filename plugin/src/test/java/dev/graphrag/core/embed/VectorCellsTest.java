package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A matrix's k-means cells as a source of candidates: exact where the probes reach every cell, close where they reach few. */
@LineIndependent
class VectorCellsTest {
    /** The scan's n best distinct vectors, one row each (the first row of each vector), best first, ties to the lower vector. */
    static int[] scanBest(VectorMatrix m, float[] q, int n) {
        double[] all = m.cosines(q);
        List<Integer> firstRows = new ArrayList<>();
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < m.size(); i++) {
            if (!m.has(i)) continue;
            int first = m.rowsLike(i)[0];
            if (seen.add(first)) firstRows.add(first);
        }
        // rows of equal vectors have equal cosines; the first rows ascend with their vectors' first appearance
        firstRows.sort((a, b) -> all[a] != all[b] ? Double.compare(all[b], all[a]) : Integer.compare(a, b));
        return firstRows.stream().limit(n).mapToInt(Integer::intValue).toArray();
    }

    @Test
    void probesThatReachEveryCellGiveTheScansBestRows() {
        Random r = new Random(5);
        VectorMatrix m = new VectorMatrix("test", QueryCosinesTest.sharedRows(r));
        VectorCells cells = m.cells();
        assertSame(cells, m.cells(), "made once");
        assertEquals(Math.round(Math.sqrt(m.distinctCount())), cells.cellCount());
        for (int round = 0; round < 20; round++) {
            float[] q = VectorMatrixTest.random(r, 24);
            for (int n : new int[] {1, 10, 500}) assertArrayEquals(scanBest(m, q, n), cells.nearestRows(q, n, 1000), "round " + round + " n " + n);
        }
        assertEquals(0, cells.nearestRows(new float[24], 5, 1000).length, "a zero query has no nearest rows");
    }

    @Test
    void fewProbesFindMostOfTheBestOnClusteredVectorsAndRescoreExactly() {
        // 4,000 vectors around 40 directions, as sentence embeddings cluster by topic
        Random r = new Random(8);
        List<float[]> centres = new ArrayList<>();
        for (int i = 0; i < 40; i++) centres.add(VectorMatrixTest.random(r, 64));
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            float[] c = centres.get(r.nextInt(centres.size())), v = new float[64];
            for (int d = 0; d < 64; d++) v[d] = c[d] + (float) (r.nextGaussian() * 0.05);
            rows.add(v);
        }
        VectorMatrix m = new VectorMatrix("test", rows);
        int found = 0, wanted = 0;
        for (int round = 0; round < 30; round++) {
            float[] q = rows.get(r.nextInt(rows.size())).clone();
            q[r.nextInt(64)] += 0.1f;
            int[] best = scanBest(m, q, 20);
            int[] cells = m.cells().nearestRows(q, 20, 4);
            java.util.Set<Integer> got = new java.util.HashSet<>();
            for (int row : cells) got.add(row);
            for (int row : best) if (got.contains(row)) found++;
            wanted += best.length;
            // what the cells return is ranked by the exact cosine
            QueryCosines c = QueryCosines.fromIndex(m, q, cells, m.cells().nearestRows(negated(q), 10, 4));
            double[] all = m.cosines(q);
            for (int i = 1; i < cells.length; i++) assertTrue(all[cells[i - 1]] >= all[cells[i]]);
            for (int row : cells) assertEquals(all[row], c.cosine(row));
        }
        assertTrue(found >= 0.95 * wanted, found + " of " + wanted + " of the 20 best among 4 of " + m.cells().cellCount() + " cells");
    }

    @Test
    void theCellsDependOnTheMatrixAlone() {
        Random r = new Random(3);
        List<float[]> rows = QueryCosinesTest.sharedRows(r);
        VectorMatrix a = new VectorMatrix("a", rows), b = new VectorMatrix("b", rows);
        for (int round = 0; round < 10; round++) {
            float[] q = VectorMatrixTest.random(r, 24);
            assertArrayEquals(a.cells().nearestRows(q, 15, 2), b.cells().nearestRows(q, 15, 2));
        }
    }

    static float[] negated(float[] q) {
        float[] out = new float[q.length];
        for (int i = 0; i < q.length; i++) out[i] = -q[i];
        return out;
    }
}
