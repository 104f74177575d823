package dev.graphrag.core.lexical;

/**
 * How the plugin's vector indexes are made on the running server's line. From 2026.01 (the calendar releases) a vector
 * index can carry the corpus as a filter property ({@code CREATE VECTOR INDEX ... WITH [n.corpus]}), which
 * core.search's lookups then filter inside the index; on 5.26 it cannot. The line is read from the running server.
 */
public final class VectorIndexes {
    /** The property every indexed node of the plugin carries and every lookup filters on. */
    public static final String CORPUS = "corpus";
    static final boolean FILTERED_INDEXES = takesFilteredIndexes(org.neo4j.kernel.internal.Version.getNeo4jVersion());

    private VectorIndexes() {}

    /** Whether a server of this version has vector indexes with filter properties and the SEARCH clause (2026.01 on). */
    public static boolean takesFilteredIndexes(String version) {
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
}
