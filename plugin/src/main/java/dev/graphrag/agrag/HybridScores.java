package dev.graphrag.agrag;

import dev.graphrag.core.search.ChunkSearch;

/** AGRAG's hybrid score over all chunks (spec §2.4): mean of min-max normalised cosine and BM25; dense alone without BM25 hits. */
public final class HybridScores {
    private HybridScores() {}

    public static double[] compute(double[] dense, double[] bm25, boolean denseOnly) {
        ChunkSearch.MinMax d = new ChunkSearch.MinMax(), b = new ChunkSearch.MinMax();
        for (double x : dense) d.add(x);
        for (double x : bm25) b.add(x);
        boolean anyBm25 = !denseOnly && bm25.length > 0 && b.max() > 0;
        double[] out = new double[dense.length];
        for (int i = 0; i < dense.length; i++) {
            out[i] = ChunkSearch.hybrid(d.scale(dense[i]), anyBm25 ? b.scale(bm25[i]) : Double.NaN);
        }
        return out;
    }
}
