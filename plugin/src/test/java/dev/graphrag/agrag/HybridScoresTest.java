package dev.graphrag.agrag;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.embed.QueryCosines;
import dev.graphrag.core.embed.VectorMatrix;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class HybridScoresTest {
    @Test
    void aChunkTheCandidatesMissedScoresWithinTheRangeSoItsCostStaysNonNegative() {
        // four chunks along a line away from the query; the candidates hold the middle two only
        List<float[]> rows = new ArrayList<>();
        for (float x : new float[] {1f, 0.8f, 0.5f, -1f}) rows.add(new float[] {x, (float) Math.sqrt(Math.max(0, 1 - x * x))});
        VectorMatrix m = new VectorMatrix("test", rows);
        float[] q = {1f, 0f};
        QueryCosines candidates = QueryCosines.fromIndex(m, q, new int[] {1, 2}, new int[] {2});
        HybridScores h = HybridScores.of(candidates, Map.of(), 4, true);
        assertEquals(1.0, h.score(0), "better than every candidate: the top of the range, not above it");
        assertEquals(0.0, h.score(3), "worse than every candidate: the floor");
        assertEquals(1.0, h.score(1), 1e-12);
        assertEquals(0.0, h.score(2), 1e-12);
        for (int c = 0; c < 4; c++) assertTrue(EdgeCosts.HALF.cost(h.score(c)) >= 0 && EdgeCosts.REFERENCE.cost(h.score(c)) >= 0);
        // a scan's scores are unchanged: min-max over every chunk
        HybridScores scanned = HybridScores.of(QueryCosines.scan(m, q), Map.of(), 4, true);
        assertEquals(1.0, scanned.score(0), 1e-12);
        assertEquals((0.8 + 1) / 2, scanned.score(1), 1e-6);
    }
}
