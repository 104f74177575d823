package dev.graphrag.core.search;

import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;

/**
 * The one place the plugin's Cypher differs between the Neo4j lines. From 2026.01 (the calendar releases) a vector
 * index can carry the corpus as a filter property ({@code CREATE VECTOR INDEX ... WITH [n.corpus]}) and Cypher 25's
 * SEARCH clause filters inside the index: a corpus's top n in one lookup. On 5.26, and for an index made before
 * (a store upgraded from 5.26), {@link VectorIndexQuery} asks {@code db.index.vector.queryNodes} for n, then 4n, ...
 * while other corpora crowd the answer. The line is read from the running server, not from the build.
 */
public final class VectorSearch {
    /** The property every indexed node of the plugin carries and every lookup filters on. */
    public static final String CORPUS = "corpus";
    static final boolean FILTERED_INDEXES = takesFilteredIndexes(org.neo4j.kernel.internal.Version.getNeo4jVersion());

    private VectorSearch() {}

    /** Whether a server of this version has vector indexes with filter properties and the SEARCH clause (2026.01 on). */
    static boolean takesFilteredIndexes(String version) {
        if (version == null) return false;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d{4})\\.(\\d{2})").matcher(version.trim());
        return m.find() && Integer.parseInt(m.group(1)) >= 2026;
    }

    /** Whether this server makes vector indexes with the corpus as a filter property. */
    public static boolean filteredIndexes() {
        return FILTERED_INDEXES;
    }

    /**
     * CREATE VECTOR INDEX for a label's property, cosine, with the corpus as a filter property where the server takes
     * one. {@code label} and {@code property} are the plugin's own names, checked by the caller.
     */
    public static String nodeIndex(String name, String label, String property, int dimensions) {
        String options = cosineOptions(dimensions);
        if (!FILTERED_INDEXES) return "CREATE VECTOR INDEX " + name + " IF NOT EXISTS FOR (n:" + label + ") ON (n." + property + ")" + options;
        return "CYPHER 25 CREATE VECTOR INDEX " + name + " IF NOT EXISTS FOR (n:" + label + ") ON (n." + property + ") WITH [n." + CORPUS + "]" + options;
    }

    /** The OPTIONS of a cosine vector index of {@code dimensions}. */
    public static String cosineOptions(int dimensions) {
        if (dimensions < 1) throw new IllegalArgumentException("vector dimensions must be positive, got " + dimensions);
        return " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}";
    }

    /** Whether the named index is a node vector index that filters by corpus (made by {@link #nodeIndex} on a calendar server). */
    static boolean filtersByCorpus(Transaction tx, String index) {
        if (!FILTERED_INDEXES) return false;
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
