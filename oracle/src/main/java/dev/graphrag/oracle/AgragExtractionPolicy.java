package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Index-time stand-in for agrag.index's relation extraction (step "agrag.index relation extraction"): reads the
 * paragraph and the named-entity list from the prompt and answers {@link RuleExtractor}'s relations between them.
 * It is built from nothing but the prompt: no question, no gold.
 */
public final class AgragExtractionPolicy implements Policy {
    public static final String STEP = "agrag.index relation extraction";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public PolicyReply reply(PolicyRequest request) {
        String prompt = request.lastUser();
        int open = prompt.indexOf("```\n"), close = prompt.lastIndexOf("\n```");
        if (open < 0 || close <= open) throw new IllegalArgumentException("the extraction prompt has no fenced paragraph");
        String paragraph = prompt.substring(open + 4, close);
        List<String> entities = new ArrayList<>();
        try {
            JsonNode list = JSON.readTree(prompt.substring(close + 4).trim()).path("named_entities");
            for (JsonNode e : list) entities.add(e.asText());
        } catch (Exception e) {
            throw new IllegalArgumentException("the extraction prompt has no named_entities JSON after the paragraph", e);
        }
        ObjectNode reply = JSON.createObjectNode();
        ArrayNode triples = reply.putArray("triples");
        for (RuleExtractor.Relation r : RuleExtractor.relations(paragraph, entities)) triples.addArray().add(r.subject()).add(r.predicate()).add(r.object());
        return PolicyReply.json(reply.toString());
    }
}
