package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An OpenAI-compatible server on 127.0.0.1 for tests: /v1/chat/completions answers from a rule table
 * (first matching rule with uses left), /v1/embeddings gives each text a bag-of-words vector (scripted faults from
 * {@link #onEmbeddings()} rules), /v1/rerank (and /rerank, as text-embeddings-inference serves it) scores documents by
 * the share of the query's words each holds (or by {@link #rerankScores}; faults from {@link #onRerank()} rules; more
 * documents than {@link #rerankLimit} refused with 413, as servers do), /v1/models lists one model, every request is recorded, and
 * replies can be faults: a delay, 429 with Retry-After, 500, a body that is not JSON, a cut-off reply,
 * a dropped connection.
 * <pre>
 *   llm.when(StandInLlm.lastUserContains("capital")).reply("Paris");
 *   llm.always().once().status(429).retryAfter("0.05");     // first call throttled, then the rule below
 *   llm.always().toolCalls(StandInLlm.toolCall("c1", "search", "{\"q\":\"x\"}"));
 * </pre>
 */
public final class StandInLlm implements AutoCloseable, org.junit.jupiter.api.extension.BeforeEachCallback,
        org.junit.jupiter.api.extension.AfterAllCallback {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final com.knuddels.jtokkit.api.Encoding CL100K = com.knuddels.jtokkit.Encodings.newLazyEncodingRegistry()
            .getEncoding(com.knuddels.jtokkit.api.EncodingType.CL100K_BASE);

    /** One recorded request: its JSON body (empty for GET), Authorization and X-Rag-Step headers, method and path. */
    public record Request(JsonNode body, String authorization, String step, String method, String path) {
        public String lastUserContent() {
            String last = null;
            for (JsonNode m : body.path("messages")) if ("user".equals(m.path("role").asText())) last = m.path("content").asText();
            return last;
        }
    }

    /** A reply rule; build it with the fluent methods. */
    public final class Rule {
        final Predicate<Request> match;
        int usesLeft = Integer.MAX_VALUE;
        String content;
        List<Map<String, Object>> toolCalls = List.of();
        String finishReason = "stop";
        boolean usage = true;
        int status = 200;
        String retryAfter;
        long delayMs;
        String rawBody;
        boolean dropConnection;
        boolean endless;
        long trickleMs;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();

        /** The most requests this rule was serving at once (its delay is the window). */
        public int maxConcurrent() { return maxInFlight.get(); }

        Rule(Predicate<Request> match) { this.match = match; }

        public Rule times(int n) { usesLeft = n; return this; }
        public Rule once() { return times(1); }
        public Rule reply(String text) { content = text; return this; }
        public Rule replyJson(Object value) {
            try { content = JSON.writeValueAsString(value); } catch (IOException e) { throw new IllegalStateException(e); }
            return this;
        }
        @SafeVarargs
        public final Rule toolCalls(Map<String, Object>... calls) { toolCalls = List.of(calls); finishReason = "tool_calls"; return this; }
        public Rule finishReason(String r) { finishReason = r; return this; }
        public Rule withoutUsage() { usage = false; return this; }
        public Rule status(int s) { status = s; return this; }
        public Rule retryAfter(String seconds) { retryAfter = seconds; return this; }
        public Rule delay(long ms) { delayMs = ms; return this; }
        public Rule rawBody(String body) { rawBody = body; return this; }
        public Rule dropConnection() { dropConnection = true; return this; }
        /** 200, then a body that never ends (chunked, as fast as the client reads) until the client hangs up. */
        public Rule endlessBody() { endless = true; return this; }
        /** 200, then one byte every {@code ms} forever: a tarpit that never completes a reply. */
        public Rule trickle(long ms) { trickleMs = ms; return this; }
    }

    private final HttpServer server;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<Rule> embeddingRules = new CopyOnWriteArrayList<>();
    private volatile int embeddingDimensions = 64;
    private volatile double embeddingScale = 3.0;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile long modelsDelayMs;
    private final Map<String, String> served = new java.util.concurrent.ConcurrentHashMap<>();

    /** Answers GET /v1/models, GET /props or POST /api/show with this JSON body (until {@link #reset}). */
    public void serve(String path, String json) { served.put(path, json); }

    static {
        // TCP_NODELAY on the JDK server: otherwise every reply waits ~40 ms for a delayed ACK
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private StandInLlm() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "stand-in-llm");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/v1/chat/completions", this::chat);
        server.createContext("/v1/embeddings", this::embeddings);
        server.createContext("/v1/rerank", this::rerank);
        server.createContext("/rerank", this::rerank);
        server.createContext("/v1/models", ex -> {
            requests.add(new Request(JSON.createObjectNode(), ex.getRequestHeaders().getFirst("Authorization"),
                    ex.getRequestHeaders().getFirst("X-Rag-Step"), ex.getRequestMethod(), ex.getRequestURI().getPath()));
            sleepQuietly(modelsDelayMs);
            String body = served.get("/v1/models");
            send(ex, 200, body != null ? body : "{\"object\":\"list\",\"data\":[{\"id\":\"stand-in\",\"object\":\"model\"}]}", null);
        });
        // what servers say of their window beyond /v1/models: llama.cpp's /props, Ollama's /api/show (404 until served)
        for (String path : List.of("/props", "/api/show")) {
            server.createContext(path, ex -> {
                requests.add(new Request(JSON.createObjectNode(), ex.getRequestHeaders().getFirst("Authorization"),
                        ex.getRequestHeaders().getFirst("X-Rag-Step"), ex.getRequestMethod(), ex.getRequestURI().getPath()));
                String body = served.get(path);
                send(ex, body == null ? 404 : 200, body == null ? "{\"error\":\"not found\"}" : body, null);
            });
        }
        server.start();
    }

    public static StandInLlm start() {
        try {
            return new StandInLlm();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Server settings pointing at this stand-in (model "stand-in", 5 ms back-off), with {@code extra} on top. */
    public dev.graphrag.core.config.PluginSettings settings(Map<String, String> extra) {
        Map<String, String> s = new java.util.HashMap<>(Map.of("graphrag.llm.endpoint", endpoint(), "graphrag.llm.model", "stand-in",
                "graphrag.llm.retryBaseMs", "5"));
        s.putAll(extra);
        return dev.graphrag.core.config.PluginSettings.fromStrings(s, "test");
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    public Rule when(Predicate<Request> match) {
        Rule r = new Rule(match);
        rules.add(r);
        return r;
    }

    public Rule always() {
        return when(r -> true);
    }

    /** A rule for /v1/embeddings requests (a fault, a delay, a raw body); without one, every text gets {@link #vector}. */
    public Rule onEmbeddings(Predicate<Request> match) {
        Rule r = new Rule(match);
        embeddingRules.add(r);
        return r;
    }

    public Rule onEmbeddings() {
        return onEmbeddings(r -> true);
    }

    private final List<Rule> rerankRules = new CopyOnWriteArrayList<>();
    private volatile java.util.function.ToDoubleBiFunction<String, String> rerankScores;
    private volatile int rerankLimit;

    /** A rule for rerank requests (a fault, a delay, a raw body); without one, documents are scored as the class says. */
    public Rule onRerank() {
        Rule r = new Rule(x -> true);
        rerankRules.add(r);
        return r;
    }

    /** Scores (query, document) with this function instead of word overlap (an oracle reranker, ties). */
    public void rerankScores(java.util.function.ToDoubleBiFunction<String, String> score) { rerankScores = score; }

    /** Refuses a rerank request with more documents than this with 413 (0: no limit), as TEI's max-client-batch-size does. */
    public void rerankLimit(int documents) { rerankLimit = documents; }

    /** The stand-in reranker's default score: the share of the query's distinct words the document holds. */
    public static double overlap(String query, String document) {
        java.util.Set<String> q = new java.util.HashSet<>(List.of(query.toLowerCase(java.util.Locale.ROOT).split("[^\\p{L}\\p{N}]+")));
        q.remove("");
        java.util.Set<String> d = new java.util.HashSet<>(List.of(document.toLowerCase(java.util.Locale.ROOT).split("[^\\p{L}\\p{N}]+")));
        long shared = q.stream().filter(d::contains).count();
        return q.isEmpty() ? 0 : (double) shared / q.size();
    }

    /**
     * Cohere's shape ({documents, top_n} -> {results: [{index, relevance_score}]}), Voyage's (top_k -> {data: [...]}) or
     * TEI's ({texts} -> [{index, score}]), chosen by the request's fields; results best first, as servers give them.
     */
    private void rerank(HttpExchange ex) throws IOException {
        Request req = record(ex);
        Rule rule = take(rerankRules, req);
        if (rule != null && fault(ex, rule)) return;
        boolean tei = req.body().has("texts");
        JsonNode docs = tei ? req.body().path("texts") : req.body().path("documents");
        if (rerankLimit > 0 && docs.size() > rerankLimit) {
            send(ex, 413, "{\"error\":\"batch size " + docs.size() + " > maximum allowed batch size " + rerankLimit + "\"}", null);
            return;
        }
        String query = req.body().path("query").asText();
        java.util.function.ToDoubleBiFunction<String, String> score = rerankScores != null ? rerankScores : StandInLlm::overlap;
        List<double[]> scored = new java.util.ArrayList<>();
        for (int i = 0; i < docs.size(); i++) scored.add(new double[] {i, score.applyAsDouble(query, docs.get(i).asText())});
        scored.sort((a, b) -> Double.compare(b[1], a[1]));
        int top = req.body().has("top_n") ? req.body().path("top_n").asInt() : req.body().has("top_k") ? req.body().path("top_k").asInt() : scored.size();
        ArrayNode items = JSON.createArrayNode();
        for (double[] s : scored.subList(0, Math.min(top, scored.size()))) {
            ObjectNode item = items.addObject().put("index", (int) s[0]);
            if (tei) item.put("score", s[1]);
            else item.put("relevance_score", s[1]);
        }
        if (tei) {
            send(ex, 200, items.toString(), null);
        } else {
            ObjectNode root = JSON.createObjectNode();
            root.set(req.body().has("top_k") ? "data" : "results", items);
            send(ex, 200, root.toString(), null);
        }
    }

    /** The length of the vectors /v1/embeddings gives when a request does not ask for {@code dimensions} (64 until reset). */
    public void embeddingDimensions(int d) { embeddingDimensions = d; }

    /**
     * The stand-in's embedding of a text: each lower-cased word adds 1 to one coordinate chosen by its hash, the whole
     * scaled by 3 (so a client must normalise): texts that share words lie close, as under a real model.
     */
    public static float[] vector(String text, int dimensions, double scale) {
        float[] v = new float[dimensions];
        for (String w : text.toLowerCase(java.util.Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (w.isEmpty()) continue;
            int h = w.hashCode() * 0x9E3779B1;
            v[Math.floorMod(h, dimensions)] += 1;
        }
        v[0] += 0.01f; // no text maps to the zero vector
        for (int i = 0; i < v.length; i++) v[i] = (float) (v[i] * scale);
        return v;
    }

    public float[] vector(String text) {
        return vector(text, embeddingDimensions, embeddingScale);
    }

    private void embeddings(HttpExchange ex) throws IOException {
        Request req = record(ex);
        Rule rule = take(embeddingRules, req);
        if (rule != null && fault(ex, rule)) return;
        JsonNode input = req.body().path("input");
        List<String> texts = new java.util.ArrayList<>();
        if (input.isTextual()) texts.add(input.asText());
        else input.forEach(t -> texts.add(t.asText()));
        int dims = req.body().path("dimensions").asInt(embeddingDimensions);
        ObjectNode root = JSON.createObjectNode();
        root.put("object", "list").put("model", req.body().path("model").asText());
        ArrayNode data = root.putArray("data");
        // listed last to first, each with its index, as servers that batch out of order do: a client must place by index
        for (int i = texts.size() - 1; i >= 0; i--) {
            ObjectNode item = data.addObject();
            item.put("object", "embedding").put("index", i);
            ArrayNode v = item.putArray("embedding");
            for (float x : vector(texts.get(i), dims, embeddingScale)) v.add(x);
        }
        int tokens = 0;
        for (String t : texts) tokens += CL100K.countTokensOrdinary(t);
        root.putObject("usage").put("prompt_tokens", tokens).put("total_tokens", tokens);
        send(ex, 200, root.toString(), null);
    }

    public static Predicate<Request> lastUserContains(String text) {
        return r -> r.lastUserContent() != null && r.lastUserContent().contains(text);
    }

    public static Predicate<Request> hasToolResult(String toolCallId) {
        return r -> {
            for (JsonNode m : r.body().path("messages")) {
                if ("tool".equals(m.path("role").asText()) && toolCallId.equals(m.path("tool_call_id").asText())) return true;
            }
            return false;
        };
    }

    public static Map<String, Object> toolCall(String id, String name, String argumentsJson) {
        return Map.of("id", id, "type", "function", "function", Map.of("name", name, "arguments", argumentsJson));
    }

    public List<Request> requests() { return List.copyOf(requests); }

    /** This server's own count of a request's prompt: cl100k_base over the messages' JSON text (framing included). */
    public static int promptTokens(Request r) {
        return CL100K.countTokensOrdinary(r.body().path("messages").toString());
    }

    private volatile int window;

    /** Cuts every prompt longer than {@code tokens} to it and reports the cut size in usage, as Ollama does; 0: no window. */
    public void window(int tokens) { window = tokens; }

    private volatile java.util.function.BiFunction<ObjectNode, JsonNode, ObjectNode> shape;

    /** Rewrites every completion (the reply body and the request body in; the body to send out): a real server's reply shape. */
    public void shape(java.util.function.BiFunction<ObjectNode, JsonNode, ObjectNode> rewrite) { shape = rewrite; }

    /** GET /models answers only after this long (a tarpit for rag.llm.info). */
    public void modelsDelay(long ms) { modelsDelayMs = ms; }

    public void reset() {
        rules.clear();
        embeddingRules.clear();
        rerankRules.clear();
        rerankScores = null;
        rerankLimit = 0;
        embeddingDimensions = 64;
        requests.clear();
        modelsDelayMs = 0;
        window = 0;
        shape = null;
        served.clear();
    }

    private Request record(HttpExchange ex) throws IOException {
        Request req = new Request(JSON.readTree(ex.getRequestBody().readAllBytes()), ex.getRequestHeaders().getFirst("Authorization"),
                ex.getRequestHeaders().getFirst("X-Rag-Step"), ex.getRequestMethod(), ex.getRequestURI().getPath());
        requests.add(req);
        return req;
    }

    /** The first rule of {@code table} with uses left that matches, its use counted; null when none does. */
    private static Rule take(List<Rule> table, Request req) {
        synchronized (table) {
            for (Rule r : table) {
                if (r.usesLeft > 0 && r.match.test(req)) {
                    r.usesLeft--;
                    return r;
                }
            }
        }
        return null;
    }

    /** Waits the rule's delay, then plays its fault if it has one (dropped connection, endless or trickled body, error status, raw body). */
    private static boolean fault(HttpExchange ex, Rule rule) throws IOException {
        rule.maxInFlight.accumulateAndGet(rule.inFlight.incrementAndGet(), Math::max);
        try {
            sleepQuietly(rule.delayMs);
        } finally {
            rule.inFlight.decrementAndGet();
        }
        if (rule.dropConnection) {
            ex.close(); // no status line: the client sees the connection end
            return true;
        }
        if (rule.endless || rule.trickleMs > 0) {
            stream(ex, rule.endless ? 0 : rule.trickleMs);
            return true;
        }
        if (rule.rawBody != null || rule.status != 200) {
            send(ex, rule.status, rule.rawBody != null ? rule.rawBody : "{\"error\":{\"message\":\"stand-in fault " + rule.status + "\"}}", rule.retryAfter);
            return true;
        }
        return false;
    }

    private static void sleepQuietly(long ms) {
        try {
            if (ms > 0) Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void chat(HttpExchange ex) throws IOException {
        Request req = record(ex);
        Rule rule = take(rules, req);
        if (rule == null) {
            send(ex, 500, "{\"error\":{\"message\":\"stand-in: no rule matches this request\"}}", null);
            return;
        }
        if (fault(ex, rule)) return;
        ObjectNode out = completion(req, rule);
        if (shape != null) out = shape.apply(out, req.body());
        send(ex, 200, out.toString(), null);
    }

    /** Bytes until the client goes away (a write fails) or 10 minutes pass: bounded, as every test server must be. */
    private static void stream(HttpExchange ex, long pauseMs) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, 0);
        byte[] block = new byte[pauseMs > 0 ? 1 : 64 * 1024];
        java.util.Arrays.fill(block, (byte) ' ');
        long end = System.nanoTime() + 600_000_000_000L;
        try (var out = ex.getResponseBody()) {
            out.write('{');
            while (System.nanoTime() < end) {
                out.write(block);
                out.flush();
                if (pauseMs > 0) Thread.sleep(pauseMs);
            }
        } catch (IOException | InterruptedException e) {
            // the client hung up: what a capped client must do
        } finally {
            ex.close();
        }
    }

    private ObjectNode completion(Request req, Rule rule) {
        ObjectNode root = JSON.createObjectNode();
        root.put("id", "chatcmpl-standin").put("object", "chat.completion").put("model", req.body().path("model").asText());
        ArrayNode choices = root.putArray("choices");
        ObjectNode choice = choices.addObject();
        choice.put("index", 0).put("finish_reason", rule.finishReason);
        ObjectNode msg = choice.putObject("message");
        msg.put("role", "assistant");
        if (rule.content != null) msg.put("content", rule.content);
        else msg.putNull("content");
        if (!rule.toolCalls.isEmpty()) msg.set("tool_calls", JSON.valueToTree(rule.toolCalls));
        if (rule.usage) {
            int prompt = promptTokens(req);
            if (window > 0 && prompt > window) prompt = window; // cut from the front, and reported as cut, as Ollama does
            int completion = rule.content == null ? 5 : Math.max(1, rule.content.length() / 4);
            root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion).put("total_tokens", prompt + completion);
        }
        return root;
    }

    private static void send(HttpExchange ex, int status, String body, String retryAfter) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        if (retryAfter != null) ex.getResponseHeaders().add("Retry-After", retryAfter);
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    /** As a JUnit extension ({@code @RegisterExtension static final StandInLlm LLM = StandInLlm.start();}): reset before each test. */
    @Override
    public void beforeEach(org.junit.jupiter.api.extension.ExtensionContext context) {
        reset();
    }

    /** ...and closed after the class. */
    @Override
    public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
