package dev.graphrag.raga;

import dev.graphrag.core.embed.EmbeddingService;
import org.neo4j.graphdb.Transaction;

/** What every group of RAGA's tools works in: the caller's transaction, the embedder, the call's context, the store and the schema. */
abstract class ToolGroup {
    /** One tool call's surroundings, shared by its groups. */
    record Scope(Transaction tx, EmbeddingService embeddings, ToolContext ctx, KnowledgeStore store, RagaSchema schema) {}

    protected final Transaction tx;
    protected final EmbeddingService embeddings;
    protected final ToolContext ctx;
    protected final KnowledgeStore store;
    protected final RagaSchema schema;

    ToolGroup(Scope scope) {
        this.tx = scope.tx();
        this.embeddings = scope.embeddings();
        this.ctx = scope.ctx();
        this.store = scope.store();
        this.schema = scope.schema();
    }
}
