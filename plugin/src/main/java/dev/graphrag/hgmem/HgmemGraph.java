package dev.graphrag.hgmem;

import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

/**
 * HGMem's graph over the shared lexical layer (docs/hgmem.md). Base graph: {@code (:HgEntity {corpus, key, name, type,
 * description, embedding, provisional, createdBySession})} unique per (corpus, name), {@code (:Chunk)-[:HG_MENTIONS]->(:HgEntity)}
 * (an entity's chunks, D_v), {@code (:HgEntity)-[:HG_RELATED {description, keywords, weight, chunkIds, embedding, provisional,
 * createdBySession}]->(:HgEntity)} once per pair from the smaller name, traversed undirected; one {@code (:HgMeta {corpus})}.
 * Memory: {@code (:HgSession {id, corpus, ...})-[:HG_HAS_UNIT]->(:HgUnit {id, sessionId, pos, ...})-[:HG_MEMBER {pos}]->(:HgEntity)},
 * {@code (:HgUnit)-[:HG_MERGED_INTO]->(:HgUnit)}, {@code (:HgSession)-[:HG_HAS_STEP]->(:HgStep {t, ...})}.
 */
public final class HgmemGraph {
    /** On each chunk: its last extraction (X1) and the model and prompt it came from, reused by the next build. */
    public static final String STORE = "hgmemExtraction";
    public static final String STORE_KEY = "hgmemExtractionModel";

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
}
