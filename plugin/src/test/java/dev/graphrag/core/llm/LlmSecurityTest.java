package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.PluginSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.graphrag.core.llm.StandInLlm.lastUserContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The LLM client as a hostile caller or a hostile endpoint would try it: whose key goes where, which hosts are
 * reachable, endless and trickling replies, starved permits, error bodies, deep nesting, admin ceilings.
 * Endpoints are stand-ins on 127.0.0.1 that record every request's headers.
 */
@LineIndependent
class LlmSecurityTest {
    static final String SERVER_KEY = "sk-server-SECRET-9000";
    static final String CALLER_KEY = "sk-caller-OWN-1234";
    /** The configured endpoint: the server's key belongs here. */
    static final StandInLlm CONFIGURED = StandInLlm.start();
    /** An endpoint the administrator allows callers to name. */
    static final StandInLlm ALLOWED = StandInLlm.start();
    /** An endpoint nobody allowed: an attacker's, or an internal service. */
    static final StandInLlm ATTACKER = StandInLlm.start();
    final List<String> log = new CopyOnWriteArrayList<>();

    @AfterAll
    static void stop() {
        CONFIGURED.close();
        ALLOWED.close();
        ATTACKER.close();
    }

    @BeforeEach
    void reset() {
        for (StandInLlm s : List.of(CONFIGURED, ALLOWED, ATTACKER)) {
            s.reset();
            s.always().reply("ok");
        }
        log.clear();
    }

    static PluginSettings settings(Map<String, String> extra) {
        Map<String, String> s = new HashMap<>(Map.of("graphrag.llm.endpoint", CONFIGURED.endpoint(), "graphrag.llm.model", "m",
                "graphrag.llm.apiKey", SERVER_KEY, "graphrag.llm.allowedEndpoints", ALLOWED.endpoint(),
                "graphrag.llm.retryBaseMs", "5", "graphrag.llm.maxRetries", "0", "graphrag.llm.timeoutMs", "5000"));
        s.putAll(extra);
        return PluginSettings.fromStrings(s, "test");
    }

    LlmClient client(PluginSettings s) {
        return LlmClient.of(s, log::add);
    }

    static LlmConfig cfg(PluginSettings s, Map<String, Object> perCall) {
        return LlmConfig.resolve(s, perCall, "rag.llm.chat", Map.of());
    }

    static ChatRequest ask(String text) {
        return ChatRequest.of("security step", List.of(Map.of("role", "user", "content", text)));
    }

    @Test
    void theServersKeyGoesOnlyToTheConfiguredEndpoint() {
        PluginSettings s = settings(Map.of());
        LlmClient c = client(s);
        c.chat(cfg(s, null), ask("a"), false, () -> false);
        c.chat(cfg(s, Map.of("endpoint", CONFIGURED.endpoint() + "/")), ask("b"), false, () -> false);
        assertEquals(List.of("Bearer " + SERVER_KEY, "Bearer " + SERVER_KEY), CONFIGURED.requests().stream().map(StandInLlm.Request::authorization).toList());

        // an allowed endpoint named per call: no key at all, or the caller's own key, never the server's
        c.chat(cfg(s, Map.of("endpoint", ALLOWED.endpoint())), ask("c"), false, () -> false);
        c.chat(cfg(s, Map.of("endpoint", ALLOWED.endpoint(), "apiKey", CALLER_KEY)), ask("d"), false, () -> false);
        assertTrue(c.reachable(cfg(s, Map.of("endpoint", ALLOWED.endpoint())), () -> false));
        List<StandInLlm.Request> got = ALLOWED.requests();
        assertEquals(3, got.size());
        assertNull(got.get(0).authorization());
        assertEquals("Bearer " + CALLER_KEY, got.get(1).authorization());
        assertEquals("GET", got.get(2).method());
        assertNull(got.get(2).authorization(), "GET /models must not carry the server's key either");
    }

    @Test
    void anEndpointOffTheAllowListIsNeverContacted() {
        PluginSettings s = settings(Map.of());
        LlmClient c = client(s);
        for (Map<String, Object> perCall : List.<Map<String, Object>>of(
                Map.of("endpoint", ATTACKER.endpoint()),
                Map.of("endpoint", ATTACKER.endpoint(), "apiKey", CALLER_KEY),
                Map.of("endpoint", "http://localhost:" + URI.create(ALLOWED.endpoint()).getPort() + "/v1"), // same port, other host name
                Map.of("endpoint", ALLOWED.endpoint() + "/../admin"))) {                                      // path escape
            RagException e = assertThrows(RagException.class, () -> c.chat(cfg(s, perCall), ask("x"), false, () -> false));
            assertTrue(e.getMessage().contains("not allowed on this server") && e.getMessage().contains("graphrag.llm.allowedEndpoints"), e.getMessage());
            assertFalse(e.getMessage().contains(SERVER_KEY) || e.getMessage().contains(CALLER_KEY));
        }
        assertThrows(RagException.class, () -> c.reachable(cfg(s, Map.of("endpoint", ATTACKER.endpoint())), () -> false));
        assertEquals(0, ATTACKER.requests().size(), "nothing, not even a port probe, reached the attacker");

        // without an allow-list only the configured endpoint is reachable
        PluginSettings closed = settings(Map.of("graphrag.llm.allowedEndpoints", ""));
        assertThrows(RagException.class, () -> cfg(closed, Map.of("endpoint", ALLOWED.endpoint())));
        assertEquals(CONFIGURED.endpoint(), cfg(closed, Map.of("endpoint", CONFIGURED.endpoint())).endpoint());
    }

    @Test
    void allowListEntries() {
        EndpointPolicy p = EndpointPolicy.of("https://api.openai.com/v1", "http://127.0.0.1:*/v1, http://ollama:11434 https://vllm.internal/v1");
        assertTrue(p.allows(URI.create("https://api.openai.com:443/v1")), "the configured endpoint, default port spelt out");
        assertTrue(p.isConfigured(URI.create("https://API.openai.com/v1")));
        assertFalse(p.isConfigured(URI.create("http://api.openai.com/v1")), "another scheme is another endpoint");
        assertTrue(p.allows(URI.create("http://127.0.0.1:5555/v1")));
        assertFalse(p.allows(URI.create("http://127.0.0.1:5555/admin")));
        assertFalse(p.allows(URI.create("http://127.0.0.1:5555/v10")), "a path prefix ends at a segment");
        assertTrue(p.allows(URI.create("http://ollama:11434/v1")));
        assertFalse(p.allows(URI.create("http://ollama:11435/v1")));
        assertTrue(p.allows(URI.create("https://vllm.internal/v1")));
        assertFalse(p.allows(URI.create("http://vllm.internal/v1")));
        assertTrue(EndpointPolicy.of("", "*").allows(URI.create("http://anything:1/x")));
        assertTrue(EndpointPolicy.of("", "*").allowsAny());
        RagException e = assertThrows(RagException.class, () -> EndpointPolicy.of("", "ftp://files"));
        assertTrue(e.getMessage().contains("graphrag.llm.allowedEndpoints entry 'ftp://files'"), e.getMessage());
    }

    @Test
    void cachedRepliesAreKeptApartByCredential() {
        PluginSettings s = settings(Map.of("graphrag.llm.cache.enabled", "true"));
        LlmClient c = client(s);
        Map<String, Object> mine = Map.of("endpoint", ALLOWED.endpoint(), "apiKey", CALLER_KEY);
        Map<String, Object> theirs = Map.of("endpoint", ALLOWED.endpoint(), "apiKey", "sk-other-5678");
        assertFalse(c.chat(cfg(s, mine), ask("same"), true, () -> false).cached());
        assertTrue(c.chat(cfg(s, mine), ask("same"), true, () -> false).cached());
        assertFalse(c.chat(cfg(s, theirs), ask("same"), true, () -> false).cached(), "another key must not read my cached reply");
        assertFalse(c.chat(cfg(s, Map.of("endpoint", ALLOWED.endpoint())), ask("same"), true, () -> false).cached());
        assertEquals(3, ALLOWED.requests().size());
        assertFalse(cfg(s, mine).credential().contains(CALLER_KEY));
        assertFalse(cfg(s, mine).toString().contains(CALLER_KEY));
    }

    @Test
    void anEndlessReplyIsAbandonedAtTheCapAndTheClientStaysUsable() {
        PluginSettings s = settings(Map.of("graphrag.llm.maxReplyBytes", String.valueOf(1 << 20), "graphrag.llm.timeoutMs", "60000"));
        LlmClient c = client(s);
        CONFIGURED.reset();
        CONFIGURED.when(lastUserContains("flood")).endlessBody();
        CONFIGURED.always().reply("still here");
        long t0 = System.nanoTime();
        RagException e = assertThrows(RagException.class, () -> c.chat(cfg(s, null), ask("flood"), false, () -> false));
        assertTrue(e.getMessage().contains("graphrag.llm.maxReplyBytes"), e.getMessage());
        assertTrue((System.nanoTime() - t0) / 1e9 < 20, "abandoned at the cap, not at the timeout");
        assertEquals(1, CONFIGURED.requests().size(), "a reply over the cap is not retried");
        assertEquals(4, c.availablePermits(), "the permit came back");
        assertEquals("still here", c.chat(cfg(s, null), ask("again"), false, () -> false).content());
    }

    @Test
    void aTrickleEndsAtTheTimeoutWhateverItSends() {
        PluginSettings s = settings(Map.of("graphrag.llm.timeoutMs", "800"));
        LlmClient c = client(s);
        CONFIGURED.reset();
        CONFIGURED.when(lastUserContains("slowly")).trickle(50);
        long t0 = System.nanoTime();
        RagException e = assertThrows(RagException.class, () -> c.chat(cfg(s, null), ask("slowly"), false, () -> false));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains("no complete reply within timeoutMs=800"), e.getMessage());
        assertTrue(seconds < 5, "took " + seconds + " s");
    }

    @Test
    void slowCallsCannotQueueOthersForever() throws Exception {
        PluginSettings s = settings(Map.of("graphrag.llm.maxConcurrent", "1", "graphrag.llm.maxQueueMs", "300", "graphrag.llm.timeoutMs", "30000"));
        LlmClient c = client(s);
        CONFIGURED.reset();
        CONFIGURED.when(lastUserContains("slow")).delay(20_000).reply("late");
        CONFIGURED.always().reply("fast");
        AtomicBoolean stopSlow = new AtomicBoolean();
        CompletableFuture<Throwable> slow = CompletableFuture.supplyAsync(() -> {
            try {
                c.chat(cfg(s, null), ask("slow"), false, stopSlow::get);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        while (CONFIGURED.requests().isEmpty()) Thread.sleep(10);
        long t0 = System.nanoTime();
        RagException busy = assertThrows(RagException.class, () -> c.chat(cfg(s, null), ask("quick"), false, () -> false));
        double ms = (System.nanoTime() - t0) / 1e6;
        assertTrue(busy.getMessage().contains("busy") && busy.getMessage().contains("graphrag.llm.maxConcurrent")
                && busy.getMessage().contains("graphrag.llm.maxQueueMs"), busy.getMessage());
        assertTrue(ms >= 250 && ms < 3000, "waited " + ms + " ms");
        stopSlow.set(true);
        assertTrue(slow.get(5, TimeUnit.SECONDS).getMessage().contains("cancelled"));
        assertEquals("fast", c.chat(cfg(s, null), ask("quick"), false, () -> false).content(), "the permit is back");
    }

    @Test
    void reachableHonoursCancellation() throws Exception {
        PluginSettings s = settings(Map.of("graphrag.llm.timeoutMs", "60000"));
        LlmClient c = client(s);
        CONFIGURED.modelsDelay(8_000);
        // cancelled 200 ms after the stand-in holds the request, so that none of this test's requests reaches the next one
        java.util.concurrent.atomic.AtomicLong arrived = new java.util.concurrent.atomic.AtomicLong();
        java.util.function.BooleanSupplier cancelled = () -> {
            if (arrived.get() == 0 && !CONFIGURED.requests().isEmpty()) arrived.set(System.nanoTime());
            return arrived.get() != 0 && System.nanoTime() - arrived.get() > 200_000_000L;
        };
        RagException e = assertThrows(RagException.class, () -> c.reachable(cfg(s, null), cancelled));
        assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
        assertTrue((System.nanoTime() - arrived.get()) / 1e9 < 3);
    }

    @Test
    void remoteErrorBodiesComeBackAsAShortSanitisedExcerpt() {
        PluginSettings s = settings(Map.of());
        LlmClient c = client(s);
        StringBuilder internal = new StringBuilder("<html>internal admin console\u0000\u001b[31m " + SERVER_KEY + " ");
        internal.append("secret-row ".repeat(2000));
        CONFIGURED.reset();
        CONFIGURED.always().status(404).rawBody(internal.toString());
        RagException e = assertThrows(RagException.class, () -> c.chat(cfg(s, null), ask("x"), false, () -> false));
        String m = e.getMessage();
        assertTrue(m.length() < 600, m.length() + " characters: " + m);
        assertFalse(m.contains(SERVER_KEY));
        assertTrue(m.chars().noneMatch(ch -> Character.isISOControl(ch)), m);
        CONFIGURED.reset();
        CONFIGURED.always().status(400).rawBody("{\"error\": {\"message\": \"model 'x' not found\", \"type\": \"invalid\"}}");
        String openAi = assertThrows(RagException.class, () -> c.chat(cfg(s, null), ask("x"), false, () -> false)).getMessage();
        assertTrue(openAi.contains("HTTP 400") && openAi.contains("model 'x' not found") && !openAi.contains("\"type\""), openAi);
    }

    @Test
    void everyRequestNamesItsStep() {
        PluginSettings s = settings(Map.of());
        client(s).chat(cfg(s, null), ask("x"), false, () -> false);
        assertEquals("security step", CONFIGURED.requests().get(0).step());
    }

    @Test
    void callersCannotRaiseTheServersCeilings() {
        PluginSettings s = settings(Map.of("graphrag.llm.maxTimeoutMs", "60000", "graphrag.llm.maxTokensLimit", "4096"));
        RagException t = assertThrows(RagException.class, () -> cfg(s, Map.of("timeoutMs", 3_600_000L)));
        assertTrue(t.getMessage().contains("'timeoutMs'") && t.getMessage().contains("graphrag.llm.maxTimeoutMs") && t.getMessage().contains("60000"), t.getMessage());
        RagException k = assertThrows(RagException.class, () -> cfg(s, Map.of("maxTokens", 100_000L)));
        assertTrue(k.getMessage().contains("graphrag.llm.maxTokensLimit"), k.getMessage());
        assertEquals(60_000, cfg(s, Map.of("timeoutMs", 60_000L)).timeoutMs());
    }

    @Test
    void deepNestingIsRefusedBeforeAnythingRecurses() {
        Object deep = "leaf";
        for (int i = 0; i < 3000; i++) deep = List.of(deep);
        Object nested = deep;
        RagException m = assertThrows(RagException.class,
                () -> ChatRequest.checkMessages("rag.llm.chat", List.of(Map.of("role", "user", "content", nested))));
        assertTrue(m.getMessage().contains("nested more than " + ConfigReader.MAX_NESTING_DEPTH), m.getMessage());
        Map<String, Object> deepMap = new HashMap<>();
        Map<String, Object> cur = deepMap;
        for (int i = 0; i < 3000; i++) {
            Map<String, Object> next = new HashMap<>();
            cur.put("x", next);
            cur = next;
        }
        RagException c = assertThrows(RagException.class, () -> ConfigReader.of("rag.llm.chat", Map.of("responseFormat", deepMap)));
        assertTrue(c.getMessage().contains("rag.llm.chat: config is nested more than"), c.getMessage());
        // a realistic tool schema passes
        List<Object> ok = new ArrayList<>(List.of(Map.of("type", "function", "function", Map.of("name", "f", "parameters",
                Map.of("type", "object", "properties", Map.of("q", Map.of("type", "array", "items", Map.of("type", "string"))))))));
        ConfigReader.of("rag.llm.chat", Map.of("tools", ok)).maps("tools");
    }

    @Test
    void environmentNamesAndUnknownVariables(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        PluginSettings documented = PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_API_KEY", "k1", "GRAPHRAG_LLM_MAX_CONCURRENT", "7"));
        assertEquals("k1", documented.get(ServerSettings.LLM.apiKey()));
        assertEquals(7L, documented.get(ServerSettings.LLM.maxConcurrent()));
        assertEquals("k2", PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_APIKEY", "k2")).get(ServerSettings.LLM.apiKey()), "the older name still works");
        PluginSettings typo = PluginSettings.load(dir, Map.of("GRAPHRAG_DEPLOY_NOTE", "x", "MY_KEY", "v",
                "GRAPHRAG_LLM_OWN_KEY", "secret", "GRAPHRAG_LLM_API_KEY_ENV", "GRAPHRAG_LLM_OWN_KEY"));
        assertEquals(List.of("environment variable GRAPHRAG_DEPLOY_NOTE is not a graphrag setting and is ignored (see docs/configuration.md)"),
                typo.warnings(), "the key variable named by apiKeyEnv is no typo, even inside the llm group");
        RagException both = assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_APIKEY", "a", "GRAPHRAG_LLM_API_KEY", "b")));
        assertTrue(both.getMessage().contains("GRAPHRAG_LLM_API_KEY") && !both.getMessage().contains("\"a\""), both.getMessage());
    }
}
