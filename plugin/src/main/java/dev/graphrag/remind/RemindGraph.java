package dev.graphrag.remind;

import dev.graphrag.core.embed.ModelIdentity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

import java.util.List;
import java.util.Set;

/**
 * ReMindRAG's layer over the shared lexical graph (docs/remind.md): {@code (:RmEntity:RmKey {corpus, key, name, embedding})},
 * one {@code (:RmAnchor:RmKey {corpus, key, chunkId, documentId, index, title, embedding})} per chunk with
 * {@code (:RmAnchor)-[:RM_HAS_CHUNK {text}]->(:Chunk)}, {@code (:RmAnchor)-[:RM_NEXT {text}]->(:RmAnchor)} in document
 * order, {@code (:RmEntity)-[:RM_MENTIONED_IN]->(:RmAnchor)}, {@code (:RmEntity)-[:RM_RELATION {text}]->(:RmEntity)},
 * and one {@code (:RmMeta {corpus})}. Every one of the four relationship types carries the edge memory
 * ({@code memory} float[], absent = zero; {@code memoryNorm}, {@code enhanceCount}, {@code penalizeCount}, {@code memoryUpdatedAt}).
 */
public final class RemindGraph {
    /** On each chunk: its last extraction and the model and prompt it came from, reused by the next build. */
    public static final String STORE = "remindExtraction";
    public static final String STORE_KEY = "remindExtractionModel";

    public static final Label ENTITY = Label.label("RmEntity");
    public static final Label ANCHOR = Label.label("RmAnchor");
    public static final Label KEY = Label.label("RmKey");
    public static final Label META = Label.label("RmMeta");
    public static final RelationshipType RELATION = RelationshipType.withName("RM_RELATION");
    public static final RelationshipType MENTIONED_IN = RelationshipType.withName("RM_MENTIONED_IN");
    public static final RelationshipType NEXT = RelationshipType.withName("RM_NEXT");
    public static final RelationshipType HAS_CHUNK = RelationshipType.withName("RM_HAS_CHUNK");
    /** The four traversable types, each with a memory vector. */
    public static final List<RelationshipType> MEMORY_TYPES = List.of(RELATION, MENTIONED_IN, NEXT, HAS_CHUNK);
    public static final Set<String> MEMORY_TYPE_NAMES = Set.of("RM_RELATION", "RM_MENTIONED_IN", "RM_NEXT", "RM_HAS_CHUNK");
    public static final String KEY_INDEX = "remind_key_embedding";

    private RemindGraph() {}

    public static String entityKey(String corpus, String name) {
        return corpus + "|" + name;
    }

    /** A stored vector as floats, whichever numeric array type wrote it (Cypher writes double[]); null otherwise. */
    static float[] floats(Object v) {
        return ModelIdentity.floats(v);
    }
}
