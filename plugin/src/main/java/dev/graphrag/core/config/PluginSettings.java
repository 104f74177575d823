package dev.graphrag.core.config;

import dev.graphrag.core.RagException;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Server-wide settings: {@code graphrag.conf} in Neo4j's conf directory (like APOC's apoc.conf), then
 * environment variables (key upper-cased, dots and camel-case humps to underscores: {@code GRAPHRAG_LLM_API_KEY};
 * the unsplit {@code GRAPHRAG_LLM_APIKEY} is read too). Every key,
 * its type and default is declared in {@link #DEFAULTS}; an unknown graphrag.* key or a wrong value is
 * an error naming the key. Documented in docs/configuration.md.
 */
public final class PluginSettings {
    public static final String FILE_NAME = "graphrag.conf";

    /**
     * The platform's keys -> default (its type is the default's type). Methods contribute their own keys
     * (graphrag.&lt;method&gt;.*) when the settings are loaded, so core declares nothing of any method.
     */
    public static final Map<String, Object> DEFAULTS;

    static {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("graphrag.embedding.name", "bge-small-en-v1.5-q");
        d.put("graphrag.embedding.model", "classpath:bge-small-en-v1.5-q.onnx");
        d.put("graphrag.embedding.tokenizer", "classpath:bge-small-en-v1.5-q-tokenizer.json");
        d.put("graphrag.embedding.tokenizerEngine", "auto");
        d.put("graphrag.embedding.pooling", "cls");
        d.put("graphrag.embedding.maxLength", 512L);
        d.put("graphrag.embedding.normalize", true);
        d.put("graphrag.embedding.device", "auto");
        d.put("graphrag.embedding.threads", 0L);
        d.put("graphrag.embedding.batchSize", 32L);
        d.put("graphrag.embedding.cacheSize", 10000L);
        // onnx: the model above, in process; openai: an OpenAI-compatible /v1/embeddings endpoint (docs/configuration.md#embeddings)
        d.put("graphrag.embedding.provider", "onnx");
        d.put("graphrag.embedding.endpoint", "");
        d.put("graphrag.embedding.apiKey", "");
        d.put("graphrag.embedding.apiKeyEnv", "");
        d.put("graphrag.embedding.dimensions", 0L);
        exchanges(d, "graphrag.embedding", 60_000, 10_000, 3, 500, 4, 60_000, 32L << 20);
        d.put("graphrag.ingest.chunkSize", 256L);
        d.put("graphrag.ingest.chunkOverlap", 32L);
        d.put("graphrag.ingest.batchSize", 2048L);
        d.put("graphrag.ingest.maxBatchSize", 20_000L);
        d.put("graphrag.ingest.maxDocumentChars", 5_000_000L);
        // rag.ingest.files (docs/ingest-files.md): http(s) URL prefixes it may fetch (none by default), and its limits
        d.put("graphrag.ingest.allowedUrls", "");
        d.put("graphrag.ingest.maxFileBytes", 100L << 20);
        d.put("graphrag.ingest.maxFiles", 10_000L);
        d.put("graphrag.ingest.maxCallBytes", 10L << 30);
        d.put("graphrag.ingest.parseTimeoutSeconds", 300L);
        d.put("graphrag.llm.endpoint", "");
        d.put("graphrag.llm.model", "");
        d.put("graphrag.llm.apiKey", "");
        d.put("graphrag.llm.apiKeyEnv", "");
        d.put("graphrag.llm.temperature", 0.0);
        d.put("graphrag.llm.maxTokens", 1024L);
        d.put("graphrag.llm.maxTokensLimit", 32_768L);
        // the compose file's Ollama runs with OLLAMA_CONTEXT_LENGTH=16384 (docs/llm.md#context-windows)
        d.put("graphrag.llm.contextTokens", 16_384L);
        d.put("graphrag.llm.timeoutMs", 120_000L);
        d.put("graphrag.llm.maxTimeoutMs", 600_000L);
        d.put("graphrag.llm.connectTimeoutMs", 10_000L);
        d.put("graphrag.llm.maxRetries", 3L);
        d.put("graphrag.llm.retryBaseMs", 500L);
        d.put("graphrag.llm.maxConcurrent", 4L);
        d.put("graphrag.llm.maxQueueMs", 10_000L);
        d.put("graphrag.llm.maxReplyBytes", 4L << 20);
        d.put("graphrag.llm.allowedEndpoints", "");
        // a cross-encoder behind the common /rerank request (docs/configuration.md#rerankers); none: no reranking stage
        d.put("graphrag.rerank.provider", "none");
        d.put("graphrag.rerank.endpoint", "");
        d.put("graphrag.rerank.model", "");
        d.put("graphrag.rerank.apiKey", "");
        d.put("graphrag.rerank.apiKeyEnv", "");
        d.put("graphrag.rerank.maxDocuments", 32L);
        d.put("graphrag.rerank.maxDocumentChars", 4_000L);
        exchanges(d, "graphrag.rerank", 30_000, 5_000, 1, 200, 4, 10_000, 4L << 20);
        d.put("graphrag.llm.cache.enabled", false);
        d.put("graphrag.llm.cache.size", 1000L);
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    /** The exchange limits every server-named endpoint (embeddings, reranker) declares under its prefix. */
    private static void exchanges(Map<String, Object> d, String prefix, long timeoutMs, long connectTimeoutMs, long maxRetries, long retryBaseMs,
                                  long maxConcurrent, long maxQueueMs, long maxReplyBytes) {
        d.put(prefix + ".timeoutMs", timeoutMs);
        d.put(prefix + ".connectTimeoutMs", connectTimeoutMs);
        d.put(prefix + ".maxRetries", maxRetries);
        d.put(prefix + ".retryBaseMs", retryBaseMs);
        d.put(prefix + ".maxConcurrent", maxConcurrent);
        d.put(prefix + ".maxQueueMs", maxQueueMs);
        d.put(prefix + ".maxReplyBytes", maxReplyBytes);
    }

    private final Map<String, Object> declared;
    private final Map<String, Object> values;
    private final String source;
    private final List<String> warnings;

    private PluginSettings(Map<String, Object> declared, Map<String, Object> values, String source, List<String> warnings) {
        this.declared = declared;
        this.values = values;
        this.source = source;
        this.warnings = List.copyOf(warnings);
    }

    public static PluginSettings defaults() {
        return new PluginSettings(DEFAULTS, new LinkedHashMap<>(DEFAULTS), "defaults", List.of());
    }

    /** The platform's keys and the methods' contributed ones; a method key outside graphrag.&lt;method&gt;.* is a programming error. */
    @SafeVarargs
    static Map<String, Object> declared(Map<String, Object>... methodSettings) {
        Map<String, Object> all = new LinkedHashMap<>(DEFAULTS);
        for (Map<String, Object> m : methodSettings) {
            for (Map.Entry<String, Object> e : m.entrySet()) {
                if (!e.getKey().matches("graphrag\\.[a-z]+\\.[A-Za-z.]+") || all.put(e.getKey(), e.getValue()) != null) {
                    throw new IllegalArgumentException("method setting " + e.getKey() + " is malformed or declared twice");
                }
            }
        }
        return Collections.unmodifiableMap(all);
    }

    /** Reads confDir/graphrag.conf when it exists, then the environment; methods pass the settings they declare. */
    @SafeVarargs
    public static PluginSettings load(Path confDir, Map<String, String> env, Map<String, Object>... methodSettings) {
        Map<String, Object> declared = declared(methodSettings);
        Map<String, String> raw = new LinkedHashMap<>();
        Map<String, String> setByEnv = new LinkedHashMap<>();
        String source = "defaults";
        if (confDir != null) {
            Path file = confDir.resolve(FILE_NAME);
            if (Files.isRegularFile(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    p.load(r);
                } catch (IOException e) {
                    throw new RagException("cannot read " + file + ": " + e.getMessage(), e);
                }
                for (String k : p.stringPropertyNames()) raw.put(k.trim(), p.getProperty(k).trim());
                source = file.toString();
            }
        }
        Map<String, String> keyOfEnv = new LinkedHashMap<>();
        for (String key : declared.keySet()) {
            for (String name : envNames(key)) keyOfEnv.put(name, key);
        }
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            String key = keyOfEnv.get(e.getKey());
            if (key != null) {
                String earlier = setByEnv.get(key);
                if (earlier != null) {
                    throw new RagException("environment: both " + earlier + " and " + e.getKey() + " set '" + key + "'; keep one");
                }
                raw.put(key, e.getValue());
                setByEnv.put(key, e.getKey());
            } else if (e.getKey().startsWith("GRAPHRAG_")) {
                unknown.add(e.getKey());
            }
        }
        List<String> warnings = new ArrayList<>();
        for (String name : unknown) {
            // a misspelt variable would otherwise be ignored without a word (as GRAPHRAG_LLM_API_KEY once was)
            if (!name.equals(raw.get("graphrag.llm.apiKeyEnv")) && !name.equals(raw.get("graphrag.embedding.apiKeyEnv"))
                    && !name.equals(raw.get("graphrag.rerank.apiKeyEnv"))) {
                warnings.add("environment variable " + name + " is not a graphrag setting and is ignored (see docs/configuration.md)");
            }
        }
        PluginSettings s = fromStrings(raw, source, declared);
        return new PluginSettings(declared, s.values, s.source, warnings);
    }

    @SafeVarargs
    public static PluginSettings fromStrings(Map<String, String> raw, String source, Map<String, Object>... methodSettings) {
        return fromStrings(raw, source, declared(methodSettings));
    }

    private static PluginSettings fromStrings(Map<String, String> raw, String source, Map<String, Object> declared) {
        Map<String, Object> values = new LinkedHashMap<>(declared);
        for (Map.Entry<String, String> e : raw.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("graphrag.")) continue;
            if (!declared.containsKey(key)) {
                throw new RagException(source + ": unknown setting '" + key + "' (see docs/configuration.md)");
            }
            values.put(key, parse(key, e.getValue(), declared.get(key), source));
        }
        return new PluginSettings(declared, values, source, List.of());
    }

    /** The documented variable: dots to underscores, camel-case words split ({@code GRAPHRAG_LLM_API_KEY}). */
    public static String envName(String key) {
        return key.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** Every variable that sets a key: the documented name, and the unsplit one earlier releases read. */
    public static List<String> envNames(String key) {
        String unsplit = key.toUpperCase(Locale.ROOT).replace('.', '_');
        return unsplit.equals(envName(key)) ? List.of(unsplit) : List.of(envName(key), unsplit);
    }

    /** What the server should log at start: ignored GRAPHRAG_* variables and the like. */
    public List<String> warnings() {
        return warnings;
    }

    private static Object parse(String key, String value, Object dflt, String source) {
        try {
            if (dflt instanceof Long) return Long.parseLong(value);
            if (dflt instanceof Double) return Double.parseDouble(value);
            if (dflt instanceof Boolean) {
                if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) return Boolean.parseBoolean(value);
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            // the value itself stays out of the message: it may be a secret
            throw new RagException(source + ": setting '" + key + "' must be "
                    + (dflt instanceof Long ? "an integer" : dflt instanceof Double ? "a number" : "true or false"));
        }
    }

    public String source() { return source; }

    public String string(String key) { return (String) get(key); }
    public long integer(String key) { return (Long) get(key); }
    public double number(String key) { return (Double) get(key); }
    public boolean bool(String key) { return (Boolean) get(key); }

    private Object get(String key) {
        if (!declared.containsKey(key)) throw new IllegalArgumentException("undeclared setting " + key);
        return values.get(key);
    }
}
