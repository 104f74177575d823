package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Index candidates re-scored exactly against the scan of every row they stand in for. */
@LineIndependent
class QueryCosinesTest {
    /** 300 rows over 120 distinct vectors (rows repeat vectors, as AGRAG's facts repeat their sentence's), some rows without one. */
    static List<float[]> sharedRows(Random r) {
        List<float[]> distinct = new ArrayList<>();
        for (int i = 0; i < 120; i++) distinct.add(VectorMatrixTest.random(r, 24));
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++) rows.add(i % 41 == 7 ? null : distinct.get(r.nextInt(distinct.size())).clone());
        return rows;
    }

    @Test
    void candidatesThatHoldTheTrueBestRankAsTheScanAndEveryRowScoresAsScanned() {
        Random r = new Random(11);
        VectorMatrix m = new VectorMatrix("test", sharedRows(r));
        assertTrue(m.anyMissing());
        for (int round = 0; round < 20; round++) {
            float[] q = VectorMatrixTest.random(r, 24);
            QueryCosines scan = QueryCosines.scan(m, q);
            double[] all = m.cosines(q);
            // what an index gives: one row per distinct vector among the 15 best, in any order; the 5 least like the query
            List<Integer> byScore = IntStream.range(0, m.size()).filter(m::has).boxed()
                    .sorted((a, b) -> Double.compare(all[b], all[a])).toList();
            List<Integer> hits = new ArrayList<>();
            java.util.Set<Double> seen = new java.util.HashSet<>();
            for (int row : byScore) if (seen.size() < 15 && seen.add(all[row])) hits.add(row);
            java.util.Collections.shuffle(hits, r);
            int[] lowest = byScore.subList(byScore.size() - 5, byScore.size()).stream().mapToInt(Integer::intValue).toArray();
            QueryCosines indexed = QueryCosines.fromIndex(m, q, hits.stream().mapToInt(Integer::intValue).toArray(), lowest);

            assertTrue(indexed.indexed());
            assertFalse(scan.indexed());
            // every row that shares a hit's vector joins, so the best 10 (ties to the smaller row) are the scan's
            assertEquals(scan.top(10), indexed.top(10), "round " + round);
            assertEquals(scan.min(), indexed.min(), 0, "a row without a vector counts as 0, as in the scan");
            assertEquals(scan.max(), indexed.max(), 0);
            for (int row = 0; row < m.size(); row++) assertEquals(all[row], indexed.cosine(row), 0, "row " + row + " is read exactly");
            int[] candidates = indexed.rows();
            assertTrue(candidates.length >= 15, "shared vectors bring their other rows");
            for (int c : candidates) assertTrue(hits.stream().anyMatch(h -> Arrays.equals(m.rowsLike(h), m.rowsLike(c))));
            assertEquals(m.size(), scan.rows().length);
        }
    }

    @Test
    void rowsLikeGroupsEqualVectorsAndAMissingRowHasNone() {
        VectorMatrix m = new VectorMatrix("test", Arrays.asList(new float[] {1, 0}, new float[] {0, 1}, null, new float[] {1, 0}, new float[] {1, 0}));
        assertArrayEquals(new int[] {0, 3, 4}, m.rowsLike(3));
        assertArrayEquals(new int[] {1}, m.rowsLike(1));
        assertArrayEquals(new int[0], m.rowsLike(2));
        assertEquals(2, m.distinctCount());
        assertFalse(new VectorMatrix("test", List.of(new float[] {1, 0})).anyMissing());
    }

    @Test
    void aMinimumTheIndexMissedOnlyMovesTheRangeAndTheRankingStays() {
        Random r = new Random(3);
        List<float[]> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) rows.add(VectorMatrixTest.random(r, 16));
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = VectorMatrixTest.random(r, 16);
        double[] all = m.cosines(q);
        List<Integer> best = QueryCosines.topK(all, 30);
        // no probe of the far side: the floor is the worst candidate's, above the true minimum
        QueryCosines indexed = QueryCosines.fromIndex(m, q, best.stream().mapToInt(Integer::intValue).toArray(), new int[0]);
        assertEquals(best.subList(0, 10), indexed.top(10));
        assertEquals(all[best.get(29)], indexed.min(), 0);
        assertTrue(indexed.min() > QueryCosines.scan(m, q).min());
        assertEquals(30, indexed.top(1000).size(), "an indexed ranking ends with its candidates");
    }
}
