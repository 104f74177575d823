package dev.graphrag.core.config;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A config key declared once: its default when absent, its range when given, another default for a mode. */
@LineIndependent
class KeyTest {
    enum Mode { FAST, EXACT }

    static final Key<Integer> TOP_K = Key.integer("topK", 5, 1, 100);
    static final Key<Double> DAMPING = Key.number("damping", 0.5, 0, 0.99);
    static final Key<Boolean> FILTER = Key.bool("filter", false);
    static final Key<Mode> MODE = Key.choice("mode", Mode.class, Mode.EXACT);

    @Test
    void absentKeysTakeTheirDefaultAndGivenOnesAreRead() {
        ConfigReader r = ConfigReader.of("test.proc", Map.of("topK", 7L, "mode", "fast"));
        assertEquals(7, TOP_K.read(r));
        assertEquals(0.5, DAMPING.read(r));
        assertEquals(false, FILTER.read(r));
        assertEquals(Mode.FAST, MODE.read(r));
        r.finish();
    }

    @Test
    void anotherDefaultKeepsTheNameAndTheRange() {
        Key<Integer> ppr = TOP_K.withDefault(10);
        assertEquals("topK", ppr.name());
        assertEquals(10, ppr.read(ConfigReader.of("test.proc", Map.of())));
        RagException e = assertThrows(RagException.class, () -> ppr.read(ConfigReader.of("test.proc", Map.of("topK", 500L))));
        assertTrue(e.getMessage().contains("test.proc") && e.getMessage().contains("topK"), e.getMessage());
    }

    @Test
    void aWrongValueIsAnErrorNamingTheKey() {
        RagException type = assertThrows(RagException.class, () -> DAMPING.read(ConfigReader.of("test.proc", Map.of("damping", "high"))));
        assertTrue(type.getMessage().contains("'damping'"), type.getMessage());
        RagException choice = assertThrows(RagException.class, () -> MODE.read(ConfigReader.of("test.proc", Map.of("mode", "slow"))));
        assertTrue(choice.getMessage().contains("'mode' must be one of [fast, exact]"), choice.getMessage());
    }
}
