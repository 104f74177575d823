package dev.graphrag.core.embed;

import java.util.Arrays;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * Spherical k-means in 12-bit integer arithmetic (unit vectors times {@link #SCALE}, rounded; integer dot products
 * are a plain reduction the JIT vectorises), for cutting a set of vectors into cells: AGRAG's synonym search above
 * its exact size and a matrix's {@link VectorCells}. Deterministic: the sample and the start are drawn with a fixed
 * seed from the rows in the order the caller gives, and ties go to the lower cell.
 */
public final class SphericalKMeans {
    /** |component| <= 1, so the products of two unit vectors fit an int over 512 dimensions. */
    public static final int SCALE = 2048;

    /** Runs a task over blocks of [0, n); a caller with a pool shares the blocks among its threads. */
    public interface Blocks {
        void run(int n, int block, Block task);
    }

    /** A range [lo, hi) of work items. */
    public interface Block {
        void run(int lo, int hi);
    }

    public static final Blocks SEQUENTIAL = (n, block, task) -> {
        for (int lo = 0; lo < n; lo += block) task.run(lo, Math.min(n, lo + block));
    };

    private SphericalKMeans() {}

    /** The integer copy of a vector scaled to unit length (all zero for a zero vector). */
    public static int[] quantise(float[] v, double norm) {
        int[] q = new int[v.length];
        if (norm > 0) for (int k = 0; k < v.length; k++) q[k] = Math.round((float) (v[k] / norm) * SCALE);
        return q;
    }

    /**
     * The centres of {@code cells} cells, as integer unit vectors: k-means over a sample of {@code samplePerCell} rows
     * per cell drawn from {@code order} with a fixed seed, started from the sample's first rows, {@code rounds}
     * rounds; a cell that empties keeps its centre. {@code quant} the rows' integer copies, {@code unit} their unit
     * vectors (for the centres' sums).
     */
    public static int[][] fit(int[][] quant, IntFunction<float[]> unit, int[] order, int cells, int samplePerCell, int rounds, long seed, Blocks blocks,
                              Runnable checkCancelled) {
        int[] sample = order.clone();
        Random random = new Random(seed);
        int s = Math.min(sample.length, samplePerCell * cells);
        for (int i = 0; i < s; i++) {
            int j = i + random.nextInt(sample.length - i);
            int t = sample[i];
            sample[i] = sample[j];
            sample[j] = t;
        }
        int dim = quant[order[0]].length;
        int[][] centroids = new int[cells][];
        for (int c = 0; c < cells; c++) centroids[c] = quant[sample[c]].clone();
        int[] cell = new int[s];
        for (int round = 0; round < rounds; round++) {
            blocks.run(s, 64, (lo, hi) -> {
                long[] dots = new long[cells];
                for (int k = lo; k < hi; k++) cell[k] = nearestCells(quant[sample[k]], centroids, 1, dots)[0];
            });
            checkCancelled.run();
            double[][] sum = new double[cells][dim];
            int[] count = new int[cells];
            for (int k = 0; k < s; k++) {
                float[] u = unit.apply(sample[k]);
                double[] acc = sum[cell[k]];
                for (int d = 0; d < dim; d++) acc[d] += u[d];
                count[cell[k]]++;
            }
            for (int c = 0; c < cells; c++) {
                if (count[c] == 0) continue;
                double norm = 0;
                for (int d = 0; d < dim; d++) norm += sum[c][d] * sum[c][d];
                norm = Math.sqrt(norm);
                if (norm == 0) continue;
                for (int d = 0; d < dim; d++) centroids[c][d] = (int) Math.round(sum[c][d] / norm * SCALE);
            }
        }
        return centroids;
    }

    /** The k cells whose centres are nearest v, nearest first; {@code scratch} holds one long per cell. */
    public static int[] nearestCells(int[] v, int[][] centroids, int k, long[] scratch) {
        for (int c = 0; c < centroids.length; c++) scratch[c] = dot(v, centroids[c]);
        return largest(scratch, centroids.length, k);
    }

    /** The k largest of the first n values, largest first (ties to the lower index). */
    public static int[] largest(long[] values, int n, int k) {
        int[] best = new int[Math.max(0, Math.min(k, n))];
        int have = 0;
        for (int c = 0; c < n && best.length > 0; c++) {
            if (have == best.length && values[c] <= values[best[have - 1]]) continue;
            int at = have < best.length ? have++ : have - 1;
            while (at > 0 && values[best[at - 1]] < values[c]) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = c;
        }
        return have == best.length ? best : Arrays.copyOf(best, have);
    }

    /** Integer dot product: a plain reduction the JIT turns into vector instructions. */
    public static int dot(int[] a, int[] b) {
        int s = 0;
        for (int k = 0; k < a.length; k++) s += a[k] * b[k];
        return s;
    }
}
