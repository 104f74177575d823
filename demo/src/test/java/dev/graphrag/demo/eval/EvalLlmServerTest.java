package dev.graphrag.demo.eval;

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
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The evaluation server over HTTP: usage by the chat formula on cl100k_base, the pad, the log, and refusals by step. */
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

    static JsonNode post(EvalLlmServer server, String step, String body, int status) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.endpoint() + "/chat/completions"))
                .header("Content-Type", "application/json").header("X-Rag-Step", step).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(status, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
