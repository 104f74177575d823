package dev.graphrag.remind;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.PairSearch;
import dev.graphrag.core.embed.QuantisedCosines;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The entities remind.index's synonym merging searches (paper App. A.2; the threshold in docs/remind.md#defaults): every entity so far, in creation order, and for a
 * new surface form the one of highest cosine at or above the threshold (the later one on a tie), as comparing it with
 * every entity gives.
 *
 * <p>A build knows every surface form it may create before it writes (they are embedded first), so {@link #plan}
 * finds once, for each form, its neighbours at or above the threshold among the stored entities and the other forms:
 * one blocked, multithreaded pass over the pairs ({@link PairSearch}), whose first pass on integer copies
 * ({@link QuantisedCosines}) leaves the exact cosine to the few pairs that may reach the threshold. Merging in creation
 * order then looks only at a form's neighbours that exist by then, which gives the same merges as comparing every
 * entity, in work that no longer grows with the entities per form. When the pairs at or above the threshold are too
 * many to hold (a threshold near 0 makes nearly every pair one), each form is compared with every entity as it comes,
 * with the same first pass.
 */
final class EntityIndex {
    /**
     * The bound is of the unit copies' dot product, which differs from the cosine computed in double by the float
     * rounding of the copies (a few 1e-6 at most for 384 dimensions): this margin keeps the first pass exact.
     */
    static final double BOUND_MARGIN = 1e-4;
    /** Pairs at or above the threshold a plan holds at most (about 50 bytes each while found). */
    static final long MAX_PLANNED_PAIRS = 2_000_000;

    private final double threshold;
    private final long maxPlannedPairs;
    private final List<float[]> vectors = new ArrayList<>();
    private final List<int[]> quants = new ArrayList<>();       // the integer copies only: the float unit copies are not read here
    private double[] squares = new double[16], slacks = new double[16];

    /** The planned forms, or null before a plan or when it held too many pairs. */
    private Plan plan;

    EntityIndex(double threshold) {
        this(threshold, MAX_PLANNED_PAIRS);
    }

    EntityIndex(double threshold, long maxPlannedPairs) {
        this.threshold = threshold;
        this.maxPlannedPairs = maxPlannedPairs;
    }

    /** Adds an entity's vector at the next index. */
    void add(float[] v) {
        QuantisedCosines.Quantised u = QuantisedCosines.quantOf(v);
        append(v, EmbeddingService.squares(v), u.quant(), u.slack());
    }

    private void append(float[] v, double sq, int[] quant, double slack) {
        if (vectors.size() == squares.length) {
            squares = Arrays.copyOf(squares, 2 * squares.length);
            slacks = Arrays.copyOf(slacks, squares.length);
        }
        squares[vectors.size()] = sq;
        slacks[vectors.size()] = slack;
        vectors.add(v);
        quants.add(quant);
    }

    int size() {
        return vectors.size();
    }

    /** Entity i's vector. */
    float[] vector(int i) {
        return vectors.get(i);
    }

    /** The index of the entity v merges into, or -1 when none is at or above the threshold: every entity compared. */
    int nearest(float[] v) {
        QuantisedCosines.Quantised u = QuantisedCosines.quantOf(v);
        return nearest(v, EmbeddingService.squares(v), u.quant(), u.slack());
    }

    private int nearest(float[] v, double vSquares, int[] quant, double slack) {
        int best = -1;
        double bestCos = threshold;
        for (int i = 0; i < vectors.size(); i++) {
            if (QuantisedCosines.upper(quant, slack, quants.get(i), slacks[i]) + BOUND_MARGIN < bestCos) continue;
            double cos = EmbeddingService.cosine(v, vSquares, vectors.get(i), squares[i]);
            if (cos >= bestCos) {
                best = i;
                bestCos = cos;
            }
        }
        return best;
    }

    /**
     * Prepares the forms a build may create (form k is {@code forms.get(k)}): afterwards {@link #nearestForm} and
     * {@link #addForm} take the place of {@link #nearest} and {@link #add}. Returns whether the neighbours were planned
     * (false: too many pairs, and the forms are compared with every entity as they come).
     */
    boolean plan(List<float[]> forms, ExecutorService pool, int threads, BooleanSupplier cancelled) {
        int stored = vectors.size(), n = stored + forms.size();
        Plan p = new Plan(stored, forms);
        if (forms.isEmpty()) {
            plan = p;
            return true;
        }
        float[][] v = new float[n][];
        double[] sq = new double[n], sl = new double[n];
        int[][] q = new int[n][];
        for (int i = 0; i < stored; i++) {
            v[i] = vectors.get(i);
            sq[i] = squares[i];
            sl[i] = slacks[i];
            q[i] = quants.get(i);
        }
        for (int k = 0; k < forms.size(); k++) {
            v[stored + k] = forms.get(k);
            sq[stored + k] = p.squares[k];
            sl[stored + k] = p.slacks[k];
            q[stored + k] = p.quants[k];
        }
        AtomicLong found = new AtomicLong();
        AtomicBoolean overflow = new AtomicBoolean();
        // an overflow stops the other workers as a cancellation would
        PairSearch.Workers workers = new PairSearch.Workers(pool, threads, () -> overflow.get() || cancelled.getAsBoolean(),
                "remind.index", "searching synonyms");
        List<double[]> pairs;
        try {
            // pairs (i < j) with j a form: each form against the stored entities and the earlier forms
            pairs = PairSearch.pairs(n, stored, null, (i, j, out) -> {
                if (QuantisedCosines.upper(q[i], sl[i], q[j], sl[j]) + BOUND_MARGIN < threshold) return;
                // j is a form: the cosine as merging computes it (form first), which is the same to the bit either way
                double cos = EmbeddingService.cosine(v[j], sq[j], v[i], sq[i]);
                if (cos < threshold) return;
                if (found.incrementAndGet() > maxPlannedPairs) overflow.set(true);
                else out.add(new double[] {i, j, cos});
            }, workers);
        } catch (RuntimeException e) {
            // the workers stop on an overflow as on a cancellation; only a real cancellation or failure goes on up
            if (!overflow.get()) throw e;
            pairs = null;
        }
        if (overflow.get()) {
            p.neighbours = null;
            plan = p;
            return false;
        }
        p.link(pairs);
        plan = p;
        return true;
    }

    /** The index of the entity form k merges into, or -1: its neighbours that are entities by now, highest cosine, later on a tie. */
    int nearestForm(int k) {
        Plan p = requirePlan();
        if (p.neighbours == null) return nearest(p.forms.get(k), p.squares[k], p.quants[k], p.slacks[k]);
        int best = -1;
        double bestCos = Double.NEGATIVE_INFINITY;
        for (int e = p.start[k]; e < p.start[k + 1]; e++) {
            int row = p.neighbours[e];
            int entity = row < p.stored ? row : p.entityOf[row - p.stored];
            if (entity < 0) continue;
            double cos = p.cosines[e];
            if (cos > bestCos || cos == bestCos && entity > best) {
                best = entity;
                bestCos = cos;
            }
        }
        return best;
    }

    /** Form k becomes the next entity. */
    void addForm(int k) {
        Plan p = requirePlan();
        if (p.entityOf[k] >= 0) throw new IllegalStateException("form " + k + " is an entity already");
        p.entityOf[k] = vectors.size();
        append(p.forms.get(k), p.squares[k], p.quants[k], p.slacks[k]);
    }

    private Plan requirePlan() {
        if (plan == null) throw new IllegalStateException("no plan: call plan(forms) first");
        return plan;
    }

    /** The forms, their copies, their neighbours (rows: stored entities below {@code stored}, then forms) and the entity each became. */
    private static final class Plan {
        final int stored;
        final List<float[]> forms;
        final double[] squares, slacks;
        final int[][] quants;
        final int[] entityOf;
        int[] start, neighbours;
        double[] cosines;

        Plan(int stored, List<float[]> forms) {
            this.stored = stored;
            this.forms = forms;
            int f = forms.size();
            squares = new double[f];
            slacks = new double[f];
            quants = new int[f][];
            entityOf = new int[f];
            Arrays.fill(entityOf, -1);
            for (int k = 0; k < f; k++) {
                QuantisedCosines.Quantised u = QuantisedCosines.quantOf(forms.get(k));
                squares[k] = EmbeddingService.squares(forms.get(k));
                slacks[k] = u.slack();
                quants[k] = u.quant();
            }
        }

        /** Each form's neighbours in one array (CSR): a pair of two forms is listed at both. */
        void link(List<double[]> pairs) {
            int f = forms.size();
            start = new int[f + 1];
            for (double[] pr : pairs) {
                start[(int) pr[1] - stored + 1]++;
                if (pr[0] >= stored) start[(int) pr[0] - stored + 1]++;
            }
            for (int k = 0; k < f; k++) start[k + 1] += start[k];
            neighbours = new int[start[f]];
            cosines = new double[start[f]];
            int[] fill = Arrays.copyOf(start, f);
            for (double[] pr : pairs) {
                int i = (int) pr[0], j = (int) pr[1];
                int at = fill[j - stored]++;
                neighbours[at] = i;
                cosines[at] = pr[2];
                if (i >= stored) {
                    at = fill[i - stored]++;
                    neighbours[at] = j;
                    cosines[at] = pr[2];
                }
            }
        }
    }
}
