package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.layer.LayerDrop.Step;
import dev.graphrag.core.layer.LayerInfo;
import dev.graphrag.core.layer.LayerSchema;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ReMind layer as a whole: its frame (schema, drop order, model check), its info, and its memories' statistics and reset. Statements name only
 * the four fixed relationship types (a caller's relTypes are checked against them, never spliced).
 */
public final class RemindLayer {
    /** One type's memory statistics. */
    public record MemoryStats(String relType, long edges, long nonZero, double meanNorm, double maxNorm) {}

    public static final LayerSpec SPEC = LayerSpec.of("remind", "ReMind layer", RemindGraph.META)
            .schema(dimensions -> new LayerSchema() // unique, then indexed, then embedded
                    .unique("remind_entity_key", RemindGraph.ENTITY, "key").unique("remind_anchor_key", RemindGraph.ANCHOR, "key")
                    .index("remind_entity_corpus", RemindGraph.ENTITY, "corpus").index("remind_anchor_corpus", RemindGraph.ANCHOR, "corpus")
                    // chaining a document's anchors looks them up by document: by corpus alone each lookup read the whole corpus's anchors
                    .index("remind_anchor_document", RemindGraph.ANCHOR, "corpus", "documentId")
                    .vector(RemindGraph.KEY_INDEX, RemindGraph.KEY, "embedding", dimensions))
            .drop(Step.nodes("anchors", RemindGraph.ANCHOR), Step.nodes("entities", RemindGraph.ENTITY),
                    Step.properties("stored extractions", LexicalGraph.CHUNK, RemindGraph.STORE, RemindGraph.STORE_KEY))
            .vectors("its entity embeddings and edge memories", "memories are lost")
            .build();

    /** remind.info's row: the sizes and settings the last complete build recorded. */
    public record Info(String corpus, long version, String state, boolean chunksChanged, long chunksRemoved, long chunksNew, long anchors, long entities, long relations, long mentions,
                       long nextEdges, String embeddingModel, long embeddingDimensions, double synonymThreshold) {}

    /** Each memory type with the label of its start node (every start node carries the corpus). */
    private static final Map<String, String> START = Map.of("RM_RELATION", "RmEntity", "RM_MENTIONED_IN", "RmEntity", "RM_NEXT", "RmAnchor",
            "RM_HAS_CHUNK", "RmAnchor");
    public static final List<String> TYPE_ORDER = List.of("RM_RELATION", "RM_MENTIONED_IN", "RM_NEXT", "RM_HAS_CHUNK");

    private RemindLayer() {}

    public static Info info(Transaction tx, String corpus) {
        LayerInfo i = SPEC.info(tx, corpus);
        // what the lexical graph lost or gained since the build: anchors without their chunk, chunks without an anchor
        Map<String, Long> pending = LayerSpec.counts(tx, """
                RETURN COUNT { (a:RmAnchor {corpus: $c}) WHERE NOT (a)-[:RM_HAS_CHUNK]->() } AS removed,
                       COUNT { (k:Chunk {corpus: $c}) WHERE NOT (k)<-[:RM_HAS_CHUNK]-() } AS added""", corpus);
        return new Info(corpus, i.version(), i.state(), i.chunksChanged(), pending.get("removed"), pending.get("added"), i.recorded("anchors"), i.recorded("entities"), i.recorded("relations"),
                i.recorded("mentions"), i.recorded("nextEdges"), i.embeddingModel(), i.recorded("embeddingDimensions"),
                (Double) i.meta().getProperty("synonymThreshold", 0.0));
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
