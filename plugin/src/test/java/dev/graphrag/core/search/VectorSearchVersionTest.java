package dev.graphrag.core.search;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which servers get corpus-filtered vector indexes and the SEARCH clause, read from the version the server reports. */
@LineIndependent
class VectorSearchVersionTest {
    @Test
    void calendarReleasesFrom2026FilterInTheIndexAndOthersDoNot() {
        assertTrue(dev.graphrag.core.lexical.VectorIndexes.takesFilteredIndexes("2026.09.0"));
        assertTrue(dev.graphrag.core.lexical.VectorIndexes.takesFilteredIndexes("2026.01.4"));
        assertTrue(dev.graphrag.core.lexical.VectorIndexes.takesFilteredIndexes("2027.02.0-SNAPSHOT"));
        for (String older : new String[] {"5.26.30", "2025.10.1", "4.4.0", "dev", "", null}) {
            assertEquals(false, dev.graphrag.core.lexical.VectorIndexes.takesFilteredIndexes(older), String.valueOf(older));
        }
    }

    @Test
    void theSearchQueryNamesOnlyThePluginsOwnIndexes() {
        assertTrue(VectorSearch.searchQuery("rag_chunk_embedding").contains("VECTOR INDEX rag_chunk_embedding FOR $v WHERE node.corpus = $corpus LIMIT $n"));
        assertThrows(IllegalArgumentException.class, () -> VectorSearch.searchQuery("x) RETURN 1 //"));
        assertThrows(IllegalArgumentException.class, () -> dev.graphrag.core.lexical.VectorIndexes.nodeIndex("i", "Chunk", "embedding", 0));
    }
}
