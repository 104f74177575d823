package dev.graphrag.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The change-cost benchmark's check of a rebuild's requests: which ones hold a changed chunk's text. */
@LineIndependent
class ChangeCostTest {
    static final List<String> CHANGED = List.of("Quvendal Berg starred in The Prize Film.\nShe was born in Oslo.", "Short");

    @Test
    void aRequestHoldsChangedTextWhenAnyMessageQuotesAChangedChunk() throws Exception {
        var probes = ChangeCost.probes(CHANGED);
        // as a server reads the request: the chunk inside a user message, its line break folded by the prompt's layout
        var body = new ObjectMapper().readTree("{\"model\": \"m\", \"messages\": [{\"role\": \"system\", \"content\": \"Extract.\"},"
                + " {\"role\": \"user\", \"content\": \"Passage:\\n  Quvendal Berg starred in The Prize Film. She was born in Oslo.\"}]}");
        assertTrue(ChangeCost.holdsAny(ChangeCost.text(body), probes));
        // or inside a JSON value within the message, its quotes and line breaks escaped
        var quoted = ChangeCost.probes(List.of("He directed \"Casablanca\" (1942) and\n\"Mildred Pierce\" (1945)."));
        var nested = new ObjectMapper().readTree("{\"messages\": [{\"role\": \"user\", \"content\": \"{\\\"text\\\": \\\"He directed \\\\\\\"Casablanca\\\\\\\" (1942) and\\\\n\\\\\\\"Mildred Pierce\\\\\\\" (1945).\\\"}\"}]}");
        assertTrue(ChangeCost.holdsAny(ChangeCost.text(nested), quoted), ChangeCost.text(nested));
        // the chunk before the change, and a summary of descriptions, hold none
        var old = new ObjectMapper().readTree("{\"messages\": [{\"role\": \"user\", \"content\": \"Anna Berg starred in The Prize Film.\"}]}");
        assertFalse(ChangeCost.holdsAny(ChangeCost.text(old), probes));
        assertFalse(ChangeCost.holdsAny(ChangeCost.text(null), probes));
        // texts shorter than a probe's key are not probes: they would match anywhere
        assertEquals(1, probes.values().stream().mapToInt(List::size).sum());
        assertFalse(ChangeCost.holdsAny("Short", ChangeCost.probes(List.of())));
    }
}
