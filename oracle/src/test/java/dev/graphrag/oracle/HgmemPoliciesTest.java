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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The oracle planner's rules on hand-built input blocks (the shape hgmem's prompts send): a point only for a hop the
 * retrieved sources reveal, local concerns on the point holding a hop's subject, subqueries with known answers
 * substituted, merges of consecutive hops only, and an answer only once the last hop is in memory.
 */
@LineIndependent
class HgmemPoliciesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EvalLlmServer server;

    @BeforeAll
    static void policies(@TempDir Path dir) throws Exception {
        server = PolicyTesting.policies(dir, List.of(RENNER), HgmemPolicies::register);
    }

    static ObjectNode evolveBlock(ArrayNode memory, String... sources) {
        ObjectNode b = JSON.createObjectNode();
        b.put("mainQuery", RENNER.question());
        b.set("memory", memory);
        b.putArray("currentSubqueries");
        ObjectNode r = b.putObject("retrieved");
        ArrayNode ents = r.putArray("entities");
        for (String n : List.of("ASCHENBRODEL", "JOHANN STRAUSS II", "AUSTRIA", "KARL RENNER")) ents.addObject().put("entity", n);
        r.putArray("relationships");
        ArrayNode src = r.putArray("sources");
        for (int i = 0; i < sources.length; i++) src.addObject().put("id", "c" + i).put("content", sources[i]);
        return b;
    }

    static ArrayNode memory(String... pointsAsEntitiesThenDescription) {
        ArrayNode m = JSON.createArrayNode();
        for (int i = 0; i < pointsAsEntitiesThenDescription.length; i += 2) {
            ObjectNode p = m.addObject().put("index", i / 2);
            ArrayNode e = p.putArray("entities");
            for (String n : pointsAsEntitiesThenDescription[i].split(",")) e.add(n.trim());
            p.put("description", pointsAsEntitiesThenDescription[i + 1]);
        }
        return m;
    }

    static JsonNode ask(String step, JsonNode block) throws Exception {
        return PolicyTesting.ask(server, step, block);
    }

    @Test
    void insertsOnlyHopsTheSourcesReveal() throws Exception {
        JsonNode none = ask(HgmemPolicies.EVOLVE, evolveBlock(memory(), RENNER_TEXT));
        assertEquals(0, none.path("inserted").size(), "hop 3's passage alone reveals nothing while hop 2 is unknown");
        JsonNode one = ask(HgmemPolicies.EVOLVE, evolveBlock(memory(), BALLET));
        assertEquals(1, one.path("inserted").size());
        assertTrue(one.path("inserted").get(0).path("description").asText().startsWith("hop 1: What is the composer of Aschenbrödel? → Johann Strauss II"));
        assertEquals("[\"ASCHENBRODEL\",\"JOHANN STRAUSS II\"]", one.path("inserted").get(0).path("entities").toString(),
                "the table entities the source names (the answer among them, so not added twice)");
        JsonNode two = ask(HgmemPolicies.EVOLVE, evolveBlock(memory(), BALLET, STRAUSS));
        assertEquals(2, two.path("inserted").size(), "hop 2 opens once hop 1 is known from the same step's sources");
        JsonNode reversed = ask(HgmemPolicies.EVOLVE, evolveBlock(memory(), RENNER_TEXT, STRAUSS, BALLET));
        assertEquals(List.of("hop 1", "hop 2", "hop 3"), descriptionsHops(reversed),
                "the table's order does not matter: hop 3's and hop 2's sources, listed before hop 1's, are read again once it is known");
    }

    static List<String> descriptionsHops(JsonNode reply) {
        List<String> out = new java.util.ArrayList<>();
        reply.path("inserted").forEach(p -> out.add(p.path("description").asText().substring(0, 5)));
        return out;
    }

    @Test
    void plansLocallyOnThePointHoldingTheSubjectAndStopsWhenAllHopsAreIn() throws Exception {
        ObjectNode b = JSON.createObjectNode();
        b.put("mainQuery", RENNER.question());
        b.set("memory", memory("JOHANN STRAUSS II", "hop 1: What is the composer of Aschenbrödel? → Johann Strauss II. Evidence: " + BALLET));
        b.put("maxConcerns", 3);
        b.set("allowedJudgements", JSON.valueToTree(List.of("1", "2.1", "2.2")));
        JsonNode plan = ask(HgmemPolicies.PLAN, b);
        assertEquals("2.1", plan.path("judgement").asText());
        assertEquals(1, plan.path("concerns").size(), "hop 3 waits for hop 2's answer");
        assertEquals(0, plan.path("concerns").get(0).path("memoryPointIndices").get(0).asInt());
        b.set("allowedJudgements", JSON.valueToTree(List.of("1", "2.2")));
        assertEquals("2.2", ask(HgmemPolicies.PLAN, b).path("judgement").asText(), "globalOnly: the same concern, explored globally");

        ObjectNode e5 = b.deepCopy();
        e5.set("concerns", JSON.valueToTree(List.of(java.util.Map.of("concern", plan.path("concerns").get(0).path("concern").asText()))));
        assertEquals("What is the country of citizenship of Johann Strauss II?", ask(HgmemPolicies.SUBQUERIES, e5).path("subqueries").get(0).asText());

        b.set("memory", memory("JOHANN STRAUSS II", "hop 1: ... → Johann Strauss II.", "JOHANN STRAUSS II, AUSTRIA", "hop 2: ... → Austria.",
                "AUSTRIA, KARL RENNER", "hop 3: ... → Karl Renner."));
        assertEquals("1", ask(HgmemPolicies.PLAN, b).path("judgement").asText());
        JsonNode merges = ask(HgmemPolicies.MERGE, b).path("merges");
        assertEquals(1, merges.size(), "one chain of consecutive hops sharing entities");
        assertEquals("[0,1,2]", merges.get(0).path("indices").toString());
    }

    @Test
    void answersOnlyOnceTheLastHopIsInMemoryAndCitesSourcesHoldingKnownAnswers() throws Exception {
        ObjectNode b = JSON.createObjectNode();
        b.put("mainQuery", RENNER.question());
        b.set("memory", memory("JOHANN STRAUSS II", "hop 1: ... → Johann Strauss II."));
        ArrayNode src = b.putArray("sources");
        src.addObject().put("id", "c1").put("content", BALLET);
        src.addObject().put("id", "c2").put("content", "An unrelated passage about rivers.");
        JsonNode partial = ask(HgmemPolicies.ANSWER, b);
        assertEquals(HgmemPolicies.UNKNOWN, partial.path("answer").asText());
        assertEquals("[\"c1\"]", partial.path("citedSources").toString());
        b.set("memory", memory("A", "hop 1: → Johann Strauss II.", "B", "hop 2: → Austria.", "C", "hop 3: → Karl Renner."));
        assertEquals("Karl Renner", ask(HgmemPolicies.ANSWER, b).path("answer").asText());
    }

    @Test
    void extractionNamesThePartsOfAJoinedNameAndPairsNeighbours() throws Exception {
        ObjectNode b = JSON.createObjectNode();
        b.put("text", "Johann Strauss II of Austria wrote Aschenbrodel. Vienna loved it.");
        JsonNode x = ask(HgmemPolicies.EXTRACT, b);
        List<String> names = new java.util.ArrayList<>();
        x.path("entities").forEach(e -> names.add(e.path("name").asText()));
        assertTrue(names.containsAll(List.of("Johann Strauss II of Austria", "Johann Strauss II", "Austria", "Aschenbrodel", "Vienna")), names.toString());
        assertTrue(x.path("relationships").size() >= 1);
        for (JsonNode r : x.path("relationships")) assertTrue(!r.path("source").asText().equals(r.path("target").asText()));
    }

    @Test
    void aSourcesTitleNamesTheSubjectItsTextLeavesOut() throws Exception {
        String pronoun = "He was a composer of light music and a citizen of Austria until 1887.";
        ArrayNode hop1 = memory("ASCHENBRODEL, JOHANN STRAUSS II", "hop 1: What is the composer of Aschenbrödel? → Johann Strauss II. Evidence: " + BALLET);
        assertEquals(0, ask(HgmemPolicies.EVOLVE, evolveBlock(hop1, pronoun)).path("inserted").size(), "the text alone never names Strauss");
        ObjectNode titled = evolveBlock(hop1, pronoun);
        ((ObjectNode) titled.path("retrieved").path("sources").get(0)).put("title", "Johann Strauss II");
        JsonNode two = ask(HgmemPolicies.EVOLVE, titled);
        assertEquals(List.of("hop 2"), descriptionsHops(two), "the title names the subject: hop 2 opens");

        ObjectNode b = JSON.createObjectNode();
        b.put("title", "Johann Strauss II (composer)");
        b.put("text", pronoun);
        JsonNode x = ask(HgmemPolicies.EXTRACT, b);
        JsonNode title = null;
        for (JsonNode e : x.path("entities")) if (e.path("name").asText().equals("Johann Strauss II")) title = e;
        assertTrue(title != null, "the title, its disambiguator dropped, is an entity of the chunk: " + x);
        assertEquals(pronoun, title.path("description").asText(), "described by the first sentence when none names it");
    }
}
