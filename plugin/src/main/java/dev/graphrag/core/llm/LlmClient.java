package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The one OpenAI-compatible chat-completions client of the server (Ollama, vLLM, llama.cpp server, OpenAI).
 * Bounded concurrency shared by all procedures, timeouts, retries with exponential back-off and jitter on
 * 429/5xx/I-O errors (honouring Retry-After), JSON replies validated with one repair turn, token
 * accounting, an optional cache for deterministic calls, and cancellation when the caller's transaction
 * is terminated. The API key goes only into the Authorization header. A hostile or broken endpoint cannot
 * exhaust the server: replies are read up to {@code maxReplyBytes} and abandoned past it, every wait (for a
 * permit, a reply, a back-off) is bounded and cancellable, error bodies come back only as a short sanitised
 * excerpt, and a failure of the HTTP machinery itself replaces the HTTP client for the next call.
 *
 * <p>Permit model: {@code maxConcurrent} permits are shared by every procedure of the server; a call holds one
 * only while its HTTP exchange is in flight (not while backing off), and waits for one at most
 * {@code maxQueueMs} before failing with a "busy" error, so slow calls cannot queue others indefinitely.
 */
public final class LlmClient {
    /** Says what is wrong with a parsed JSON reply, or null when it is acceptable. */
    @FunctionalInterface
    public interface JsonCheck {
        String problem(JsonNode reply);

        /** A reply that is not JSON read another way (a method's record format), or null when it cannot be. */
        default JsonNode fromText(String content) {
            return null;
        }
    }

    /** A validated JSON reply with the accounting of every exchange it took. */
    public record JsonReply(JsonNode json, ChatResponse response) {}

    /** A typed reply: the value a {@link StructuredOutput} parsed and checked, and what it cost. */
    public record Typed<T>(T value, ChatResponse response) {}

    /**
     * What an endpoint (and model) was seen to accept: json_schema response formats, native tool calls; null while
     * unknown. Learnt from the first request that uses the feature and kept for the server's life.
     */
    public record Capabilities(Boolean jsonSchema, Boolean nativeTools) {
        public String toolCalling() {
            return nativeTools == null ? "unknown" : nativeTools ? "native" : "json-action";
        }

        public String structuredOutput() {
            return jsonSchema == null ? "unknown" : jsonSchema ? "json_schema" : "json_object";
        }
    }

    private final java.util.concurrent.ConcurrentHashMap<String, Capabilities> capabilities = new java.util.concurrent.ConcurrentHashMap<>();

    private static String capabilityKey(LlmConfig cfg) {
        return cfg.endpoint() + "\u0000" + cfg.model();
    }

    public Capabilities capabilities(LlmConfig cfg) {
        return capabilities.getOrDefault(capabilityKey(cfg), new Capabilities(null, null));
    }

    void noteJsonSchema(LlmConfig cfg, boolean supported) {
        capabilities.merge(capabilityKey(cfg), new Capabilities(supported, null), (a, b) -> new Capabilities(supported, a.nativeTools()));
    }

    void noteNativeTools(LlmConfig cfg, boolean supported) {
        capabilities.merge(capabilityKey(cfg), new Capabilities(null, supported), (a, b) -> new Capabilities(a.jsonSchema(), supported));
    }

    /**
     * Finds out now what the endpoint takes (rag.llm.info's probe): one tiny request with a tool, one with a
     * json_schema response format. An endpoint that refuses a feature with a 4xx naming it is marked as lacking it.
     */
    public Capabilities probe(LlmConfig cfg, BooleanSupplier cancelled) {
        List<Map<String, Object>> hello = List.of(Map.of("role", "user", "content", "Reply with {\"ok\": true}."));
        Map<String, Object> noop = Map.of("type", "function", "function", Map.of("name", "noop", "description", "Does nothing.",
                "parameters", Map.of("type", "object", "properties", Map.of())));
        try {
            chat(cfg, new ChatRequest("rag.llm.info probe", hello, List.of(noop), "auto", null, null), false, cancelled);
            noteNativeTools(cfg, true);
        } catch (LlmHttpException e) {
            if (!(e.rejects("tool") || e.rejects("function"))) throw e;
            noteNativeTools(cfg, false);
        }
        Map<String, Object> schema = Map.of("name", "probe", "schema", Map.of("type", "object", "properties", Map.of("ok", Map.of("type", "boolean"))));
        try {
            chat(cfg, new ChatRequest("rag.llm.info probe", hello, null, null, schema, null), false, cancelled);
            noteJsonSchema(cfg, true);
        } catch (LlmHttpException e) {
            if (!(e.rejects("response_format") || e.rejects("json_schema") || e.rejects("schema"))) throw e;
            noteJsonSchema(cfg, false);
        }
        return capabilities(cfg);
    }

    /**
     * The way a method asks: {@link #structured} uncached for step {@code step}, its usage added to {@code usage}
     * under that step, the typed value returned.
     */
    public <T> T ask(LlmConfig cfg, String step, List<Map<String, Object>> messages, StructuredOutput<T> out, UsageMeter usage, BooleanSupplier cancelled) {
        Typed<T> t = structured(cfg, ChatRequest.of(step, messages), out, false, cancelled);
        usage.add(step, t.response());
        return t.value();
    }

    /**
     * A reply typed by {@code out}: sent with a json_schema response format where the endpoint takes one (learnt on
     * first use: an endpoint that refuses it gets json_object from then on), parsed, checked against the schema and
     * the output's own rule, with one repair turn naming what was wrong; then an error naming the step.
     */
    public <T> Typed<T> structured(LlmConfig cfg, ChatRequest req, StructuredOutput<T> out, boolean useCache, BooleanSupplier cancelled) {
        boolean schema = !Boolean.FALSE.equals(capabilities(cfg).jsonSchema());
        ChatRequest r = new ChatRequest(req.step(), req.messages(), req.tools(), req.toolChoice(), schema ? out.responseFormat() : "json_object", req.stop());
        JsonReply reply;
        try {
            reply = chatJson(cfg, r, out.jsonCheck(), useCache, cancelled);
            if (schema) noteJsonSchema(cfg, true);
        } catch (LlmHttpException e) {
            if (!schema || !(e.rejects("response_format") || e.rejects("json_schema") || e.rejects("schema"))) throw e;
            noteJsonSchema(cfg, false);
            log.accept("graphrag: " + cfg.host() + " does not take json_schema response formats; using json_object for model " + cfg.model());
            reply = chatJson(cfg, r.withResponseFormat("json_object"), out.jsonCheck(), useCache, cancelled);
        }
        return new Typed<>(out.parse(reply.json()), reply.response());
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How vLLM, llama.cpp and OpenAI word a prompt over the window. */
    private static final java.util.regex.Pattern CONTEXT_REFUSAL = java.util.regex.Pattern.compile(
            "maximum context length|context size|context length|context window|exceed_context", java.util.regex.Pattern.CASE_INSENSITIVE);
    /** Ollama's /api/show lists a model's parameters one a line: "num_ctx 8192". */
    private static final java.util.regex.Pattern NUM_CTX = java.util.regex.Pattern.compile("(?m)^\\s*num_ctx\\s+(\\d+)");
    private static final long MAX_RETRY_AFTER_MS = 60_000;
    /** The most of a remote error body an error message quotes. */
    static final int MAX_EXCERPT_CHARS = 200;
    /** The header that names the caller's step on every request, so a server's log matches what a procedure reports. */
    public static final String STEP_HEADER = "X-Rag-Step";

    private final int maxConcurrent;
    private final long connectTimeoutMs;
    private final long maxQueueMs;
    private final long maxReplyBytes;
    private volatile HttpClient http; // created on first use: its TLS set-up must not run while the server starts
    private final Semaphore permits;
    private final Cache<String, ChatResponse> cache;
    private final Consumer<String> log;

    public LlmClient(int maxConcurrent, long connectTimeoutMs, long maxQueueMs, long maxReplyBytes, boolean cacheEnabled, long cacheSize,
                     Consumer<String> log) {
        this.maxConcurrent = Math.max(1, maxConcurrent);
        this.connectTimeoutMs = connectTimeoutMs;
        this.maxQueueMs = maxQueueMs;
        this.maxReplyBytes = maxReplyBytes;
        this.permits = new Semaphore(this.maxConcurrent, true);
        this.cache = cacheEnabled ? Caffeine.newBuilder().maximumSize(cacheSize).build() : null;
        this.log = log;
    }

    /** With the default queueing bound (10 s) and reply cap (4 MiB). */
    public LlmClient(int maxConcurrent, long connectTimeoutMs, boolean cacheEnabled, long cacheSize, Consumer<String> log) {
        this(maxConcurrent, connectTimeoutMs, 10_000, 4L << 20, cacheEnabled, cacheSize, log);
    }

    /** The server's client, from its graphrag.llm.* settings. */
    public static LlmClient of(PluginSettings s, Consumer<String> log) {
        return new LlmClient((int) s.integer("graphrag.llm.maxConcurrent"), s.integer("graphrag.llm.connectTimeoutMs"),
                s.integer("graphrag.llm.maxQueueMs"), s.integer("graphrag.llm.maxReplyBytes"), s.bool("graphrag.llm.cache.enabled"),
                s.integer("graphrag.llm.cache.size"), log);
    }

    private HttpClient http() {
        HttpClient h = http;
        if (h == null) {
            synchronized (this) {
                if (http == null) {
                    // redirects are never followed: an allowed endpoint must not pass a request (and its key) on
                    try {
                        http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(connectTimeoutMs)).version(HttpClient.Version.HTTP_1_1)
                                .followRedirects(HttpClient.Redirect.NEVER).executor(HTTP_THREADS).build();
                    } catch (LinkageError e) {
                        throw new RagException(UrlHandlerConflict.explain(e));
                    }
                }
                h = http;
            }
        }
        return h;
    }

    /** After a failure of the HTTP machinery itself (not of the remote end) the next call starts a fresh client. */
    private synchronized void discardHttpClient(HttpClient broken) {
        if (http == broken) http = null;
    }

    private static final java.util.concurrent.ExecutorService HTTP_THREADS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "graphrag-llm-http");
        t.setDaemon(true);
        return t;
    });

    public int availablePermits() {
        return permits.availablePermits();
    }

    /** One completion; a truncated reply comes back with finishReason "length" for the caller to report. */
    public ChatResponse chat(LlmConfig cfg, ChatRequest req, boolean useCache, BooleanSupplier cancelled) {
        long read = TokenCounter.promptAsRead(req); // the messages, counted once: the window check and the cut check share it
        long sent = read + TokenCounter.overhead(req);
        if (TokenCounter.withMargin(sent) > cfg.promptBudget()) throw PromptFit.tooLarge(cfg, req.step(), sent, 0);
        ObjectNode body = body(cfg, req);
        String cacheKey = null;
        if (useCache && cache != null && cfg.temperature() == 0) {
            // the credential's identity (never the key) is part of the key: a reply paid for by one key is not served to another
            cacheKey = cfg.endpoint() + "\u0000" + cfg.credential() + "\u0000" + body;
            ChatResponse hit = cache.getIfPresent(cacheKey);
            if (hit != null) return hit.asCached();
        }
        ChatResponse r = exchange(cfg, req.step(), body, read, cancelled);
        if (cacheKey != null && !"length".equals(r.finishReason())) cache.put(cacheKey, r);
        return r;
    }

    /**
     * A JSON reply checked by {@code check}; on unparsable or rejected JSON one repair turn tells the model what
     * was wrong; then an error that names the step. Truncated replies are an error too.
     */
    public JsonReply chatJson(LlmConfig cfg, ChatRequest req, JsonCheck check, boolean useCache, BooleanSupplier cancelled) {
        ChatRequest r = req.responseFormat() == null
                ? new ChatRequest(req.step(), req.messages(), req.tools(), req.toolChoice(), "json_object", req.stop()) : req;
        ChatResponse first = chat(cfg, r, useCache, cancelled);
        Read read = readJson(cfg, first, check);
        if (read.problem == null) return new JsonReply(read.json, first.withRepairs(read.repairs));
        if (read.cut) throw new RagException("LLM step '" + req.step() + "': " + read.problem);
        log.accept("graphrag: LLM step '" + req.step() + "' gave unusable JSON (" + read.problem + "); asking once to repair it");
        List<Map<String, Object>> repair = new ArrayList<>(r.messages());
        repair.add(Map.of("role", "assistant", "content", first.content() == null ? "" : first.content()));
        repair.add(Map.of("role", "user", "content", "Your reply could not be used: " + read.problem
                + ". Reply again with only the corrected JSON, no other text."));
        ChatResponse second = chat(cfg, r.withMessages(repair), false, cancelled).plus(first);
        Read again = readJson(cfg, second, check);
        if (again.problem != null) {
            throw new RagException("LLM step '" + req.step() + "' returned unusable JSON after one repair turn: " + again.problem);
        }
        return new JsonReply(again.json, second.withRepairs(1 + again.repairs));
    }

    /** A reply read as checked JSON: the value and the fixes it needed, or the problem (cut: a repair turn cannot help). */
    private record Read(JsonNode json, int repairs, String problem, boolean cut) {}

    private static Read readJson(LlmConfig cfg, ChatResponse r, JsonCheck check) {
        if ("length".equals(r.finishReason())) {
            try {
                ReplyReader.answer(r.content(), "length", cfg.maxTokens());
            } catch (ReplyReader.Problem p) {
                return new Read(null, 0, p.getMessage(), true); // cut while reasoning: another turn would be cut the same way
            }
            return new Read(null, 0, "the reply was cut off at maxTokens=" + cfg.maxTokens() + " (finish_reason=length)", false);
        }
        JsonNode node;
        int repairs;
        try {
            ReplyReader.Json j = ReplyReader.read(r.content(), r.finishReason(), cfg.maxTokens());
            node = j.value();
            repairs = j.repairs().isEmpty() ? 0 : 1;
        } catch (ReplyReader.Problem p) {
            if (p.cut()) return new Read(null, 0, p.getMessage(), true);
            node = textFallback(r.content(), check);
            if (node == null) return new Read(null, 0, p.getMessage(), false);
            repairs = 0; // a method's own record format is an answer, not a repair
        }
        String problem = check.problem(node);
        return problem == null ? new Read(node, repairs, null, false) : new Read(null, 0, problem, false);
    }

    /** A method's record format (text, not JSON), after the reasoning block. */
    private static JsonNode textFallback(String content, JsonCheck check) {
        if (content == null) return null;
        try {
            String answer = ReplyReader.answer(content, "stop", 0).text();
            return answer == null || answer.isBlank() ? null : check.fromText(stripFences(answer));
        } catch (ReplyReader.Problem p) {
            return null;
        }
    }

    /** Small models wrap JSON in ```json fences despite being told not to. */
    private static String stripFences(String s) {
        if (s == null) return null;
        String t = s.trim();
        if (t.startsWith("```")) {
            int nl = t.indexOf('\n');
            int end = t.lastIndexOf("```");
            if (nl > 0 && end > nl) return t.substring(nl + 1, end).trim();
        }
        return t;
    }

    /** GET {endpoint}/models: whether the endpoint answers (within min(timeoutMs, 10 s)); cancellable. */
    public boolean reachable(LlmConfig cfg, BooleanSupplier cancelled) {
        return get(cfg, cfg.endpoint() + "/models", null, cancelled) != null;
    }

    /**
     * What the endpoint says of itself: whether it answers, and the context window it states where it states one
     * (vLLM: {@code max_model_len} in GET /models; llama.cpp: {@code n_ctx} in GET /props; Ollama: {@code num_ctx} in
     * POST /api/show, else the model's own maximum there, which Ollama does not use unless told). {@code window} is null
     * when the endpoint states none; {@code windowSource} says where it came from.
     */
    public record EndpointInfo(boolean reachable, Long window, String windowSource) {}

    public EndpointInfo endpointInfo(LlmConfig cfg, BooleanSupplier cancelled) {
        String models = get(cfg, cfg.endpoint() + "/models", null, cancelled);
        if (models == null) return new EndpointInfo(false, null, null);
        try {
            JsonNode data = JSON.readTree(models).path("data");
            for (JsonNode m : data) {
                if ((cfg.model().equals(m.path("id").asText()) || data.size() == 1) && m.path("max_model_len").isNumber()) {
                    return new EndpointInfo(true, m.path("max_model_len").asLong(), "max_model_len (GET /models)");
                }
            }
        } catch (JsonProcessingException e) {
            // not OpenAI-shaped: look elsewhere
        }
        String root = cfg.endpoint().replaceFirst("/v1/?$", "");
        String props = get(cfg, root + "/props", null, cancelled);
        try {
            if (props != null) {
                JsonNode n = JSON.readTree(props).path("default_generation_settings").path("n_ctx");
                if (n.isNumber()) return new EndpointInfo(true, n.asLong(), "n_ctx (GET /props)");
            }
            String show = get(cfg, root + "/api/show", JSON.createObjectNode().put("model", cfg.model()).toString(), cancelled);
            if (show != null) {
                JsonNode info = JSON.readTree(show);
                java.util.regex.Matcher numCtx = NUM_CTX.matcher(info.path("parameters").asText(""));
                if (numCtx.find()) return new EndpointInfo(true, Long.parseLong(numCtx.group(1)), "num_ctx (POST /api/show)");
                var fields = info.path("model_info").fields();
                while (fields.hasNext()) {
                    var f = fields.next();
                    if (f.getKey().endsWith(".context_length") && f.getValue().isNumber()) {
                        return new EndpointInfo(true, null, "Ollama: the model takes " + f.getValue().asLong() + " tokens, but the server's window is "
                                + "OLLAMA_CONTEXT_LENGTH (4096 by default in current releases, 2048 in older ones) unless the model sets num_ctx");
                    }
                }
            }
        } catch (JsonProcessingException e) {
            // a body that is not JSON states nothing
        }
        return new EndpointInfo(true, null, null);
    }

    /** A GET (or a POST of {@code json}) to the endpoint's own server; the body on 2xx, else null. */
    private String get(LlmConfig cfg, String url, String json, BooleanSupplier cancelled) {
        long timeout = Math.min(cfg.timeoutMs(), 10_000);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(timeout)).header(STEP_HEADER, "rag.llm.info");
        if (json == null) b.GET();
        else b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        // the key goes to the endpoint's own path only: /props and /api/show sit beside it, and get none
        if (cfg.hasApiKey() && url.startsWith(cfg.endpoint() + "/")) b.header("Authorization", "Bearer " + cfg.apiKey());
        try {
            HttpResponse<byte[]> r = await(http().sendAsync(b.build(), capped()), timeout, cancelled, "rag.llm.info");
            return r.statusCode() / 100 == 2 ? new String(r.body(), StandardCharsets.UTF_8) : null;
        } catch (IOException | TimeoutException e) {
            return null;
        }
    }

    private ObjectNode body(LlmConfig cfg, ChatRequest req) {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", cfg.model());
        b.set("messages", JSON.valueToTree(req.messages()));
        b.put("temperature", cfg.temperature());
        b.put("max_tokens", cfg.maxTokens());
        if (cfg.seed() != null) b.put("seed", cfg.seed());
        if (!req.stop().isEmpty()) b.set("stop", JSON.valueToTree(req.stop()));
        if (!req.tools().isEmpty()) b.set("tools", JSON.valueToTree(req.tools()));
        if (req.toolChoice() != null) b.set("tool_choice", JSON.valueToTree(req.toolChoice()));
        Object rf = req.responseFormat();
        if ("json_object".equals(rf)) {
            b.set("response_format", JSON.createObjectNode().put("type", "json_object"));
        } else if (rf instanceof Map<?, ?> m) {
            if (m.containsKey("type")) {
                b.set("response_format", JSON.valueToTree(m));
            } else {
                ObjectNode f = JSON.createObjectNode().put("type", "json_schema");
                f.set("json_schema", JSON.valueToTree(m));
                b.set("response_format", f);
            }
        } else if (rf != null && !"text".equals(rf)) {
            throw new RagException("responseFormat must be 'json_object', 'text' or a json_schema map {name, schema}");
        }
        return b;
    }

    private ChatResponse exchange(LlmConfig cfg, String step, ObjectNode body, long promptEstimate, BooleanSupplier cancelled) {
        String payload = body.toString();
        String lastProblem = "no attempt made";
        for (int attempt = 0; attempt <= cfg.maxRetries(); attempt++) {
            long retryAfter = -1;
            acquire(cancelled, step);
            long t0 = System.nanoTime();
            try {
                HttpResponse<byte[]> resp = send(cfg, payload, cancelled, step);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                int status = resp.statusCode();
                String text = new String(resp.body(), StandardCharsets.UTF_8);
                if (status / 100 == 2) return parseReply(cfg, step, text, promptEstimate, ms);
                String excerpt = excerpt(cfg, text);
                lastProblem = "HTTP " + status + " from " + cfg.host() + ": " + excerpt;
                if (status != 429 && status / 100 != 5) {
                    throw new LlmHttpException("LLM step '" + step + "' failed: " + lastProblem
                            + (status == 401 || status == 403 ? " (check the API key)" : status == 404 ? " (check the endpoint, ending in /v1, and the model name)"
                            : CONTEXT_REFUSAL.matcher(excerpt).find() ? " (the prompt does not fit the server's context window: set graphrag.llm.contextTokens"
                            + " (now " + cfg.contextTokens() + ") to the server's window (vLLM --max-model-len, llama.cpp --ctx-size) so prompts are trimmed"
                            + " to fit, or raise the server's window; docs/llm.md#context-windows)" : ""),
                            status, excerpt);
                }
                retryAfter = resp.headers().firstValue("Retry-After").map(LlmClient::retryAfterMs).orElse(-1L);
            } catch (HttpTimeoutException | TimeoutException e) {
                lastProblem = "no complete reply within timeoutMs=" + cfg.timeoutMs();
            } catch (ReplyTooLargeException e) {
                throw new RagException("LLM step '" + step + "': the reply from " + cfg.host() + " passed " + maxReplyBytes
                        + " bytes (graphrag.llm.maxReplyBytes) and was abandoned");
            } catch (java.net.ConnectException e) {
                // nothing listens there: retrying cannot help, and a wrong endpoint should say so at once
                throw new RagException("LLM step '" + step + "' failed: connection refused at " + cfg.host()
                        + " (is the LLM server running? check the endpoint: graphrag.llm.endpoint or config.llm.endpoint)");
            } catch (IOException e) {
                lastProblem = "I/O error talking to " + cfg.host() + ": " + excerpt(cfg, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            } finally {
                permits.release();
            }
            if (attempt < cfg.maxRetries()) {
                long wait = retryAfter >= 0 ? Math.min(retryAfter, MAX_RETRY_AFTER_MS)
                        : cfg.retryBaseMs() * (1L << Math.min(attempt, 16)) + ThreadLocalRandom.current().nextLong(cfg.retryBaseMs() + 1);
                log.accept("graphrag: LLM step '" + step + "': " + lastProblem + "; retry " + (attempt + 1) + "/" + cfg.maxRetries() + " in " + wait + " ms");
                sleep(wait, cancelled, step);
            }
        }
        throw new RagException("LLM step '" + step + "' failed after " + (cfg.maxRetries() + 1) + " attempts: " + lastProblem);
    }

    private HttpResponse<byte[]> send(LlmConfig cfg, String payload, BooleanSupplier cancelled, String step)
            throws IOException, TimeoutException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cfg.endpoint() + "/chat/completions"))
                .timeout(Duration.ofMillis(cfg.timeoutMs()))
                .header("Content-Type", "application/json")
                .header(STEP_HEADER, headerSafe(step))
                .POST(HttpRequest.BodyPublishers.ofString(payload));
        if (cfg.hasApiKey()) b.header("Authorization", "Bearer " + cfg.apiKey());
        return await(http().sendAsync(b.build(), capped()), cfg.timeoutMs(), cancelled, step);
    }

    /**
     * Waits for a whole exchange (headers and body) until the deadline, polling the caller's cancellation; a
     * cancelled, timed-out or oversized exchange is aborted, so its connection and buffer are released.
     */
    private <T> HttpResponse<T> await(CompletableFuture<HttpResponse<T>> f, long timeoutMs, BooleanSupplier cancelled, String step)
            throws IOException, TimeoutException {
        HttpClient used = http;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            if (cancelled.getAsBoolean()) {
                f.cancel(true);
                throw cancelledError(step);
            }
            try {
                return f.get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    f.cancel(true);
                    throw e;
                }
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                while (cause instanceof java.util.concurrent.CompletionException || (cause instanceof IOException && cause.getCause() instanceof ReplyTooLargeException)) {
                    cause = cause.getCause();
                }
                if (cause instanceof ReplyTooLargeException tooLarge) throw tooLarge;
                if (cause instanceof IOException io) throw io;
                discardHttpClient(used);
                if (cause instanceof LinkageError broken) throw new RagException(UrlHandlerConflict.explain(broken));
                throw new IOException(cause == null ? "unknown failure" : cause.getClass().getSimpleName(), cause);
            } catch (InterruptedException e) {
                f.cancel(true);
                Thread.currentThread().interrupt();
                throw cancelledError(step);
            } catch (RuntimeException e) {
                discardHttpClient(used);
                throw new IOException(e.getClass().getSimpleName(), e);
            }
        }
    }

    /** A body handler that keeps at most maxReplyBytes and cancels the exchange past that. */
    private HttpResponse.BodyHandler<byte[]> capped() {
        long max = maxReplyBytes;
        return info -> new CappedBody(max, info.headers().firstValueAsLong("Content-Length").orElse(-1));
    }

    /** Thrown when a reply passes maxReplyBytes: the whole call fails at once, nothing is retried. */
    static final class ReplyTooLargeException extends IOException {
        ReplyTooLargeException(long max) {
            super("reply larger than " + max + " bytes");
        }
    }

    private static final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final long max;
        private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private java.util.concurrent.Flow.Subscription subscription;

        CappedBody(long max, long declaredLength) {
            this.max = max;
            if (declaredLength > max) result.completeExceptionally(new ReplyTooLargeException(max));
        }

        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
            subscription = s;
            if (result.isDone()) s.cancel();
            else s.request(1);
        }

        @Override
        public void onNext(List<java.nio.ByteBuffer> items) {
            if (result.isDone()) return;
            for (java.nio.ByteBuffer b : items) {
                if (buffer.size() + (long) b.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new ReplyTooLargeException(max));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                buffer.write(chunk, 0, chunk.length);
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(buffer.toByteArray());
        }

        @Override
        public java.util.concurrent.CompletionStage<byte[]> getBody() {
            return result;
        }
    }

    /**
     * What an error message may quote of a remote body: its {@code error.message} when it is OpenAI-shaped JSON,
     * else its start; at most MAX_EXCERPT_CHARS printable characters, the key redacted.
     */
    static String excerpt(LlmConfig cfg, String body) {
        if (body == null || body.isBlank()) return "(empty body)";
        String text = body;
        try {
            JsonNode n = JSON.readTree(body);
            JsonNode m = n.path("error").isTextual() ? n.path("error") : n.path("error").path("message");
            if (m.isTextual()) text = m.asText();
        } catch (JsonProcessingException | RuntimeException e) {
            // not JSON: quote the start of the text
        }
        text = cfg.redact(text);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < MAX_EXCERPT_CHARS; i++) {
            char c = text.charAt(i);
            b.append(Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? ' ' : c);
        }
        String out = b.toString().replaceAll(" {2,}", " ").trim();
        return text.length() > MAX_EXCERPT_CHARS ? out + "..." : out;
    }

    /** Header values must be visible ASCII; step names are ours, but keep them safe anyway. */
    private static String headerSafe(String step) {
        String s = step == null ? "unnamed" : step.replaceAll("[^\\x20-\\x7e]", "?");
        return s.length() > 200 ? s.substring(0, 200) : s;
    }

    /** {@code sentTokens}: the client's count of what the server reads as the prompt ({@link TokenCounter#promptAsRead}). */
    private ChatResponse parseReply(LlmConfig cfg, String step, String body, long sentTokens, long ms) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new RagException("LLM step '" + step + "': " + cfg.host() + " answered with a body that is not JSON");
        }
        JsonNode choice = root.path("choices").path(0);
        if (choice.isMissingNode()) throw new RagException("LLM step '" + step + "': the reply has no choices[0]");
        JsonNode msg = choice.path("message");
        String content = msg.path("content").isTextual() ? msg.path("content").asText() : null;
        String finish = choice.path("finish_reason").asText(null);
        // reasoning: a separate field (vLLM --reasoning-parser, DeepSeek, Ollama) or a leading block in the content
        String reasoning = msg.path("reasoning_content").isTextual() ? msg.path("reasoning_content").asText()
                : msg.path("reasoning").isTextual() ? msg.path("reasoning").asText() : null;
        if (content != null) {
            try {
                ReplyReader.Answer a = ReplyReader.answer(content, finish, cfg.maxTokens());
                if (a.hadReasoning()) {
                    content = a.text().strip();
                    reasoning = reasoning == null ? a.reasoning() : reasoning + "\n" + a.reasoning();
                }
            } catch (ReplyReader.Problem p) {
                // an unterminated block stays in the content: the step that reads it reports the problem
            }
        }
        ToolCalls calls = ToolCalls.read(msg, content);
        if (calls.fromContent()) content = calls.contentLeft();
        JsonNode usage = root.path("usage");
        boolean estimated = !usage.path("prompt_tokens").isNumber();
        long prompt = estimated ? sentTokens : usage.path("prompt_tokens").asLong();
        if (!estimated && sentTokens >= TokenCounter.MIN_CHECKED && prompt < TokenCounter.CUT_RATIO * sentTokens) {
            throw new PromptCutException("LLM step '" + step + "': " + cfg.host() + " read only " + prompt + " prompt tokens of the " + sentTokens
                    + " this client sent (its usage.prompt_tokens is under " + Math.round(TokenCounter.CUT_RATIO * 100) + "% of the client's cl100k_base"
                    + " count): the server cut the prompt to its context window, so the instructions were lost. Raise the server's window (Ollama: "
                    + "OLLAMA_CONTEXT_LENGTH or the model's num_ctx; llama.cpp: --ctx-size; vLLM: --max-model-len) and set graphrag.llm.contextTokens"
                    + " (now " + cfg.contextTokens() + ") to it (docs/llm.md#context-windows)");
        }
        long reasoningTokens = usage.path("completion_tokens_details").path("reasoning_tokens").isNumber()
                ? usage.path("completion_tokens_details").path("reasoning_tokens").asLong() : TokenCounter.count(reasoning);
        long completion = usage.path("completion_tokens").isNumber() ? usage.path("completion_tokens").asLong()
                : TokenCounter.count(content) + reasoningTokens + (calls.calls().isEmpty() ? 0 : TokenCounter.count(TokenCounter.json(calls.calls())));
        estimated |= !usage.path("completion_tokens").isNumber();
        return new ChatResponse(content, calls.calls(), finish, prompt, completion, estimated, 1, false, ms, reasoning, reasoningTokens, calls.repairs());
    }

    /** The server cut the prompt to its window (its prompt count is far below what was sent): never run on. */
    public static final class PromptCutException extends RagException {
        PromptCutException(String message) {
            super(message);
        }
    }

    static long retryAfterMs(String v) {
        try {
            return (long) (Double.parseDouble(v.trim()) * 1000);
        } catch (NumberFormatException e) {
            return -1; // an HTTP date: fall back to our own back-off
        }
    }

    private void acquire(BooleanSupplier cancelled, String step) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxQueueMs);
        try {
            while (!permits.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                if (cancelled.getAsBoolean()) throw cancelledError(step);
                if (System.nanoTime() > deadline) {
                    throw new RagException("LLM step '" + step + "': the server is busy: all " + maxConcurrent
                            + " LLM permits (graphrag.llm.maxConcurrent) stayed in use for " + maxQueueMs
                            + " ms (graphrag.llm.maxQueueMs); retry later");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelledError(step);
        }
    }

    private static void sleep(long ms, BooleanSupplier cancelled, String step) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        try {
            while (System.nanoTime() < end) {
                if (cancelled.getAsBoolean()) throw cancelledError(step);
                Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelledError(step);
        }
    }

    private static RagException cancelledError(String step) {
        return new RagException("LLM step '" + step + "' cancelled: the transaction was terminated");
    }
}
