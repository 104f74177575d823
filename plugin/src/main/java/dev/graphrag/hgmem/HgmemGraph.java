package dev.graphrag.hgmem;

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

/**
 * HGMem's graph over the shared lexical layer (docs/hgmem.md). Base graph: {@code (:HgEntity {corpus, key, name, type,
 * description, embedding, provisional, createdBySession})} unique per (corpus, name), {@code (:Chunk)-[:HG_MENTIONS]->(:HgEntity)}
 * (an entity's chunks, D_v), {@code (:HgEntity)-[:HG_RELATED {description, keywords, weight, chunkIds, embedding, provisional,
 * createdBySession}]->(:HgEntity)} once per pair from the smaller name, traversed undirected; one {@code (:HgMeta {corpus})}.
 * Memory: {@code (:HgSession {id, corpus, ...})-[:HG_HAS_UNIT]->(:HgUnit {id, sessionId, pos, ...})-[:HG_MEMBER {pos}]->(:HgEntity)},
 * {@code (:HgUnit)-[:HG_MERGED_INTO]->(:HgUnit)}, {@code (:HgSession)-[:HG_HAS_STEP]->(:HgStep {t, ...})}.
 */
public final class HgmemGraph {
    public static final Label ENTITY = Label.label("HgEntity");
    public static final Label META = Label.label("HgMeta");
    public static final Label SESSION = Label.label("HgSession");
    public static final Label UNIT = Label.label("HgUnit");
    public static final Label STEP = Label.label("HgStep");
    public static final RelationshipType MENTIONS = RelationshipType.withName("HG_MENTIONS");
    public static final RelationshipType RELATED = RelationshipType.withName("HG_RELATED");
    public static final RelationshipType HAS_UNIT = RelationshipType.withName("HG_HAS_UNIT");
    public static final RelationshipType MEMBER = RelationshipType.withName("HG_MEMBER");
    public static final RelationshipType MERGED_INTO = RelationshipType.withName("HG_MERGED_INTO");
    public static final RelationshipType HAS_STEP = RelationshipType.withName("HG_HAS_STEP");
    public static final String ENTITY_INDEX = "hgmem_entity_embedding";

    private HgmemGraph() {}

    public static String entityKey(String corpus, String name) {
        return corpus + "|" + name;
    }

    /** Constraints and indexes of the layer; idempotent; dimensions is the loaded model's. */
    public static List<String> setup(GraphDatabaseService db, int dimensions) {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("hgmem_entity_key", "CREATE CONSTRAINT hgmem_entity_key IF NOT EXISTS FOR (e:HgEntity) REQUIRE e.key IS UNIQUE");
        statements.put("hgmem_meta_corpus", "CREATE CONSTRAINT hgmem_meta_corpus IF NOT EXISTS FOR (m:HgMeta) REQUIRE m.corpus IS UNIQUE");
        statements.put("hgmem_session_id", "CREATE CONSTRAINT hgmem_session_id IF NOT EXISTS FOR (s:HgSession) REQUIRE s.id IS UNIQUE");
        statements.put("hgmem_unit_id", "CREATE CONSTRAINT hgmem_unit_id IF NOT EXISTS FOR (u:HgUnit) REQUIRE u.id IS UNIQUE");
        statements.put("hgmem_entity_corpus", "CREATE INDEX hgmem_entity_corpus IF NOT EXISTS FOR (e:HgEntity) ON (e.corpus)");
        statements.put("hgmem_unit_session", "CREATE INDEX hgmem_unit_session IF NOT EXISTS FOR (u:HgUnit) ON (u.sessionId, u.status)");
        statements.put(ENTITY_INDEX, "CREATE VECTOR INDEX " + ENTITY_INDEX + " IF NOT EXISTS FOR (e:HgEntity) ON (e.embedding)"
                + " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}");
        return LexicalGraph.ensureSchema(db, statements);
    }

    public static Node requireIndexed(Transaction tx, String corpus) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node meta = tx.findNode(META, "corpus", corpus);
        if (meta == null) throw new RagException("corpus '" + corpus + "' has no HGMem base graph yet: CALL hgmem.index({corpus: '" + corpus + "'})");
        return meta;
    }

    /** The meta node of a base graph built completely at least once with the server's embedding model; otherwise an error saying what to do. */
    public static Node requireBuilt(Transaction tx, String corpus, EmbeddingService embeddings) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node meta = LayerState.requireBuilt(tx, META, corpus, "HGMem base graph", "hgmem");
        requireSameModel(meta, corpus, embeddings);
        return meta;
    }

    static void requireSameModel(Node meta, String corpus, EmbeddingService embeddings) {
        ModelIdentity.require(meta, embeddings, corpus, "HGMem base graph", "hgmem", "its entity and relation vectors", "sessions are lost");
    }
}
