package dev.graphrag.demo;

import dev.graphrag.raga.RagaIngest;
import dev.graphrag.raga.RagaLayer;
import dev.graphrag.remind.RemindIndexer;
import dev.graphrag.remind.RemindLayer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.ExecutionPlanDescription;

import java.util.Map;

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
        TestServer.db().executeTransactionally("CALL db.resampleOutdatedIndexes()");
        TestServer.db().executeTransactionally("CALL db.awaitIndexes(300)");
    }

    @AfterAll
    static void drop() {
        TestServer.db().executeTransactionally("MATCH (n) WHERE n.corpus = $c AND (n:Document OR n:Chunk OR n:RmAnchor OR n:RagaEntity) DETACH DELETE n",
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
        long rows = widest(RagaIngest.RECENT_ENTITIES, params);
        assertTrue(rows <= 6, "rows read for 5 recent entities of " + NODES + ": " + rows);
        // the newest first, as the prompt shows them
        assertEquals("e299-9", TestServer.rows(RagaIngest.RECENT_ENTITIES, params).get(0).get("name"));
    }

    @Test
    void aDocumentsChunkCountReadsItsChunksOnly() {
        long rows = widest(RagaIngest.DOCUMENT_CHUNK_COUNT, Map.of("c", CORPUS, "d", "doc7"));
        assertTrue(rows <= NODES / DOCS, "rows of the widest operator for one document's chunk count: " + rows);
        assertEquals((long) NODES / DOCS, TestServer.count(RagaIngest.DOCUMENT_CHUNK_COUNT, Map.of("c", CORPUS, "d", "doc7")));
    }
}
