package dev.graphrag.agrag;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The corpus's GDS projection for PPR (docs/agrag.md#the-graph-in-memory-and-in-gds): entities and chunks, AG_REL/AG_SYNONYM/AG_CONTAINS
 * undirected with pprWeight, rebuilt after each index so it is current and warm for queries. Without GDS
 * installed the plugin runs the same PPR natively.
 */
public final class AgragProjection {
    private AgragProjection() {}

    private static volatile Boolean gds;

    public static boolean gdsAvailable(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx()) {
            return gdsAvailable(tx);
        }
    }

    /**
     * Whether GDS's procedures are installed. A yes is remembered (plugins do not go away while the server runs); a
     * no is asked again, since procedures may still be registering when a database first turns available.
     */
    public static boolean gdsAvailable(Transaction tx) {
        if (Boolean.TRUE.equals(gds)) return true;
        boolean known;
        try (Result r = tx.execute("SHOW PROCEDURES YIELD name WHERE name = 'gds.pageRank.stream' RETURN count(*) AS n")) {
            known = ((Number) r.next().get("n")).longValue() > 0;
        }
        if (known) gds = true;
        return known;
    }

    /** The projection's name and size. */
    public record Projected(String graphName, long nodeCount, long relationshipCount) {}

    /** Drops and re-creates the projection in its own transaction; false when GDS is not installed. */
    public static boolean project(GraphDatabaseService db, String corpus) {
        try (Transaction tx = db.beginTx()) {
            boolean projected = project(tx, corpus) != null;
            tx.commit();
            return projected;
        }
    }

    /** Drops and re-creates the projection in the caller's transaction (GDS procedures are READ); null without GDS. */
    public static Projected project(Transaction tx, String corpus) {
        if (!gdsAvailable(tx)) return null;
        String name = AgragGraph.projectionName(corpus);
        synchronized (lock(corpus)) {
            consume(tx.execute("CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName", Map.of("name", name)));
            try (Result r = tx.execute("""
                    MATCH (s)-[r:AG_REL|AG_SYNONYM|AG_CONTAINS]->(t)
                    WHERE s.corpus = $corpus AND t.corpus = $corpus
                    WITH gds.graph.project($name, s, t, {relationshipProperties: {pprWeight: coalesce(r.pprWeight, 1.0)}},
                                           {undirectedRelationshipTypes: ['*']}) AS g
                    RETURN g.nodeCount AS nodes, g.relationshipCount AS relationships""", Map.of("corpus", corpus, "name", name))) {
                Map<String, Object> row = r.next();
                // a layer without edges (no entities found) projects nothing: GDS returns no graph, not an empty one
                if (row.get("nodes") == null) return new Projected(name, 0, 0);
                return new Projected(name, ((Number) row.get("nodes")).longValue(), ((Number) row.get("relationships")).longValue());
            }
        }
    }

    /**
     * Projects the corpus when GDS is installed and the projection is missing (projections live in memory, so a
     * restart loses them); true when a projection is there afterwards.
     */
    public static boolean ensureProjected(Transaction tx, String corpus) {
        if (!gdsAvailable(tx)) return false;
        if (exists(tx, corpus)) return true;
        synchronized (lock(corpus)) {
            if (!exists(tx, corpus)) project(tx, corpus);
        }
        return true;
    }

    private static final Map<String, Object> LOCKS = new java.util.concurrent.ConcurrentHashMap<>();

    private static Object lock(String corpus) {
        return LOCKS.computeIfAbsent(corpus, c -> new Object());
    }

    public static void drop(GraphDatabaseService db, String corpus) {
        if (!gdsAvailable(db)) return;
        try (Transaction tx = db.beginTx()) {
            consume(tx.execute("CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName", Map.of("name", AgragGraph.projectionName(corpus))));
            tx.commit();
        }
    }

    /** PPR through GDS in the caller's transaction: node id -> raw score. */
    public static Map<Long, Double> pageRank(Transaction tx, String corpus, List<Long> sourceNodeIds, double damping, double tolerance,
                                             int maxIterations, boolean weighted) {
        String name = AgragGraph.projectionName(corpus);
        Map<Long, Double> out = new HashMap<>();
        Map<String, Object> config = new HashMap<>(Map.of("sourceNodes", sourceNodeIds, "dampingFactor", damping, "tolerance", tolerance,
                "maxIterations", maxIterations));
        if (weighted) config.put("relationshipWeightProperty", "pprWeight");
        try (Result r = tx.execute("CALL gds.pageRank.stream($name, $config) YIELD nodeId, score RETURN nodeId, score",
                Map.of("name", name, "config", config))) {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                out.put(((Number) row.get("nodeId")).longValue(), ((Number) row.get("score")).doubleValue());
            }
        }
        return out;
    }

    /** A nested query runs only as far as its result is read. */
    private static void consume(Result r) {
        try (r) {
            while (r.hasNext()) r.next();
        }
    }

    public static boolean exists(Transaction tx, String corpus) {
        try (Result r = tx.execute("CALL gds.graph.exists($name) YIELD exists RETURN exists", Map.of("name", AgragGraph.projectionName(corpus)))) {
            return (Boolean) r.next().get("exists");
        }
    }
}
