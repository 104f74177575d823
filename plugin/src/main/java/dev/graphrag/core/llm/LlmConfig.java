package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.config.PluginSettings;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * Where and how to call the LLM: server settings (graphrag.llm.*) overridden per call by {@code config.llm}
 * with the same keys in every procedure. The API key is never part of toString, logs, results or errors.
 */
public final class LlmConfig {
    public static final String HOW_TO_CONFIGURE = "no LLM endpoint is configured: set graphrag.llm.endpoint and graphrag.llm.model in "
            + "conf/graphrag.conf (or GRAPHRAG_LLM_ENDPOINT), or pass config {llm: {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:3b-instruct'}}"
            + " for a local Ollama";

    static final long MIN_CONTEXT_TOKENS = 512;
    static final long MAX_CONTEXT_TOKENS = 10_000_000;

    // a call's llm map; defaults from graphrag.llm.*, and maxTokens and timeoutMs bounded by the server's ceilings where read
    static final Key<String> ENDPOINT = Key.string("endpoint", null);
    static final Key<String> MODEL = Key.string("model", null);
    static final Key<String> API_KEY = Key.string("apiKey", null);
    static final Key<Double> TEMPERATURE = Key.number("temperature", 0.0, 0, 2);
    static final Key<Long> SEED = Key.longInteger("seed", 0L, Long.MIN_VALUE, Long.MAX_VALUE);
    static final Key<Long> CONTEXT_TOKENS = Key.longInteger("contextTokens", 16_384L, MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS);
    /** The {@code llm} group every LLM-calling procedure shares: a map of the keys above, read by {@link #resolve}. */
    public static final Key<Map<String, Object>> KEY = Key.map("llm");

    /** maxTokens: the server's default, capped by graphrag.llm.maxTokensLimit. */
    static Key<Long> maxTokens(PluginSettings s) {
        return Key.atMost("maxTokens", 1, s, ServerSettings.LLM_MAX_TOKENS, ServerSettings.LLM_MAX_TOKENS_LIMIT);
    }

    /** timeoutMs: the server's default, capped by graphrag.llm.maxTimeoutMs. */
    static Key<Long> timeoutMs(PluginSettings s) {
        return Key.atMost("timeoutMs", 1, s, ServerSettings.LLM.timeoutMs(), ServerSettings.LLM_MAX_TIMEOUT_MS);
    }

    private final String endpoint;
    private final String model;
    private final String apiKey;
    private final String credential;
    private final double temperature;
    private final Long seed;
    private final int maxTokens;
    private final int contextTokens;
    private final long timeoutMs;
    private final long connectTimeoutMs;
    private final int maxRetries;
    private final long retryBaseMs;

    private LlmConfig(String endpoint, String model, String apiKey, String credential, double temperature, Long seed, int maxTokens, int contextTokens,
                      long timeoutMs, long connectTimeoutMs, int maxRetries, long retryBaseMs) {
        this.endpoint = endpoint;
        this.model = model;
        this.apiKey = apiKey;
        this.credential = credential;
        this.temperature = temperature;
        this.seed = seed;
        this.maxTokens = maxTokens;
        this.contextTokens = contextTokens;
        this.timeoutMs = timeoutMs;
        this.connectTimeoutMs = connectTimeoutMs;
        this.maxRetries = maxRetries;
        this.retryBaseMs = retryBaseMs;
    }

    /**
     * Settings, then the per-call {@code llm} map (null: settings only). A per-call endpoint other than the
     * configured one must be on graphrag.llm.allowedEndpoints and never receives the server's key, only a key
     * passed in the same call; numeric keys are bounded by the server's ceilings.
     */
    public static LlmConfig resolve(PluginSettings s, Map<String, Object> perCall, String owner, Map<String, String> env) {
        return resolve(s, EndpointPolicy.of(s.get(ServerSettings.LLM.endpoint()), s.get(ServerSettings.LLM_ALLOWED_ENDPOINTS)), perCall, owner, env);
    }

    /** As above, with the server's policy already parsed (the runtime's, once at start). */
    public static LlmConfig resolve(PluginSettings s, EndpointPolicy policy, Map<String, Object> perCall, String owner, Map<String, String> env) {
        ConfigReader r = ConfigReader.of(owner + " config.llm", perCall);
        String callEndpoint = ENDPOINT.read(r);
        String model = MODEL.withDefault(s.get(ServerSettings.LLM.model())).read(r);
        String callKey = API_KEY.read(r);
        double temperature = TEMPERATURE.withDefault(s.get(ServerSettings.LLM_TEMPERATURE)).read(r);
        Long seed = r.has(SEED.name()) ? SEED.read(r) : null;
        int maxTokens = (int) (long) maxTokens(s).read(r);
        int contextTokens = (int) (long) CONTEXT_TOKENS.withDefault(s.get(ServerSettings.LLM_CONTEXT_TOKENS)).read(r);
        long timeoutMs = timeoutMs(s).read(r);
        r.finish();
        if (maxTokens >= contextTokens) {
            throw new RagException(owner + ": maxTokens (" + maxTokens + ") must be below contextTokens (" + contextTokens + "): the window holds the"
                    + " prompt and the reply; raise contextTokens (config.llm.contextTokens or graphrag.llm.contextTokens) or lower maxTokens");
        }
        String endpoint = callEndpoint != null ? callEndpoint : s.get(ServerSettings.LLM.endpoint());
        if (endpoint == null || endpoint.isBlank()) throw new RagException(owner + ": " + HOW_TO_CONFIGURE);
        URI uri = EndpointPolicy.parse(endpoint.trim(), owner + ": LLM endpoint");
        if (!policy.allows(uri)) {
            throw new RagException(owner + ": LLM endpoint " + hostOf(uri) + " is not allowed on this server; an administrator lists the"
                    + " endpoints callers may name in graphrag.llm.allowedEndpoints (now: " + policy.describe() + ")");
        }
        if (model == null || model.isBlank()) throw new RagException(owner + ": no LLM model is configured (graphrag.llm.model or config.llm.model)");
        String key;
        String credential;
        if (callKey != null && !callKey.isEmpty()) {
            key = callKey;
            credential = "caller:" + fingerprint(callKey);
        } else if (policy.isConfigured(uri)) {
            key = serverKey(s, env);
            credential = key.isEmpty() ? "none" : "server";
        } else {
            key = ""; // the server's key belongs to the configured endpoint alone
            credential = "none";
        }
        return new LlmConfig(uri.toString(), model, key, credential, temperature, seed, maxTokens, contextTokens, timeoutMs,
                s.get(ServerSettings.LLM.connectTimeoutMs()), s.intValue(ServerSettings.LLM.maxRetries()), s.get(ServerSettings.LLM.retryBaseMs()));
    }

    /**
     * A server-configured endpoint used for something other than chat (embeddings): no per-call overrides, so no
     * allow-list; the chat parameters are unused.
     */
    static LlmConfig configured(URI endpoint, String model, String key, long timeoutMs, long connectTimeoutMs, int maxRetries, long retryBaseMs) {
        return new LlmConfig(endpoint.toString(), model, key, key.isEmpty() ? "none" : "server", 0, null, 1, (int) MIN_CONTEXT_TOKENS,
                timeoutMs, connectTimeoutMs, maxRetries, retryBaseMs);
    }

    /**
     * A server-named endpoint's target (embeddings, reranker): its key is the group's apiKey (or the variable its
     * apiKeyEnv names), else the LLM key where this is graphrag.llm.endpoint itself, else none; timeouts and retries
     * from the group's settings.
     */
    static LlmConfig serverNamed(PluginSettings s, ServerSettings.Endpoint group, URI endpoint, String model, Map<String, String> env) {
        String key = configuredKey(s, group, env);
        if (key.isEmpty()) {
            // the LLM key belongs to graphrag.llm.endpoint: it goes here only when this is that very endpoint
            String llm = s.get(ServerSettings.LLM.endpoint()).trim();
            if (!llm.isEmpty() && EndpointPolicy.sameEndpoint(EndpointPolicy.parse(llm, ServerSettings.LLM.endpoint().name()), endpoint)) {
                key = configuredKey(s, ServerSettings.LLM, env);
            }
        }
        return configured(endpoint, model, key, s.get(group.timeoutMs()), s.get(group.connectTimeoutMs()), s.intValue(group.maxRetries()),
                s.get(group.retryBaseMs()));
    }

    private static String serverKey(PluginSettings s, Map<String, String> env) {
        return configuredKey(s, ServerSettings.LLM, env);
    }

    /** The group's apiKey, else the variable its apiKeyEnv names, else "". */
    static String configuredKey(PluginSettings s, ServerSettings.Endpoint group, Map<String, String> env) {
        String key = s.get(group.apiKey());
        String keyEnv = s.get(group.apiKeyEnv());
        if (key.isEmpty() && !keyEnv.isEmpty()) key = env.getOrDefault(keyEnv, "");
        return key == null ? "" : key;
    }

    /** Identifies a caller's key in cache keys without keeping the key: a truncated SHA-256. */
    private static String fingerprint(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public String endpoint() { return endpoint; }
    public String model() { return model; }
    String apiKey() { return apiKey; }
    public boolean hasApiKey() { return !apiKey.isEmpty(); }
    /** Whose key the calls carry ("none", "server", "caller:" + a digest), never the key: part of reply-cache keys. */
    public String credential() { return credential; }
    public double temperature() { return temperature; }
    public Long seed() { return seed; }
    public int maxTokens() { return maxTokens; }
    /** The endpoint's context window in tokens, as configured: prompt and reply share it. */
    public int contextTokens() { return contextTokens; }
    /** What a prompt may hold, counted with {@link TokenCounter#MARGIN}: the window less the reply's maxTokens. */
    public long promptBudget() { return (long) contextTokens - maxTokens; }
    public long timeoutMs() { return timeoutMs; }
    public long connectTimeoutMs() { return connectTimeoutMs; }
    public int maxRetries() { return maxRetries; }
    public long retryBaseMs() { return retryBaseMs; }

    /** scheme://host:port only: what rag.llm.info shows. */
    public String host() {
        return hostOf(URI.create(endpoint));
    }

    /**
     * The endpoint as configured, path included (the /v1 a user checks for), without what may carry a secret: no user
     * information and no query string.
     */
    public String displayEndpoint() {
        URI u = URI.create(endpoint);
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        return hostOf(u) + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    }

    private static String hostOf(URI u) {
        return u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
    }

    /** Removes the key from any text that might echo it (error bodies from a proxy, say). */
    public String redact(String text) {
        if (text == null || apiKey.isEmpty()) return text;
        return text.replace(apiKey, "***");
    }

    @Override
    public String toString() {
        return "LlmConfig{endpoint=" + endpoint + ", model=" + model + ", apiKey=" + (apiKey.isEmpty() ? "none" : "***") + ", credential="
                + credential.replaceFirst(":.*", "") + "}";
    }
}
