package dev.graphrag.raga;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.layer.LayerDrop.Step;
import dev.graphrag.core.layer.LayerSchema;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.util.Map;

/**
 * The RAGA layer of a corpus as a whole: its frame (schema, drop order), set up (schema, and a {@code RagaMeta} node
 * recording the embedding model its entity vectors come from), required by every raga.* call, and its info. RAGA builds
 * incrementally (each tool call commits), so its meta node is ready from the set-up on.
 */
public final class RagaLayer {
    public static final LayerSpec SPEC = LayerSpec.of("raga", "RAGA layer", RagaGraph.META)
            .schema(dimensions -> new LayerSchema() // unique, then indexed (documents by corpus too: corpora built from the same documents share titles), then searched
                    .unique("raga_entity_id", RagaGraph.ENTITY, "entityId").unique("raga_alias_uid", RagaGraph.ALIAS, "aliasUid")
                    .unique("raga_provenance_id", RagaGraph.PROVENANCE, "provId").unique("raga_todo_id", RagaGraph.FOLLOW_UP, "todoId")
                    .unique("raga_review_id", RagaGraph.REVIEW, "reviewId").unique("raga_session_id", RagaGraph.SESSION, "sessionId")
                    .unique("raga_entity_type_uid", RagaGraph.ENTITY_TYPE, "typeUid").unique("raga_relation_type_uid", RagaGraph.RELATION_TYPE, "typeUid")
                    .unique("raga_rel_id", RagaGraph.REL, "relId")
                    .index("raga_entity_corpus", RagaGraph.ENTITY, "corpus").index("raga_provenance_target", RagaGraph.PROVENANCE, "targetId")
                    .index("raga_todo_status", RagaGraph.FOLLOW_UP, "corpus", "status").index("raga_review_status", RagaGraph.REVIEW, "corpus", "status")
                    .index("raga_document_title_key", LexicalGraph.DOCUMENT, "corpus", RagaGraph.TITLE_KEY).index("raga_rel_type", RagaGraph.REL, "relType")
                    // the reading prompt's most recently touched entities, read in this index's order instead of sorting the corpus's entities per chunk
                    .index("raga_entity_recent", RagaGraph.ENTITY, "corpus", "updatedAt")
                    // the prompt's schema block lists each status's newest types, and a new relation type is compared with the
                    // ACTIVE ones only: seeks in these indexes' order instead of reading every type of the corpus per chunk
                    .index("raga_entity_type_status", RagaGraph.ENTITY_TYPE, "corpus", "status", "createdAt")
                    .index("raga_relation_type_status", RagaGraph.RELATION_TYPE, "corpus", "status", "createdAt")
                    .vector(RagaGraph.ENTITY_VECTOR_INDEX, RagaGraph.ENTITY, "embedding", dimensions)
                    .fulltext(RagaGraph.ENTITY_TEXT_INDEX, RagaGraph.ENTITY, "name", "aliasText", "description")
                    .fulltext(RagaGraph.RELATION_TEXT_INDEX, RagaGraph.REL, "relType", "description"))
            .drop(Step.relationships("mentions", LexicalGraph.CHUNK, RagaGraph.MENTIONS).inBatchesOf(5000),
                    Step.nodes("provenance", RagaGraph.PROVENANCE), Step.nodes("aliases", RagaGraph.ALIAS), Step.nodes("entities", RagaGraph.ENTITY),
                    Step.nodes("todos", RagaGraph.FOLLOW_UP), Step.nodes("review items", RagaGraph.REVIEW), Step.nodes("sessions", RagaGraph.SESSION),
                    Step.nodes("entity types", RagaGraph.ENTITY_TYPE), Step.nodes("relation types", RagaGraph.RELATION_TYPE),
                    Step.nodes("alerts", RagaGraph.ALERT),
                    Step.properties("chunk reading states", LexicalGraph.CHUNK, "ragaState", "ragaSummary", "ragaIncomplete", "ragaSessionId"),
                    Step.properties("document title keys", LexicalGraph.DOCUMENT, RagaGraph.TITLE_KEY))
            .builtBy("raga.setup")
            .build();

    /** raga.info's row, counted live; modelMatches false when entity vectors come from another model than the server's. */
    public record Info(String corpus, long entities, long relations, long deletedRelations, long aliases, long provenance, long quotesRemoved, long chunks, long chunksArchived,
                       long chunksIncomplete, long todosOpen, long reviewsOpen, long sessions, String embeddingModel, boolean modelMatches) {}

    private RagaLayer() {}

    /**
     * Schema (idempotent) and the corpus's meta node, ready from the start: RAGA builds incrementally (each tool call
     * commits), so its one "build" is the set-up, through the frame's (version, model, state); the corpus must exist.
     */
    public static void setup(GraphDatabaseService db, EmbeddingService embeddings, String corpus) {
        SPEC.ensureReady(db, corpus, embeddings);
    }

    /** The meta node of a corpus's layer; an error naming raga.setup when there is none, raga.drop when one is being dropped. */
    public static Node require(Transaction tx, String corpus) {
        return SPEC.requireBuilt(tx, corpus);
    }

    public static Info info(Transaction tx, String corpus, EmbeddingService embeddings) {
        Node meta = require(tx, corpus);
        Map<String, Long> n = LayerSpec.counts(tx, "RETURN COUNT { (:RagaEntity {corpus: $c}) } AS entities,"
                + " COUNT { (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE NOT r.deleted } AS relations,"
                + " COUNT { (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE r.deleted } AS deleted,"
                + " COUNT { (:RagaAlias {corpus: $c}) } AS aliases, COUNT { (:RagaProvenance {corpus: $c}) } AS provenance,"
                + " COUNT { (p:RagaProvenance {corpus: $c}) WHERE p.chunkId IS NOT NULL AND NOT EXISTS { (p)-[:RAGA_FROM_CHUNK]->() } } AS quotesRemoved,"
                + " COUNT { (:Chunk {corpus: $c}) } AS chunks, COUNT { (ch:Chunk {corpus: $c}) WHERE ch.ragaState = 'ARCHIVED' } AS archived,"
                + " COUNT { (ch:Chunk {corpus: $c}) WHERE ch.ragaIncomplete } AS incomplete,"
                + " COUNT { (:RagaTodo {corpus: $c, status: 'OPEN'}) } AS todos, COUNT { (:RagaReviewItem {corpus: $c, status: 'OPEN'}) } AS reviews,"
                + " COUNT { (:RagaSession {corpus: $c}) } AS sessions", corpus);
        return new Info(corpus, n.get("entities"), n.get("relations"), n.get("deleted"), n.get("aliases"), n.get("provenance"), n.get("quotesRemoved"), n.get("chunks"),
                n.get("archived"), n.get("incomplete"), n.get("todos"), n.get("reviews"), n.get("sessions"), ModelIdentity.recorded(meta),
                ModelIdentity.matches(meta, embeddings));
    }
}
