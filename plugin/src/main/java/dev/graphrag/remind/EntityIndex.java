package dev.graphrag.remind;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.QuantisedCosines;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entities remind.index's synonym merging searches (spec §2.1): every entity so far, in creation order, and for a
 * new surface form the one of highest cosine at or above the threshold (the later one on a tie), as comparing it with
 * every entity gives. A first pass on integer copies ({@link QuantisedCosines}) passes over the entities whose cosine
 * is bounded below the best so far, so that the exact cosine is computed for few of them: the search stays linear in
 * the entities per form, but at a fraction of the cost, which is what grows with the corpus.
 */
final class EntityIndex {
    /**
     * The bound is of the unit copies' dot product, which differs from the cosine computed in double by the float
     * rounding of the copies (a few 1e-6 at most for 384 dimensions): this margin keeps the first pass exact.
     */
    static final double BOUND_MARGIN = 1e-4;

    private final double threshold;
    private final List<float[]> vectors = new ArrayList<>();
    private final List<int[]> quants = new ArrayList<>();       // the integer copies only: the float unit copies are not read here
    private double[] squares = new double[16], slacks = new double[16];

    EntityIndex(double threshold) {
        this.threshold = threshold;
    }

    /** Adds an entity's vector at the next index. */
    void add(float[] v) {
        if (vectors.size() == squares.length) {
            squares = Arrays.copyOf(squares, 2 * squares.length);
            slacks = Arrays.copyOf(slacks, squares.length);
        }
        QuantisedCosines.Unit u = QuantisedCosines.of(v);
        squares[vectors.size()] = EmbeddingService.squares(v);
        slacks[vectors.size()] = u.slack();
        vectors.add(v);
        quants.add(u.quant());
    }

    int size() {
        return vectors.size();
    }

    /** The index of the entity v merges into, or -1 when none is at or above the threshold. */
    int nearest(float[] v) {
        QuantisedCosines.Unit u = QuantisedCosines.of(v);
        double vSquares = EmbeddingService.squares(v);
        int best = -1;
        double bestCos = threshold;
        for (int i = 0; i < vectors.size(); i++) {
            if (QuantisedCosines.upper(u.quant(), u.slack(), quants.get(i), slacks[i]) + BOUND_MARGIN < bestCos) continue;
            double cos = EmbeddingService.cosine(v, vSquares, vectors.get(i), squares[i]);
            if (cos >= bestCos) {
                best = i;
                bestCos = cos;
            }
        }
        return best;
    }
}
