package dev.graphrag.agrag;

import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;


/**
 * AGRAG's layer over the shared lexical graph (docs/agrag.md): {@code (:AgEntity {corpus, name})},
 * {@code (:AgEntity)-[:AG_REL {factId, predicate, ...}]->(:AgEntity)}, {@code (:Chunk)-[:AG_CONTAINS]->(:AgEntity)},
 * {@code (:AgEntity)-[:AG_SYNONYM]->(:AgEntity)}, title links {@code (:Chunk)-[:AG_LINKS {anchor}]->(:Document)} and one
 * {@code (:AgMeta {corpus})}.
 */
public final class AgragGraph {
    /** On each chunk: the LLM's triples of its last extraction and the model and prompt they came from, reused by the next build. */
    public static final String TRIPLES = "agragTriples";
    public static final String TRIPLES_MODEL = "agragTriplesModel";

    public static final Label ENTITY = Label.label("AgEntity");
    public static final Label META = Label.label("AgMeta");
    public static final RelationshipType REL = RelationshipType.withName("AG_REL");
    public static final RelationshipType CONTAINS = RelationshipType.withName("AG_CONTAINS");
    public static final RelationshipType SYNONYM = RelationshipType.withName("AG_SYNONYM");
    public static final RelationshipType LINKS = RelationshipType.withName("AG_LINKS");
    public static final String ENTITY_INDEX = "agrag_entity_vec";
    public static final String FACT_INDEX = "agrag_fact_vec";

    private AgragGraph() {}

    public static String entityKey(String corpus, String name) {
        return corpus + "|" + name;
    }

    public static String projectionName(String corpus) {
        return "agrag_" + corpus;
    }
}
