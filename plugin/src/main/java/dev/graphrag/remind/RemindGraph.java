package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.layer.LayerState;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** Constraints and indexes of the layer; idempotent; dimensions is the loaded model's. */
    public static List<String> setup(GraphDatabaseService db, int dimensions) {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("remind_entity_key", "CREATE CONSTRAINT remind_entity_key IF NOT EXISTS FOR (e:RmEntity) REQUIRE e.key IS UNIQUE");
        statements.put("remind_anchor_key", "CREATE CONSTRAINT remind_anchor_key IF NOT EXISTS FOR (a:RmAnchor) REQUIRE a.key IS UNIQUE");
        statements.put("remind_meta_corpus", "CREATE CONSTRAINT remind_meta_corpus IF NOT EXISTS FOR (m:RmMeta) REQUIRE m.corpus IS UNIQUE");
        statements.put("remind_entity_corpus", "CREATE INDEX remind_entity_corpus IF NOT EXISTS FOR (e:RmEntity) ON (e.corpus)");
        statements.put("remind_anchor_corpus", "CREATE INDEX remind_anchor_corpus IF NOT EXISTS FOR (a:RmAnchor) ON (a.corpus)");
        statements.put(KEY_INDEX, "CREATE VECTOR INDEX " + KEY_INDEX + " IF NOT EXISTS FOR (k:RmKey) ON (k.embedding)"
                + " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}");
        return LexicalGraph.ensureSchema(db, statements);
    }

    public static Node requireIndexed(Transaction tx, String corpus) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node meta = tx.findNode(META, "corpus", corpus);
        if (meta == null) throw new RagException("corpus '" + corpus + "' has no ReMind layer yet: CALL remind.index({corpus: '" + corpus + "'})");
        return meta;
    }

    /** The meta node of a layer built completely at least once, whose embedding model is the server's; otherwise an error saying what to do. */
    public static Node requireBuilt(Transaction tx, String corpus, EmbeddingService embeddings) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node meta = LayerState.requireBuilt(tx, META, corpus, "ReMind layer", "remind");
        requireSameModel(meta, corpus, embeddings);
        return meta;
    }

    /** Refuses a layer whose entity and anchor embeddings (and so its memories) come from another model than the server's. */
    public static void requireSameModel(Node meta, String corpus, EmbeddingService embeddings) {
        ModelIdentity.require(meta, embeddings, corpus, "ReMind layer", "remind", "its entity embeddings and edge memories", "memories are lost");
    }

    /** A stored vector as floats, whichever numeric array type wrote it (Cypher writes double[]); null otherwise. */
    static float[] floats(Object v) {
        return ModelIdentity.floats(v);
    }

}
