package dev.graphrag.raga;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.layer.LayerState;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The RAGA layer of a corpus as a whole: set up (schema, and a {@code RagaMeta} node recording the embedding model its
 * entity vectors come from), required by every raga.* call, and dropped in batches.
 */
public final class RagaLayer {
    private static final List<LayerDrop.Step> STEPS = List.of(
            LayerDrop.Step.nodes("provenance", RagaGraph.PROVENANCE),
            LayerDrop.Step.nodes("aliases", RagaGraph.ALIAS),
            LayerDrop.Step.nodes("entities", RagaGraph.ENTITY),
            LayerDrop.Step.nodes("todos", RagaGraph.FOLLOW_UP),
            LayerDrop.Step.nodes("review items", RagaGraph.REVIEW),
            LayerDrop.Step.nodes("sessions", RagaGraph.SESSION),
            LayerDrop.Step.nodes("entity types", RagaGraph.ENTITY_TYPE),
            LayerDrop.Step.nodes("relation types", RagaGraph.RELATION_TYPE),
            LayerDrop.Step.nodes("alerts", RagaGraph.ALERT),
            new LayerDrop.Step("chunk reading states", """
                    MATCH (c:Chunk {corpus: $corpus}) WHERE c.ragaState IS NOT NULL WITH c LIMIT $batch
                    REMOVE c.ragaState, c.ragaSummary, c.ragaIncomplete, c.ragaSessionId RETURN count(c) AS done, count(c) * 0 AS nodes, count(c) * 0 AS relationships"""),
            new LayerDrop.Step("document title keys", """
                    MATCH (d:Document {corpus: $corpus}) WHERE d.ragaTitleKey IS NOT NULL WITH d LIMIT $batch
                    REMOVE d.ragaTitleKey RETURN count(d) AS done, count(d) * 0 AS nodes, count(d) * 0 AS relationships"""),
            new LayerDrop.Step("meta node", """
                    MATCH (m:RagaMeta {corpus: $corpus}) DELETE m RETURN count(m) AS done, count(m) AS nodes, count(m) * 0 AS relationships"""));

    private RagaLayer() {}

    /** Schema (idempotent) and the corpus's meta node; the corpus must exist. */
    public static void setup(GraphDatabaseService db, EmbeddingService embeddings, String corpus) {
        try (Transaction tx = db.beginTx()) {
            LexicalGraph.requireCorpus(tx, corpus);
        }
        RagaGraph.setup(db, embeddings.dimensions());
        try (Transaction tx = db.beginTx()) {
            Node m = tx.findNode(RagaGraph.META, "corpus", corpus);
            if (m == null) {
                m = tx.createNode(RagaGraph.META);
                m.setProperty("corpus", corpus);
                m.setProperty("createdAt", ZonedDateTime.now());
                m.setProperty("state", LayerState.READY);
                m.setProperty("version", 1L);
                ModelIdentity.record(m, embeddings);
                tx.commit();
            } else if (LayerState.DROPPING.equals(LayerState.of(m))) {
                throw new RagException("the RAGA layer of corpus '" + corpus + "' is being dropped, or a drop was interrupted: CALL raga.drop({corpus: '" + corpus + "'}) finishes it");
            }
        }
    }

    /** The meta node of a corpus's layer; an error naming raga.setup / raga.ingest when there is none. */
    public static Node require(Transaction tx, String corpus) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node m = tx.findNode(RagaGraph.META, "corpus", corpus);
        if (m == null) {
            throw new RagException("corpus '" + corpus + "' has no RAGA layer yet: CALL raga.setup({corpus: '" + corpus + "'}) or raga.ingest([], {corpus: '" + corpus + "'})");
        }
        if (LayerState.DROPPING.equals(LayerState.of(m))) {
            throw new RagException("the RAGA layer of corpus '" + corpus + "' is being dropped, or a drop was interrupted: CALL raga.drop({corpus: '" + corpus + "'}) finishes it");
        }
        return m;
    }

    public static LayerDrop.Counts drop(GraphDatabaseService db, String corpus, BooleanSupplier cancelled) {
        LayerState.markDropping(db, RagaGraph.META, corpus);
        LayerDrop.Counts mentions = LayerDrop.run(db, "raga.drop", corpus, List.of(new LayerDrop.Step("mentions", """
                MATCH (:Chunk {corpus: $corpus})-[r:RAGA_MENTIONS_ENTITY]->() WITH r LIMIT $batch
                DELETE r RETURN count(r) AS done, count(r) * 0 AS nodes, count(r) AS relationships""")), 5000, cancelled);
        LayerDrop.Counts rest = LayerDrop.run(db, "raga.drop", corpus, STEPS, 2000, cancelled);
        return new LayerDrop.Counts(mentions.nodes() + rest.nodes(), mentions.relationships() + rest.relationships());
    }
}
