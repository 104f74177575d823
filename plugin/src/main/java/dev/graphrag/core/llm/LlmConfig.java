package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.PluginSettings;

import java.net.URI;
import java.util.Map;

/**
 * Where and how to call the LLM: server settings (graphrag.llm.*) overridden per call by {@code config.llm}
 * with the same keys in every procedure. The API key is never part of toString, logs, results or errors.
 */
public final class LlmConfig {
    public static final String HOW_TO_CONFIGURE = "no LLM endpoint is configured: set graphrag.llm.endpoint and graphrag.llm.model in "
            + "conf/graphrag.conf (or GRAPHRAG_LLM_ENDPOINT), or pass config {llm: {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:3b-instruct'}}"
            + " for a local Ollama";

    private final String endpoint;
    private final String model;
    private final String apiKey;
    private final double temperature;
    private final Long seed;
    private final int maxTokens;
    private final long timeoutMs;
    private final long connectTimeoutMs;
    private final int maxRetries;
    private final long retryBaseMs;

    private LlmConfig(String endpoint, String model, String apiKey, double temperature, Long seed, int maxTokens, long timeoutMs,
                      long connectTimeoutMs, int maxRetries, long retryBaseMs) {
        this.endpoint = endpoint;
        this.model = model;
        this.apiKey = apiKey;
        this.temperature = temperature;
        this.seed = seed;
        this.maxTokens = maxTokens;
        this.timeoutMs = timeoutMs;
        this.connectTimeoutMs = connectTimeoutMs;
        this.maxRetries = maxRetries;
        this.retryBaseMs = retryBaseMs;
    }

    /** Settings, then the per-call {@code llm} map (null: settings only). */
    public static LlmConfig resolve(PluginSettings s, Map<String, Object> perCall, String owner, Map<String, String> env) {
        ConfigReader r = ConfigReader.of(owner + " config.llm", perCall);
        String endpoint = r.string("endpoint", s.string("graphrag.llm.endpoint"));
        String model = r.string("model", s.string("graphrag.llm.model"));
        String key = r.string("apiKey", null);
        if (key == null) {
            key = s.string("graphrag.llm.apiKey");
            String keyEnv = s.string("graphrag.llm.apiKeyEnv");
            if (key.isEmpty() && !keyEnv.isEmpty()) key = env.getOrDefault(keyEnv, "");
        }
        double temperature = r.number("temperature", s.number("graphrag.llm.temperature"), 0, 2);
        Long seed = r.has("seed") ? r.integer("seed", 0L, Long.MIN_VALUE, Long.MAX_VALUE) : null;
        int maxTokens = r.integer("maxTokens", (int) s.integer("graphrag.llm.maxTokens"), 1, 1_000_000);
        long timeoutMs = r.integer("timeoutMs", s.integer("graphrag.llm.timeoutMs"), 1, 3_600_000L);
        r.finish();
        if (endpoint == null || endpoint.isBlank()) throw new RagException(owner + ": " + HOW_TO_CONFIGURE);
        URI uri;
        try {
            uri = URI.create(endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint);
        } catch (IllegalArgumentException e) {
            throw new RagException(owner + ": LLM endpoint is not a valid URL");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new RagException(owner + ": LLM endpoint must be an http(s) URL such as http://localhost:11434/v1");
        }
        if (uri.getUserInfo() != null) throw new RagException(owner + ": put credentials in apiKey, not in the endpoint URL");
        if (model == null || model.isBlank()) throw new RagException(owner + ": no LLM model is configured (graphrag.llm.model or config.llm.model)");
        return new LlmConfig(uri.toString(), model, key == null ? "" : key, temperature, seed, maxTokens, timeoutMs,
                s.integer("graphrag.llm.connectTimeoutMs"), (int) s.integer("graphrag.llm.maxRetries"), s.integer("graphrag.llm.retryBaseMs"));
    }

    public String endpoint() { return endpoint; }
    public String model() { return model; }
    String apiKey() { return apiKey; }
    public boolean hasApiKey() { return !apiKey.isEmpty(); }
    public double temperature() { return temperature; }
    public Long seed() { return seed; }
    public int maxTokens() { return maxTokens; }
    public long timeoutMs() { return timeoutMs; }
    public long connectTimeoutMs() { return connectTimeoutMs; }
    public int maxRetries() { return maxRetries; }
    public long retryBaseMs() { return retryBaseMs; }

    /** scheme://host:port only: what rag.llm.info shows. */
    public String host() {
        URI u = URI.create(endpoint);
        return u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
    }

    /** Removes the key from any text that might echo it (error bodies from a proxy, say). */
    public String redact(String text) {
        if (text == null || apiKey.isEmpty()) return text;
        return text.replace(apiKey, "***");
    }

    @Override
    public String toString() {
        return "LlmConfig{endpoint=" + endpoint + ", model=" + model + ", apiKey=" + (apiKey.isEmpty() ? "none" : "***") + "}";
    }
}
