package dev.graphrag.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The platform's graphrag.* settings, each declared once (docs/configuration.md has a row for each, checked against
 * these). Methods declare their own (graphrag.&lt;method&gt;.*) and pass them to {@link PluginSettings#load}, so core
 * declares nothing of any method. Code reads a setting through its declaration, {@code settings.get(LLM.endpoint())},
 * never by its name.
 */
public final class ServerSettings {
    private static final long MAX = Long.MAX_VALUE;

    /**
     * The settings every server-named HTTP endpoint has under its prefix (graphrag.llm, graphrag.embedding,
     * graphrag.rerank): where it is, its key, and the limits of each exchange with it.
     */
    public record Endpoint(String prefix, Setting<String> endpoint, Setting<String> model, Setting<String> apiKey, Setting<String> apiKeyEnv,
                           Setting<Long> timeoutMs, Setting<Long> connectTimeoutMs, Setting<Long> maxRetries, Setting<Long> retryBaseMs,
                           Setting<Long> maxConcurrent, Setting<Long> maxQueueMs, Setting<Long> maxReplyBytes) {
        /** The limits of each exchange after its timeout, in docs/configuration.md's order. */
        List<Setting<?>> limits() {
            return List.of(connectTimeoutMs, maxRetries, retryBaseMs, maxConcurrent, maxQueueMs, maxReplyBytes);
        }
    }

    private static Endpoint endpoint(String prefix, Setting<String> model, Setting<Long> timeoutMs, long connectTimeoutMs, long maxRetries,
                                     long retryBaseMs, long maxConcurrent, long maxQueueMs, long maxReplyBytes) {
        return new Endpoint(prefix, Setting.string(prefix + ".endpoint", ""), model, Setting.secret(prefix + ".apiKey"),
                Setting.string(prefix + ".apiKeyEnv", ""), timeoutMs,
                Setting.integer(prefix + ".connectTimeoutMs", connectTimeoutMs, 1, MAX),
                Setting.integer(prefix + ".maxRetries", maxRetries, 0, 100),
                Setting.integer(prefix + ".retryBaseMs", retryBaseMs, 0, MAX),
                Setting.integer(prefix + ".maxConcurrent", maxConcurrent, 1, 10_000),
                Setting.integer(prefix + ".maxQueueMs", maxQueueMs, 0, MAX),
                Setting.integer(prefix + ".maxReplyBytes", maxReplyBytes, 1, MAX));
    }

    // the embedding model, in process (onnx) or from a server (openai: docs/configuration.md#embeddings-from-your-own-server)
    public static final Setting<String> EMBEDDING_NAME = Setting.string("graphrag.embedding.name", "bge-small-en-v1.5-q");
    public static final Setting<String> EMBEDDING_TOKENIZER = Setting.string("graphrag.embedding.tokenizer", "classpath:bge-small-en-v1.5-q-tokenizer.json");
    public static final Setting<String> EMBEDDING_TOKENIZER_ENGINE = Setting.choice("graphrag.embedding.tokenizerEngine", "auto", "auto", "builtin", "huggingface");
    public static final Setting<String> EMBEDDING_POOLING = Setting.choice("graphrag.embedding.pooling", "cls", "cls", "mean");
    public static final Setting<Long> EMBEDDING_MAX_LENGTH = Setting.integer("graphrag.embedding.maxLength", 512, 8, 1_000_000);
    public static final Setting<Boolean> EMBEDDING_NORMALIZE = Setting.bool("graphrag.embedding.normalize", true);
    public static final Setting<String> EMBEDDING_DEVICE = Setting.choice("graphrag.embedding.device", "auto", "auto", "cpu", "cuda");
    public static final Setting<Long> EMBEDDING_THREADS = Setting.integer("graphrag.embedding.threads", 0, 0, 4096);
    public static final Setting<Long> EMBEDDING_BATCH_SIZE = Setting.integer("graphrag.embedding.batchSize", 32, 1, 2048);
    public static final Setting<Long> EMBEDDING_CACHE_SIZE = Setting.integer("graphrag.embedding.cacheSize", 10_000, 0, 100_000_000);
    public static final Setting<String> EMBEDDING_PROVIDER = Setting.choice("graphrag.embedding.provider", "onnx", "onnx", "openai");
    public static final Setting<Long> EMBEDDING_DIMENSIONS = Setting.integer("graphrag.embedding.dimensions", 0, 0, 65_536);
    /** With provider onnx the model is a file or classpath resource; with openai, the name the endpoint serves. */
    public static final Endpoint EMBEDDING = endpoint("graphrag.embedding",
            Setting.string("graphrag.embedding.model", "classpath:bge-small-en-v1.5-q.onnx"),
            Setting.integer("graphrag.embedding.timeoutMs", 60_000, 1, MAX), 10_000, 3, 500, 4, 60_000, 32L << 20);

    // lexical ingest and rag.ingest.files (docs/rag/rag.ingest.files.md)
    public static final Setting<Long> INGEST_CHUNK_SIZE = Setting.integer("graphrag.ingest.chunkSize", 256, 16, 1_000_000).defaultOf("chunkSize");
    public static final Setting<Long> INGEST_CHUNK_OVERLAP = Setting.integer("graphrag.ingest.chunkOverlap", 32, 0, 1_000_000).defaultOf("chunkOverlap");
    public static final Setting<Long> INGEST_BATCH_SIZE = Setting.integer("graphrag.ingest.batchSize", 2048, 1, MAX).defaultOf("batchSize");
    public static final Setting<Long> INGEST_MAX_BATCH_SIZE = Setting.integer("graphrag.ingest.maxBatchSize", 20_000, 1, MAX).ceilingOf("batchSize");
    public static final Setting<Long> INGEST_MAX_DOCUMENT_CHARS = Setting.integer("graphrag.ingest.maxDocumentChars", 5_000_000, 1, MAX)
            .ceilingOf("maxDocumentChars");
    public static final Setting<String> INGEST_ALLOWED_URLS = Setting.string("graphrag.ingest.allowedUrls", "");
    public static final Setting<Long> INGEST_MAX_FILE_BYTES = Setting.integer("graphrag.ingest.maxFileBytes", 100L << 20, 1, MAX).ceilingOf("maxFileBytes");
    public static final Setting<Long> INGEST_MAX_FILES = Setting.integer("graphrag.ingest.maxFiles", 10_000, 1, MAX).ceilingOf("maxFiles");
    public static final Setting<Long> INGEST_MAX_CALL_BYTES = Setting.integer("graphrag.ingest.maxCallBytes", 10L << 30, 1, MAX).ceilingOf("maxCallBytes");
    public static final Setting<Long> INGEST_PARSE_TIMEOUT_SECONDS = Setting.integer("graphrag.ingest.parseTimeoutSeconds", 300, 1, MAX)
            .ceilingOf("parseTimeoutSeconds");

    // the LLM (docs/llm.md); a call's llm map overrides the keys named per call
    public static final Endpoint LLM = endpoint("graphrag.llm", Setting.string("graphrag.llm.model", "").defaultOf("llm.model"),
            Setting.integer("graphrag.llm.timeoutMs", 120_000, 1, MAX).defaultOf("llm.timeoutMs"), 10_000, 3, 500, 4, 10_000, 4L << 20);
    public static final Setting<String> LLM_ALLOWED_ENDPOINTS = Setting.string("graphrag.llm.allowedEndpoints", "");
    public static final Setting<Double> LLM_TEMPERATURE = Setting.number("graphrag.llm.temperature", 0.0, 0, 2).defaultOf("llm.temperature");
    public static final Setting<Long> LLM_MAX_TOKENS = Setting.integer("graphrag.llm.maxTokens", 1024, 1, MAX).defaultOf("llm.maxTokens");
    public static final Setting<Long> LLM_MAX_TOKENS_LIMIT = Setting.integer("graphrag.llm.maxTokensLimit", 32_768, 1, MAX).ceilingOf("llm.maxTokens");
    // the compose file's Ollama runs with OLLAMA_CONTEXT_LENGTH=16384 (docs/llm.md#context-windows)
    public static final Setting<Long> LLM_CONTEXT_TOKENS = Setting.integer("graphrag.llm.contextTokens", 16_384, 512, 10_000_000)
            .defaultOf("llm.contextTokens");
    public static final Setting<Long> LLM_MAX_TIMEOUT_MS = Setting.integer("graphrag.llm.maxTimeoutMs", 600_000, 1, MAX).ceilingOf("llm.timeoutMs");
    public static final Setting<Boolean> LLM_CACHE_ENABLED = Setting.bool("graphrag.llm.cache.enabled", false);
    public static final Setting<Long> LLM_CACHE_SIZE = Setting.integer("graphrag.llm.cache.size", 1000, 0, 100_000_000);

    // a cross-encoder behind the common /rerank request (docs/configuration.md#rerankers); none: no reranking stage
    public static final Setting<String> RERANK_PROVIDER = Setting.choice("graphrag.rerank.provider", "none", "none", "cohere", "voyage", "tei");
    public static final Endpoint RERANK = endpoint("graphrag.rerank", Setting.string("graphrag.rerank.model", ""),
            Setting.integer("graphrag.rerank.timeoutMs", 30_000, 1, MAX), 5_000, 1, 200, 4, 10_000, 4L << 20);
    public static final Setting<Long> RERANK_MAX_DOCUMENTS = Setting.integer("graphrag.rerank.maxDocuments", 32, 1, 10_000);
    public static final Setting<Long> RERANK_MAX_DOCUMENT_CHARS = Setting.integer("graphrag.rerank.maxDocumentChars", 4_000, 100, 1_000_000);

    /** Every platform setting, in docs/configuration.md's order. */
    public static final List<Setting<?>> ALL;

    static {
        List<Setting<?>> all = new ArrayList<>(List.of(EMBEDDING_NAME, EMBEDDING.model(), EMBEDDING_TOKENIZER, EMBEDDING_TOKENIZER_ENGINE,
                EMBEDDING_POOLING, EMBEDDING_MAX_LENGTH, EMBEDDING_NORMALIZE, EMBEDDING_DEVICE, EMBEDDING_THREADS, EMBEDDING_BATCH_SIZE,
                EMBEDDING_CACHE_SIZE, EMBEDDING_PROVIDER, EMBEDDING.endpoint(), EMBEDDING.apiKey(), EMBEDDING.apiKeyEnv(), EMBEDDING_DIMENSIONS));
        all.add(EMBEDDING.timeoutMs());
        all.addAll(EMBEDDING.limits());
        all.addAll(List.of(INGEST_CHUNK_SIZE, INGEST_CHUNK_OVERLAP, INGEST_BATCH_SIZE, INGEST_MAX_BATCH_SIZE, INGEST_MAX_DOCUMENT_CHARS,
                INGEST_ALLOWED_URLS, INGEST_MAX_FILE_BYTES, INGEST_MAX_FILES, INGEST_MAX_CALL_BYTES, INGEST_PARSE_TIMEOUT_SECONDS,
                LLM.endpoint(), LLM_ALLOWED_ENDPOINTS, LLM.model(), LLM.apiKey(), LLM.apiKeyEnv(), LLM_TEMPERATURE, LLM_MAX_TOKENS,
                LLM_MAX_TOKENS_LIMIT, LLM_CONTEXT_TOKENS, LLM.timeoutMs(), LLM_MAX_TIMEOUT_MS));
        all.addAll(LLM.limits());
        all.addAll(List.of(RERANK_PROVIDER, RERANK.endpoint(), RERANK.model(), RERANK.apiKey(), RERANK.apiKeyEnv(), RERANK_MAX_DOCUMENTS,
                RERANK_MAX_DOCUMENT_CHARS));
        all.add(RERANK.timeoutMs());
        all.addAll(RERANK.limits());
        all.addAll(List.of(LLM_CACHE_ENABLED, LLM_CACHE_SIZE));
        ALL = Collections.unmodifiableList(all);
    }

    private ServerSettings() {}
}
