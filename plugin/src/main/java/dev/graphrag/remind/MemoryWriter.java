package dev.graphrag.remind;

import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Applies Eq. 1 to relationships in the caller's transaction (docs/remind.md#graph: memories are read from the graph by every call): write locks are taken on every target first,
 * in element-id order (so two memorisations never deadlock each other), and each memory is read only under its lock,
 * so concurrent memorisations of one edge serialise and none is lost. The traversal decided which edges; the values
 * are the ones committed when the lock was granted.
 */
final class MemoryWriter {
    enum Op { ENHANCE, PENALIZE }

    /** How many edges changed and how many an update left as they were (a penalty with p ≤ 0, or penalty none). */
    record Counts(long enhanced, long penalized, long unchanged) {}

    private MemoryWriter() {}

    static Counts apply(Transaction tx, Map<String, Op> updates, double[] queryUnit, MemoryMath.Penalty penalty) {
        TreeMap<String, Op> ordered = new TreeMap<>(updates);
        List<Relationship> rels = ordered.keySet().stream().map(tx::getRelationshipByElementId).toList();
        for (Relationship r : rels) tx.acquireWriteLock(r);
        long enhanced = 0, penalized = 0, unchanged = 0;
        ZonedDateTime now = ZonedDateTime.now();
        int i = 0;
        for (Map.Entry<String, Op> e : ordered.entrySet()) {
            Relationship r = rels.get(i++);
            double[] v = MemoryMath.toDouble(RemindGraph.floats(r.getProperty("memory", null)));
            if (e.getValue() == Op.ENHANCE) {
                write(r, MemoryMath.enhance(v, queryUnit), now);
                r.setProperty("enhanceCount", ((Number) r.getProperty("enhanceCount", 0L)).longValue() + 1);
                enhanced++;
            } else {
                double p = v == null ? 0 : MemoryMath.dot(v, queryUnit);
                if (p <= 0 || penalty == MemoryMath.Penalty.NONE) {
                    unchanged++;
                    continue;
                }
                write(r, MemoryMath.penalize(v, queryUnit, penalty), now);
                r.setProperty("penalizeCount", ((Number) r.getProperty("penalizeCount", 0L)).longValue() + 1);
                penalized++;
            }
        }
        return new Counts(enhanced, penalized, unchanged);
    }

    private static void write(Relationship r, double[] v, ZonedDateTime now) {
        r.setProperty("memory", MemoryMath.toFloat(v));
        r.setProperty("memoryNorm", MemoryMath.norm(v));
        r.setProperty("memoryUpdatedAt", now);
    }
}
