package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.layer.LayerState;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The ReMind layer as a whole: dropping it in batches, and its memories' statistics and reset. Statements name only
 * the four fixed relationship types (a caller's relTypes are checked against them, never spliced).
 */
public final class RemindLayer {
    /** One type's memory statistics. */
    public record MemoryStats(String relType, long edges, long nonZero, double meanNorm, double maxNorm) {}

    private static final List<LayerDrop.Step> STEPS = List.of(
            LayerDrop.Step.nodes("anchors", RemindGraph.ANCHOR),
            LayerDrop.Step.nodes("entities", RemindGraph.ENTITY),
            new LayerDrop.Step("stored extractions", """
                    MATCH (c:Chunk {corpus: $corpus}) WHERE c.remindExtraction IS NOT NULL WITH c LIMIT $batch
                    REMOVE c.remindExtraction, c.remindExtractionModel RETURN count(c) AS done, count(c) * 0 AS nodes, count(c) * 0 AS relationships"""),
            new LayerDrop.Step("meta node", """
                    MATCH (m:RmMeta {corpus: $corpus}) DELETE m RETURN count(m) AS done, count(m) AS nodes, count(m) * 0 AS relationships"""));

    /** Each memory type with the label of its start node (every start node carries the corpus). */
    private static final Map<String, String> START = Map.of("RM_RELATION", "RmEntity", "RM_MENTIONED_IN", "RmEntity", "RM_NEXT", "RmAnchor",
            "RM_HAS_CHUNK", "RmAnchor");
    public static final List<String> TYPE_ORDER = List.of("RM_RELATION", "RM_MENTIONED_IN", "RM_NEXT", "RM_HAS_CHUNK");

    private RemindLayer() {}

    /** The meta node says "dropping" first (queries then refuse), then anchors, entities, stored extractions, the meta node last. */
    public static LayerDrop.Counts drop(GraphDatabaseService db, String corpus, BooleanSupplier cancelled) {
        LayerState.markDropping(db, RemindGraph.META, corpus);
        return LayerDrop.run(db, "remind.drop", corpus, STEPS, 2000, cancelled);
    }

    public static List<String> checkTypes(String owner, List<String> relTypes) {
        for (String t : relTypes) {
            if (!START.containsKey(t)) throw new RagException(owner + ": relTypes may hold only " + TYPE_ORDER + ", got '" + t + "'");
        }
        return TYPE_ORDER.stream().filter(relTypes::contains).toList();
    }

    public static List<MemoryStats> stats(Transaction tx, String corpus, List<String> types) {
        List<MemoryStats> out = new ArrayList<>();
        for (String t : types) {
            try (Result r = tx.execute("MATCH (:" + START.get(t) + " {corpus: $c})-[r:" + t + "]->() RETURN count(r) AS edges,"
                    + " count(CASE WHEN r.memoryNorm > 0 THEN 1 END) AS nonZero, coalesce(avg(coalesce(r.memoryNorm, 0.0)), 0.0) AS mean,"
                    + " coalesce(max(r.memoryNorm), 0.0) AS max", Map.of("c", corpus))) {
                Map<String, Object> row = r.next();
                out.add(new MemoryStats(t, ((Number) row.get("edges")).longValue(), ((Number) row.get("nonZero")).longValue(),
                        ((Number) row.get("mean")).doubleValue(), ((Number) row.get("max")).doubleValue()));
            }
        }
        return out;
    }

    /** Forgets the memories of the given types, in the caller's transaction; returns how many relationships had one. */
    public static long reset(Transaction tx, String corpus, List<String> types) {
        long n = 0;
        for (String t : types) {
            try (Result r = tx.execute("MATCH (:" + START.get(t) + " {corpus: $c})-[r:" + t + "]->() WHERE r.memory IS NOT NULL OR r.memoryNorm IS NOT NULL"
                    + " REMOVE r.memory, r.memoryNorm, r.enhanceCount, r.penalizeCount, r.memoryUpdatedAt RETURN count(r) AS n", Map.of("c", corpus))) {
                n += ((Number) r.next().get("n")).longValue();
            }
        }
        return n;
    }
}
