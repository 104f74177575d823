package dev.graphrag.hgmem;

import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.layer.LayerState;
import org.neo4j.graphdb.GraphDatabaseService;

import java.util.List;
import java.util.function.BooleanSupplier;

/** The HGMem layer of a corpus as a whole: dropped in batches (sessions first, since their units hold base-graph entities). */
public final class HgmemLayer {
    private static final List<LayerDrop.Step> STEPS = List.of(
            LayerDrop.Step.nodes("session steps", HgmemGraph.STEP),
            LayerDrop.Step.nodes("memory units", HgmemGraph.UNIT),
            LayerDrop.Step.nodes("sessions", HgmemGraph.SESSION),
            LayerDrop.Step.nodes("entities", HgmemGraph.ENTITY),
            new LayerDrop.Step("stored extractions", """
                    MATCH (c:Chunk {corpus: $corpus}) WHERE c.hgmemExtraction IS NOT NULL WITH c LIMIT $batch
                    REMOVE c.hgmemExtraction, c.hgmemExtractionModel RETURN count(c) AS done, count(c) * 0 AS nodes, count(c) * 0 AS relationships"""),
            new LayerDrop.Step("meta node", """
                    MATCH (m:HgMeta {corpus: $corpus}) DELETE m RETURN count(m) AS done, count(m) AS nodes, count(m) * 0 AS relationships"""));

    private HgmemLayer() {}

    /** The meta node says "dropping" first (queries then refuse), then sessions, entities, stored extractions, the meta node last. */
    public static LayerDrop.Counts drop(GraphDatabaseService db, String corpus, BooleanSupplier cancelled) {
        LayerState.markDropping(db, HgmemGraph.META, corpus);
        return LayerDrop.run(db, "hgmem.drop", corpus, STEPS, 2000, cancelled);
    }
}
