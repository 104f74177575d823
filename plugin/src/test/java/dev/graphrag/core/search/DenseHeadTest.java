package dev.graphrag.core.search;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** rag.search's denseHead: dense's best lead a fused ranking in dense order, the rest keep the fused order. */
class DenseHeadTest {
    private static ChunkSearch.Hit hit(String id, double fused, double dense) {
        return new ChunkSearch.Hit(0, id, null, null, fused, dense, 0, null, null);
    }

    // fused order a, b, c, d, e; by cosine d, c, e, a, b (BM25 carried a and b to the top)
    private static final List<ChunkSearch.Hit> FUSED = List.of(hit("a", 0.9, 0.50), hit("b", 0.8, 0.40), hit("c", 0.7, 0.80),
            hit("d", 0.6, 0.90), hit("e", 0.5, 0.70));

    private static List<String> ids(List<ChunkSearch.Hit> hits) {
        return hits.stream().map(ChunkSearch.Hit::chunkId).toList();
    }

    @Test
    void theDenseHeadLeadsAndFusionOrdersTheRest() {
        assertEquals(List.of("a", "b", "c", "d", "e"), ids(ChunkSearch.denseHeadFirst(FUSED, 0)), "0: the plain fusion");
        assertEquals(List.of("d", "a", "b", "c", "e"), ids(ChunkSearch.denseHeadFirst(FUSED, 1)));
        assertEquals(List.of("d", "c", "a", "b", "e"), ids(ChunkSearch.denseHeadFirst(FUSED, 2)));
        assertEquals(List.of("d", "c", "e", "a", "b"), ids(ChunkSearch.denseHeadFirst(FUSED, 5)), "a head as long as the list: dense order");
        assertEquals(List.of("d", "c", "e", "a", "b"), ids(ChunkSearch.denseHeadFirst(FUSED, 50)));
    }

    @Test
    void equalCosinesGoByChunkId() {
        List<ChunkSearch.Hit> tied = List.of(hit("z", 0.9, 0.5), hit("y", 0.8, 0.5), hit("x", 0.7, 0.1));
        assertEquals(List.of("y", "z", "x"), ids(ChunkSearch.denseHeadFirst(tied, 1)));
    }

    @Test
    void theRankScoreFallsWithRankAndIsTheFusedScoreWhereTheHeadDidNotReorder() {
        // head 2 puts d (0.6) and c (0.7) above a (0.9): they take a's score, the rest keep their own
        double[] scores = ChunkSearch.rankScores(ChunkSearch.denseHeadFirst(FUSED, 2));
        assertEquals(List.of(0.9, 0.9, 0.9, 0.8, 0.5), java.util.Arrays.stream(scores).boxed().toList());
        // the plain fusion is already in order: its scores are the fused ones
        assertEquals(List.of(0.9, 0.8, 0.7, 0.6, 0.5), java.util.Arrays.stream(ChunkSearch.rankScores(FUSED)).boxed().toList());
        // with the reranker's order, the reranker's scores
        List<ChunkSearch.Hit> reranked = List.of(new ChunkSearch.Hit(1, "e", null, null, 0.5, 0.7, 0, 3.5, null),
                new ChunkSearch.Hit(2, "a", null, null, 0.9, 0.5, 0, 1.25, null));
        assertEquals(List.of(3.5, 1.25), java.util.Arrays.stream(ChunkSearch.rankScores(reranked)).boxed().toList());
        assertEquals(0, ChunkSearch.rankScores(List.of()).length);
    }
}
