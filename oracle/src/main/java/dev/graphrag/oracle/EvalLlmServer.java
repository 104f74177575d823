package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The evaluation LLM server (docs/evaluation.md): OpenAI-compatible on 127.0.0.1, each request answered by the
 * {@link Policy} registered for its X-Rag-Step header (a request for a step with no policy gets a 400 that names
 * it). Usage is counted here, with cl100k_base: prompt tokens by the OpenAI chat formula (3 per message, its role
 * and content, tool calls and tool-call ids, 3 to prime the reply) plus the tool schemas and response format;
 * completion tokens over the reply. JSON replies get a fixed {@link #REASONING_PAD} field and tool-call replies
 * carry it as content, so completions are not unrealistically short. Every request is logged with its counts: the
 * independent count that a procedure's YIELD must agree with.
 */
public final class EvalLlmServer implements AutoCloseable {
    /** The fixed reasoning every JSON or tool-call reply carries (its token count is {@link #padTokens()}). */
    public static final String REASONING_PAD = "I read the question and the input block, compared each candidate with what the question asks, "
            + "kept only what the visible text supports, and wrote the reply in the requested format without adding anything else.";

    /** One answered request: its step, the request body, the reply sent and the tokens this server counted. */
    public record LoggedRequest(String step, JsonNode body, JsonNode reply, int promptTokens, int completionTokens) {}

    /** Calls and tokens of one step, summed over the log. */
    public record StepTotal(long calls, long promptTokens, long completionTokens) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);

    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();
    /**
     * Every answered request, appended in constant time (a long build logs hundreds of thousands: a copy-on-write list
     * would copy the whole log at each call, and keeping every body would hold gigabytes, costs that grow with the
     * corpus and would be timed as the plugin's). Read through {@link #log()}, a copy.
     */
    private final List<LoggedRequest> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private volatile boolean keepBodies = true;
    /** Time spent inside this server's handler since the last {@link #clearLog}: subtracted from a procedure's wall time. */
    private final java.util.concurrent.atomic.AtomicLong handlerNanos = new java.util.concurrent.atomic.AtomicLong();

    static {
        // the JDK server writes headers and body separately; without TCP_NODELAY each reply waits ~40 ms for a delayed
        // ACK, which would dwarf the procedure's own time (read once, when the JDK server classes first load)
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private EvalLlmServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        // threads for every request a client may have in flight (the plugin's maxConcurrent up to 64); Latency's
        // concurrency, not the pool, is the server's capacity
        executor = Executors.newFixedThreadPool(64, r -> {
            Thread t = new Thread(r, "eval-llm");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/v1/chat/completions", this::chat);
        server.createContext("/v1/models", ex -> send(ex, 200, "{\"object\":\"list\",\"data\":[{\"id\":\"oracle-policy\",\"object\":\"model\""
                + (dialect == ServerDialect.VLLM && window > 0 ? ",\"max_model_len\":" + window : "") + "}]}"));
        server.start();
    }

    private volatile Latency latency = Latency.NONE;
    private volatile java.util.concurrent.Semaphore capacity;
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger maxInFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong queuedNanos = new java.util.concurrent.atomic.AtomicLong();

    /** Answers as a real server would take: the delay per call and the requests it serves at once ({@link Latency}). */
    public EvalLlmServer latency(Latency l) {
        latency = l;
        capacity = l.concurrency() > 0 ? new java.util.concurrent.Semaphore(l.concurrency(), true) : null;
        return this;
    }

    public Latency latency() {
        return latency;
    }

    /** The most requests served at once since the last {@link #clearLog} (bounded by the latency's concurrency). */
    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** Time requests spent waiting for the server's capacity since the last {@link #clearLog}. */
    public double queuedMillis() {
        return queuedNanos.get() / 1e6;
    }

    public static EvalLlmServer start() {
        try {
            return new EvalLlmServer();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the evaluation LLM server", e);
        }
    }

    public String endpoint() { return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1"; }

    /** The per-call {@code llm} map of a procedure config that points at this server. */
    public Map<String, Object> llmConfig() {
        return contextTokens > 0 ? Map.of("endpoint", endpoint(), "model", "oracle-policy", "contextTokens", (long) contextTokens)
                : Map.of("endpoint", endpoint(), "model", "oracle-policy");
    }

    private volatile int contextTokens;

    /** The plugin's window ({@code llm.contextTokens}) in every config this server hands out; 0: the server setting. */
    public EvalLlmServer contextTokens(int tokens) {
        contextTokens = tokens;
        return this;
    }

    /** The parts of every request answered since start, by step (never cleared by {@link #clearLog}). */
    private final Map<String, List<Anatomy>> anatomies = new ConcurrentHashMap<>();
    /** The last requests of each step as a server's prompt cache would hold them (rendered), for the shared prefix. */
    private final Map<String, java.util.Deque<String>> recent = new ConcurrentHashMap<>();
    private static final int CACHED_PROMPTS = 32;

    /**
     * Where one request's prompt tokens go: the tool schemas, system messages, the task (user messages before the
     * first reply) and the transcript (replies, tool results and later user turns), out of the total (which also holds
     * the response format and the reply's priming); and how many of its leading tokens equal the start of an earlier request of the same step (the part a server's prefix cache
     * would reuse).
     */
    public record Anatomy(int total, int tools, int system, int task, int transcript, int sharedPrefix) {}

    /**
     * The largest prompt each step sent (max and p95 of this server's count), with the number of requests, the mean
     * size of each part of a prompt and the share of prompt tokens that repeat an earlier prompt's prefix: the table
     * docs/benchmarks.md reports per benchmark and dialect.
     */
    public String promptSizeReport() {
        if (samples != null) writeSamples();
        StringBuilder b = new StringBuilder("| step | requests | max prompt tokens | p95 | mean | tools | system | task | transcript | shared prefix |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
        new TreeMap<>(anatomies).forEach((step, answered) -> {
            List<Anatomy> list;
            synchronized (answered) {
                list = List.copyOf(answered);
            }
            List<Integer> sorted = list.stream().map(Anatomy::total).sorted().toList();
            int p95 = sorted.get(Math.max(0, (int) Math.ceil(0.95 * sorted.size()) - 1));
            long total = list.stream().mapToLong(Anatomy::total).sum();
            b.append("| ").append(step).append(" | ").append(sorted.size()).append(" | ").append(sorted.get(sorted.size() - 1)).append(" | ").append(p95)
                    .append(" | ").append(Math.round((double) total / list.size()))
                    .append(" | ").append(mean(list, Anatomy::tools)).append(" | ").append(mean(list, Anatomy::system))
                    .append(" | ").append(mean(list, Anatomy::task)).append(" | ").append(mean(list, Anatomy::transcript))
                    .append(" | ").append(String.format(java.util.Locale.ROOT, "%.0f%%", total == 0 ? 0.0 : 100.0 * list.stream().mapToLong(Anatomy::sharedPrefix).sum() / total))
                    .append(" |\n");
        });
        return b.toString();
    }

    private volatile java.nio.file.Path samples;
    /** Per step: the largest request and the latest one within 10% of the step's running mean size. */
    private final Map<String, Sample> sampleBodies = new ConcurrentHashMap<>();

    private static final class Sample {
        JsonNode largest, typical;
        int largestTokens;
        long sum, count;
    }

    /** Writes each step's largest and a typical request body (the prompt as sent) to {@code dir} with the report. */
    public EvalLlmServer promptSamples(java.nio.file.Path dir) {
        samples = dir;
        return this;
    }

    private void keepSample(String step, JsonNode body, int total) {
        if (samples == null) return;
        Sample kept = sampleBodies.computeIfAbsent(step, k -> new Sample());
        synchronized (kept) {
            kept.sum += total;
            kept.count++;
            if (kept.largest == null || total > kept.largestTokens) {
                kept.largest = body;
                kept.largestTokens = total;
            }
            double mean = (double) kept.sum / kept.count;
            if (Math.abs(total - mean) <= 0.1 * mean) kept.typical = body;
        }
    }

    private void writeSamples() {
        try {
            java.nio.file.Files.createDirectories(samples);
            for (Map.Entry<String, Sample> e : sampleBodies.entrySet()) {
                String name = e.getKey().replaceAll("[^A-Za-z0-9.]+", "-");
                Sample kept = e.getValue();
                synchronized (kept) {
                    if (kept.largest != null) java.nio.file.Files.writeString(samples.resolve(name + ".largest.json"), kept.largest.toPrettyString());
                    if (kept.typical != null) java.nio.file.Files.writeString(samples.resolve(name + ".typical.json"), kept.typical.toPrettyString());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot write prompt samples to " + samples, e);
        }
    }

    private static long mean(List<Anatomy> list, java.util.function.ToIntFunction<Anatomy> part) {
        return Math.round(list.stream().mapToInt(part).average().orElse(0));
    }

    /** A request's parts (counted once, in {@link #parts}) and its shared prefix with the last requests of its step. */
    private Anatomy anatomy(String step, JsonNode body, Parts parts, int total) {
        StringBuilder rendered = new StringBuilder(body.has("tools") ? body.get("tools").toString() : "");
        for (JsonNode m : body.path("messages")) {
            rendered.append('\u0000').append(m.path("role").asText("")).append('\u0000')
                    .append(m.path("content").isTextual() ? m.get("content").asText() : m.path("content").toString());
            if (m.has("tool_calls")) rendered.append(m.get("tool_calls").toString());
            if (m.has("tool_call_id")) rendered.append(m.get("tool_call_id").asText());
        }
        String now = rendered.toString();
        java.util.Deque<String> cache = recent.computeIfAbsent(step, k -> new java.util.concurrent.ConcurrentLinkedDeque<>());
        int longest = 0;
        for (String earlier : cache) {
            int n = Math.min(earlier.length(), now.length()), i = 0;
            while (i < n && earlier.charAt(i) == now.charAt(i)) i++;
            longest = Math.max(longest, i);
        }
        cache.addFirst(now);
        while (cache.size() > CACHED_PROMPTS) cache.pollLast();
        int shared = longest == 0 ? 0 : Math.min(total, CL100K.countTokens(now.substring(0, longest)));
        return new Anatomy(total, parts.tools(), parts.system(), parts.task(), parts.transcript(), shared);
    }

    /** A procedure's config: the corpus, this server as its {@code llm}, and further keys. */
    public Map<String, Object> config(String corpus, Map<String, Object> extra) {
        Map<String, Object> m = new java.util.HashMap<>(extra);
        m.put("corpus", corpus);
        m.put("llm", llmConfig());
        return m;
    }

    /** Answers requests whose X-Rag-Step is {@code step} with {@code policy} (replacing any earlier one). */
    public EvalLlmServer on(String step, Policy policy) {
        policies.put(step, policy);
        return this;
    }

    public List<LoggedRequest> log() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    /**
     * Whether the log keeps each request's body and reply (the default, for tests that read prompts); without them it
     * keeps each call's step and tokens only, so a build of a large corpus does not hold every prompt it sent in heap.
     */
    public EvalLlmServer keepBodies(boolean keep) {
        keepBodies = keep;
        return this;
    }

    private volatile ServerDialect dialect = ServerDialect.PLAIN;
    private volatile int window;

    private volatile WeakModel weak;

    /** Breaks a share of the policies' replies as a small model would ({@link WeakModel}); null: none broken. */
    public EvalLlmServer weakModel(WeakModel m) {
        weak = m;
        return this;
    }

    /** The errors the weak model injected, by "step: kind" (empty without one). */
    public Map<String, Long> injectedErrors() {
        WeakModel w = weak;
        return w == null ? Map.of() : w.injected();
    }

    /** Answers in a real server's reply shape (docs/evaluation.md#dialects). */
    public EvalLlmServer dialect(ServerDialect d) {
        dialect = d;
        return this;
    }

    /** A context window of {@code tokens} (0: none): a longer prompt is cut or refused as the dialect's server does. */
    public EvalLlmServer window(int tokens) {
        window = tokens;
        return this;
    }

    public void clearLog() {
        log.clear();
        handlerNanos.set(0);
        maxInFlight.set(inFlight.get());
        queuedNanos.set(0);
    }

    /** Milliseconds this server spent answering requests since the last {@link #clearLog} (the stand-in's own time). */
    public double handlerMillis() { return handlerNanos.get() / 1e6; }

    /** Calls and tokens per step over the log (sorted by step). */
    public Map<String, StepTotal> totals() {
        Map<String, long[]> sums = new TreeMap<>();
        for (LoggedRequest r : log()) {
            long[] s = sums.computeIfAbsent(r.step(), k -> new long[3]);
            s[0]++;
            s[1] += r.promptTokens();
            s[2] += r.completionTokens();
        }
        Map<String, StepTotal> out = new LinkedHashMap<>();
        sums.forEach((k, s) -> out.put(k, new StepTotal(s[0], s[1], s[2])));
        return out;
    }

    public static int padTokens() { return CL100K.countTokens(REASONING_PAD); }

    /** The reply the registered policy gives to this request body, as the server would send it (for replay tests). */
    public JsonNode answer(String step, JsonNode body) {
        Policy p = policies.get(step);
        if (p == null) throw new IllegalArgumentException("no policy answers the step '" + step + "'");
        return message(p.reply(new PolicyRequest(step, withoutRepairTurn(body))));
    }

    /** How the client's repair turn starts (LlmClient.chatJson). */
    static final String REPAIR_TURN = "Your reply could not be used";

    /**
     * The request as the policy reads it: a repair turn (the model's unusable reply and the client's "could not be
     * used" message) taken off, so the policy answers the task again, as a model asked to repair would. The weak
     * model still draws on the whole body, so the repaired reply can be broken anew.
     */
    static JsonNode withoutRepairTurn(JsonNode body) {
        JsonNode messages = body.path("messages");
        int n = messages.size();
        if (n < 3 || !"user".equals(messages.get(n - 1).path("role").asText()) || !"assistant".equals(messages.get(n - 2).path("role").asText())
                || !messages.get(n - 1).path("content").asText("").startsWith(REPAIR_TURN)) {
            return body;
        }
        ObjectNode copy = body.deepCopy();
        com.fasterxml.jackson.databind.node.ArrayNode kept = copy.putArray("messages");
        for (int i = 0; i < n - 2; i++) kept.add(messages.get(i));
        return copy;
    }

    private void chat(HttpExchange ex) throws IOException {
        java.util.concurrent.Semaphore permits = capacity;
        if (permits != null) {
            long q0 = System.nanoTime();
            permits.acquireUninterruptibly();
            queuedNanos.addAndGet(System.nanoTime() - q0);
        }
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            answerChat(ex);
        } finally {
            inFlight.decrementAndGet();
            if (permits != null) permits.release();
        }
    }

    private void answerChat(HttpExchange ex) throws IOException {
        long t0 = System.nanoTime();
        long slept = 0;
        try (ex) {
            JsonNode body;
            String raw; // the latency's draw hashes the request as sent, not a second serialisation of it
            try {
                raw = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                body = JSON.readTree(raw);
            } catch (IOException e) {
                send(ex, 400, error("the request body is not JSON"));
                return;
            }
            String step = ex.getRequestHeaders().getFirst("X-Rag-Step");
            if (step == null || !policies.containsKey(step)) {
                send(ex, 400, error("the evaluation server has no policy for the step '" + step + "' (policies: " + new TreeMap<>(policies).keySet() + ")"));
                return;
            }
            Parts parts = parts(body);
            int prompt = parts.total();
            ServerDialect d = dialect;
            if (window > 0 && prompt > window) {
                String refusal = d.refusal(prompt, window, body.path("max_tokens").asInt(0));
                if (refusal != null) {
                    send(ex, 400, refusal);
                    return;
                }
                prompt = window; // cut from the front, and reported cut in usage, as Ollama does
            }
            JsonNode message;
            try {
                WeakModel w = weak;
                JsonNode oracle = answer(step, body);
                message = d.shape(w == null ? oracle : w.apply(step, body, oracle));
            } catch (RuntimeException e) {
                send(ex, 500, error("the policy for '" + step + "' failed: " + e));
                return;
            }
            int completion = completionTokens(message);
            log.add(keepBodies ? new LoggedRequest(step, body, message, prompt, completion) : new LoggedRequest(step, null, null, prompt, completion));
            keepSample(step, body, prompt);
            anatomies.computeIfAbsent(step, k -> java.util.Collections.synchronizedList(new java.util.ArrayList<>())).add(anatomy(step, body, parts, prompt));
            ObjectNode root = JSON.createObjectNode();
            root.put("id", "chatcmpl-eval-" + log.size()).put("object", "chat.completion").put("model", body.path("model").asText("oracle-policy"));
            ObjectNode choice = root.putArray("choices").addObject();
            choice.put("index", 0).put("finish_reason", d.finishReason(message));
            choice.set("message", message);
            root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion).put("total_tokens", prompt + completion);
            Latency l = latency;
            if (!l.none()) {
                // the model's time: part of what the caller waits for, not of the server's own handling time
                long ms = l.delayMs(step, raw, completion);
                long s0 = System.nanoTime();
                try {
                    Thread.sleep(ms);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                slept = System.nanoTime() - s0;
            }
            send(ex, 200, root.toString());
        } finally {
            handlerNanos.addAndGet(System.nanoTime() - t0 - slept);
        }
    }

    private static JsonNode message(PolicyReply reply) {
        ObjectNode msg = JSON.createObjectNode();
        msg.put("role", "assistant");
        if (!reply.toolCalls().isEmpty()) {
            msg.put("content", REASONING_PAD);
            msg.set("tool_calls", JSON.valueToTree(reply.toolCalls()));
        } else if (reply.json()) {
            try {
                ObjectNode o = (ObjectNode) JSON.readTree(reply.content());
                o.put("reasoning", REASONING_PAD);
                msg.put("content", o.toString());
            } catch (IOException | ClassCastException e) {
                throw new IllegalStateException("a policy's JSON reply is not a JSON object: " + reply.content(), e);
            }
        } else {
            msg.put("content", reply.content());
        }
        return msg;
    }

    /**
     * A request's prompt tokens by part: tool schemas, system messages and user messages before the first reply (the
     * task), everything after it (the transcript), and the response format.
     */
    record Parts(int tools, int system, int task, int transcript, int responseFormat) {
        /** The OpenAI chat formula over cl100k_base (3 to prime the reply), plus the tool schemas and response format. */
        int total() {
            return 3 + tools + system + task + transcript + responseFormat;
        }
    }

    static Parts parts(JsonNode body) {
        int system = 0, task = 0, transcript = 0;
        boolean replied = false;
        for (JsonNode m : body.path("messages")) {
            String role = m.path("role").asText("");
            int n = messageTokens(m);
            if ("assistant".equals(role)) replied = true;
            if ("system".equals(role) && !replied) system += n;
            else if ("user".equals(role) && !replied) task += n;
            else transcript += n;
        }
        return new Parts(body.has("tools") ? CL100K.countTokens(body.get("tools").toString()) : 0, system, task, transcript,
                body.has("response_format") ? CL100K.countTokens(body.get("response_format").toString()) : 0);
    }

    private static int messageTokens(JsonNode m) {
        int n = 3 + CL100K.countTokens(m.path("role").asText(""));
        JsonNode content = m.path("content");
        if (content.isTextual()) n += CL100K.countTokens(content.asText());
        else if (!content.isMissingNode() && !content.isNull()) n += CL100K.countTokens(content.toString());
        if (m.has("tool_calls")) n += CL100K.countTokens(m.get("tool_calls").toString());
        if (m.has("tool_call_id")) n += CL100K.countTokens(m.get("tool_call_id").asText());
        if (m.has("name")) n += 1 + CL100K.countTokens(m.get("name").asText());
        return n;
    }

    static int completionTokens(JsonNode message) {
        int n = message.path("content").isTextual() ? CL100K.countTokens(message.get("content").asText()) : 0;
        if (message.path("reasoning_content").isTextual()) n += CL100K.countTokens(message.get("reasoning_content").asText());
        if (message.has("tool_calls")) n += CL100K.countTokens(message.get("tool_calls").toString());
        return n;
    }

    private static String error(String message) {
        ObjectNode o = JSON.createObjectNode();
        o.putObject("error").put("message", message);
        return o.toString();
    }

    /** Sends the whole reply and ends the exchange: on Java 21+ a reply is complete only when its body stream is closed. */
    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (var out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
