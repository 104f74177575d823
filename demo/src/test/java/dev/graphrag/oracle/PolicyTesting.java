package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Asks a policy directly, with a request shaped as the plugin's prompts are: rules, then the JSON input block. */
final class PolicyTesting {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyTesting() {}

    static JsonNode ask(EvalLlmServer server, String step, JsonNode block) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", "rules");
        messages.addObject().put("role", "user").put("content", "Input:\n```json\n" + block + "\n```");
        return JSON.readTree(server.answer(step, body).path("content").asText());
    }
}
