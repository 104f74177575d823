package dev.graphrag.agrag;

import dev.graphrag.core.embed.QueryCosines;
import dev.graphrag.core.search.ChunkSearch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * AGRAG's hybrid score of a chunk (paper Eq. 20-21): the mean of its min-max normalised cosine and BM25 score over all the
 * corpus's chunks, the cosine alone without BM25 hits. Computed per chunk when read, so a query pays for the chunks its
 * costs and its ranking read: the cosine range comes from {@link QueryCosines}, BM25's from its hits (a chunk without a
 * hit scores 0, which is then the range's floor).
 */
public final class HybridScores {
    private final QueryCosines dense;
    private final Map<Integer, Double> bm25;
    private final int chunks;
    private final boolean anyBm25;
    private final ChunkSearch.MinMax denseRange = new ChunkSearch.MinMax(), bm25Range = new ChunkSearch.MinMax();

    private HybridScores(QueryCosines dense, Map<Integer, Double> bm25, int chunks, boolean denseOnly) {
        this.dense = dense;
        this.bm25 = bm25;
        this.chunks = chunks;
        denseRange.add(dense.min());
        denseRange.add(dense.max());
        for (double x : bm25.values()) bm25Range.add(x);
        if (bm25.size() < chunks) bm25Range.add(0);
        this.anyBm25 = !denseOnly && chunks > 0 && bm25Range.max() > 0;
    }

    /** @param bm25 chunk to raw BM25 score for the chunks that had a hit */
    public static HybridScores of(QueryCosines dense, Map<Integer, Double> bm25, int chunks, boolean denseOnly) {
        return new HybridScores(dense, bm25, chunks, denseOnly);
    }

    /** Every chunk's score from whole arrays (the hand-worked case's form). */
    public static double[] compute(double[] dense, double[] bm25, boolean denseOnly) {
        Map<Integer, Double> hits = new HashMap<>();
        for (int i = 0; i < bm25.length; i++) hits.put(i, bm25[i]);
        HybridScores h = of(QueryCosines.scanned(dense), hits, dense.length, denseOnly);
        double[] out = new double[dense.length];
        for (int i = 0; i < out.length; i++) out[i] = h.score(i);
        return out;
    }

    public double score(int chunk) {
        // within [0, 1] as a scan's are: approximate candidates (an index's, a few cells') may miss rows better or worse
        // than all of them, whose cosines are still read (a contains edge's cost), and a cost must not go below 0
        double scaled = Math.min(1, Math.max(0, denseRange.scale(dense.cosine(chunk))));
        return ChunkSearch.hybrid(scaled, anyBm25 ? bm25Range.scale(bm25.getOrDefault(chunk, 0.0)) : Double.NaN);
    }

    /**
     * The k best chunks, best first, ties to the smaller chunk. Scanned cosines rank every chunk. Indexed ones rank the
     * cosine candidates and the BM25 hits: a chunk in neither scores at most the mean of its scaled cosine and 0, which
     * none of the k best cosine candidates is below, so the k best are among them.
     */
    public List<Integer> top(int k) {
        if (!dense.indexed()) {
            double[] all = new double[chunks];
            for (int c = 0; c < chunks; c++) all[c] = score(c);
            return QueryCosines.topK(all, k);
        }
        Set<Integer> candidates = new LinkedHashSet<>(dense.top(k));
        candidates.addAll(bm25.keySet());
        List<Integer> ranked = new ArrayList<>(candidates);
        Map<Integer, Double> score = new HashMap<>();
        for (int c : ranked) score.put(c, score(c));
        ranked.sort(Comparator.<Integer>comparingDouble(c -> -score.get(c)).thenComparing(Comparator.naturalOrder()));
        return ranked.subList(0, Math.min(k, ranked.size()));
    }
}
