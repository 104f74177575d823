package dev.graphrag.core.embed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The server's one embedding model, shared by every procedure. Texts are batched by similar token
 * length (padding dominates otherwise) and query texts are cached.
 */
public final class EmbeddingService implements AutoCloseable {
    private final EmbeddingModel model;
    private final Cache<String, float[]> cache;

    public EmbeddingService(EmbeddingModel model, long cacheSize) {
        this.model = model;
        this.cache = Caffeine.newBuilder().maximumSize(Math.max(0, cacheSize)).build();
    }

    public String modelName() { return model.spec().name(); }
    public int dimensions() { return model.dimensions(); }
    public String device() { return model.device(); }
    public int maxLength() { return model.spec().maxLength(); }
    public WordPieceTokenizer tokenizer() { return model.tokenizer(); }

    /** One text, through the cache (queries repeat). */
    public float[] embed(String text) {
        checkText(text);
        float[] v = cache.get(text, this::embedOne);
        return v.clone();
    }

    /** Many texts in length-sorted batches; results in input order. {@code useCache=false} for bulk ingest. */
    public float[][] embedAll(List<String> texts, boolean useCache) {
        int n = texts.size();
        float[][] out = new float[n][];
        List<Integer> todo = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            checkText(texts.get(i));
            float[] hit = useCache ? cache.getIfPresent(texts.get(i)) : null;
            if (hit != null) out[i] = hit.clone();
            else todo.add(i);
        }
        int[][] ids = new int[todo.size()][];
        for (int k = 0; k < ids.length; k++) ids[k] = model.tokenizer().encode(texts.get(todo.get(k)), maxLength());
        float[][] vecs = embedSorted(ids, false);
        for (int k = 0; k < ids.length; k++) {
            int i = todo.get(k);
            out[i] = vecs[k];
            if (useCache) cache.put(texts.get(i), vecs[k].clone());
        }
        return out;
    }

    /**
     * Vectors that do not depend on what else is embedded with them, for texts whose vectors decide structure
     * through a threshold (synonym edges). A batch-invariant (fp32) model gets batches of texts of one token length,
     * so no padding enters (3x faster than one call per text for fp32 on the CPU); a model that is not (int8, whose
     * activations are scaled per batch; fp32 on CUDA with its TF32 matrix products) gets one call per text.
     */
    public float[][] embedEach(List<String> texts) {
        int n = texts.size();
        int[][] ids = new int[n][];
        for (int i = 0; i < n; i++) {
            checkText(texts.get(i));
            ids[i] = model.tokenizer().encode(texts.get(i), maxLength());
        }
        if (model.batchInvariant()) return embedSorted(ids, true);
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = model.embedIds(new int[][] {ids[i]})[0];
        return out;
    }

    /** Texts already tokenised (ids without [CLS]/[SEP]): length-sorted batches, results in input order. */
    public float[][] embedTokenized(List<int[]> tokenIds) {
        return embedTokenized(tokenIds, () -> false);
    }

    /** As {@link #embedTokenized(List)}, checking {@code cancelled} before every model call (a long document is many calls). */
    public float[][] embedTokenized(List<int[]> tokenIds, BooleanSupplier cancelled) {
        int n = tokenIds.size();
        int body = maxLength() - 2;
        int[][] ids = new int[n][];
        for (int i = 0; i < n; i++) {
            int[] t = tokenIds.get(i);
            int len = Math.min(t.length, body);
            int[] full = new int[len + 2];
            full[0] = model.tokenizer().clsId();
            System.arraycopy(t, 0, full, 1, len);
            full[len + 1] = model.tokenizer().sepId();
            ids[i] = full;
        }
        return embedSorted(ids, false, cancelled);
    }

    /** Length-sorted batches, results in input order; {@code oneLength}: a batch never mixes token lengths (no padding). */
    private float[][] embedSorted(int[][] ids, boolean oneLength) {
        return embedSorted(ids, oneLength, () -> false);
    }

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

    private float[] embedOne(String text) {
        return model.embedIds(new int[][] {model.tokenizer().encode(text, maxLength())})[0];
    }

    private static void checkText(String text) {
        if (text == null) throw new RagException("cannot embed a null text");
        if (text.isBlank()) throw new RagException("cannot embed an empty text");
    }

    public static double dot(float[] a, float[] b) {
        return dot(a, b, 0);
    }

    /** Whether Math.fma is one instruction on this machine (HotSpot's UseFMA); where it is not, the JDK computes it in software, far slower. */
    static final boolean FMA = fmaInHardware();

    private static boolean fmaInHardware() {
        try {
            var vm = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return vm != null && "true".equals(vm.getVMOption("UseFMA").getValue());
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * a . b[offset .. offset + a.length) (b may hold many vectors back to back). Eight independent accumulators,
     * as a single running sum is one long dependency chain the JIT may not reorder, each a fused multiply-add
     * where the CPU has one: twice as fast as four accumulators of multiply then add on 384 dimensions, which
     * matters where a query scores tens of thousands of vectors (AGRAG's fact, chunk and entity scans).
     */
    public static double dot(float[] a, float[] b, int offset) {
        return FMA ? dotFused(a, b, offset) : dotSeparate(a, b, offset);
    }

    static double dotFused(float[] a, float[] b, int offset) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
        int n = a.length, i = 0;
        for (; i + 7 < n; i += 8) {
            s0 = Math.fma(a[i], b[offset + i], s0);
            s1 = Math.fma(a[i + 1], b[offset + i + 1], s1);
            s2 = Math.fma(a[i + 2], b[offset + i + 2], s2);
            s3 = Math.fma(a[i + 3], b[offset + i + 3], s3);
            s4 = Math.fma(a[i + 4], b[offset + i + 4], s4);
            s5 = Math.fma(a[i + 5], b[offset + i + 5], s5);
            s6 = Math.fma(a[i + 6], b[offset + i + 6], s6);
            s7 = Math.fma(a[i + 7], b[offset + i + 7], s7);
        }
        double dot = ((double) s0 + s1) + ((double) s2 + s3) + ((double) s4 + s5) + ((double) s6 + s7);
        for (; i < n; i++) dot += a[i] * b[offset + i];
        return dot;
    }

    static double dotSeparate(float[] a, float[] b, int offset) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
        int n = a.length, i = 0;
        for (; i + 7 < n; i += 8) {
            s0 += a[i] * b[offset + i];
            s1 += a[i + 1] * b[offset + i + 1];
            s2 += a[i + 2] * b[offset + i + 2];
            s3 += a[i + 3] * b[offset + i + 3];
            s4 += a[i + 4] * b[offset + i + 4];
            s5 += a[i + 5] * b[offset + i + 5];
            s6 += a[i + 6] * b[offset + i + 6];
            s7 += a[i + 7] * b[offset + i + 7];
        }
        double dot = ((double) s0 + s1) + ((double) s2 + s3) + ((double) s4 + s5) + ((double) s6 + s7);
        for (; i < n; i++) dot += a[i] * b[offset + i];
        return dot;
    }

    public static double norm(float[] a) {
        return Math.sqrt(dot(a, a));
    }

    public static double cosine(float[] a, float[] b) {
        if (a.length != b.length) throw new RagException("vectors have different dimensions: " + a.length + " vs " + b.length);
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    @Override
    public void close() {
        cache.invalidateAll();
        model.close();
    }

    @Override
    public String toString() {
        return "EmbeddingService" + Arrays.asList(modelName(), dimensions(), device());
    }
}
