package dev.graphrag.core.embed;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.graphrag.core.RagException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One ONNX Runtime session over a BERT-style encoder. Thread-safe: {@link OrtSession#run} may be called
 * concurrently. Pooling and normalisation happen here, in Java, because the bundled models output only
 * {@code last_hidden_state}.
 */
public final class EmbeddingModel implements AutoCloseable {
    /** Measured on an H100 (docs/benchmarks.md): ONNX Runtime keeps the int8 model's quantised ops on the CPU. */
    static final String INT8_ON_CUDA = "graphrag: the bundled int8 model gains little on CUDA (its quantised ops stay on the CPU: "
            + "1.1x the CPU on an H100); for GPU speed use the fp32 model the GPU build ships: graphrag.embedding.name="
            + "bge-small-en-v1.5, graphrag.embedding.model=classpath:bge-small-en-v1.5.onnx, graphrag.embedding.tokenizer="
            + "classpath:bge-small-en-v1.5-tokenizer.json (then re-ingest: its vectors differ)";
    private final ModelSpec spec;
    private final TextTokenizer tokenizer;
    private final OrtEnvironment env;
    private final OrtSession session;
    private final String device;
    private final boolean needsTokenTypes;
    private final int dimensions;
    private final boolean batchInvariant;

    private EmbeddingModel(ModelSpec spec, TextTokenizer tokenizer, OrtEnvironment env, OrtSession session,
                           String device) {
        this.spec = spec;
        this.tokenizer = tokenizer;
        this.env = env;
        this.session = session;
        this.device = device;
        this.needsTokenTypes = session.getInputNames().contains("token_type_ids");
        this.dimensions = embedIds(new int[][] {tokenizer.encode("probe", spec.maxLength())})[0].length;
        this.batchInvariant = probeBatchInvariance();
    }

    /** Largest difference, per coordinate, tolerated between a text embedded alone and in a batch. */
    static final float BATCH_INVARIANCE_TOLERANCE = 1e-5f;

    /**
     * Whether a text's vector is the same alone and inside a batch of texts of its length: true for fp32 models,
     * false for int8 ones with dynamic quantisation (activations are scaled per batch tensor). Probed, not guessed
     * from the model's name: three short texts cut to one length, alone and together.
     */
    private boolean probeBatchInvariance() {
        List<List<TextTokenizer.Token>> texts = List.of(tokenizer.tokenize("graph retrieval augmented generation"),
                tokenizer.tokenize("quarterly revenue of the company rose"), tokenizer.tokenize("the novel by Edgar Rice Burroughs"));
        int len = 14;
        for (List<TextTokenizer.Token> t : texts) len = Math.min(len, t.size());
        int[][] probes = new int[texts.size()][];
        for (int i = 0; i < probes.length; i++) {
            int[] body = new int[len];
            for (int k = 0; k < len; k++) body[k] = texts.get(i).get(k).id();
            probes[i] = tokenizer.frame(body);
        }
        float[][] together = embedIds(probes);
        for (int i = 0; i < probes.length; i++) {
            float[] alone = embedIds(new int[][] {probes[i]})[0];
            for (int d = 0; d < alone.length; d++) {
                if (Math.abs(alone[d] - together[i][d]) > BATCH_INVARIANCE_TOLERANCE) return false;
            }
        }
        return true;
    }

    /** Loads the model; {@code log} receives one line saying which execution provider is in use and why. */
    public static EmbeddingModel load(ModelSpec spec, Consumer<String> log) {
        spec.checkFilesExist();
        TextTokenizer tokenizer = readTokenizer(spec.tokenizer(), spec.tokenizerEngine());
        byte[] modelBytes;
        try (InputStream in = open(spec.model())) {
            modelBytes = in.readAllBytes();
        } catch (IOException e) {
            throw new RagException("cannot read embedding model " + spec.model() + ": " + e.getMessage(), e);
        }
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Set<?> providers = OrtEnvironment.getAvailableProviders();
        boolean cudaBuilt = providers.stream().anyMatch(p -> p.toString().equals("CUDA"));
        if (spec.device() != Device.CPU) {
            if (!cudaBuilt && spec.device() == Device.CUDA) {
                throw new RagException("embedding.device is 'cuda' but this ONNX Runtime has no CUDA provider "
                        + "(install the -gpu plugin jar) ; available: " + providers);
            }
            if (cudaBuilt) {
                try {
                    OrtSession s = env.createSession(modelBytes, options(spec, true));
                    log.accept("graphrag: embedding model " + spec.name() + " runs on CUDA (device=" + spec.device().name().toLowerCase() + ")");
                    if (spec.model().equals(ModelSpec.DEFAULT_MODEL)) log.accept(INT8_ON_CUDA);
                    return new EmbeddingModel(spec, tokenizer, env, s, "cuda");
                } catch (OrtException e) {
                    if (spec.device() == Device.CUDA) {
                        throw new RagException("embedding.device is 'cuda' but CUDA could not be used: " + e.getMessage(), e);
                    }
                    log.accept("graphrag: CUDA unavailable (" + e.getMessage() + "); embedding model " + spec.name() + " falls back to CPU");
                }
            }
        }
        try {
            OrtSession s = env.createSession(modelBytes, options(spec, false));
            log.accept("graphrag: embedding model " + spec.name() + " runs on CPU (device=" + spec.device().name().toLowerCase()
                    + (cudaBuilt ? "" : ", no CUDA provider in this ONNX Runtime build") + ")");
            return new EmbeddingModel(spec, tokenizer, env, s, "cpu");
        } catch (OrtException e) {
            throw new RagException("cannot load embedding model " + spec.model() + ": " + e.getMessage(), e);
        }
    }

    /** A tokenizer.json from a file path or {@code classpath:NAME}, read by {@code engine}. */
    static TextTokenizer readTokenizer(String location, TokenizerEngine engine) {
        byte[] json;
        try (InputStream in = open(location)) {
            json = in.readAllBytes();
        } catch (IOException e) {
            throw new RagException("cannot read tokenizer " + location + ": " + e.getMessage(), e);
        }
        return engine.read(json, location);
    }

    private static OrtSession.SessionOptions options(ModelSpec spec, boolean cuda) throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        if (spec.threads() > 0) o.setIntraOpNumThreads(spec.threads());
        if (cuda) o.addCUDA(0);
        return o;
    }

    private static InputStream open(String location) throws IOException {
        if (location.startsWith("classpath:")) {
            String name = location.substring("classpath:".length());
            InputStream in = EmbeddingModel.class.getClassLoader().getResourceAsStream(name);
            if (in == null) throw new RagException("embedding resource not found on the classpath: " + name);
            return in;
        }
        return Files.newInputStream(Path.of(location));
    }

    public TextTokenizer tokenizer() { return tokenizer; }
    public ModelSpec spec() { return spec; }
    public String device() { return device; }
    public int dimensions() { return dimensions; }
    /** See {@link #probeBatchInvariance()}. */
    public boolean batchInvariant() { return batchInvariant; }

    /** Token ids (with [CLS]/[SEP], already truncated) to pooled vectors; one padded batch. */
    public float[][] embedIds(int[][] batch) {
        int n = batch.length;
        if (n == 0) return new float[0][];
        int seq = 0;
        for (int[] ids : batch) seq = Math.max(seq, ids.length);
        long[] ids = new long[n * seq];
        long[] mask = new long[n * seq];
        for (int b = 0; b < n; b++) {
            int[] row = batch[b];
            for (int t = 0; t < seq; t++) {
                ids[b * seq + t] = t < row.length ? row[t] : tokenizer.padId();
                mask[b * seq + t] = t < row.length ? 1 : 0;
            }
        }
        long[] shape = {n, seq};
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
            inputs.put("input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape));
            inputs.put("attention_mask", OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape));
            if (needsTokenTypes) inputs.put("token_type_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(new long[n * seq]), shape));
            try (OrtSession.Result result = session.run(inputs)) {
                // one bulk copy of the output, pooled in place: building [batch][token][dims] Java arrays first cost more
                // than the model on long texts (docs/benchmarks.md, layer embedding throughput)
                OnnxTensor hidden = (OnnxTensor) result.get(0);
                long[] dims = hidden.getInfo().getShape();
                if (dims.length != 3) throw new RagException("embedding model's first output has shape " + java.util.Arrays.toString(dims)
                        + "; the plugin pools token vectors [batch, tokens, dimensions] (export the model's last_hidden_state first)");
                java.nio.FloatBuffer all = hidden.getFloatBuffer();
                int width = (int) dims[2], rows = (int) dims[1];
                float[][] out = new float[n][];
                for (int b = 0; b < n; b++) out[b] = spec.pooling().pool(all, b * rows * width, width, batch[b].length, spec.normalize());
                return out;
            }
        } catch (OrtException e) {
            throw new RagException("embedding model failed on a batch of " + n + ": " + e.getMessage(), e);
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException ignored) {
            // closing at shutdown: nothing useful to do with the error
        }
    }
}
