package dev.graphrag.core.search;

import dev.graphrag.core.lexical.VectorIndexes;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;

/**
 * The one place the plugin's vector lookups differ between the Neo4j lines (the indexes are made by
 * {@link VectorIndexes}). From 2026.01 (the calendar releases) a vector
 * index can carry the corpus as a filter property ({@code CREATE VECTOR INDEX ... WITH [n.corpus]}) and Cypher 25's
 * SEARCH clause filters inside the index: a corpus's top n in one lookup. On 5.26, and for an index made before
 * (a store upgraded from 5.26), {@link VectorIndexQuery} asks {@code db.index.vector.queryNodes} for n, then 4n, ...
 * while other corpora crowd the answer. The line is read from the running server, not from the build.
 */
public final class VectorSearch {
    /** The property every indexed node of the plugin carries and every lookup filters on. */
    public static final String CORPUS = VectorIndexes.CORPUS;

    private VectorSearch() {}

    /** Whether the named index is a node vector index that filters by corpus (made by VectorIndexes.nodeIndex on a calendar server). */
    static boolean filtersByCorpus(Transaction tx, String index) {
        if (!VectorIndexes.filteredIndexes()) return false;
        try {
            IndexDefinition d = tx.schema().getIndexByName(index);
            if (!d.isNodeIndex()) return false;
            for (String key : d.getPropertyKeys()) if (key.equals(CORPUS)) return true;
            return false;
        } catch (IllegalArgumentException missing) {
            return false;
        }
    }

    /** Whether the named index exists and answers queries (not still populating, not failed). */
    public static boolean online(Transaction tx, String index) {
        try {
            return tx.schema().getIndexState(tx.schema().getIndexByName(index)) == org.neo4j.graphdb.schema.Schema.IndexState.ONLINE;
        } catch (IllegalArgumentException missing) {
            return false;
        }
    }

    /** The SEARCH clause for a corpus-filtered node index: the index name is the plugin's own constant, never user text. */
    static String searchQuery(String index) {
        if (!index.matches("[a-z_]+")) throw new IllegalArgumentException("index name " + index);
        return "CYPHER 25 MATCH (node) SEARCH node IN (VECTOR INDEX " + index + " FOR $v WHERE node." + CORPUS + " = $corpus LIMIT $n)"
                + " SCORE AS score RETURN node, score";
    }
}
