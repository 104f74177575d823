package dev.graphrag.procedures;

import dev.graphrag.core.RagException;
import dev.graphrag.core.layer.LayerSchema;
import dev.graphrag.core.layer.LayerSpec;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Label;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A layer's setup on a real server after an interrupted one: a uniqueness constraint's index left without its
 * constraint is replaced by the constraint, and the setup waits only for its own indexes.
 */
class LayerSetupRepairTest {
    static final Label META = Label.label("SetupRepairMeta");
    static final Label THING = Label.label("SetupRepairThing");
    static final LayerSpec SPEC = LayerSpec.of("setuprepair", "setup-repair test layer", META)
            .schema(d -> new LayerSchema().unique("setuprepair_thing_key", THING, "key").index("setuprepair_thing_status", THING, "status"))
            .build();

    @Test
    void anIndexLeftWithoutItsConstraintIsReplacedByTheConstraint() {
        TestServer.db().executeTransactionally("CREATE INDEX setuprepair_meta_corpus IF NOT EXISTS FOR (n:SetupRepairMeta) ON (n.corpus)");
        try {
            List<String> created = SPEC.setup(TestServer.db(), 384);
            assertTrue(created.contains("setuprepair_meta_corpus"), "the orphan index's constraint is created: " + created);
            List<Map<String, Object>> idx = TestServer.rows("SHOW INDEXES YIELD name, owningConstraint, state WHERE name = 'setuprepair_meta_corpus'"
                    + " RETURN owningConstraint, state");
            assertEquals(1, idx.size());
            assertEquals("setuprepair_meta_corpus", idx.get(0).get("owningConstraint"));
            assertEquals("ONLINE", idx.get(0).get("state"));
            // the constraint is enforced now
            TestServer.db().executeTransactionally("CREATE (:SetupRepairMeta {corpus: 'c'})");
            var e = assertThrows(RuntimeException.class, () -> TestServer.db().executeTransactionally("CREATE (:SetupRepairMeta {corpus: 'c'})"));
            assertTrue(String.valueOf(e.getMessage()).contains("already exists"), e.getMessage());
            // a second setup finds everything made and creates nothing
            assertEquals(List.of(), SPEC.setup(TestServer.db(), 384));
        } finally {
            TestServer.db().executeTransactionally("MATCH (n:SetupRepairMeta) DELETE n");
            for (String c : List.of("setuprepair_meta_corpus", "setuprepair_thing_key")) TestServer.db().executeTransactionally("DROP CONSTRAINT " + c + " IF EXISTS");
            TestServer.db().executeTransactionally("DROP INDEX setuprepair_thing_status IF EXISTS");
            TestServer.db().executeTransactionally("DROP INDEX setuprepair_meta_corpus IF EXISTS");
        }
    }

    @Test
    void aPlainIndexTheLayerDeclaresIsKeptAndOnlyTheMissingObjectsAreMade() {
        // an index the layer declares as an index is not an orphan: it is kept, and only the constraints are made
        TestServer.db().executeTransactionally("CREATE INDEX setuprepair_thing_status IF NOT EXISTS FOR (n:SetupRepairThing) ON (n.status)");
        try {
            assertEquals(List.of("setuprepair_meta_corpus", "setuprepair_thing_key"), SPEC.setup(TestServer.db(), 384));
            assertEquals(1L, TestServer.count("SHOW INDEXES YIELD name, owningConstraint WHERE name = 'setuprepair_thing_status' AND owningConstraint IS NULL"
                    + " RETURN count(*)", Map.of()));
        } finally {
            for (String c : List.of("setuprepair_meta_corpus", "setuprepair_thing_key")) TestServer.db().executeTransactionally("DROP CONSTRAINT " + c + " IF EXISTS");
            TestServer.db().executeTransactionally("DROP INDEX setuprepair_thing_status IF EXISTS");
        }
    }
}
