package dev.graphrag.raga;

import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.lexical.Titles;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RAGA's graph over the shared lexical layer (docs/raga.md). Documents and chunks are rag.ingest's ({@code :Document},
 * {@code :Chunk} with {@code corpus}); RAGA adds per chunk {@code ragaState}, {@code ragaSummary}, {@code ragaIncomplete}, and
 * its own nodes, each with {@code corpus}: {@code RagaEntity {entityId}}, {@code RagaAlias {aliasUid = corpus|key}} (one
 * entity per key), {@code RagaProvenance {provId}}, {@code RagaTodo}, {@code RagaReviewItem}, {@code RagaSession},
 * {@code RagaEntityType}/{@code RagaRelationType {typeUid = corpus|name}}, {@code RagaAlert}, one {@code RagaMeta}.
 * KG edges are one generic type, {@code (:RagaEntity)-[:RAGA_REL {relId, relType, ...}]->(:RagaEntity)}, so indexes stay
 * static while the agent invents relation types.
 */
public final class RagaGraph {
    public static final Label ENTITY = Label.label("RagaEntity");
    public static final Label ALIAS = Label.label("RagaAlias");
    public static final Label PROVENANCE = Label.label("RagaProvenance");
    public static final Label FOLLOW_UP = Label.label("RagaTodo"); // the agent's open tasks
    public static final Label REVIEW = Label.label("RagaReviewItem");
    public static final Label SESSION = Label.label("RagaSession");
    public static final Label ENTITY_TYPE = Label.label("RagaEntityType");
    public static final Label RELATION_TYPE = Label.label("RagaRelationType");
    public static final Label ALERT = Label.label("RagaAlert");
    public static final Label META = Label.label("RagaMeta");
    public static final RelationshipType REL = RelationshipType.withName("RAGA_REL");
    public static final RelationshipType MENTIONS = RelationshipType.withName("RAGA_MENTIONS_ENTITY");
    public static final RelationshipType EVIDENCED_BY = RelationshipType.withName("RAGA_EVIDENCED_BY");
    public static final RelationshipType FROM_CHUNK = RelationshipType.withName("RAGA_FROM_CHUNK");
    public static final RelationshipType ALIAS_OF = RelationshipType.withName("RAGA_ALIAS_OF");
    public static final RelationshipType ABOUT = RelationshipType.withName("RAGA_ABOUT");
    public static final RelationshipType RAISED_IN = RelationshipType.withName("RAGA_RAISED_IN");
    public static final String ENTITY_VECTOR_INDEX = "raga_entity_embedding";
    public static final String ENTITY_TEXT_INDEX = "raga_entity_text";
    public static final String RELATION_TEXT_INDEX = "raga_relation_text";
    /** On a corpus's Documents: the NameKey of the title without its disambiguator, so an entity finds the document about it. */
    public static final String TITLE_KEY = "ragaTitleKey";

    /** Chunk reading states (spec §2.3): a chunk without a state is pending. */
    public static final String READING = "READING";
    public static final String VERIFIED = "VERIFIED";
    public static final String ARCHIVED = "ARCHIVED";

    private RagaGraph() {}

    /** The title key of a document title ("Brother (Pearl Jam song)" -> "brother"); null when the title names nothing. */
    public static String titleKey(String title) {
        String key = NameKey.of(Titles.withoutDisambiguator(title));
        return key.isEmpty() ? null : key;
    }

    public static String uid(String corpus, String key) {
        return corpus + "|" + key;
    }

    /** Constraints and indexes of the layer; idempotent; dimensions is the loaded model's. */
    public static List<String> setup(GraphDatabaseService db, int dimensions) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("raga_entity_id", "CREATE CONSTRAINT raga_entity_id IF NOT EXISTS FOR (e:RagaEntity) REQUIRE e.entityId IS UNIQUE");
        s.put("raga_alias_uid", "CREATE CONSTRAINT raga_alias_uid IF NOT EXISTS FOR (a:RagaAlias) REQUIRE a.aliasUid IS UNIQUE");
        s.put("raga_provenance_id", "CREATE CONSTRAINT raga_provenance_id IF NOT EXISTS FOR (p:RagaProvenance) REQUIRE p.provId IS UNIQUE");
        s.put("raga_todo_id", "CREATE CONSTRAINT raga_todo_id IF NOT EXISTS FOR (t:RagaTodo) REQUIRE t.todoId IS UNIQUE");
        s.put("raga_review_id", "CREATE CONSTRAINT raga_review_id IF NOT EXISTS FOR (r:RagaReviewItem) REQUIRE r.reviewId IS UNIQUE");
        s.put("raga_session_id", "CREATE CONSTRAINT raga_session_id IF NOT EXISTS FOR (s:RagaSession) REQUIRE s.sessionId IS UNIQUE");
        s.put("raga_entity_type_uid", "CREATE CONSTRAINT raga_entity_type_uid IF NOT EXISTS FOR (t:RagaEntityType) REQUIRE t.typeUid IS UNIQUE");
        s.put("raga_relation_type_uid", "CREATE CONSTRAINT raga_relation_type_uid IF NOT EXISTS FOR (t:RagaRelationType) REQUIRE t.typeUid IS UNIQUE");
        s.put("raga_meta_corpus", "CREATE CONSTRAINT raga_meta_corpus IF NOT EXISTS FOR (m:RagaMeta) REQUIRE m.corpus IS UNIQUE");
        s.put("raga_rel_id", "CREATE CONSTRAINT raga_rel_id IF NOT EXISTS FOR ()-[r:RAGA_REL]-() REQUIRE r.relId IS UNIQUE");
        s.put("raga_entity_corpus", "CREATE INDEX raga_entity_corpus IF NOT EXISTS FOR (e:RagaEntity) ON (e.corpus)");
        s.put("raga_provenance_target", "CREATE INDEX raga_provenance_target IF NOT EXISTS FOR (p:RagaProvenance) ON (p.targetId)");
        s.put("raga_todo_status", "CREATE INDEX raga_todo_status IF NOT EXISTS FOR (t:RagaTodo) ON (t.corpus, t.status)");
        s.put("raga_review_status", "CREATE INDEX raga_review_status IF NOT EXISTS FOR (r:RagaReviewItem) ON (r.corpus, r.status)");
        // by corpus too: corpora built from the same documents share titles
        s.put("raga_document_title_key", "CREATE INDEX raga_document_title_key IF NOT EXISTS FOR (d:Document) ON (d.corpus, d." + TITLE_KEY + ")");
        s.put("raga_rel_type", "CREATE INDEX raga_rel_type IF NOT EXISTS FOR ()-[r:RAGA_REL]-() ON (r.relType)");
        s.put(ENTITY_VECTOR_INDEX, "CREATE VECTOR INDEX " + ENTITY_VECTOR_INDEX + " IF NOT EXISTS FOR (e:RagaEntity) ON (e.embedding)"
                + " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}");
        s.put(ENTITY_TEXT_INDEX, "CREATE FULLTEXT INDEX " + ENTITY_TEXT_INDEX + " IF NOT EXISTS FOR (e:RagaEntity) ON EACH [e.name, e.aliasText, e.description]");
        s.put(RELATION_TEXT_INDEX, "CREATE FULLTEXT INDEX " + RELATION_TEXT_INDEX + " IF NOT EXISTS FOR ()-[r:RAGA_REL]-() ON EACH [r.relType, r.description]");
        return LexicalGraph.ensureSchema(db, s);
    }
}
