package dev.graphrag.core;

import org.neo4j.graphdb.GraphDatabaseService;

import java.util.List;

/**
 * Loads a method layer's in-memory state (snapshots, GDS projections) when a database becomes available, so the
 * first query after a restart does not pay for it. The procedures module lists each method's; the server's warm-up
 * extension calls each for every corpus it names, in Java, on a background thread.
 */
public interface LayerWarmer {
    /** The layer, for log lines ("agrag"). */
    String layer();

    /** Whether the method's own setting asks for warming. */
    boolean enabled(GraphRagRuntime runtime);

    /** The corpora of this database that have a built layer. */
    List<String> corpora(GraphDatabaseService db);

    /** Warms one corpus; returns a short account for the log. */
    String warm(GraphDatabaseService db, String corpus, GraphRagRuntime runtime);
}
