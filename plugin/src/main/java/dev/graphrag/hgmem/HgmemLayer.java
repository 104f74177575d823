package dev.graphrag.hgmem;

import dev.graphrag.core.layer.LayerDrop.Step;
import dev.graphrag.core.layer.LayerInfo;
import dev.graphrag.core.layer.LayerSchema;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Transaction;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The HGMem layer of a corpus as a whole: its frame (schema, drop order, model check) and its info. */
public final class HgmemLayer {
    /** Sessions drop first, since their units hold base-graph entities. */
    public static final LayerSpec SPEC = LayerSpec.of("hgmem", "HGMem base graph", HgmemGraph.META)
            .schema(dimensions -> new LayerSchema() // unique, then indexed, then embedded
                    .unique("hgmem_entity_key", HgmemGraph.ENTITY, "key").unique("hgmem_session_id", HgmemGraph.SESSION, "id").unique("hgmem_unit_id", HgmemGraph.UNIT, "id")
                    .index("hgmem_entity_corpus", HgmemGraph.ENTITY, "corpus").index("hgmem_unit_session", HgmemGraph.UNIT, "sessionId", "status")
                    .vector(HgmemGraph.ENTITY_INDEX, HgmemGraph.ENTITY, "embedding", dimensions))
            .drop(Step.nodes("session steps", HgmemGraph.STEP), Step.nodes("memory units", HgmemGraph.UNIT), Step.nodes("sessions", HgmemGraph.SESSION),
                    Step.nodes("entities", HgmemGraph.ENTITY), Step.properties("stored extractions", LexicalGraph.CHUNK, HgmemGraph.STORE, HgmemGraph.STORE_KEY))
            .vectors("its entity and relation vectors", "sessions are lost")
            .build();

    /**
     * hgmem.info's row: entities, relations, provisional entities and sessions counted live (sessions change them
     * between builds), mentions and the build's settings as recorded.
     */
    public record Info(String corpus, long version, String state, boolean chunksChanged, long entities, long relations, long mentions,
                       long provisionalEntities, long staleEntities, long unsupportedEntities, long sessions, String embeddingModel, long embeddingDimensions, List<String> entityTypes) {}

    private HgmemLayer() {}

    public static Info info(Transaction tx, String corpus) {
        LayerInfo i = SPEC.info(tx, corpus);
        Map<String, Long> live = LayerSpec.counts(tx, "RETURN COUNT { (:HgEntity {corpus: $c}) } AS entities,"
                + " COUNT { (:HgEntity {corpus: $c})-[:HG_RELATED]->() } AS relations, COUNT { (e:HgEntity {corpus: $c}) WHERE e.provisional } AS provisional,"
                + " COUNT { (e:HgEntity {corpus: $c}) WHERE e.stale } AS stale,"
                // what retrieval already skips and the next build removes: entities whose every chunk was removed or replaced
                + " COUNT { (e:HgEntity {corpus: $c}) WHERE NOT coalesce(e.stale, false) AND NOT EXISTS { (:Chunk)-[:HG_MENTIONS]->(e) }"
                + " AND (NOT coalesce(e.provisional, false) OR coalesce(e.sourceChunks, 0) > 0) } AS unsupported,"
                + " COUNT { (:HgSession {corpus: $c}) } AS sessions", corpus);
        return new Info(corpus, i.version(), i.state(), i.chunksChanged(), live.get("entities"), live.get("relations"), i.recorded("mentions"),
                live.get("provisional"), live.get("stale"), live.get("unsupported"), live.get("sessions"), i.embeddingModel(), i.recorded("embeddingDimensions"),
                Arrays.asList((String[]) i.meta().getProperty("entityTypes", new String[0])));
    }
}
