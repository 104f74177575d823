package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.graphrag.oracle.EvidenceGateTest.BALLET;
import static dev.graphrag.oracle.EvidenceGateTest.RENNER;
import static dev.graphrag.oracle.EvidenceGateTest.RENNER_TEXT;
import static dev.graphrag.oracle.EvidenceGateTest.STRAUSS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The oracle walker's rules on hand-built input blocks (the shape remind's prompts send): gated sufficiency, the L8
 * rule order, a filter and an answer that cite only chunks carrying evidence, and replies that name only handles of
 * the prompt.
 */
@LineIndependent
class RemindWalkPoliciesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EvalLlmServer server;

    @BeforeAll
    static void policies(@TempDir Path dir) throws Exception {
        server = PolicyTesting.policies(dir, List.of(RENNER), RemindWalkPolicies::register);
    }

    static ObjectNode block(String... chunkTexts) {
        ObjectNode b = JSON.createObjectNode();
        b.put("question", RENNER.question());
        b.putArray("entities");
        b.putArray("anchors");
        ArrayNode chunks = b.putArray("chunks");
        for (int i = 0; i < chunkTexts.length; i++) chunks.addObject().put("id", "C" + (i + 1)).put("text", chunkTexts[i]);
        b.putArray("edges");
        return b;
    }

    static JsonNode ask(String step, JsonNode block) throws Exception {
        return PolicyTesting.ask(server, step, block);
    }

    @Test
    void sufficientOnlyOnceEveryHopIsRevealedInThePrompt() throws Exception {
        assertFalse(ask(RemindWalkPolicies.SUFFICIENT, block(BALLET)).path("sufficient").asBoolean());
        assertFalse(ask(RemindWalkPolicies.SUFFICIENT, block(BALLET, RENNER_TEXT)).path("sufficient").asBoolean(), "hop 2 is still closed");
        assertTrue(ask(RemindWalkPolicies.SUFFICIENT, block(RENNER_TEXT, BALLET, STRAUSS)).path("sufficient").asBoolean());
        ObjectNode other = block(RENNER_TEXT, BALLET, STRAUSS);
        other.put("question", "A question the gold does not hold?");
        assertFalse(ask(RemindWalkPolicies.SUFFICIENT, other).path("sufficient").asBoolean());
    }

    @Test
    void aChunkReadsAsItsDocumentsTitleAboveItsText() throws Exception {
        String pronoun = "He was a composer of light music and a citizen of Austria until 1887.";
        assertFalse(ask(RemindWalkPolicies.SUFFICIENT, block(BALLET, pronoun, RENNER_TEXT)).path("sufficient").asBoolean(),
                "the text alone never names Strauss: hop 2 stays closed");
        ObjectNode titled = block(BALLET, pronoun, RENNER_TEXT);
        ((ObjectNode) titled.path("chunks").get(1)).put("document", "Johann Strauss II");
        assertTrue(ask(RemindWalkPolicies.SUFFICIENT, titled).path("sufficient").asBoolean(), "the document's title names the subject");
        assertTrue(ask(RemindWalkPolicies.ANSWER, titled).path("citedChunks").toString().contains("C2"), "and the titled chunk is evidence");
    }

    @Test
    void nextNodeFollowsTheRuleOrder() throws Exception {
        ObjectNode b = block(BALLET); // hop 1 known: the open hop's subject is Johann Strauss II
        b.put("current", "A1");
        b.withArray("anchors").addObject().put("id", "A1").put("title", "Aschenbrodel is a ballet");
        ArrayNode cand = b.putArray("candidates");
        cand.addObject().put("id", "E2").put("type", "entity").put("name", "Vienna").put("relation", "Vienna is a city.");
        cand.addObject().put("id", "E3").put("type", "entity").put("name", "Johann Strauss II").put("relation", "");
        cand.addObject().put("id", "A4").put("type", "anchor").put("title", "Johann Strauss II was a composer").put("relation", "");
        b.putArray("unvisitedChunks");
        b.putArray("history").add("A1");
        // (1) a passage naming the subject before the entity of that name
        assertEquals("A4", ask(RemindWalkPolicies.NEXT, b).path("id").asText());
        // (0) a candidate whose relation text reveals the open hop wins over both
        cand.addObject().put("id", "E5").put("type", "entity").put("name", "Austria").put("relation", STRAUSS);
        assertEquals("E5", ask(RemindWalkPolicies.NEXT, b).path("id").asText());
        // (2) no name matches: the candidate overlapping the open sub-question most
        ObjectNode plain = block(BALLET);
        plain.put("current", "A1");
        ArrayNode c2 = plain.putArray("candidates");
        c2.addObject().put("id", "E2").put("type", "entity").put("name", "Vienna").put("relation", "Vienna is a city.");
        c2.addObject().put("id", "E6").put("type", "entity").put("name", "Citizenship law").put("relation", "Country of citizenship rules.");
        plain.putArray("unvisitedChunks");
        plain.putArray("history");
        assertEquals("E6", ask(RemindWalkPolicies.NEXT, plain).path("id").asText());
    }

    @Test
    void afterAChunkItGoesBackToTheOpenSubjectElseTheAnchorJustRead() throws Exception {
        ObjectNode b = block(BALLET);
        b.putNull("current");
        b.withArray("entities").addObject().put("id", "E1").put("name", "Aschenbrödel");
        b.withArray("anchors").addObject().put("id", "A1").put("title", "Aschenbrodel is a ballet");
        b.putArray("candidates");
        b.putArray("unvisitedChunks");
        b.putArray("history").add("E1").add("A1");
        JsonNode r = ask(RemindWalkPolicies.NEXT, b);
        assertEquals("A1", r.path("id").asText(), "Strauss is not collected yet: back to the anchor whose passage names him");
        b.withArray("entities").addObject().put("id", "E2").put("name", "Johann Strauss II");
        assertEquals("E2", ask(RemindWalkPolicies.NEXT, b).path("id").asText());
        assertEquals("entity", ask(RemindWalkPolicies.NEXT, b).path("type").asText());
    }

    @Test
    void filterAndAnswerCiteOnlyEvidence() throws Exception {
        ObjectNode b = block("Vienna is a city.", BALLET, STRAUSS);
        b.withArray("edges").addObject().put("id", "R1").put("from", "E1").put("to", "E2").put("text", "Johann Strauss II lived in Vienna.");
        b.withArray("edges").addObject().put("id", "R2").put("from", "E2").put("to", "E3").put("text", "Vienna is on the Danube.");
        JsonNode f = ask(RemindWalkPolicies.FILTER, b);
        assertEquals(List.of("C2", "C3"), List.of(f.path("chunks").get(0).asText(), f.path("chunks").get(1).asText()));
        assertEquals(1, f.path("edges").size());
        assertEquals("R1", f.path("edges").get(0).asText());
        JsonNode a = ask(RemindWalkPolicies.ANSWER, b);
        assertEquals(RemindWalkPolicies.UNKNOWN, a.path("answer").asText(), "hop 3 is not revealed");
        JsonNode full = ask(RemindWalkPolicies.ANSWER, block("Vienna is a city.", BALLET, STRAUSS, RENNER_TEXT));
        assertEquals("Karl Renner", full.path("answer").asText());
        assertEquals(3, full.path("citedChunks").size());
        assertFalse(full.path("citedChunks").toString().contains("C1"));
    }
}
