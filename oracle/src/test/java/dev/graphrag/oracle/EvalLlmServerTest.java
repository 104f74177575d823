package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The evaluation server over HTTP: usage by the chat formula on cl100k_base, the pad, the log, and refusals by step. */
@LineIndependent
class EvalLlmServerTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);

    @Test
    void countsTokensByTheChatFormulaAndPadsJsonReplies() throws Exception {
        try (EvalLlmServer server = EvalLlmServer.start()) {
            server.on("s", r -> PolicyReply.json("{\"answer\":\"" + r.lastUser().length() + "\"}"));
            String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Who wrote Brand?\"}]}";
            JsonNode reply = post(server, "s", body, 200);
            int expectedPrompt = 3 + (3 + CL100K.countTokens("system") + CL100K.countTokens("Be brief."))
                    + (3 + CL100K.countTokens("user") + CL100K.countTokens("Who wrote Brand?"));
            assertEquals(expectedPrompt, reply.path("usage").path("prompt_tokens").asInt());
            String content = reply.path("choices").path(0).path("message").path("content").asText();
            assertEquals("16", JSON.readTree(content).path("answer").asText());
            assertEquals(EvalLlmServer.REASONING_PAD, JSON.readTree(content).path("reasoning").asText());
            assertEquals(CL100K.countTokens(content), reply.path("usage").path("completion_tokens").asInt());
            assertTrue(reply.path("usage").path("completion_tokens").asInt() > EvalLlmServer.padTokens(), "the pad is counted");

            // tool schemas are part of the prompt
            String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"search\",\"parameters\":{\"type\":\"object\"}}}]";
            JsonNode withTools = post(server, "s", body.substring(0, body.length() - 1) + ",\"tools\":" + tools + "}", 200);
            assertEquals(expectedPrompt + CL100K.countTokens(JSON.readTree(tools).toString()), withTools.path("usage").path("prompt_tokens").asInt());

            assertEquals(2, server.log().size());
            EvalLlmServer.StepTotal total = server.totals().get("s");
            assertEquals(new EvalLlmServer.StepTotal(2, 2L * expectedPrompt + CL100K.countTokens(JSON.readTree(tools).toString()),
                    2L * reply.path("usage").path("completion_tokens").asInt()), total);
            assertEquals(JSON.readTree(body), server.log().get(0).body(), "the log keeps the request as sent");

            // without bodies (a long build's log): the same calls and tokens, no request or reply held
            server.keepBodies(false);
            post(server, "s", body, 200);
            EvalLlmServer.LoggedRequest light = server.log().get(2);
            assertNull(light.body());
            assertNull(light.reply());
            assertEquals(new EvalLlmServer.StepTotal(3, total.promptTokens() + expectedPrompt, total.completionTokens() + reply.path("usage").path("completion_tokens").asInt()),
                    server.totals().get("s"));
        }
    }

    @Test
    void toolCallRepliesAndRefusals() throws Exception {
        try (EvalLlmServer server = EvalLlmServer.start()) {
            server.on("agent", r -> PolicyReply.tools(List.of(java.util.Map.of("id", "c1", "type", "function",
                    "function", java.util.Map.of("name", "search", "arguments", "{\"q\":\"Brand\"}")))));
            JsonNode reply = post(server, "agent", "{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}", 200);
            assertEquals("tool_calls", reply.path("choices").path(0).path("finish_reason").asText());
            assertEquals("search", reply.path("choices").path(0).path("message").path("tool_calls").path(0).path("function").path("name").asText());
            JsonNode refused = post(server, "unknown step", "{\"messages\":[]}", 400);
            assertTrue(refused.path("error").path("message").asText().contains("no policy for the step 'unknown step'"));
            JsonNode notJson = post(server, "agent", "{not json", 400);
            assertTrue(notJson.path("error").path("message").asText().contains("not JSON"));
            assertEquals(1, server.log().size(), "refused requests are not logged as answered");
        }
    }

    /**
     * A reply's text, hence its completion tokens, does not depend on the order its maps were built in: policies build
     * replies with Map.of, whose order Java draws anew in each JVM run, so two insertion orders stand in for two runs.
     */
    @Test
    void repliesAreTheSameTextWhateverOrderTheirMapsWereBuiltIn() throws Exception {
        java.util.Map<String, Object> forwards = new java.util.LinkedHashMap<>(), backwards = new java.util.LinkedHashMap<>();
        List<String> keys = List.of("name", "entity_type", "evidence", "head", "tail", "relation_type");
        for (String k : keys) forwards.put(k, k + " value");
        for (int i = keys.size() - 1; i >= 0; i--) backwards.put(keys.get(i), keys.get(i) + " value");
        try (EvalLlmServer server = EvalLlmServer.start()) {
            server.on("json", r -> PolicyReply.jsonOf(r.lastUser().equals("forwards") ? forwards : backwards));
            server.on("tools", r -> PolicyReply.tools(List.of(PolicyReply.toolCall("c1", "create_entity",
                    r.lastUser().equals("forwards") ? forwards : backwards))));
            for (String step : List.of("json", "tools")) {
                JsonNode a = post(server, step, "{\"messages\":[{\"role\":\"user\",\"content\":\"forwards\"}]}", 200);
                JsonNode b = post(server, step, "{\"messages\":[{\"role\":\"user\",\"content\":\"backwards\"}]}", 200);
                assertEquals(a.path("choices").path(0).path("message"), b.path("choices").path(0).path("message"), step);
                assertEquals(a.path("usage").path("completion_tokens").asInt(), b.path("usage").path("completion_tokens").asInt(), step);
            }
            JsonNode call = post(server, "tools", "{\"messages\":[{\"role\":\"user\",\"content\":\"backwards\"}]}", 200)
                    .path("choices").path(0).path("message").path("tool_calls").path(0);
            assertEquals(List.of("id", "type", "function"), iterable(call.fieldNames()), "the OpenAI field order");
            assertEquals("create_entity", call.path("function").path("name").asText());
            assertEquals("entity_type value", JSON.readTree(call.path("function").path("arguments").asText()).path("entity_type").asText());
        }
    }

    private static <T> List<T> iterable(java.util.Iterator<T> it) {
        List<T> out = new java.util.ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /**
     * The report splits each step's prompts into tool schemas, system, task and transcript, and counts the tokens that
     * repeat an earlier prompt's start (a second round that extends the first shares all of the first).
     */
    @Test
    void theReportSaysWherePromptTokensGoAndWhatRepeatsAnEarlierPrefix(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (EvalLlmServer server = EvalLlmServer.start().promptSamples(dir)) {
            server.on("agent", r -> PolicyReply.json("{\"ok\":true}"));
            String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"search\",\"parameters\":{\"type\":\"object\"}}}]";
            String first = "{\"tools\":" + tools + ",\"messages\":[{\"role\":\"system\",\"content\":\"You search.\"},{\"role\":\"user\",\"content\":\"Find Brand.\"}]}";
            String second = "{\"tools\":" + tools + ",\"messages\":[{\"role\":\"system\",\"content\":\"You search.\"},{\"role\":\"user\",\"content\":\"Find Brand.\"},"
                    + "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"{}\"}}]},"
                    + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"Brand is a play by Ibsen.\"}]}";
            int p1 = post(server, "agent", first, 200).path("usage").path("prompt_tokens").asInt();
            int p2 = post(server, "agent", second, 200).path("usage").path("prompt_tokens").asInt();
            String row = server.promptSizeReport().lines().filter(l -> l.startsWith("| agent |")).findFirst().orElseThrow();
            List<String> cells = java.util.Arrays.stream(row.split("\\|")).map(String::strip).filter(c -> !c.isEmpty()).toList();
            int toolTokens = CL100K.countTokens(JSON.readTree(tools).toString());
            int system = 3 + CL100K.countTokens("system") + CL100K.countTokens("You search.");
            int task = 3 + CL100K.countTokens("user") + CL100K.countTokens("Find Brand.");
            assertEquals(List.of("agent", "2", String.valueOf(p2), String.valueOf(p2), String.valueOf(Math.round((p1 + p2) / 2.0)), String.valueOf(toolTokens),
                    String.valueOf(system), String.valueOf(task), String.valueOf(Math.round((p2 - 3 - toolTokens - system - task) / 2.0))), cells.subList(0, 9));
            double share = Double.parseDouble(cells.get(9).replace("%", "")) / 100;
            assertTrue(share > (p1 - 10) / (double) (p1 + p2) - 0.01 && share < (double) p1 / (p1 + p2) + 0.05,
                    "about the first prompt's tokens repeat, as the second's start: " + cells.get(9));
            assertTrue(java.nio.file.Files.readString(dir.resolve("agent.largest.json")).contains("Ibsen"), "the largest prompt is written as sent");
        }
    }

    @Test
    void aLatencyModelDelaysEachCallAndTheServerServesAtMostItsCapacityAtOnce() throws Exception {
        try (EvalLlmServer server = EvalLlmServer.start().latency(Latency.parse("150,concurrency=2"))) {
            server.on("s", r -> PolicyReply.json("{\"answer\":\"x\"}"));
            String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}";
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
            try {
                List<java.util.concurrent.Future<JsonNode>> replies = new java.util.ArrayList<>();
                for (int i = 0; i < 6; i++) replies.add(pool.submit(() -> post(server, "s", body, 200)));
                for (var f : replies) assertEquals("chat.completion", f.get().path("object").asText());
            } finally {
                pool.shutdown();
            }
            assertEquals(2, server.maxInFlight(), "six callers at once, two served at a time as a vLLM or Ollama server with two slots");
            assertTrue(server.queuedMillis() > 0, "the others waited in the queue");
            assertTrue(server.handlerMillis() < 6 * 150, "the model's delay is not counted as the server's own time: " + server.handlerMillis());
        }
    }

    @Test
    void delaysAreDrawnFromTheSeedAndTheRequestNotFromArrivalOrder() {
        Latency l = Latency.parse("500,sigma=0.5,tokenMs=2,seed=7,hgmem.E2=1200");
        assertEquals(l.delayMs("agrag.answer", "{a}", 10), l.delayMs("agrag.answer", "{a}", 10), "the same request, the same delay");
        assertTrue(l.delayMs("agrag.answer", "{a}", 10) != l.delayMs("agrag.answer", "{b}", 10), "another request, another draw");
        double sum = 0;
        for (int i = 0; i < 4000; i++) sum += l.delayMs("s", "{" + i + "}", 0);
        assertEquals(500, sum / 4000, 25, "a log-normal around the base keeps its mean");
        assertEquals(1200 + 20, Latency.parse("500,tokenMs=2,hgmem.E2=1200").delayMs("hgmem.E2", "{}", 10), "a step's own base, plus its tokens");
        assertEquals(500, Latency.fixed(500).delayMs("any", "{}", 99));
        for (String[] bad : List.of(new String[] {"fast", "the base delay in ms"}, new String[] {"500,sigma", "not KEY=VALUE"},
                new String[] {"500,concurrency=four", "'four' is not a number"}, new String[] {"-5", "must not be negative"})) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Latency.parse(bad[0]));
            assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
        }
    }

    static JsonNode post(EvalLlmServer server, String step, String body, int status) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.endpoint() + "/chat/completions"))
                .header("Content-Type", "application/json").header("X-Rag-Step", step).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(status, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
