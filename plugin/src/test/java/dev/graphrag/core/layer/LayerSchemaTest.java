package dev.graphrag.core.layer;

import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The statements a layer's declared schema and drop steps run, and the identifiers they refuse. */
class LayerSchemaTest {
    static final Label THING = Label.label("TestThing");
    static final RelationshipType LINK = RelationshipType.withName("TEST_LINK");

    @Test
    void eachKindBecomesItsStatementInDeclarationOrder() {
        Map<String, String> s = new LayerSchema()
                .unique("t_key", THING, "key")
                .index("t_status", THING, "corpus", "status")
                .index("t_link_id", LINK, "linkId")
                .vector("t_vec", THING, "embedding", 384)
                .fulltext("t_text", LINK, "type", "description")
                .statements();
        assertEquals(List.of("t_key", "t_status", "t_link_id", "t_vec", "t_text"), List.copyOf(s.keySet()));
        assertEquals("CREATE CONSTRAINT t_key IF NOT EXISTS FOR (n:TestThing) REQUIRE n.key IS UNIQUE", s.get("t_key"));
        assertEquals("CREATE INDEX t_status IF NOT EXISTS FOR (n:TestThing) ON (n.corpus, n.status)", s.get("t_status"));
        assertEquals("CREATE INDEX t_link_id IF NOT EXISTS FOR ()-[r:TEST_LINK]-() ON (r.linkId)", s.get("t_link_id"));
        // a calendar-line server (the build's -Dneo4j.line=2026) takes the corpus as the index's filter property (VectorSearch)
        boolean calendar = "2026".equals(System.getProperty("graphrag.neo4j.line"));
        assertEquals((calendar ? "CYPHER 25 " : "") + "CREATE VECTOR INDEX t_vec IF NOT EXISTS FOR (n:TestThing) ON (n.embedding)"
                + (calendar ? " WITH [n.corpus]" : "") + " OPTIONS {indexConfig: {`vector.dimensions`: 384,"
                + " `vector.similarity_function`: 'cosine'}}", s.get("t_vec"));
        assertEquals("CREATE FULLTEXT INDEX t_text IF NOT EXISTS FOR ()-[r:TEST_LINK]-() ON EACH [r.type, r.description]", s.get("t_text"));
    }

    @Test
    void theMetaConstraintComesFirstAndTheMetaNodeGoesLast() {
        LayerSpec spec = LayerSpec.of("test", "test layer", Label.label("TestMeta"))
                .schema(d -> new LayerSchema().unique("test_thing_key", THING, "key"))
                .drop(LayerDrop.Step.nodes("things", THING))
                .build();
        assertEquals(List.of("test_meta_corpus", "test_thing_key"), List.copyOf(spec.statements(384).keySet()));
        assertEquals("CREATE CONSTRAINT test_meta_corpus IF NOT EXISTS FOR (n:TestMeta) REQUIRE n.corpus IS UNIQUE", spec.statements(384).get("test_meta_corpus"));
        assertEquals(List.of("things", "meta node"), spec.dropSteps().stream().map(LayerDrop.Step::what).toList());
        assertTrue(spec.dropSteps().get(1).cypher().startsWith("MATCH (m:TestMeta {corpus: $corpus}) DELETE m"));
    }

    @Test
    void identifiersThatCouldEscapeAStatementAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LayerSchema().unique("bad name", THING, "key"));
        assertThrows(IllegalArgumentException.class, () -> new LayerSchema().index("ok", Label.label("X) DETACH DELETE n //"), "p"));
        assertThrows(IllegalArgumentException.class, () -> new LayerSchema().vector("ok", THING, "embedding", 0));
        assertThrows(IllegalArgumentException.class, () -> LayerDrop.Step.properties("x", THING, "a`b"));
    }

    @Test
    void dropStepsAreBatchedStatementsOfTheCorpus() {
        LayerDrop.Step nodes = LayerDrop.Step.nodes("things", THING);
        assertTrue(nodes.cypher().startsWith("MATCH (n:TestThing {corpus: $corpus}) WITH n LIMIT $batch"), nodes.cypher());
        assertEquals(2000, nodes.batch());
        LayerDrop.Step links = LayerDrop.Step.relationships("links", THING, LINK).inBatchesOf(5000);
        assertEquals(5000, links.batch());
        assertTrue(links.cypher().contains("(:TestThing {corpus: $corpus})-[r:TEST_LINK]->()"), links.cypher());
        LayerDrop.Step props = LayerDrop.Step.properties("stored", THING, "storedA", "storedB");
        assertTrue(props.cypher().contains("WHERE x.storedA IS NOT NULL") && props.cypher().contains("REMOVE x.storedA, x.storedB"), props.cypher());
        assertEquals("meta node", LayerDrop.Step.meta(Label.label("TestMeta")).what());
    }
}
