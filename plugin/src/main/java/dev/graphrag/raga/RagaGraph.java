package dev.graphrag.raga;

import dev.graphrag.core.lexical.Titles;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;


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

    /** Chunk reading states (docs/raga.md#our-own-rules-where-the-paper-gives-none): a chunk without a state is pending. */
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
}
