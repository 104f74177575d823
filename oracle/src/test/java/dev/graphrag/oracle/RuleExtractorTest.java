package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The index-time extractor: names and same-sentence relations from the text alone. */
@LineIndependent
class RuleExtractorTest {
    static final String TEXT = "Brand is a play by Norwegian playwright Henrik Ibsen. It premiered in Oslo and Henrik Ibsen later wrote it was the most Norwegian of his many plays. It premiered in Stockholm in 1885. The Play was long.";

    @Test
    void entitiesAreTheTitleAndCapitalisedSpans() {
        assertEquals(List.of("Brand (play)", "Brand", "Norwegian", "Henrik Ibsen", "Oslo", "Stockholm", "Play"), RuleExtractor.entities("Brand (play)", TEXT));
    }

    @Test
    void relationsArePairsInOneSentenceWithTheWordsBetween() {
        List<RuleExtractor.Relation> r = RuleExtractor.relations(TEXT, List.of("Brand", "Henrik Ibsen", "Oslo", "Stockholm"));
        assertEquals(List.of(new RuleExtractor.Relation("Brand", "is a play by norwegian playwright", "Henrik Ibsen",
                        "Brand is a play by Norwegian playwright Henrik Ibsen."),
                new RuleExtractor.Relation("Oslo", "and", "Henrik Ibsen", "It premiered in Oslo and Henrik Ibsen later wrote it was the most Norwegian of his many plays.")),
                r, "Stockholm shares no sentence with another entity; more than six words between them would read 'related to'");
    }

    @Test
    void answersAgragExtractionPromptsFromThePromptAlone() throws Exception {
        List<Map<String, Object>> messages = dev.graphrag.agrag.AgragPrompts.relationExtraction(TEXT, List.of("brand", "henrik ibsen", "stockholm", "1885"));
        ObjectMapper json = new ObjectMapper();
        PolicyReply reply = new AgragExtractionPolicy().reply(new PolicyRequest(AgragExtractionPolicy.STEP,
                json.valueToTree(Map.of("messages", messages))));
        assertEquals("{\"triples\":[[\"brand\",\"is a play by norwegian playwright\",\"henrik ibsen\"],[\"stockholm\",\"in\",\"1885\"]]}", reply.content());
        assertTrue(reply.json());
        assertThrows(IllegalArgumentException.class, () -> new AgragExtractionPolicy().reply(new PolicyRequest(AgragExtractionPolicy.STEP,
                json.valueToTree(Map.of("messages", List.of(Map.of("role", "user", "content", "no paragraph here")))))));
    }
}
