package dev.graphrag.core.embed;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What turns texts into vectors for {@link EmbeddingService}: the in-process ONNX model ({@link OnnxEmbedder}) or an
 * OpenAI-compatible endpoint ({@link RemoteEmbedder}). Either way the service's tokenizer cuts chunks and counts
 * tokens; the ONNX model reads its ids, an endpoint the texts.
 */
public interface Embedder extends AutoCloseable {
    /** The model's name, as corpora and layers record it. */
    String name();

    int dimensions();

    /** Where vectors are computed: "cpu", "cuda", or the endpoint ("remote http://host:port"). */
    String device();

    /** The most tokens of a text the model reads (graphrag.embedding.maxLength). */
    int maxLength();

    /** Cuts chunks and counts tokens. */
    TextTokenizer tokenizer();

    /**
     * Vectors of {@code texts}, in order. {@code independent}: a text's vector must not depend on what it is embedded
     * with (it decides structure through a threshold).
     */
    float[][] embedTexts(List<String> texts, boolean independent, BooleanSupplier cancelled);

    /** Vectors of chunks, given both as texts and as token ids without [CLS]/[SEP] (the tokenizer's, cut by the chunker). */
    float[][] embedChunks(List<String> texts, List<int[]> tokenIds, BooleanSupplier cancelled);

    @Override
    void close();
}
