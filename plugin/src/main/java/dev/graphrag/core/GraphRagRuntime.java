package dev.graphrag.core;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.core.config.Setting;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.embed.Device;
import dev.graphrag.core.layer.LayerCache;
import dev.graphrag.core.layer.LayerLocks;
import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.OnnxEmbedder;
import dev.graphrag.core.embed.RemoteEmbedder;
import dev.graphrag.core.embed.TokenizerEngine;
import dev.graphrag.core.llm.EmbeddingEndpoint;
import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.core.embed.Pooling;
import dev.graphrag.core.llm.EndpointPolicy;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;

import java.util.Map;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * Everything the plugin holds once per server: settings, the embedding model (loaded on first use so the
 * server starts fast, then shared by all procedures) and the LLM client. Closed at shutdown.
 */
public final class GraphRagRuntime implements AutoCloseable {
    public static final String VERSION = versionOf();

    private final PluginSettings settings;
    private final Consumer<String> log;
    private volatile EmbeddingService embeddings;
    private volatile RuntimeException embeddingFailure;
    private final LlmClient llm;
    private final EndpointPolicy endpointPolicy;
    private final dev.graphrag.core.search.Reranker reranker;
    private final LayerLocks layerLocks = new LayerLocks();
    private final LayerCache layerCache = new LayerCache(16);
    private final Jobs jobs = new Jobs();
    /**
     * The plugin's one pool for work a call spreads over threads (synonym search, ingest writes): daemon threads,
     * created on demand and ended when idle; callers bound their own parallelism by how many tasks they submit.
     */
    private final java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "graphrag-worker");
        t.setDaemon(true);
        return t;
    });

    public GraphRagRuntime(PluginSettings settings, Consumer<String> log) {
        this.settings = settings;
        this.log = log;
        this.llm = LlmClient.of(settings, log);
        // a malformed allow-list or endpoint surfaces at start, not at the first call
        this.endpointPolicy = EndpointPolicy.of(settings.get(ServerSettings.LLM.endpoint()), settings.get(ServerSettings.LLM_ALLOWED_ENDPOINTS));
        checkCeiling(settings, ServerSettings.LLM.timeoutMs(), ServerSettings.LLM_MAX_TIMEOUT_MS);
        checkCeiling(settings, ServerSettings.LLM_MAX_TOKENS, ServerSettings.LLM_MAX_TOKENS_LIMIT);
        checkCeiling(settings, ServerSettings.INGEST_BATCH_SIZE, ServerSettings.INGEST_MAX_BATCH_SIZE);
        // a reranker's settings are checked at start too; it is reached only when a call asks for rerank
        dev.graphrag.core.llm.RerankEndpoint rerank = dev.graphrag.core.llm.RerankEndpoint.of(settings, System.getenv(), log);
        this.reranker = rerank == null ? null : new dev.graphrag.core.search.Reranker(rerank);
    }

    /** The server's reranking stage; a call that asks for rerank where graphrag.rerank.provider is none gets an error saying so. */
    public dev.graphrag.core.search.Reranker reranker(String owner) {
        if (reranker == null) {
            throw new RagException(owner + ": rerank is true but no reranker is configured: set graphrag.rerank.provider (cohere, voyage or tei),"
                    + " graphrag.rerank.endpoint and graphrag.rerank.model (docs/configuration.md#rerankers)");
        }
        return reranker;
    }

    private static void checkCeiling(PluginSettings s, Setting<Long> setting, Setting<Long> ceiling) {
        if (s.get(setting) > s.get(ceiling)) {
            throw new RagException(s.source() + ": setting '" + setting.name() + "' (" + s.get(setting) + ") is above its ceiling '" + ceiling.name()
                    + "' (" + s.get(ceiling) + ")");
        }
    }

    /** What the server should log as warnings at start: ignored variables, an open endpoint policy, a class path whose HTTP is broken. */
    public java.util.List<String> startWarnings() {
        java.util.List<String> out = new java.util.ArrayList<>(settings.warnings());
        if (endpointPolicy().allowsAny()) {
            out.add("graphrag.llm.allowedEndpoints=* lets every caller send LLM requests to any host and port this server"
                    + " reaches; acceptable for a single-user server only (the server's own key still goes only to graphrag.llm.endpoint)");
        }
        dev.graphrag.core.llm.UrlHandlerConflict.detect().ifPresent(out::add);
        return out;
    }

    /** What callers may name as an LLM endpoint (parsed once, at start). */
    public EndpointPolicy endpointPolicy() {
        return endpointPolicy;
    }

    /** The shared worker pool (see the field). */
    public java.util.concurrent.ExecutorService executor() {
        return executor;
    }

    /** The long-running calls of this member, for rag.progress(). */
    public Jobs jobs() {
        return jobs;
    }

    /** In-memory layer state (snapshots), keyed by the versions stored in the graph. */
    public LayerCache layerCache() {
        return layerCache;
    }

    /** One builder at a time per (database, corpus, layer). */
    public LayerLocks layerLocks() {
        return layerLocks;
    }

    /** The shared LLM client (its concurrency bound is server-wide). */
    public LlmClient llm() {
        return llm;
    }

    /** Server settings overridden by a procedure's {@code config.llm} map. */
    public LlmConfig llmConfig(Map<String, Object> perCall, String owner) {
        return LlmConfig.resolve(settings, endpointPolicy, perCall, owner, System.getenv());
    }

    /** Whether the server has an LLM endpoint configured (graphrag.llm.endpoint); a call may still name one in its llm map. */
    public boolean llmConfigured() {
        return !settings.get(ServerSettings.LLM.endpoint()).isBlank();
    }

    public PluginSettings settings() {
        return settings;
    }

    public Consumer<String> log() {
        return log;
    }

    /** The shared embedding service; a model that failed to load fails every call with the same message. */
    public EmbeddingService embeddings() {
        EmbeddingService e = embeddings;
        if (e != null) return e;
        synchronized (this) {
            if (embeddings != null) return embeddings;
            if (embeddingFailure != null) throw embeddingFailure;
            boolean remote = embeddingProvider(settings) == EmbeddingProvider.OPENAI;
            try {
                embeddings = new EmbeddingService(remote ? remoteEmbedder() : new OnnxEmbedder(EmbeddingModel.load(modelSpec(settings), log)),
                        settings.get(ServerSettings.EMBEDDING_CACHE_SIZE));
                return embeddings;
            } catch (RuntimeException ex) {
                RuntimeException failure = ex instanceof RagException ? ex : new RagException("cannot load the embedding model: " + ex.getMessage(), ex);
                // a model file that fails to load fails the same way every time; an endpoint may be back on the next call
                if (!remote) embeddingFailure = failure;
                throw failure;
            }
        }
    }

    /** Where the server's vectors come from (graphrag.embedding.provider). */
    public enum EmbeddingProvider { ONNX, OPENAI }

    public static EmbeddingProvider embeddingProvider(PluginSettings s) {
        return enumSetting(EmbeddingProvider.class, s, ServerSettings.EMBEDDING_PROVIDER);
    }

    /**
     * The endpoint's model, its first reply giving the dimension. Its name is graphrag.embedding.name where that is set,
     * else the endpoint's model name; chunks are cut by graphrag.embedding.tokenizer (the bundled one unless set).
     */
    private RemoteEmbedder remoteEmbedder() {
        EmbeddingEndpoint endpoint = EmbeddingEndpoint.of(settings, System.getenv(), log);
        String name = settings.get(ServerSettings.EMBEDDING_NAME);
        if (name.equals(ModelSpec.DEFAULT_NAME)) name = endpoint.model();
        RemoteEmbedder e = new RemoteEmbedder(endpoint, settings.get(ServerSettings.EMBEDDING_TOKENIZER),
                enumSetting(TokenizerEngine.class, settings, ServerSettings.EMBEDDING_TOKENIZER_ENGINE), name,
                settings.intValue(ServerSettings.EMBEDDING_MAX_LENGTH), settings.intValue(ServerSettings.EMBEDDING_BATCH_SIZE),
                settings.get(ServerSettings.EMBEDDING_NORMALIZE), executor);
        log.accept("graphrag: embeddings from " + endpoint.host() + " (model " + endpoint.model() + ", " + e.dimensions() + " dimensions)");
        return e;
    }

    public static ModelSpec modelSpec(PluginSettings s) {
        return new ModelSpec(s.get(ServerSettings.EMBEDDING_NAME), s.get(ServerSettings.EMBEDDING.model()),
                s.get(ServerSettings.EMBEDDING_TOKENIZER),
                enumSetting(Pooling.class, s, ServerSettings.EMBEDDING_POOLING),
                s.intValue(ServerSettings.EMBEDDING_MAX_LENGTH), s.get(ServerSettings.EMBEDDING_NORMALIZE),
                enumSetting(Device.class, s, ServerSettings.EMBEDDING_DEVICE),
                s.intValue(ServerSettings.EMBEDDING_THREADS), s.intValue(ServerSettings.EMBEDDING_BATCH_SIZE),
                enumSetting(TokenizerEngine.class, s, ServerSettings.EMBEDDING_TOKENIZER_ENGINE));
    }

    /** A choice setting as its enum (the setting's declared choices are the enum's constants, lower-cased). */
    private static <E extends Enum<E>> E enumSetting(Class<E> type, PluginSettings s, Setting<String> setting) {
        return Enum.valueOf(type, s.get(setting).toUpperCase(Locale.ROOT));
    }

    @Override
    public synchronized void close() {
        executor.shutdownNow();
        if (embeddings != null) embeddings.close();
        embeddings = null;
        dev.graphrag.core.embed.OnnxTempDirectory.delete(log);
    }

    private static String versionOf() {
        String v = GraphRagRuntime.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
