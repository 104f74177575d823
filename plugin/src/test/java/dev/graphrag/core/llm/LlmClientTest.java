package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.graphrag.core.llm.StandInLlm.hasToolResult;
import static dev.graphrag.core.llm.StandInLlm.lastUserContains;
import static dev.graphrag.core.llm.StandInLlm.toolCall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class LlmClientTest {
    static final String KEY = "sk-test-SECRET-4242";
    @RegisterExtension
    static final StandInLlm LLM = StandInLlm.start();
    final List<String> log = new CopyOnWriteArrayList<>();

    static PluginSettings settings(Map<String, String> extra) {
        Map<String, String> s = new HashMap<>(Map.of("graphrag.llm.apiKey", KEY, "graphrag.llm.maxRetries", "3", "graphrag.llm.timeoutMs", "2000"));
        s.putAll(extra);
        return LLM.settings(s);
    }

    LlmClient client(PluginSettings s) {
        return new LlmClient(s.intValue(ServerSettings.LLM.maxConcurrent()), 1000, s.get(ServerSettings.LLM_CACHE_ENABLED), 100, log::add);
    }

    static LlmConfig cfg(PluginSettings s, Map<String, Object> perCall) {
        return LlmConfig.resolve(s, perCall, "test", Map.of());
    }

    static ChatRequest ask(String text) {
        return ChatRequest.of("test step", List.of(Map.of("role", "user", "content", text)));
    }

    @Test
    void chatSendsTheOpenAiRequestAndCountsTokens() {
        LLM.when(lastUserContains("capital of France")).reply("Paris");
        PluginSettings s = settings(Map.of());
        ChatResponse r = client(s).chat(cfg(s, Map.of("temperature", 0.2, "seed", 7L, "maxTokens", 50L)), ask("What is the capital of France?"), true, () -> false);
        assertEquals("Paris", r.content());
        assertEquals("stop", r.finishReason());
        assertFalse(r.tokensEstimated());
        assertTrue(r.promptTokens() > 0 && r.completionTokens() > 0);
        JsonNode body = LLM.requests().get(0).body();
        assertEquals("stand-in", body.path("model").asText());
        assertEquals(0.2, body.path("temperature").asDouble(), 1e-9);
        assertEquals(7, body.path("seed").asInt());
        assertEquals(50, body.path("max_tokens").asInt());
        assertEquals("Bearer " + KEY, LLM.requests().get(0).authorization());
    }

    @Test
    void missingUsageIsEstimatedAndFlagged() {
        LLM.always().reply("a reply of some forty characters or so..").withoutUsage();
        PluginSettings s = settings(Map.of());
        ChatResponse r = client(s).chat(cfg(s, null), ask("hi"), false, () -> false);
        assertTrue(r.tokensEstimated());
        assertEquals(TokenCounter.count("a reply of some forty characters or so.."), r.completionTokens(), "counted with cl100k_base");
        assertEquals(TokenCounter.promptAsRead(ask("hi")), r.promptTokens(), "what was sent, counted by the client");
    }

    @Test
    void throttledThenServedHonouringRetryAfter() {
        LLM.always().once().status(429).retryAfter("0.2");
        LLM.always().reply("ok");
        PluginSettings s = settings(Map.of());
        long t0 = System.nanoTime();
        ChatResponse r = client(s).chat(cfg(s, null), ask("hi"), false, () -> false);
        assertEquals("ok", r.content());
        assertEquals(2, LLM.requests().size());
        assertTrue((System.nanoTime() - t0) / 1e6 >= 190, "waited for Retry-After");
        assertTrue(log.stream().anyMatch(l -> l.contains("HTTP 429") && l.contains("retry 1/3")), log.toString());
    }

    @Test
    void serverErrorsAreRetriedThenReportedWithTheAttemptCount() {
        LLM.always().status(500);
        PluginSettings s = settings(Map.of());
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, null), ask("hi"), false, () -> false));
        assertTrue(e.getMessage().contains("'test step' failed after 4 attempts: HTTP 500"), e.getMessage());
        assertEquals(4, LLM.requests().size());
    }

    @Test
    void aRefusedConnectionFailsAtOnceNamingTheAddress() throws Exception {
        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // free again once closed: nothing listens there
        }
        PluginSettings s = settings(Map.of("graphrag.llm.endpoint", "http://127.0.0.1:" + closed + "/v1", "graphrag.llm.retryBaseMs", "2000"));
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, null), ask("hi"), false, () -> false));
        assertTrue(e.getMessage().contains("connection refused at http://127.0.0.1:" + closed), e.getMessage());
        assertTrue(log.stream().noneMatch(l -> l.contains("retry")), "not retried: " + log);
        assertFalse(e.getMessage().contains(KEY));
    }

    @Test
    void clientErrorsAreNotRetried() {
        LLM.always().status(404);
        PluginSettings s = settings(Map.of());
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, null), ask("hi"), false, () -> false));
        assertTrue(e.getMessage().contains("HTTP 404") && e.getMessage().contains("check the endpoint"), e.getMessage());
        assertEquals(1, LLM.requests().size());
    }

    @Test
    void aReplyPastTheTimeoutIsRetriedThenReported() {
        LLM.always().delay(600).reply("late");
        PluginSettings s = settings(Map.of("graphrag.llm.maxRetries", "1"));
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, Map.of("timeoutMs", 200L)), ask("hi"), false, () -> false));
        assertTrue(e.getMessage().contains("failed after 2 attempts: no complete reply within timeoutMs=200"), e.getMessage());
        assertEquals(2, LLM.requests().size());
    }

    @Test
    void aDroppedConnectionIsRetried() {
        LLM.always().once().dropConnection();
        LLM.always().reply("second time lucky");
        PluginSettings s = settings(Map.of());
        assertEquals("second time lucky", client(s).chat(cfg(s, null), ask("hi"), false, () -> false).content());
        assertEquals(2, LLM.requests().size());
    }

    @Test
    void aBodyThatIsNotJsonIsAClearError() {
        LLM.always().rawBody("<html>gateway</html>");
        PluginSettings s = settings(Map.of());
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, null), ask("hi"), false, () -> false));
        assertTrue(e.getMessage().contains("body that is not JSON"), e.getMessage());
    }

    @Test
    void malformedJsonGetsOneRepairTurn() {
        LLM.when(lastUserContains("could not be used")).replyJson(Map.of("triples", List.of(List.of("a", "b", "c"))));
        LLM.always().reply("Sure! Here are the triples: [a, b, c]");
        PluginSettings s = settings(Map.of());
        LlmClient.JsonReply r = client(s).chatJson(cfg(s, null), ask("extract triples"),
                n -> n.path("triples").isArray() ? null : "it has no 'triples' list", false, () -> false);
        assertEquals("a", r.json().path("triples").path(0).path(0).asText());
        assertEquals(2, r.response().calls());
        assertEquals(2, LLM.requests().size());
        JsonNode second = LLM.requests().get(1).body();
        assertEquals("json_object", second.path("response_format").path("type").asText());
        assertTrue(second.path("messages").path(2).path("content").asText().contains("not valid JSON"));
        assertTrue(r.response().promptTokens() > 0);
    }

    @Test
    void jsonThatFailsValidationTwiceNamesTheStep() {
        LLM.always().replyJson(Map.of("answer", 1));
        PluginSettings s = settings(Map.of());
        RagException e = assertThrows(RagException.class, () -> client(s).chatJson(cfg(s, null), ask("extract"),
                n -> n.has("triples") ? null : "it has no 'triples' list", false, () -> false));
        assertTrue(e.getMessage().contains("'test step' returned unusable JSON after one repair turn: it has no 'triples' list"), e.getMessage());
        assertEquals(2, LLM.requests().size());
    }

    @Test
    void anUnusableReplyIsNeverServedFromTheCache() {
        LLM.always().times(2).reply("I'm sorry, I can't do that.");
        LLM.always().replyJson(Map.of("triples", List.of()));
        PluginSettings s = settings(Map.of("graphrag.llm.cache.enabled", "true"));
        LlmClient c = client(s);
        LlmClient.JsonCheck check = n -> n.has("triples") ? null : "it has no 'triples' list";
        UnusableReply e = assertThrows(UnusableReply.class, () -> c.chatJson(cfg(s, null), ask("extract"), check, true, () -> false));
        assertTrue(e.getMessage().contains("model stand-in") && e.getMessage().contains("I'm sorry, I can't do that."), e.getMessage());
        assertEquals(2, e.spent().calls(), "the reply and the repair turn");
        assertTrue(c.chatJson(cfg(s, null), ask("extract"), check, true, () -> false).json().has("triples"), "asked again, not the cached apology");
        assertEquals(3, LLM.requests().size());
        assertTrue(c.chatJson(cfg(s, null), ask("extract"), check, true, () -> false).response().cached(), "a usable reply is cached");
    }

    @Test
    void aHugeUnusableReplyIsCutInTheRepairTurnAndARepairThatCannotFitIsNoWindowError() {
        String rambling = "Let me think about every entity in turn. ".repeat(800); // 32,800 characters, no JSON
        LLM.always().times(1).reply(rambling);
        LLM.always().replyJson(Map.of("triples", List.of()));
        PluginSettings s = settings(Map.of());
        LlmClient.JsonCheck check = n -> n.has("triples") ? null : "it has no 'triples' list";
        assertTrue(client(s).chatJson(cfg(s, null), ask("extract"), check, false, () -> false).json().has("triples"));
        String echoed = LLM.requests().get(1).body().path("messages").get(1).path("content").asText();
        assertEquals(LlmClient.REPAIR_ECHO_CHARS + " [... cut]".length(), echoed.length(), "the start of the reply, not all of it");

        // a window that holds the task but not the task and the reply: the reply stays unusable, no prompt-size error
        LLM.reset();
        LLM.always().reply(rambling.substring(0, 12_000));
        LlmConfig small = cfg(s, Map.of("contextTokens", 3000L, "maxTokens", 256L));
        ChatRequest longTask = ask("extract from: " + "the passage goes on ".repeat(450)); // about 1,800 tokens of a 2,744-token budget
        UnusableReply e = assertThrows(UnusableReply.class, () -> client(s).chatJson(small, longTask, check, false, () -> false));
        assertTrue(e.getMessage().contains("the repair turn would not fit the window"), e.getMessage());
        assertEquals(1, LLM.requests().size(), "no repair turn sent");
    }

    @Test
    void fencedJsonIsAccepted() {
        LLM.always().reply("```json\n{\"ok\": true}\n```");
        PluginSettings s = settings(Map.of());
        assertTrue(client(s).chatJson(cfg(s, null), ask("x"), n -> null, false, () -> false).json().path("ok").asBoolean());
    }

    @Test
    void truncatedRepliesAreReported() {
        LLM.always().reply("{\"triples\": [[\"a\", \"b\"").finishReason("length");
        PluginSettings s = settings(Map.of());
        LlmClient c = client(s);
        assertEquals("length", c.chat(cfg(s, null), ask("x"), false, () -> false).finishReason());
        RagException e = assertThrows(RagException.class, () -> c.chatJson(cfg(s, Map.of("maxTokens", 16L)), ask("x"), n -> null, false, () -> false));
        assertTrue(e.getMessage().contains("cut off at maxTokens=16 (finish_reason=length)"), e.getMessage());
    }

    @Test
    void toolCallsRoundTrip() {
        LLM.when(hasToolResult("call-2")).reply("Xodar is a dator of the First Born.");
        LLM.always().toolCalls(toolCall("call-1", "search", "{\"q\":\"Xodar\"}"), toolCall("call-2", "lookup", "{\"id\":\"x\"}"));
        PluginSettings s = settings(Map.of());
        LlmClient c = client(s);
        List<Map<String, Object>> tools = List.of(Map.of("type", "function", "function", Map.of("name", "search",
                "parameters", Map.of("type", "object", "properties", Map.of("q", Map.of("type", "string"))))));
        List<Map<String, Object>> msgs = new ArrayList<>(List.of(Map.of("role", "user", "content", "Who is Xodar?")));
        ChatResponse first = c.chat(cfg(s, null), new ChatRequest("agent", msgs, tools, "auto", null, null), false, () -> false);
        assertEquals("tool_calls", first.finishReason());
        assertEquals(2, first.toolCalls().size());
        assertEquals("search", ((Map<?, ?>) first.toolCalls().get(0).get("function")).get("name"));
        msgs.add(Map.of("role", "assistant", "tool_calls", first.toolCalls()));
        for (Map<String, Object> call : first.toolCalls()) {
            msgs.add(Map.of("role", "tool", "tool_call_id", call.get("id"), "content", "result for " + call.get("id")));
        }
        ChatResponse second = c.chat(cfg(s, null), new ChatRequest("agent", msgs, tools, "auto", null, null), false, () -> false);
        assertEquals("Xodar is a dator of the First Born.", second.content());
        JsonNode sent = LLM.requests().get(1).body();
        assertEquals("auto", sent.path("tool_choice").asText());
        assertEquals("search", sent.path("tools").path(0).path("function").path("name").asText());
        assertEquals(4, sent.path("messages").size());
    }

    @Test
    void deterministicCallsAreCachedWhenEnabled() {
        LLM.always().reply("cached answer");
        PluginSettings s = settings(Map.of("graphrag.llm.cache.enabled", "true"));
        LlmClient c = client(s);
        ChatResponse a = c.chat(cfg(s, null), ask("same"), true, () -> false);
        ChatResponse b = c.chat(cfg(s, null), ask("same"), true, () -> false);
        assertEquals(a.content(), b.content());
        assertTrue(b.cached());
        assertEquals(0, b.calls());
        assertEquals(1, LLM.requests().size());
        c.chat(cfg(s, Map.of("temperature", 0.7)), ask("same"), true, () -> false);
        c.chat(cfg(s, Map.of("temperature", 0.7)), ask("same"), true, () -> false);
        assertEquals(3, LLM.requests().size(), "sampled calls are never cached");
        PluginSettings off = settings(Map.of());
        LlmClient plain = client(off);
        plain.chat(cfg(off, null), ask("same"), true, () -> false);
        plain.chat(cfg(off, null), ask("same"), true, () -> false);
        assertEquals(5, LLM.requests().size(), "cache is off by default");
    }

    @Test
    void cancellationStopsALongWait() {
        LLM.always().delay(5000).reply("too late");
        PluginSettings s = settings(Map.of("graphrag.llm.timeoutMs", "60000"));
        long t0 = System.nanoTime();
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg(s, null), ask("x"), false,
                () -> System.nanoTime() - t0 > 300_000_000L));
        assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
        assertTrue((System.nanoTime() - t0) / 1e6 < 2000, "returned promptly");
    }

    @Test
    void concurrencyIsBoundedAcrossCallers() throws Exception {
        StandInLlm.Rule rule = LLM.always().delay(150).reply("ok");
        PluginSettings s = settings(Map.of("graphrag.llm.maxConcurrent", "2"));
        LlmClient c = client(s);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<ChatResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 6; i++) fs.add(pool.submit(() -> c.chat(cfg(s, null), ask("x"), false, () -> false)));
        for (Future<ChatResponse> f : fs) assertEquals("ok", f.get().content());
        pool.shutdown();
        assertEquals(2, rule.maxConcurrent());
        assertEquals(2, c.availablePermits());
    }

    @Test
    void theApiKeyNeverAppearsInErrorsLogsOrToString() {
        LLM.always().status(401).rawBody("{\"error\": \"invalid key " + KEY + "\"}");
        PluginSettings s = settings(Map.of());
        LlmConfig cfg = cfg(s, null);
        RagException e = assertThrows(RagException.class, () -> client(s).chat(cfg, ask("x"), false, () -> false));
        assertFalse(e.getMessage().contains(KEY), e.getMessage());
        assertTrue(e.getMessage().contains("***") && e.getMessage().contains("check the API key"), e.getMessage());
        assertFalse(cfg.toString().contains(KEY));
        LLM.reset();
        LLM.always().status(503).rawBody("overloaded " + KEY);
        assertThrows(RagException.class, () -> client(s).chat(cfg, ask("x"), false, () -> false));
        assertFalse(log.isEmpty());
        log.forEach(l -> assertFalse(l.contains(KEY), l));
    }

    @Test
    void configurationErrorsSayWhatToDo() {
        PluginSettings none = PluginSettings.defaults();
        RagException e = assertThrows(RagException.class, () -> LlmConfig.resolve(none, null, "agrag.answer", Map.of()));
        assertTrue(e.getMessage().contains("no LLM endpoint is configured") && e.getMessage().contains("11434"), e.getMessage());
        PluginSettings s = settings(Map.of());
        assertTrue(assertThrows(RagException.class, () -> cfg(s, Map.of("modle", "x"))).getMessage().contains("unknown config key 'modle'"));
        assertTrue(assertThrows(RagException.class, () -> cfg(s, Map.of("endpoint", "ftp://x"))).getMessage().contains("http(s) URL"));
        assertTrue(assertThrows(RagException.class, () -> cfg(s, Map.of("endpoint", "http://user:pw@host/v1"))).getMessage().contains("credentials"));
        assertTrue(assertThrows(RagException.class, () -> cfg(s, Map.of("temperature", 5.0))).getMessage().contains("'temperature'"));
        PluginSettings viaEnv = PluginSettings.fromStrings(Map.of("graphrag.llm.endpoint", LLM.endpoint(), "graphrag.llm.model", "m",
                "graphrag.llm.apiKeyEnv", "MY_KEY"), "t");
        assertTrue(LlmConfig.resolve(viaEnv, null, "t", Map.of("MY_KEY", "k")).hasApiKey());
        assertNull(cfg(s, null).seed());
        assertEquals("http://127.0.0.1:" + LLM.endpoint().split(":")[2].replace("/v1", ""), cfg(s, null).host());
    }
}
