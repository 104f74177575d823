package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vector lookups on each Neo4j line: on the calendar line the chunk index carries the corpus as a filter property and
 * one SEARCH answers; on 5.26 the procedure is asked again while other corpora crowd the answer. Either way a small
 * corpus beside a large, similar one gets its own best chunks, scored by their cosine to the query.
 */
class VectorSearchTest {
    static final boolean CALENDAR = "2026".equals(System.getProperty("graphrag.neo4j.line"));

    @Test
    void aSmallCorpusBesideALargeSimilarOneGetsItsOwnBestChunksScoredByCosine() {
        List<Map<String, Object>> crowd = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            crowd.add(Map.of("id", "c" + i, "text", "The jeddak of Helium rules the red city number " + i + " on Barsoom beside the dead sea bottoms."));
        }
        rows("CALL rag.ingest($docs, {corpus: 'vs_crowd'})", Map.of("docs", crowd));
        rows("CALL rag.ingest($docs, {corpus: 'vs_small'})", Map.of("docs", List.of(
                Map.of("id", "s1", "text", "The jeddak of Helium is Tardos Mors, grandfather of Dejah Thoris."),
                Map.of("id", "s2", "text", "Quarterly revenue of the company rose by four percent."),
                Map.of("id", "s3", "text", "A recipe for bread needs flour, water, salt and yeast."))));

        List<Map<String, Object>> hits = rows("CALL rag.search('Who is the jeddak of Helium?', {corpus: 'vs_small', mode: 'dense', k: 3})"
                + " YIELD documentId, chunkId, denseScore RETURN documentId, chunkId, denseScore", Map.of());
        assertEquals(3, hits.size(), "all three of the small corpus's chunks, though 60 closer ones belong to another corpus");
        assertEquals("s1", hits.get(0).get("documentId"));
        for (Map<String, Object> h : hits) {
            double cos = ((Number) rows("MATCH (c:Chunk {id: $id}) WITH c, $q AS q RETURN vector.similarity.cosine(c.embedding, q) AS s",
                    Map.of("id", h.get("chunkId"), "q", queryVector())).get(0).get("s")).doubleValue();
            // vector.similarity.cosine is (1 + cos) / 2, as the index's score; the index scores its quantised copy of the vectors
            assertEquals(2 * cos - 1, ((Number) h.get("denseScore")).doubleValue(), 5e-3, h.toString());
        }

        @SuppressWarnings("unchecked")
        List<String> properties = (List<String>) rows("SHOW VECTOR INDEXES YIELD name, properties WHERE name = 'rag_chunk_embedding' RETURN properties",
                Map.of()).get(0).get("properties");
        assertEquals(CALENDAR, properties.contains("corpus"), "the chunk index filters by corpus on the calendar line only: " + properties);
    }

    static List<Double> queryVector() {
        @SuppressWarnings("unchecked")
        List<Double> v = (List<Double>) rows("RETURN rag.embed('Who is the jeddak of Helium?') AS embedding", Map.of()).get(0).get("embedding");
        assertTrue(v.size() > 100);
        return v;
    }
}
