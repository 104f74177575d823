package dev.graphrag.procedures;

import dev.graphrag.raga.ReadingPrompts;
import dev.graphrag.raga.RagaLayer;
import dev.graphrag.raga.RagaSchema;
import dev.graphrag.remind.RemindIndexer;
import dev.graphrag.remind.RemindLayer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.ExecutionPlanDescription;

import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Statements a build runs once per chunk or per document read what that item needs, not the whole corpus: run with
 * PROFILE on a corpus of 3,000 of each node, the rows every operator produces stay near the answer's size. Reading
 * the corpus per item made remind.index's chaining and raga.ingest's reading prompt quadratic in the corpus.
 */
class PerItemQueryPlansTest {
    static final String CORPUS = "plans";
    static final int NODES = 3000, DOCS = 300;

    @BeforeAll
    static void corpus() {
        // the lexical schema (the documents' key) as rag.ingest makes it, and the two layers'
        dev.graphrag.core.lexical.LexicalGraph.setup(TestServer.db(), 384);
        RemindLayer.SPEC.setup(TestServer.db(), 384);
        RagaLayer.SPEC.setup(TestServer.db(), 384);
        TestServer.db().executeTransactionally("""
                UNWIND range(0, $docs - 1) AS d
                CREATE (doc:Document {corpus: $c, id: 'doc' + d})
                WITH doc, d UNWIND range(0, $n / $docs - 1) AS i
                CREATE (doc)-[:HAS_CHUNK]->(:Chunk {corpus: $c, id: $c + ':doc' + d + ':' + i, documentId: 'doc' + d, index: i})
                CREATE (:RmAnchor {corpus: $c, key: 'plans-anchor-' + d + '-' + i, documentId: 'doc' + d, index: i})
                CREATE (:RagaEntity {corpus: $c, entityId: 'plans-e-' + d + '-' + i, name: 'e' + d + '-' + i, entityType: 'Concept',
                                     updatedAt: datetime() + duration({seconds: d * 100 + i})})""",
                Map.of("c", CORPUS, "docs", DOCS, "n", NODES));
        // the agent's types: mostly PROPOSED, as in a real build; some ACTIVE, CANDIDATE and REJECTED; ties on createdAt, with
        // names not in creation order (the index keeps ties in node order)
        TestServer.db().executeTransactionally("""
                UNWIND range(0, $n - 1) AS i
                WITH i, CASE WHEN i % 100 = 7 THEN 'ACTIVE' WHEN i % 50 = 3 THEN 'CANDIDATE' WHEN i % 20 = 9 THEN 'REJECTED' ELSE 'PROPOSED' END AS status
                CREATE (:RagaRelationType {corpus: $c, typeUid: $c + '|R' + i, name: 'R' + (i * 7919 % $n), status: status, embedding: [1.0, 0.0],
                                           createdAt: datetime('2026-01-01T00:00:00Z') + duration({seconds: i / 3})})
                CREATE (:RagaEntityType {corpus: $c, typeUid: $c + '|E' + i, name: 'E' + (i * 7919 % $n), status: status,
                                         createdAt: datetime('2026-01-01T00:00:00Z') + duration({seconds: i / 2})})""",
                Map.of("c", CORPUS, "n", NODES));
        TestServer.db().executeTransactionally("CALL db.resampleOutdatedIndexes()");
        TestServer.db().executeTransactionally("CALL db.awaitIndexes(300)");
    }

    @AfterAll
    static void drop() {
        TestServer.db().executeTransactionally("MATCH (n) WHERE n.corpus = $c AND (n:Document OR n:Chunk OR n:RmAnchor OR n:RagaEntity OR n:RagaRelationType OR n:RagaEntityType) DETACH DELETE n",
                Map.of("c", CORPUS));
    }

    /** The most rows any operator of the profiled statement produced. */
    static long widest(String statement, Map<String, Object> params) {
        return TestServer.db().executeTransactionally("PROFILE " + statement, params, r -> {
            r.forEachRemaining(row -> {});
            return widest(r.getExecutionPlanDescription());
        });
    }

    static long widest(ExecutionPlanDescription p) {
        long most = p.hasProfilerStatistics() ? p.getProfilerStatistics().getRows() : 0;
        for (ExecutionPlanDescription c : p.getChildren()) most = Math.max(most, widest(c));
        return most;
    }

    @Test
    void chainingADocumentReadsItsAnchorsOnly() {
        long rows = widest(RemindIndexer.DOCUMENT_ANCHORS, Map.of("c", CORPUS, "d", "doc7"));
        assertEquals(NODES / DOCS, rows, "rows of the widest operator for one document's anchors");
    }

    @Test
    void theReadingPromptsRecentEntitiesReadOnlyThoseShown() {
        Map<String, Object> params = Map.of("c", CORPUS, "n", 5L);
        long rows = widest(ReadingPrompts.RECENT_ENTITIES, params);
        assertTrue(rows <= 6, "rows read for 5 recent entities of " + NODES + ": " + rows);
        // the newest first, as the prompt shows them
        assertEquals("e299-9", TestServer.rows(ReadingPrompts.RECENT_ENTITIES, params).get(0).get("name"));
    }

    @Test
    void aDocumentsChunkCountReadsItsChunksOnly() {
        long rows = widest(ReadingPrompts.DOCUMENT_CHUNK_COUNT, Map.of("c", CORPUS, "d", "doc7"));
        assertTrue(rows <= NODES / DOCS, "rows of the widest operator for one document's chunk count: " + rows);
        assertEquals((long) NODES / DOCS, TestServer.count(ReadingPrompts.DOCUMENT_CHUNK_COUNT, Map.of("c", CORPUS, "d", "doc7")));
    }

    @Test
    void thePromptsSchemaBlockReadsOnlyTheTypesShown() {
        for (String status : RagaSchema.LISTED_STATUSES) {
            long rows = widest(RagaSchema.TYPES_OF_STATUS.formatted("RagaRelationType"), Map.of("c", CORPUS, "s", status, "n", 40L));
            assertTrue(rows <= 41, status + ": rows read for 40 of " + NODES + " types: " + rows);
        }
        // n listed leaves some out, counted on the index's entries (linear in the types, but no node is read)
        String counted = TestServer.db().executeTransactionally("PROFILE " + RagaSchema.COUNT_OF_STATUS.formatted("RagaRelationType"),
                Map.of("c", CORPUS, "s", "PROPOSED"), r -> {
                    r.forEachRemaining(row -> {});
                    return r.getExecutionPlanDescription().toString();
                });
        assertTrue(counted.contains("NodeIndexSeek") && !counted.contains("LabelScan"), counted);
        for (String label : List.of("RagaRelationType", "RagaEntityType")) {
            // the same list and count as sorting every type of the corpus: ACTIVE first, then the others newest first, by name on a tie
            List<String> sorted = TestServer.rows("MATCH (t:" + label + " {corpus: $c}) WHERE t.status <> 'REJECTED'"
                    + " RETURN t.name AS name ORDER BY t.status = 'ACTIVE' DESC, t.createdAt DESC, t.name LIMIT 70", Map.of("c", CORPUS))
                    .stream().map(r -> (String) r.get("name")).toList();
            long all = TestServer.count("MATCH (t:" + label + " {corpus: $c}) WHERE t.status <> 'REJECTED' RETURN count(t) AS n", Map.of("c", CORPUS));
            try (Transaction tx = TestServer.db().beginTx()) {
                var l = org.neo4j.graphdb.Label.label(label);
                // cuts among the ACTIVE types, at their end, and through ties among the others
                for (int n = 0; n <= sorted.size(); n += n < 25 ? 5 : 1) {
                    assertEquals(sorted.subList(0, n), RagaSchema.newestTypes(tx, l, CORPUS, n).stream().map(RagaSchema.TypeRow::name).toList(), label + ", " + n);
                }
                assertEquals(all, RagaSchema.countTypes(tx, l, CORPUS), label);
            }
        }
    }

    @Test
    void aNewRelationTypeIsComparedWithTheActiveTypesOnly() {
        long rows = widest(RagaSchema.ACTIVE_RELATION_TYPES, Map.of("c", CORPUS));
        assertEquals(NODES / 100, rows, "rows of the widest operator for the ACTIVE relation types");
    }
}
