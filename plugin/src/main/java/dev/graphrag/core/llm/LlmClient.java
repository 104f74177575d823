package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.graphrag.core.config.PluginSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The one OpenAI-compatible chat-completions client of the server (Ollama, vLLM, llama.cpp server, OpenAI), as the
 * methods use it: the prompt checked against the window before it is sent, typed and JSON replies validated with one
 * repair turn, what the endpoint was seen to accept (json_schema, native tools) learnt and kept, token accounting, and
 * an optional cache for deterministic calls (keyed by endpoint, credential identity and body). The HTTP exchange with
 * its permits, retries, caps and cancellation is {@link LlmTransport}'s; the request and reply format is
 * {@link OpenAiWire}'s.
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
     * under that step (an unusable reply's too, counted unusable before {@link UnusableReply} is thrown), the typed
     * value returned.
     */
    public <T> T ask(LlmConfig cfg, String step, List<Map<String, Object>> messages, StructuredOutput<T> out, UsageMeter usage, BooleanSupplier cancelled) {
        Typed<T> t;
        try {
            t = structured(cfg, ChatRequest.of(step, messages), out, false, cancelled);
        } catch (UnusableReply e) {
            usage.unusable(e, null); // its tokens were spent; the caller decides whether to fall back
            throw e;
        }
        usage.add(step, t.response());
        return t.value();
    }

    /**
     * {@link #ask}, or {@code otherwise} when the model's reply is unusable after the repair turn: the failed exchanges'
     * usage and the {@code fallback} (what the method does instead, said in a few words) are counted under the step
     * in {@code usage}. Endpoint faults (HTTP errors, timeouts, cancellation) still throw: only the model's content
     * is degraded around.
     */
    public <T> T askOr(LlmConfig cfg, String step, List<Map<String, Object>> messages, StructuredOutput<T> out, UsageMeter usage,
                       BooleanSupplier cancelled, String fallback, T otherwise) {
        try {
            return ask(cfg, step, messages, out, usage, cancelled);
        } catch (UnusableReply e) {
            usage.fallback(step, fallback);
            log.accept("graphrag: " + e.getMessage() + "; " + fallback);
            return otherwise;
        }
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

    /** The header that names the caller's step on every request, so a server's log matches what a procedure reports. */
    public static final String STEP_HEADER = LlmTransport.STEP_HEADER;

    private final LlmTransport transport;
    private final Cache<String, ChatResponse> cache;
    private final Consumer<String> log;

    public LlmClient(int maxConcurrent, long connectTimeoutMs, long maxQueueMs, long maxReplyBytes, boolean cacheEnabled, long cacheSize,
                     Consumer<String> log) {
        this.transport = new LlmTransport(maxConcurrent, connectTimeoutMs, maxQueueMs, maxReplyBytes, log);
        this.cache = cacheEnabled ? Caffeine.newBuilder().maximumSize(cacheSize).build() : null;
        this.log = log;
    }

    /** With the default queueing bound (10 s) and reply cap (4 MiB). */
    public LlmClient(int maxConcurrent, long connectTimeoutMs, boolean cacheEnabled, long cacheSize, Consumer<String> log) {
        this(maxConcurrent, connectTimeoutMs, 10_000, 4L << 20, cacheEnabled, cacheSize, log);
    }

    /** The server's client, from its graphrag.llm.* settings. */
    public static LlmClient of(PluginSettings s, Consumer<String> log) {
        return new LlmClient(s.intValue(ServerSettings.LLM.maxConcurrent()), s.get(ServerSettings.LLM.connectTimeoutMs()),
                s.get(ServerSettings.LLM.maxQueueMs()), s.get(ServerSettings.LLM.maxReplyBytes()), s.get(ServerSettings.LLM_CACHE_ENABLED),
                s.get(ServerSettings.LLM_CACHE_SIZE), log);
    }

    /** One completion; a truncated reply comes back with finishReason "length" for the caller to report. */
    public ChatResponse chat(LlmConfig cfg, ChatRequest req, boolean useCache, BooleanSupplier cancelled) {
        long read = TokenCounter.promptAsRead(req); // the messages, counted once: the window check and the cut check share it
        long sent = read + TokenCounter.overhead(req);
        if (TokenCounter.withMargin(sent) > cfg.promptBudget()) throw PromptFit.tooLarge(cfg, req.step(), sent, 0);
        ObjectNode body = OpenAiWire.body(cfg, req);
        String cacheKey = null;
        if (useCache && cache != null && cfg.temperature() == 0) {
            cacheKey = cacheKey(cfg, body);
            ChatResponse hit = cache.getIfPresent(cacheKey);
            if (hit != null) return hit.asCached();
        }
        LlmTransport.Posted posted = transport.post(cfg, req.step(), body.toString(), cancelled);
        ChatResponse r = OpenAiWire.parseReply(cfg, req.step(), posted.body(), read, posted.ms());
        if (cacheKey != null && !"length".equals(r.finishReason())) cache.put(cacheKey, r);
        return r;
    }

    /** The credential's identity (never the key) is part of the key: a reply paid for by one key is not served to another. */
    private static String cacheKey(LlmConfig cfg, ObjectNode body) {
        return cfg.endpoint() + "\u0000" + cfg.credential() + "\u0000" + body;
    }

    /** Forgets a cached reply to {@code req}: one the caller found unusable must not be served again. */
    private void uncache(LlmConfig cfg, ChatRequest req) {
        if (cache != null) cache.invalidate(cacheKey(cfg, OpenAiWire.body(cfg, req)));
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
        if (useCache) uncache(cfg, r);
        if (read.cut) throw new UnusableReply(req.step(), cfg.model(), read.problem, first.content(), first);
        log.accept("graphrag: LLM step '" + req.step() + "' gave unusable JSON (" + read.problem + "); asking once to repair it");
        List<Map<String, Object>> repair = new ArrayList<>(r.messages());
        repair.add(Map.of("role", "assistant", "content", repairable(first.content())));
        repair.add(Map.of("role", "user", "content", "Your reply could not be used: " + read.problem
                + ". Reply again with only the corrected JSON, no other text."));
        ChatRequest again0 = r.withMessages(repair);
        if (TokenCounter.withMargin(TokenCounter.promptAsRead(again0) + TokenCounter.overhead(again0)) > cfg.promptBudget()) {
            // the task and the model's reply no longer fit the window together: the reply is as unusable as it was
            throw new UnusableReply(req.step(), cfg.model(), read.problem + "; the repair turn would not fit the window", first.content(), first);
        }
        ChatResponse second = chat(cfg, again0, false, cancelled).plus(first);
        Read again = readJson(cfg, second, check);
        if (again.problem != null) {
            throw new UnusableReply(req.step(), cfg.model(), "unusable JSON after one repair turn: " + again.problem, second.content(), second);
        }
        return new JsonReply(again.json, second.withRepairs(1 + again.repairs));
    }

    /** How much of an unusable reply the repair turn shows the model again: what went wrong is in its start. */
    static final int REPAIR_ECHO_CHARS = 4_000;

    private static String repairable(String content) {
        if (content == null) return "";
        return content.length() <= REPAIR_ECHO_CHARS ? content : content.substring(0, REPAIR_ECHO_CHARS) + " [... cut]";
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
        return transport.get(cfg, cfg.endpoint() + "/models", null, cancelled) != null;
    }

    /** What the endpoint says of itself: whether it answers, and the context window it states ({@link EndpointInfo}). */
    public EndpointInfo endpointInfo(LlmConfig cfg, BooleanSupplier cancelled) {
        return EndpointInfo.of(transport, cfg, cancelled);
    }

    public int availablePermits() {
        return transport.availablePermits();
    }

    /** The server's LLM permits (graphrag.llm.maxConcurrent): requests in flight at once, across every procedure. */
    public int maxConcurrent() {
        return transport.maxConcurrent();
    }
}
