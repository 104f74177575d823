package dev.graphrag.core.llm;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one reply reader, on the shapes real servers and models give (plain Java, no server). */
@LineIndependent
class ReplyReaderTest {
    static ReplyReader.Json read(String content) throws ReplyReader.Problem {
        return ReplyReader.read(content, "stop", 512);
    }

    @Test
    void bareJsonNeedsNoRepair() throws Exception {
        ReplyReader.Json j = read("{\"answer\": \"Paris\"}");
        assertEquals("Paris", j.value().path("answer").asText());
        assertTrue(j.repairs().isEmpty());
    }

    @Test
    void reasoningBlocksOfEveryTagAreRemovedAndTheirTextKeptApart() throws Exception {
        for (String tag : List.of("think", "thinking", "reasoning", "THINK")) {
            ReplyReader.Json j = read("\n<" + tag + ">\nThe user wants {\"answer\": \"wrong\"} maybe.\n</" + tag + ">\n\n{\"answer\": \"Paris\"}");
            assertEquals("Paris", j.value().path("answer").asText(), tag);
            assertEquals("reasoning block removed", j.repairs().get(0));
        }
        ReplyReader.Answer a = ReplyReader.answer("<think>why</think>{\"a\": 1}", "stop", 10);
        assertEquals("why", a.reasoning());
        // the template opened <think> itself: only the closing tag is in the reply
        assertEquals(1, read("the user asks for a number.</think>\n{\"a\": 1}").value().path("a").asInt());
    }

    @Test
    void anUnterminatedReasoningBlockIsACutReplyOrAnAnswerlessOne() {
        ReplyReader.Problem cut = assertThrows(ReplyReader.Problem.class, () -> ReplyReader.read("<think>Let me consider every option in turn", "length", 256));
        assertTrue(cut.cut());
        assertTrue(cut.getMessage().contains("maxTokens=256") && cut.getMessage().contains("raise maxTokens"), cut.getMessage());
        ReplyReader.Problem none = assertThrows(ReplyReader.Problem.class, () -> read("<think>Let me consider"));
        assertFalse(none.cut());
        assertTrue(none.getMessage().contains("no answer"), none.getMessage());
        ReplyReader.Problem only = assertThrows(ReplyReader.Problem.class, () -> read("<think>I have thought it through.</think>  "));
        assertTrue(only.getMessage().contains("only a reasoning block"), only.getMessage());
    }

    @Test
    void jsonIsFoundInProseAndInAFenceAnywhere() throws Exception {
        ReplyReader.Json chatty = read("Sure! Here is the JSON you asked for:\n\n```json\n{\n  \"answer\": \"Paris\"\n}\n```\n\nLet me know if you need anything else!");
        assertEquals("Paris", chatty.value().path("answer").asText());
        assertEquals(List.of("JSON found in a fenced block"), chatty.repairs());
        ReplyReader.Json prose = read("The answer, as JSON (see [1]): {\"answer\": \"Paris\", \"sources\": [1, 2]} Hope that helps.");
        assertEquals("Paris", prose.value().path("answer").asText());
        assertEquals(List.of("JSON found in prose"), prose.repairs());
        ReplyReader.Json unclosed = read("```json\n{\"answer\": \"Paris\"}");
        assertEquals("Paris", unclosed.value().path("answer").asText());
    }

    @Test
    void nearJsonIsReadLenientlyAndSaysSo() throws Exception {
        ReplyReader.Json j = read("{'answer': 'Paris', // the capital\n  cited: [\"C1\", \"C2\",],}");
        assertEquals("Paris", j.value().path("answer").asText());
        assertEquals(2, j.value().path("cited").size());
        assertEquals(List.of("lenient JSON syntax"), j.repairs());
        ReplyReader.Json inProse = read("Here: {\"a\": [1, 2,],} done");
        assertEquals(List.of("JSON found in prose", "lenient JSON syntax"), inProse.repairs());
    }

    @Test
    void twoCandidateValuesEmptyRepliesAndProseWithoutJsonAreProblemsThatSaySo() {
        ReplyReader.Problem two = assertThrows(ReplyReader.Problem.class, () -> read("First {\"answer\": \"Paris\"} or maybe {\"answer\": \"Lyon\"}"));
        assertTrue(two.getMessage().contains("2 candidate JSON values"), two.getMessage());
        assertTrue(assertThrows(ReplyReader.Problem.class, () -> read("  ")).getMessage().contains("empty"));
        assertTrue(assertThrows(ReplyReader.Problem.class, () -> read(null)).getMessage().contains("empty"));
        ReplyReader.Problem none = assertThrows(ReplyReader.Problem.class, () -> read("I cannot answer that."));
        assertTrue(none.getMessage().contains("no JSON object"), none.getMessage());
    }

    @Test
    void anArrayStaysAnArraySoTheSchemaCheckCanRefuseIt() throws Exception {
        ReplyReader.Json j = read("[{\"answer\": \"Paris\"}]");
        assertTrue(j.value().isArray());
        String problem = JsonSchemaCheck.problem(Map.of("type", "object", "required", List.of("answer")), j.value());
        assertTrue(problem != null && problem.contains("object"), String.valueOf(problem));
    }

    @Test
    void deeplyNestedAndHugeRepliesDoNotBreakTheReader() {
        String big = "{\"a\": \"" + "x".repeat(200_000) + "\"}";
        try {
            assertEquals(200_000, read("Here you go: " + big).value().path("a").asText().length());
        } catch (ReplyReader.Problem p) {
            throw new AssertionError(p);
        }
    }
}
