package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The blocked, multithreaded pair loop under threshold searches over vectors (AGRAG's synonym edges, ReMind's synonym
 * merging): a block of rows stays in cache while the other rows stream past once, and the workers of a pool take
 * blocks in turn. What is compared and kept is the caller's {@link PairTest}; what each block finds is joined in block
 * order, so two runs give the same list.
 */
public final class PairSearch {
    /** Rows per block: 64 integer copies of 384 dimensions stay in a core's L2 cache. */
    public static final int BLOCK = 64;

    /** Compares rows i < j, adding {i, j, score} to found when the pair is kept. */
    public interface PairTest {
        void compare(int i, int j, List<double[]> found);
    }

    /** A range [lo, hi) of work items, adding what it finds. */
    public interface BlockTask {
        void run(int lo, int hi, List<double[]> found);
    }

    private PairSearch() {}

    /**
     * Every pair i < j of [0, n) with j at or above {@code from} and both ends eligible ({@code eligible} null: all),
     * given to the test. {@code from} 0 is every pair; {@code from} s pairs the rows from s on with each other and with
     * the rows before s, which are not paired among themselves (new vectors against stored ones).
     */
    public static List<double[]> pairs(int n, int from, boolean[] eligible, PairTest test, Workers workers) {
        return workers.run(n, BLOCK, (lo, hi, found) -> {
            for (int j = Math.max(lo + 1, from); j < n; j++) {
                if (eligible != null && !eligible[j]) continue;
                if ((j & 1023) == 0) workers.checkCancelled();
                for (int i = lo, end = Math.min(hi, j); i < end; i++) {
                    if (eligible == null || eligible[i]) test.compare(i, j, found);
                }
            }
        });
    }

    /** The pool's workers taking blocks of [0, n) in turn; {@code who} names the search in errors ("agrag.index: ... synonyms"). */
    public record Workers(ExecutorService pool, int threads, BooleanSupplier cancelled, String who, String what) implements SphericalKMeans.Blocks {
        public Workers {
            threads = Math.max(1, threads);
        }

        @Override
        public void run(int n, int block, SphericalKMeans.Block task) {
            run(n, block, (lo, hi, found) -> task.run(lo, hi));
        }

        public List<double[]> run(int n, int block, BlockTask task) {
            int blocks = (n + block - 1) / block;
            List<List<double[]>> byBlock = new ArrayList<>(Collections.nCopies(blocks, null));
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> parts = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                parts.add(pool.submit(() -> {
                    for (int b = next.getAndIncrement(); b < blocks; b = next.getAndIncrement()) {
                        List<double[]> found = new ArrayList<>();
                        task.run(b * block, Math.min(n, (b + 1) * block), found);
                        byBlock.set(b, found);
                    }
                }));
            }
            try {
                for (Future<?> f : parts) f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RagException(who + ": interrupted while " + what + "; run it again to finish");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException re) throw re;
                throw new RagException(who + ": " + what + " failed: " + e.getCause(), e.getCause());
            } finally {
                for (Future<?> f : parts) f.cancel(true);
            }
            List<double[]> all = new ArrayList<>();
            for (List<double[]> found : byBlock) all.addAll(found);
            return all;
        }

        public void checkCancelled() {
            if (cancelled.getAsBoolean()) throw new RagException(who + ": terminated while " + what + "; run it again to finish");
        }
    }

    /** Threads for a search, at most the machine's cores and 8. */
    public static int threads() {
        return Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
    }
}
