package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.remind.RemindPrompts;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Index-time stand-ins for remind.index's three calls (entities, triples, title), answered by {@link RuleExtractor}
 * from the passage in the prompt's input block alone: no question, no gold.
 */
public final class RemindExtractionPolicies {
    public static final String ENTITIES = RemindPrompts.ENTITIES;
    public static final String TRIPLES = RemindPrompts.TRIPLES;
    public static final String TITLE = RemindPrompts.TITLE;
    private static final ObjectMapper JSON = new ObjectMapper();

    private RemindExtractionPolicies() {}

    /** Registers the three policies on the server. */
    public static EvalLlmServer register(EvalLlmServer server) {
        return server.on(ENTITIES, r -> {
            ObjectNode reply = JSON.createObjectNode();
            ArrayNode list = reply.putArray("entities");
            RuleExtractor.entities(null, block(r).path("passage").asText()).forEach(list::add);
            return PolicyReply.json(reply.toString());
        }).on(TRIPLES, r -> {
            JsonNode b = block(r);
            List<String> entities = new ArrayList<>();
            b.path("entities").forEach(e -> entities.add(e.asText()));
            ObjectNode reply = JSON.createObjectNode();
            ArrayNode triples = reply.putArray("triples");
            for (RuleExtractor.Relation rel : RuleExtractor.relations(b.path("passage").asText(), entities)) {
                triples.addObject().put("subject", rel.subject()).put("sentence", rel.sentence()).put("object", rel.object());
            }
            return PolicyReply.json(reply.toString());
        }).on(TITLE, r -> {
            String[] words = block(r).path("passage").asText().trim().split("\\s+");
            ObjectNode reply = JSON.createObjectNode();
            reply.put("title", String.join(" ", Arrays.copyOf(words, Math.min(words.length, 8))));
            return PolicyReply.json(reply.toString());
        });
    }

    /** The JSON input block every remind prompt ends with ("Input:" then a fenced json block). */
    public static JsonNode block(PolicyRequest r) {
        String prompt = "";
        for (JsonNode m : r.body().path("messages")) {
            String c = m.path("content").asText("");
            if ("user".equals(m.path("role").asText()) && c.contains("Input:\n```json\n")) prompt = c; // corrections come after it
        }
        int open = prompt.lastIndexOf("```json\n"), close = prompt.lastIndexOf("\n```");
        if (open < 0 || close <= open) throw new IllegalArgumentException("the prompt of step '" + r.step() + "' has no JSON input block");
        try {
            return JSON.readTree(prompt.substring(open + 8, close));
        } catch (Exception e) {
            throw new IllegalArgumentException("the input block of step '" + r.step() + "' is not JSON", e);
        }
    }
}
