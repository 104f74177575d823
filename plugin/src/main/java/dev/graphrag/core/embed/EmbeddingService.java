package dev.graphrag.core.embed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The server's one embedding model, shared by every procedure: an {@link Embedder} (the in-process ONNX model, or an
 * OpenAI-compatible endpoint) behind a cache of query texts (queries repeat).
 */
public final class EmbeddingService implements AutoCloseable {
    private final Embedder embedder;
    private final Cache<String, float[]> cache;

    public EmbeddingService(Embedder embedder, long cacheSize) {
        this.embedder = embedder;
        this.cache = Caffeine.newBuilder().maximumSize(Math.max(0, cacheSize)).build();
    }

    /** The in-process ONNX model. */
    public EmbeddingService(EmbeddingModel model, long cacheSize) {
        this(new OnnxEmbedder(model), cacheSize);
    }

    public String modelName() { return embedder.name(); }
    public int dimensions() { return embedder.dimensions(); }
    public String device() { return embedder.device(); }
    public int maxLength() { return embedder.maxLength(); }
    public TextTokenizer tokenizer() { return embedder.tokenizer(); }

    /** One text, through the cache (queries repeat). */
    public float[] embed(String text) {
        checkText(text);
        float[] v = cache.get(text, t -> embedder.embedTexts(List.of(t), false, () -> false)[0]);
        return v.clone();
    }

    /** Many texts, results in input order; {@code useCache=false} for bulk ingest. */
    /**
     * A build's texts, all at once (length-sorted over the whole list, so batches pad least), {@code cancelled} checked
     * before every model call; nothing cached (a build's texts are not queries).
     */
    public float[][] embedAll(List<String> texts, BooleanSupplier cancelled) {
        for (String t : texts) checkText(t);
        return texts.isEmpty() ? new float[0][] : embedder.embedTexts(texts, false, cancelled);
    }

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
        float[][] vecs = todo.isEmpty() ? new float[0][] : embedder.embedTexts(todo.stream().map(texts::get).toList(), false, () -> false);
        for (int k = 0; k < vecs.length; k++) {
            int i = todo.get(k);
            out[i] = vecs[k];
            if (useCache) cache.put(texts.get(i), vecs[k].clone());
        }
        return out;
    }

    /**
     * Vectors that do not depend on what else is embedded with them, for texts whose vectors decide structure
     * through a threshold (synonym edges).
     */
    public float[][] embedEach(List<String> texts) {
        for (String t : texts) checkText(t);
        return texts.isEmpty() ? new float[0][] : embedder.embedTexts(texts, true, () -> false);
    }

    /**
     * Chunks as the chunker cut them: their texts and token ids (without [CLS]/[SEP]), in input order; {@code cancelled}
     * is checked before every model call or request (a long document is many).
     */
    public float[][] embedChunks(List<String> texts, List<int[]> tokenIds, BooleanSupplier cancelled) {
        if (texts.size() != tokenIds.size()) throw new IllegalArgumentException("texts and token ids differ in number");
        return texts.isEmpty() ? new float[0][] : embedder.embedChunks(texts, tokenIds, cancelled);
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

    /** The sum of squares {@link #cosine(float[], float[])} computes of a vector, for {@link #cosine(float[], double, float[], double)}. */
    public static double squares(float[] a) {
        double s = 0;
        for (float x : a) s += (double) x * x;
        return s;
    }

    /** {@link #cosine(float[], float[])} to the bit, each vector's {@link #squares} computed once by the caller. */
    public static double cosine(float[] a, double aSquares, float[] b, double bSquares) {
        if (a.length != b.length) throw new RagException("vectors have different dimensions: " + a.length + " vs " + b.length);
        double dot = 0;
        for (int i = 0; i < a.length; i++) dot += (double) a[i] * b[i];
        return aSquares == 0 || bSquares == 0 ? 0 : dot / Math.sqrt(aSquares * bSquares);
    }

    @Override
    public void close() {
        cache.invalidateAll();
        embedder.close();
    }

    @Override
    public String toString() {
        return "EmbeddingService" + Arrays.asList(modelName(), dimensions(), device());
    }
}
