package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;

/** Asks a policy directly, with a request shaped as the plugin's prompts are: rules, then the JSON input block. */
final class PolicyTesting {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyTesting() {}

    /** A stand-in with {@code register}'s policies over the gold of {@code questions}, its socket closed: answer() needs none. */
    static EvalLlmServer policies(Path dir, List<OracleGold.Question> questions, BiFunction<EvalLlmServer, OracleGold, EvalLlmServer> register)
            throws Exception {
        Path file = dir.resolve("gold.json");
        OracleGold.build(questions, file);
        EvalLlmServer server = register.apply(EvalLlmServer.start(), OracleGold.load(file));
        server.close();
        return server;
    }

    static JsonNode ask(EvalLlmServer server, String step, JsonNode block) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", "rules");
        messages.addObject().put("role", "user").put("content", "Input:\n```json\n" + block + "\n```");
        return JSON.readTree(server.answer(step, body).path("content").asText());
    }
}
