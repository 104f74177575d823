package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.ClientException;

import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rag.llm.* from a Bolt client against the stand-in LLM. */
class LlmProceduresTest {
    static final StandInLlm LLM = StandInLlm.start();
    static final String KEY = "sk-bolt-SECRET-77";

    @AfterAll
    static void stop() {
        LLM.close();
    }

    Map<String, Object> llm() {
        return Map.of("endpoint", LLM.endpoint(), "model", "stand-in", "apiKey", KEY);
    }

    @Test
    void chatAndToolCallsOverBolt() {
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Xodar")).reply("A dator of the First Born.");
        LLM.when(StandInLlm.lastUserContains("search")).toolCalls(StandInLlm.toolCall("c1", "search", "{\"q\":\"Issus\"}"));
        try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none()); Session session = driver.session()) {
            Record r = session.run("CALL rag.llm.chat([{role: 'user', content: 'Who is Xodar?'}], {llm: $llm}) YIELD content, finishReason, promptTokens, completionTokens, ms RETURN *",
                    Values.parameters("llm", llm())).single();
            assertEquals("A dator of the First Born.", r.get("content").asString());
            assertEquals("stop", r.get("finishReason").asString());
            assertTrue(r.get("promptTokens").asLong() > 0 && r.get("completionTokens").asLong() > 0);
            assertFalse(r.toString().contains(KEY));
            assertEquals("Bearer " + KEY, LLM.requests().get(0).authorization());

            Record t = session.run("CALL rag.llm.chat([{role: 'user', content: 'please search'}], {llm: $llm, tools: $tools, toolChoice: 'auto'}) YIELD toolCalls, finishReason RETURN *",
                    Values.parameters("llm", llm(), "tools", List.of(Map.of("type", "function", "function", Map.of("name", "search"))))).single();
            assertEquals("tool_calls", t.get("finishReason").asString());
            assertEquals("search", t.get("toolCalls").get(0).get("function").get("name").asString());

            Record info = session.run("CALL rag.llm.info({llm: $llm})", Values.parameters("llm", llm())).single();
            assertTrue(info.get("reachable").asBoolean());
            assertEquals(LLM.endpoint().replaceAll("/$", ""), info.get("endpoint").asString(), "the endpoint as configured, /v1 included");
            assertTrue(info.get("warning").isNull(), info.toString());
            // an endpoint where nothing listens: said in the row, not only by reachable=false
            Record dead = session.run("CALL rag.llm.info({llm: {endpoint: 'http://127.0.0.1:1/v1', model: 'm'}})").single();
            assertFalse(dead.get("reachable").asBoolean());
            assertTrue(dead.get("warning").asString().startsWith("the endpoint did not answer GET http://127.0.0.1:1/v1/models: every LLM procedure will fail"),
                    dead.get("warning").asString());
            assertEquals("http://127.0.0.1:*/v1", info.get("allowedEndpoints").asString());

            // an endpoint without tool calling: the probe finds out and says so
            LLM.reset();
            LLM.when(q -> q.body().has("tools")).status(400).rawBody("{\"error\": {\"message\": \"this model does not support tools\"}}");
            LLM.always().reply("{\"ok\": true}");
            Record probed = session.run("CALL rag.llm.info({llm: $llm, probe: true})", Values.parameters("llm", llm())).single();
            assertEquals("json-action", probed.get("toolCalling").asString());
            assertEquals("json_schema", probed.get("structuredOutput").asString());

            ClientException e = assertThrows(ClientException.class,
                    () -> session.run("CALL rag.llm.chat([{role: 'user', content: 'hi'}])").consume());
            assertTrue(e.getMessage().contains("no LLM endpoint is configured"), e.getMessage());
        }
    }

    @Test
    void terminateTransactionStopsALongLlmWait() throws Exception {
        LLM.reset();
        LLM.always().delay(20_000).reply("far too late");
        java.util.concurrent.CompletableFuture<Throwable> failure = TestServer.inBackground(
                "CALL rag.llm.chat([{role: 'user', content: 'slow question'}], {llm: $llm}) YIELD content RETURN content",
                Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "m", "timeoutMs", 60_000L)));
        String id = TestServer.runningTransaction("CALL rag.llm.chat", () -> !LLM.requests().isEmpty());
        assertTrue(id != null, "the LLM call never started");
        long t0 = System.nanoTime();
        TestServer.rows("TERMINATE TRANSACTION $id", Map.of("id", id));
        Throwable t = failure.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(t != null, "the call should fail once terminated");
        assertTrue((System.nanoTime() - t0) / 1e6 < 5000, "stopped promptly");
        assertEquals(1, LLM.requests().size(), "no retry after termination");
    }

    @Test
    void badMessagesAndFaultsAreNamed() {
        LLM.reset();
        LLM.always().status(500);
        String call = "CALL rag.llm.chat($m, {llm: $llm}) YIELD content RETURN content";
        assertFailsCleanly(call, Map.of("m", List.of(), "llm", llm()), "messages must be a non-empty list");
        assertFailsCleanly(call, Map.of("m", List.of(Map.of("role", "wizard", "content", "x")), "llm", llm()), "message 0 needs a role");
        assertFailsCleanly(call, Map.of("m", List.of(Map.of("role", "tool", "content", "x")), "llm", llm()), "no tool_call_id");
        assertFailsCleanly("CALL rag.llm.chat([{role:'user', content:'x'}], {llm: $llm, temprature: 0})", Map.of("llm", llm()), "unknown config key 'temprature'");
        String msg = assertFailsCleanly(call, Map.of("m", List.of(Map.of("role", "user", "content", "x")),
                "llm", Map.of("endpoint", LLM.endpoint(), "model", "m", "apiKey", KEY, "timeoutMs", 2000L)), "failed after 4 attempts", "HTTP 500");
        assertFalse(msg.contains(KEY));
    }

    Map<String, Object> llm(Map<String, Object> extra) {
        Map<String, Object> m = new java.util.HashMap<>(llm());
        m.putAll(extra);
        return m;
    }

    @Test
    void infoReportsTheWindowEachKindOfServerStatesAndWarnsWhenItIsSmaller() {
        LLM.reset();
        String info = "CALL rag.llm.info({llm: $llm}) YIELD contextTokens, serverContextTokens, windowSource, warning RETURN *";
        // nothing stated: only the configured window
        Map<String, Object> none = TestServer.rows(info, Map.of("llm", llm())).get(0);
        assertEquals(16384L, none.get("contextTokens"));
        assertNull(none.get("serverContextTokens"));
        assertNull(none.get("warning"));
        // vLLM: max_model_len in /v1/models, below the plugin's window
        LLM.serve("/v1/models", "{\"object\":\"list\",\"data\":[{\"id\":\"stand-in\",\"object\":\"model\",\"max_model_len\":4096}]}");
        Map<String, Object> vllm = TestServer.rows(info, Map.of("llm", llm())).get(0);
        assertEquals(4096L, vllm.get("serverContextTokens"));
        assertTrue(((String) vllm.get("windowSource")).contains("max_model_len"));
        assertTrue(((String) vllm.get("warning")).contains("below contextTokens (16384)"), (String) vllm.get("warning"));
        assertNull(TestServer.rows(info, Map.of("llm", llm(Map.of("contextTokens", 4096L)))).get(0).get("warning"), "a window that matches");
        // llama.cpp: n_ctx in /props
        LLM.reset();
        LLM.serve("/props", "{\"default_generation_settings\": {\"n_ctx\": 8192}}");
        assertEquals(8192L, TestServer.rows(info, Map.of("llm", llm())).get(0).get("serverContextTokens"));
        // Ollama: num_ctx in /api/show; without it only the model's maximum, and a warning about Ollama's default
        LLM.reset();
        LLM.serve("/api/show", "{\"parameters\": \"temperature 0.7\\nnum_ctx 32768\", \"model_info\": {\"qwen2.context_length\": 32768}}");
        Map<String, Object> ollama = TestServer.rows(info, Map.of("llm", llm())).get(0);
        assertEquals(32768L, ollama.get("serverContextTokens"));
        assertNull(ollama.get("warning"));
        LLM.serve("/api/show", "{\"parameters\": \"temperature 0.7\", \"model_info\": {\"qwen2.context_length\": 32768}}");
        Map<String, Object> unset = TestServer.rows(info, Map.of("llm", llm())).get(0);
        assertNull(unset.get("serverContextTokens"));
        assertTrue(((String) unset.get("warning")).contains("OLLAMA_CONTEXT_LENGTH"), (String) unset.get("warning"));
        assertNull(LLM.requests().stream().filter(r -> r.path().equals("/api/show")).findFirst().orElseThrow().authorization(),
                "the key goes to the endpoint's own path only, not to the server's root beside it");
        assertEquals("Bearer " + KEY, LLM.requests().stream().filter(r -> r.path().equals("/v1/models")).findFirst().orElseThrow().authorization());
    }

    @Test
    void aReasoningModelsThinkingComesApartFromItsAnswer() {
        LLM.reset();
        LLM.always().reply("<think>Xodar was a dator.</think>\nA dator of the First Born.");
        Map<String, Object> r = TestServer.rows("CALL rag.llm.chat([{role: 'user', content: 'Who is Xodar?'}], {llm: $llm}) YIELD content, reasoning, reasoningTokens RETURN *",
                Map.of("llm", llm())).get(0);
        assertEquals("A dator of the First Born.", r.get("content"));
        assertEquals("Xodar was a dator.", r.get("reasoning"));
        assertTrue((Long) r.get("reasoningTokens") > 0);
    }

    @Test
    void badWindowSettingsAreNamed() {
        LLM.reset();
        LLM.always().reply("fine");
        String call = "CALL rag.llm.chat([{role: 'user', content: 'x'}], {llm: $llm}) YIELD content RETURN content";
        assertFailsCleanly(call, Map.of("llm", llm(Map.of("contextTokens", 100L))), "contextTokens");
        assertFailsCleanly(call, Map.of("llm", llm(Map.of("contextTokens", "big"))), "contextTokens");
        assertFailsCleanly(call, Map.of("llm", llm(Map.of("contextTokens", 1024L, "maxTokens", 2000L))), "maxTokens (2000) must be below contextTokens (1024)");
        String tooLong = "Dejah Thoris is the princess of Helium. ".repeat(400);
        assertFailsCleanly("CALL rag.llm.chat([{role: 'user', content: $t}], {llm: $llm}) YIELD content RETURN content",
                Map.of("t", tooLong, "llm", llm(Map.of("contextTokens", 2048L, "maxTokens", 256L))), "rag.llm.chat", "contextTokens=2048");
        assertTrue(LLM.requests().isEmpty(), "nothing was sent");
    }
}
