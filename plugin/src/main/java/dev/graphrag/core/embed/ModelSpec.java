package dev.graphrag.core.embed;

import dev.graphrag.core.RagException;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which ONNX sentence-embedding model to load. {@code model}/{@code tokenizer} are file paths, or
 * {@code classpath:NAME} for a resource shipped inside the plugin jar (the default model).
 */
public record ModelSpec(String name, String model, String tokenizer, Pooling pooling, int maxLength,
                        boolean normalize, Device device, int threads, int batchSize, TokenizerEngine tokenizerEngine) {

    public static final String DEFAULT_NAME = "bge-small-en-v1.5-q";
    public static final String DEFAULT_MODEL = "classpath:bge-small-en-v1.5-q.onnx";
    public static final String DEFAULT_TOKENIZER = "classpath:bge-small-en-v1.5-q-tokenizer.json";

    public ModelSpec {
        if (maxLength < 8 || maxLength > 8192) throw new RagException("embedding.maxLength must be in [8, 8192], got " + maxLength);
        if (threads < 0) throw new RagException("embedding.threads must be >= 0 (0 = ONNX Runtime's default), got " + threads);
        if (batchSize < 1 || batchSize > 1024) throw new RagException("embedding.batchSize must be in [1, 1024], got " + batchSize);
    }

    /** With the tokenizer engine chosen by the file ({@link TokenizerEngine#AUTO}). */
    public ModelSpec(String name, String model, String tokenizer, Pooling pooling, int maxLength, boolean normalize, Device device, int threads,
                     int batchSize) {
        this(name, model, tokenizer, pooling, maxLength, normalize, device, threads, batchSize, TokenizerEngine.AUTO);
    }

    public static ModelSpec defaults() {
        return new ModelSpec(DEFAULT_NAME, DEFAULT_MODEL, DEFAULT_TOKENIZER, Pooling.CLS, 512, true, Device.AUTO, 0, 32);
    }

    public ModelSpec withDevice(Device d) {
        return new ModelSpec(name, model, tokenizer, pooling, maxLength, normalize, d, threads, batchSize, tokenizerEngine);
    }

    /** A model path that is neither a classpath resource nor an existing file is an error that names it. */
    void checkFilesExist() {
        for (String p : new String[] {model, tokenizer}) {
            if (p == null || p.isBlank()) throw new RagException("embedding model and tokenizer paths must be set");
            if (!p.startsWith("classpath:") && !Files.isRegularFile(Path.of(p))) {
                throw new RagException("embedding model file does not exist: " + p);
            }
        }
    }
}
