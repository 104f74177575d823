package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.LineIndependent;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.ChatResponse;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Every server's reply shape read by the plugin's own client as the plain server's: the reply kinds the methods' steps
 * get (JSON objects with nested lists and escaped quotes, several tool calls with nested arguments, free text), each sent
 * in every dialect (reasoning blocks, prose around fenced JSON, Ollama's object arguments and finish reason, llama.cpp's
 * and vLLM's reasoning fields and tool-call shapes), read through {@link LlmClient} over HTTP. The JSON read, the tool
 * calls and the text must equal the plain server's; the reasoning is kept apart where the dialect sends one. The
 * procedures are run end to end under one dialect each in DialectsTest.
 */
@LineIndependent
class DialectRepliesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** A step of each reply kind, as the oracle policies answer them. */
    static final Map<String, PolicyReply> REPLIES = new LinkedHashMap<>();

    static {
        REPLIES.put("json object", PolicyReply.jsonOf(Map.of("answer", "Henrik Ibsen", "evidence_chunk_ids", List.of("c1", "c7"),
                "entities", List.of(Map.of("name", "Brand", "type", "WORK"), Map.of("name", "Ibsen", "type", "PERSON")))));
        REPLIES.put("json triples", PolicyReply.json("{\"triples\":[[\"Brand\",\"written by\",\"Ibsen\"],[\"Ibsen\",\"born in\",\"Skien\"]],\"note\":\"a \\\"quoted\\\" word\"}"));
        REPLIES.put("tool calls", PolicyReply.tools(List.of(
                PolicyReply.toolCall("call_1", "create_entity", Map.of("name", "Brand", "entity_type", "WORK",
                        "evidence", Map.of("chunk_id", "c1", "quote", "Brand is a play"))),
                PolicyReply.toolCall("call_2", "search_kg", Map.of("query", "Ibsen", "limit", 5, "types", List.of("PERSON", "WORK"))))));
        REPLIES.put("text", PolicyReply.text("Henrik Ibsen wrote Brand in 1865."));
    }

    /** What a method sees of one reply: the JSON it reads (or null), its tool calls (name, id, parsed arguments) and its text. */
    record Seen(JsonNode json, List<List<Object>> toolCalls, String text) {}

    static Seen read(LlmClient client, LlmConfig cfg, String step) throws Exception {
        ChatRequest req = ChatRequest.of(step, List.of(Map.of("role", "user", "content", "Reply for " + step + ".")));
        if (step.startsWith("json")) {
            LlmClient.JsonReply j = client.chatJson(cfg, req, reply -> null, false, () -> false);
            return new Seen(j.json(), List.of(), null);
        }
        ChatResponse r = client.chat(cfg, req, false, () -> false);
        List<List<Object>> calls = new ArrayList<>();
        for (Map<String, Object> c : r.toolCalls()) {
            Map<?, ?> fn = (Map<?, ?>) c.get("function");
            Object args = fn.get("arguments");
            calls.add(List.of(String.valueOf(fn.get("name")), String.valueOf(c.get("id")), args instanceof String s ? JSON.readTree(s) : JSON.valueToTree(args)));
        }
        // beside tool calls the content is the server's own (the plain server's pad, llama.cpp's "", vLLM's null): not compared
        return new Seen(null, calls, !calls.isEmpty() || r.content() == null ? null : r.content().strip());
    }

    @Test
    void everyReplyKindReadsAsThePlainServersUnderEveryDialect() throws Exception {
        PluginSettings settings = PluginSettings.fromStrings(Map.of("graphrag.llm.allowedEndpoints", "http://127.0.0.1:*/v1",
                "graphrag.llm.maxRetries", "0"), "test");
        LlmClient client = new LlmClient(4, 2000, false, 0, line -> { });
        Map<String, Seen> plain = new LinkedHashMap<>();
        try (EvalLlmServer server = EvalLlmServer.start()) {
            REPLIES.forEach((step, reply) -> server.on(step, r -> reply));
            LlmConfig cfg = LlmConfig.resolve(settings, server.llmConfig(), "test", Map.of());
            for (ServerDialect d : ServerDialect.values()) {
                server.dialect(d);
                for (String step : REPLIES.keySet()) {
                    Seen seen = read(client, cfg, step);
                    if (d == ServerDialect.PLAIN) {
                        plain.put(step, seen);
                        assertNotNull(step.startsWith("json") ? seen.json() : step.equals("text") ? seen.text() : seen.toolCalls().isEmpty() ? null : seen,
                                "the plain server's " + step + " is read: " + seen);
                    } else {
                        assertEquals(plain.get(step), seen, step + " under the " + d.label() + " dialect");
                    }
                }
                // the reasoning a dialect sends is kept apart from the content, never read as the reply
                ChatResponse text = client.chat(cfg, ChatRequest.of("text", List.of(Map.of("role", "user", "content", "again"))), false, () -> false);
                switch (d) {
                    case REASONING, LLAMACPP, VLLM -> assertEquals(ServerDialect.THOUGHT, text.reasoning().strip(), d.label());
                    default -> assertNull(text.reasoning(), d.label());
                }
            }
        }
        assertEquals(List.of("create_entity", "search_kg"), plain.get("tool calls").toolCalls().stream().map(c -> c.get(0)).toList());
        assertEquals("Henrik Ibsen", plain.get("json object").json().path("answer").asText());
    }
}
