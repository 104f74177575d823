package dev.graphrag.core.embed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One query's cosines with the rows of a {@link VectorMatrix}, for a caller that ranks the best rows, reads a few
 * others, and scales by the range: either the whole matrix scanned (exact for every row, and the cheaper way while the
 * matrix is small), or {@link #fromIndex candidates from a vector index} re-scored exactly, every other row's cosine
 * computed when it is first read. The indexed form's work is bounded by the answer, not by the matrix: its ranking is
 * the index's candidates, its minimum the least cosine among the index's nearest rows to the negated query.
 */
public abstract sealed class QueryCosines permits QueryCosines.Scanned, QueryCosines.Indexed {
    /** The cosine of the query with row i (0 for a row without a vector). */
    public abstract double cosine(int row);

    /** The k best rows, best first, ties to the smaller row; an indexed form ranks its candidates only. */
    public abstract List<Integer> top(int k);

    /** The least and the greatest cosine over the matrix (rows without a vector count as 0), for min-max scaling. */
    public abstract double min();

    public abstract double max();

    /** The rows a consumer of every row's score reads: all of them when scanned, the candidates when indexed. */
    public abstract int[] rows();

    /** Whether the ranking came from an index (false: from a scan of every row). */
    public abstract boolean indexed();

    /** Every row's cosine in one pass. */
    public static QueryCosines scan(VectorMatrix m, float[] q) {
        return new Scanned(m.cosines(q));
    }

    /** A scan already made (for a caller that ran it on another thread). */
    public static QueryCosines scanned(double[] cosines) {
        return new Scanned(cosines);
    }

    /**
     * Candidates from an index, re-scored with the matrix's own vectors: {@code hits} the rows the index gave for the
     * query, {@code lowest} those it gave for the negated query (the rows least like the query). Each hit brings every
     * row that shares its vector, so equal rows rank exactly as a scan ranks them, ties to the smaller row.
     */
    public static QueryCosines fromIndex(VectorMatrix m, float[] q, int[] hits, int[] lowest) {
        VectorMatrix.Scorer scorer = m.scorer(q);
        java.util.BitSet rows = new java.util.BitSet(m.size());
        for (int h : hits) for (int r : m.rowsLike(h)) rows.set(r);
        int[] candidates = rows.stream().toArray();
        Integer[] boxed = Arrays.stream(candidates).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, Comparator.<Integer>comparingDouble(r -> -scorer.cosine(r)).thenComparing(Comparator.naturalOrder()));
        double min = m.anyMissing() ? 0 : Double.POSITIVE_INFINITY, max = min == 0 ? 0 : Double.NEGATIVE_INFINITY;
        for (int r : lowest) min = Math.min(min, scorer.cosine(r));
        for (int r : candidates) {
            double c = scorer.cosine(r);
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        if (candidates.length == 0 && lowest.length == 0) min = max = 0;
        return new Indexed(scorer, Arrays.stream(boxed).mapToInt(Integer::intValue).toArray(), min, max);
    }

    static final class Scanned extends QueryCosines {
        private final double[] all;
        private final double min, max;

        Scanned(double[] all) {
            this.all = all;
            double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
            for (double x : all) {
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
            this.min = lo;
            this.max = hi;
        }

        @Override public double cosine(int row) { return all[row]; }
        @Override public List<Integer> top(int k) { return topK(all, k); }
        @Override public double min() { return min; }
        @Override public double max() { return max; }
        @Override public int[] rows() { return java.util.stream.IntStream.range(0, all.length).toArray(); }
        @Override public boolean indexed() { return false; }
    }

    static final class Indexed extends QueryCosines {
        private final VectorMatrix.Scorer scorer;
        private final int[] ranked;
        private final double min, max;

        Indexed(VectorMatrix.Scorer scorer, int[] ranked, double min, double max) {
            this.scorer = scorer;
            this.ranked = ranked;
            this.min = min;
            this.max = max;
        }

        @Override public double cosine(int row) { return scorer.cosine(row); }

        @Override public List<Integer> top(int k) {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < ranked.length && i < k; i++) out.add(ranked[i]);
            return out;
        }

        @Override public double min() { return min; }
        @Override public double max() { return max; }
        @Override public int[] rows() { return ranked.clone(); }
        @Override public boolean indexed() { return true; }
    }

    /** Indexes of the k largest scores, best first, ties to the smaller index; one pass with a bounded heap. */
    public static List<Integer> topK(double[] score, int k) {
        if (k <= 0) return new ArrayList<>();
        Comparator<Integer> worstFirst = Comparator.<Integer>comparingDouble(i -> score[i]).thenComparing(Comparator.<Integer>reverseOrder());
        PriorityQueue<Integer> heap = new PriorityQueue<>(worstFirst);
        for (int i = 0; i < score.length; i++) {
            if (heap.size() < k) heap.add(i);
            // the primitive test first: most of tens of thousands of scores lose to the worst kept one
            else if (score[i] >= score[heap.peek()] && worstFirst.compare(i, heap.peek()) > 0) {
                heap.poll();
                heap.add(i);
            }
        }
        List<Integer> out = new ArrayList<>(heap);
        out.sort(worstFirst.reversed());
        return out;
    }
}
