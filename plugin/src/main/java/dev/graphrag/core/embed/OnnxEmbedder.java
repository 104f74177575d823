package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;

/** The in-process ONNX model: texts batched by similar token length, since padding dominates otherwise. */
public final class OnnxEmbedder implements Embedder {
    private final EmbeddingModel model;

    public OnnxEmbedder(EmbeddingModel model) {
        this.model = model;
        this.concurrentCalls = model.device().startsWith("cuda") ? 1 : Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    @Override public String name() { return model.spec().name(); }
    @Override public int dimensions() { return model.dimensions(); }
    @Override public String device() { return model.device(); }
    @Override public int maxLength() { return model.spec().maxLength(); }
    @Override public TextTokenizer tokenizer() { return model.tokenizer(); }

    /**
     * {@code independent}: a batch-invariant (fp32) model gets batches of texts of one token length, so no padding
     * enters (3x faster than one call per text for fp32 on the CPU); a model that is not (int8, whose activations are
     * scaled per batch; fp32 on CUDA with its TF32 matrix products) gets one call per text.
     */
    @Override
    public float[][] embedTexts(List<String> texts, boolean independent, BooleanSupplier cancelled) {
        int n = texts.size();
        int[][] ids = new int[n][];
        for (int i = 0; i < n; i++) ids[i] = model.tokenizer().encode(texts.get(i), maxLength());
        if (!independent) return embedSorted(ids, false, cancelled);
        if (model.batchInvariant()) return embedSorted(ids, true, cancelled);
        return embedEachConcurrently(ids, cancelled);
    }

    /**
     * One model call per text, as a model that is not batch-invariant needs for vectors independent of their neighbours:
     * each call sees its text alone, so the vectors are those of calls made one after another, and they run side by side
     * as every batch does ({@link #run}).
     */
    private float[][] embedEachConcurrently(int[][] ids, BooleanSupplier cancelled) {
        List<int[][]> calls = new java.util.ArrayList<>(ids.length);
        for (int[] one : ids) calls.add(new int[][] {one});
        float[][][] vecs = run(calls, cancelled);
        float[][] out = new float[ids.length][];
        for (int i = 0; i < ids.length; i++) out[i] = vecs[i][0];
        return out;
    }

    /**
     * Model calls in flight at once on the CPU: one per core. On 2 cores one call at a time used about half the machine
     * (bge-small int8: 3,361 against 6,891 model tokens a second at 512 tokens a text, 6,341 against 11,526 at 16;
     * EmbeddingThroughput --explore, docs/benchmarks.md), so calls run side by side; each call's batch is what it was, so
     * every vector is too. On a GPU calls queue on the device anyway, and run one at a time.
     */
    private final int concurrentCalls;
    private static final java.util.concurrent.ExecutorService CALLS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "graphrag-embed");
        t.setDaemon(true);
        return t;
    });

    /**
     * The batches' vectors, in order: up to {@code concurrentCalls} model calls at a time, the caller's thread alone asking
     * {@code cancelled} (a transaction's guard) between waits; a failed call fails the whole and stops the rest.
     */
    private float[][][] run(List<int[][]> batches, BooleanSupplier cancelled) {
        int n = batches.size();
        float[][][] out = new float[n][][];
        if (n == 1 || concurrentCalls == 1) {
            for (int i = 0; i < n; i++) {
                if (cancelled.getAsBoolean()) throw new RagException("embedding cancelled: the transaction was terminated");
                out[i] = model.embedIds(batches.get(i));
            }
            return out;
        }
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<java.util.concurrent.Future<?>> workers = new java.util.ArrayList<>();
        for (int w = 0; w < Math.min(concurrentCalls, n); w++) {
            workers.add(CALLS.submit(() -> {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) out[i] = model.embedIds(batches.get(i));
            }));
        }
        try {
            for (java.util.concurrent.Future<?> f : workers) {
                while (true) {
                    try {
                        f.get(50, java.util.concurrent.TimeUnit.MILLISECONDS);
                        break;
                    } catch (java.util.concurrent.TimeoutException e) {
                        if (cancelled.getAsBoolean()) next.set(n);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            next.set(n);
            throw new RagException("embedding cancelled: interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
            next.set(n);
            throw e.getCause() instanceof RuntimeException r ? r : new RagException("embedding failed: " + e.getCause(), e.getCause());
        }
        if (cancelled.getAsBoolean()) throw new RagException("embedding cancelled: the transaction was terminated");
        return out;
    }

    @Override
    public float[][] embedChunks(List<String> texts, List<int[]> tokenIds, BooleanSupplier cancelled) {
        int n = tokenIds.size();
        int body = maxLength() - model.tokenizer().specialTokens();
        int[][] ids = new int[n][];
        for (int i = 0; i < n; i++) {
            int[] t = tokenIds.get(i);
            ids[i] = model.tokenizer().frame(t.length <= body ? t : Arrays.copyOf(t, Math.max(0, body)));
        }
        return embedSorted(ids, false, cancelled);
    }

    /** Length-sorted batches, results in input order; {@code oneLength}: a batch never mixes token lengths (no padding). */
    private float[][] embedSorted(int[][] ids, boolean oneLength, BooleanSupplier cancelled) {
        int n = ids.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        // ties in length break by the tokens themselves, not by input position: the batches a set of texts falls into,
        // and so an int8 model's per-batch activation scales, do not depend on the order the texts came in
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> ids[i].length).thenComparing((a, b) -> Arrays.compare(ids[a], ids[b])));
        int batchSize = model.spec().batchSize();
        List<int[][]> batches = new java.util.ArrayList<>();
        List<int[]> positions = new java.util.ArrayList<>();
        for (int from = 0; from < n; ) {
            int to = from + 1;
            while (to < n && to - from < batchSize && (!oneLength || ids[order[to]].length == ids[order[from]].length)) to++;
            int[][] batch = new int[to - from][];
            int[] at = new int[to - from];
            for (int b = 0; b < batch.length; b++) {
                batch[b] = ids[order[from + b]];
                at[b] = order[from + b];
            }
            batches.add(batch);
            positions.add(at);
            from = to;
        }
        float[][][] vecs = run(batches, cancelled);
        float[][] out = new float[n][];
        for (int k = 0; k < vecs.length; k++) for (int b = 0; b < vecs[k].length; b++) out[positions.get(k)[b]] = vecs[k][b];
        return out;
    }

    @Override
    public void close() {
        model.close();
    }
}
