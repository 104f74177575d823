package dev.graphrag.agrag;

import dev.graphrag.core.layer.LayerCache;
import dev.graphrag.core.layer.LayerDrop;
import org.neo4j.graphdb.GraphDatabaseService;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * agrag.drop's work: the corpus's AGRAG layer removed in batches, in any state, its caches and projection with it.
 * (Each step's zero columns are aggregates, count(..) * 0: a literal next to an aggregate would group, and give no row.)
 */
public final class AgragLayer {
    private static final List<LayerDrop.Step> STEPS = List.of(
            LayerDrop.Step.nodes("entities", AgragGraph.ENTITY),
            new LayerDrop.Step("title links", """
                    MATCH (:Chunk {corpus: $corpus})-[l:AG_LINKS]->() WITH l LIMIT $batch DELETE l
                    RETURN count(*) AS done, count(*) * 0 AS nodes, count(*) AS relationships"""),
            new LayerDrop.Step("stored triples", """
                    MATCH (c:Chunk {corpus: $corpus}) WHERE c.agragTriples IS NOT NULL WITH c LIMIT $batch
                    REMOVE c.agragTriples, c.agragTriplesModel RETURN count(c) AS done, count(c) * 0 AS nodes, count(c) * 0 AS relationships"""),
            new LayerDrop.Step("meta node", """
                    MATCH (m:AgMeta {corpus: $corpus}) DELETE m RETURN count(m) AS done, count(m) AS nodes, count(m) * 0 AS relationships"""));

    private AgragLayer() {}

    /**
     * Drops the layer: first the meta node says "dropping" (queries then refuse instead of reading a layer going
     * away), then entities, title links and stored triples go in batches, the meta node last. Returns {nodes, relationships}.
     */
    public static LayerDrop.Counts drop(GraphDatabaseService db, String databaseName, LayerCache cache, String corpus, BooleanSupplier cancelled) {
        dev.graphrag.core.layer.LayerState.markDropping(db, AgragGraph.META, corpus);
        AgragRetriever.invalidate(cache, databaseName, corpus);
        LayerDrop.Counts n = LayerDrop.run(db, "agrag.drop", corpus, STEPS, 2000, cancelled);
        AgragProjection.drop(db, corpus);
        AgragRetriever.invalidate(cache, databaseName, corpus);
        return n;
    }
}
