package dev.graphrag.agrag;

import dev.graphrag.core.layer.LayerDrop.Step;
import dev.graphrag.core.layer.LayerInfo;
import dev.graphrag.core.layer.LayerSchema;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Transaction;


/** The AGRAG layer of a corpus as a whole: its frame (schema, drop order), its info, and a drop that takes its caches and projection along. */
public final class AgragLayer {
    public static final LayerSpec SPEC = LayerSpec.of("agrag", "AGRAG index", AgragGraph.META)
            .schema(dimensions -> new LayerSchema() // unique, then indexed, then embedded
                    .unique("agrag_entity_key", AgragGraph.ENTITY, "key")
                    .index("agrag_entity_corpus", AgragGraph.ENTITY, "corpus").index("agrag_fact_id", AgragGraph.REL, "factId")
                    .vector(AgragGraph.ENTITY_INDEX, AgragGraph.ENTITY, "embedding", dimensions).vector(AgragGraph.FACT_INDEX, AgragGraph.REL, "embedding", dimensions))
            .drop(Step.nodes("entities", AgragGraph.ENTITY), Step.relationships("title links", LexicalGraph.CHUNK, AgragGraph.LINKS),
                    Step.properties("stored triples", LexicalGraph.CHUNK, AgragGraph.TRIPLES, AgragGraph.TRIPLES_MODEL))
            // the GDS projection (when GDS is installed) goes with the layer; the snapshot cache is the frame's (RagCall.dropLayer)
            .afterDrop(AgragProjection::drop)
            .build();

    /**
     * agrag.info's row. relations: how facts were made (llm or cooccurrence); synonymEdges counted live, the rest as the
     * last complete build recorded; projected: the corpus has a GDS projection now.
     */
    public record Info(String corpus, long version, String state, boolean chunksChanged, long unsupportedEntities, String relations, long chunks, long entities,
                       long facts, long synonymEdges, long containsEdges, long titleLinks, String embeddingModel, boolean projected) {}

    private AgragLayer() {}

    public static Info info(Transaction tx, String corpus) {
        LayerInfo i = SPEC.info(tx, corpus);
        long synonyms = LayerSpec.counts(tx, "RETURN COUNT { (:AgEntity {corpus: $c})-[:AG_SYNONYM]->() } AS n", corpus).get("n");
        boolean projected = AgragProjection.gdsAvailable(tx) && AgragProjection.exists(tx, corpus);
        // what queries already leave out and the next build removes: entities no present chunk contains
        long unsupported = i.chunksChanged()
                ? LayerSpec.counts(tx, "RETURN COUNT { (e:AgEntity {corpus: $c}) WHERE NOT EXISTS { (:Chunk)-[:AG_CONTAINS]->(e) } } AS n", corpus).get("n") : 0;
        return new Info(corpus, i.version(), i.state(), i.chunksChanged(), unsupported, (String) i.meta().getProperty("relations", null), i.recorded("chunks"),
                i.recorded("entities"), i.recorded("facts"), synonyms, i.recorded("containsEdges"), i.recorded("titleLinks"), i.embeddingModel(), projected);
    }
}
