package dev.graphrag.core.lexical;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What setup takes for a constraint, and the errors that name the indexes not online. */
@LineIndependent
class SchemaSetupTest {
    @Test
    void constraintStatementsAreToldFromIndexStatements() {
        assertTrue(SchemaSetup.isConstraint("CREATE CONSTRAINT x IF NOT EXISTS FOR (n:X) REQUIRE n.k IS UNIQUE"));
        assertTrue(SchemaSetup.isConstraint("  create constraint x FOR (n:X) REQUIRE n.k IS UNIQUE"));
        assertFalse(SchemaSetup.isConstraint("CREATE INDEX x IF NOT EXISTS FOR (n:X) ON (n.k)"));
        assertFalse(SchemaSetup.isConstraint("CYPHER 25 CREATE VECTOR INDEX x IF NOT EXISTS FOR (n:X) ON (n.e)"));
    }

    @Test
    void aTimeoutNamesEachIndexWithItsState() {
        Map<String, String> pending = new LinkedHashMap<>();
        pending.put("raga_meta_corpus", "POPULATING 100.0%");
        pending.put("raga_fact_embedding", "POPULATING 42.5%");
        assertEquals("indexes not online after 300 s: raga_meta_corpus (POPULATING 100.0%), raga_fact_embedding (POPULATING 42.5%);"
                + " SHOW INDEXES shows their progress; call again once they are online (setup is idempotent)",
                SchemaSetup.notOnline(pending, Duration.ofMinutes(5), false));
    }

    @Test
    void aFailedIndexIsNamedWithItsFailureAndTheRemedy() {
        String m = SchemaSetup.notOnline(Map.of("t_vec", "FAILED: out of disk"), Duration.ofMinutes(5), true);
        assertTrue(m.startsWith("index setup failed: t_vec (FAILED: out of disk)"), m);
        assertTrue(m.contains("DROP INDEX"), m);
    }
}
