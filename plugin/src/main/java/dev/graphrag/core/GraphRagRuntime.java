package dev.graphrag.core;

import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.embed.Device;
import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.core.embed.Pooling;
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

    public GraphRagRuntime(PluginSettings settings, Consumer<String> log) {
        this.settings = settings;
        this.log = log;
        this.llm = new LlmClient((int) settings.integer("graphrag.llm.maxConcurrent"), settings.integer("graphrag.llm.connectTimeoutMs"),
                settings.bool("graphrag.llm.cache.enabled"), settings.integer("graphrag.llm.cache.size"), log);
    }

    /** The shared LLM client (its concurrency bound is server-wide). */
    public LlmClient llm() {
        return llm;
    }

    /** Server settings overridden by a procedure's {@code config.llm} map. */
    public LlmConfig llmConfig(Map<String, Object> perCall, String owner) {
        return LlmConfig.resolve(settings, perCall, owner, System.getenv());
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
            try {
                embeddings = new EmbeddingService(EmbeddingModel.load(modelSpec(settings), log),
                        settings.integer("graphrag.embedding.cacheSize"));
                return embeddings;
            } catch (RuntimeException ex) {
                embeddingFailure = ex instanceof RagException ? ex : new RagException("cannot load the embedding model: " + ex.getMessage(), ex);
                throw embeddingFailure;
            }
        }
    }

    public static ModelSpec modelSpec(PluginSettings s) {
        return new ModelSpec(s.string("graphrag.embedding.name"), s.string("graphrag.embedding.model"),
                s.string("graphrag.embedding.tokenizer"),
                enumSetting(Pooling.class, s, "graphrag.embedding.pooling"),
                (int) s.integer("graphrag.embedding.maxLength"), s.bool("graphrag.embedding.normalize"),
                enumSetting(Device.class, s, "graphrag.embedding.device"),
                (int) s.integer("graphrag.embedding.threads"), (int) s.integer("graphrag.embedding.batchSize"));
    }

    private static <E extends Enum<E>> E enumSetting(Class<E> type, PluginSettings s, String key) {
        String v = s.string(key);
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v)) return e;
        }
        throw new RagException("setting '" + key + "' must be one of " + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT)
                + ", got '" + v + "'");
    }

    @Override
    public synchronized void close() {
        if (embeddings != null) embeddings.close();
        embeddings = null;
    }

    private static String versionOf() {
        String v = GraphRagRuntime.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
