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
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = model.embedIds(new int[][] {ids[i]})[0];
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
        float[][] out = new float[n][];
        int batchSize = model.spec().batchSize();
        for (int from = 0; from < n; ) {
            int to = from + 1;
            while (to < n && to - from < batchSize && (!oneLength || ids[order[to]].length == ids[order[from]].length)) to++;
            if (cancelled.getAsBoolean()) throw new RagException("embedding cancelled: the transaction was terminated");
            int[][] batch = new int[to - from][];
            for (int b = 0; b < batch.length; b++) batch[b] = ids[order[from + b]];
            float[][] vecs = model.embedIds(batch);
            for (int b = 0; b < batch.length; b++) out[order[from + b]] = vecs[b];
            from = to;
        }
        return out;
    }

    @Override
    public void close() {
        model.close();
    }
}
