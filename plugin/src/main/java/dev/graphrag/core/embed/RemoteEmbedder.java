package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;
import dev.graphrag.core.llm.EmbeddingEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Vectors from an OpenAI-compatible embeddings endpoint (graphrag.embedding.provider=openai). Texts go in requests of
 * {@code batchSize}, at most the endpoint's {@code maxConcurrent} of them in flight for one call (more would only queue
 * for permits); vectors are normalised when {@code normalize} is set, as every method compares them by cosine or dot
 * product. The dimension is that of the first reply (the model-identity probe, sent when the service starts) and every
 * later reply must match it. The local tokenizer cuts chunks and counts tokens; the endpoint reads the texts.
 */
public final class RemoteEmbedder implements Embedder {
    private final EmbeddingEndpoint endpoint;
    private final TextTokenizer tokenizer;
    private final String name;
    private final int maxLength;
    private final int batchSize;
    private final boolean normalize;
    private final ExecutorService executor;
    private final int dimensions;

    public RemoteEmbedder(EmbeddingEndpoint endpoint, String tokenizerLocation, String name, int maxLength, int batchSize, boolean normalize,
                          ExecutorService executor) {
        this(endpoint, tokenizerLocation, TokenizerEngine.AUTO, name, maxLength, batchSize, normalize, executor);
    }

    public RemoteEmbedder(EmbeddingEndpoint endpoint, String tokenizerLocation, TokenizerEngine tokenizerEngine, String name, int maxLength,
                          int batchSize, boolean normalize, ExecutorService executor) {
        if (maxLength < 8 || maxLength > 1_000_000) throw new RagException("embedding.maxLength must be in [8, 1000000], got " + maxLength);
        if (batchSize < 1 || batchSize > 2048) throw new RagException("embedding.batchSize must be in [1, 2048], got " + batchSize);
        this.endpoint = endpoint;
        this.tokenizer = EmbeddingModel.readTokenizer(tokenizerLocation, tokenizerEngine);
        this.name = name;
        this.maxLength = maxLength;
        this.batchSize = batchSize;
        this.normalize = normalize;
        this.executor = executor;
        this.dimensions = request(List.of(ModelIdentity.PROBE), () -> false)[0].length;
    }

    @Override public String name() { return name; }
    @Override public int dimensions() { return dimensions; }
    @Override public String device() { return "remote " + endpoint.host(); }
    @Override public int maxLength() { return maxLength; }
    @Override public TextTokenizer tokenizer() { return tokenizer; }

    /** {@code independent} needs nothing more here: an endpoint's vectors are taken as it gives them, whatever a request holds. */
    @Override
    public float[][] embedTexts(List<String> texts, boolean independent, BooleanSupplier cancelled) {
        return embed(texts, cancelled);
    }

    @Override
    public float[][] embedChunks(List<String> texts, List<int[]> tokenIds, BooleanSupplier cancelled) {
        return embed(texts, cancelled);
    }

    private float[][] embed(List<String> texts, BooleanSupplier cancelled) {
        int n = texts.size();
        float[][] out = new float[n][];
        if (n == 0) return out;
        List<int[]> ranges = new ArrayList<>();
        for (int from = 0; from < n; from += batchSize) ranges.add(new int[] {from, Math.min(n, from + batchSize)});
        if (ranges.size() == 1 || endpoint.maxConcurrent() == 1) {
            for (int[] r : ranges) place(out, r, request(texts.subList(r[0], r[1]), cancelled));
            return out;
        }
        // one request fails: the others in flight stop at their next check, and its error is the call's
        AtomicBoolean failed = new AtomicBoolean();
        BooleanSupplier stop = () -> failed.get() || cancelled.getAsBoolean();
        ExecutorCompletionService<float[][]> done = new ExecutorCompletionService<>(executor);
        java.util.Map<Future<float[][]>, int[]> inFlight = new java.util.HashMap<>();
        int next = 0;
        try {
            while (next < ranges.size() || !inFlight.isEmpty()) {
                while (next < ranges.size() && inFlight.size() < endpoint.maxConcurrent()) {
                    int[] r = ranges.get(next++);
                    List<String> part = texts.subList(r[0], r[1]);
                    inFlight.put(done.submit(() -> request(part, stop)), r);
                }
                Future<float[][]> f = done.take();
                int[] r = inFlight.remove(f);
                place(out, r, f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException("embedding request '" + EmbeddingEndpoint.STEP + "' cancelled: interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new RagException("embedding request failed: " + e.getCause(), e.getCause());
        } finally {
            failed.set(true);
            for (Future<float[][]> f : inFlight.keySet()) {
                try {
                    f.get(); // never return while a request still runs: its permit and connection are released first
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    // the first error is the one reported
                }
            }
        }
    }

    private static void place(float[][] out, int[] range, float[][] vectors) {
        System.arraycopy(vectors, 0, out, range[0], range[1] - range[0]);
    }

    private float[][] request(List<String> texts, BooleanSupplier cancelled) {
        float[][] v = endpoint.embed(texts, cancelled);
        for (float[] x : v) {
            if (dimensions != 0 && x.length != dimensions) {
                throw new RagException("embedding endpoint " + endpoint.host() + " (model '" + endpoint.model() + "') returned " + x.length
                        + " dimensions where its first reply had " + dimensions + ": is another model now served under that name?");
            }
            if (normalize) Pooling.l2normalize(x);
        }
        return v;
    }

    @Override
    public void close() {
        // nothing held: the transport's connections are pooled by the JDK client and close with it
    }
}
