package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * AGRAG's layer over the shared lexical graph (docs/agrag.md): {@code (:AgEntity {corpus, name})},
 * {@code (:AgEntity)-[:AG_REL {factId, predicate, ...}]->(:AgEntity)}, {@code (:Chunk)-[:AG_CONTAINS]->(:AgEntity)},
 * {@code (:AgEntity)-[:AG_SYNONYM]->(:AgEntity)}, title links {@code (:Chunk)-[:AG_LINKS {anchor}]->(:Document)} and one
 * {@code (:AgMeta {corpus})}.
 */
public final class AgragGraph {
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

    /** Constraints and vector indexes of the layer; idempotent; dimensions is the loaded model's. */
    public static List<String> setup(GraphDatabaseService db, int dimensions) {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("agrag_entity_key", "CREATE CONSTRAINT agrag_entity_key IF NOT EXISTS FOR (e:AgEntity) REQUIRE e.key IS UNIQUE");
        statements.put("agrag_meta_corpus", "CREATE CONSTRAINT agrag_meta_corpus IF NOT EXISTS FOR (m:AgMeta) REQUIRE m.corpus IS UNIQUE");
        statements.put("agrag_entity_corpus", "CREATE INDEX agrag_entity_corpus IF NOT EXISTS FOR (e:AgEntity) ON (e.corpus)");
        statements.put("agrag_fact_id", "CREATE INDEX agrag_fact_id IF NOT EXISTS FOR ()-[r:AG_REL]-() ON (r.factId)");
        statements.put(ENTITY_INDEX, "CREATE VECTOR INDEX " + ENTITY_INDEX + " IF NOT EXISTS FOR (e:AgEntity) ON (e.embedding)"
                + " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}");
        statements.put(FACT_INDEX, "CREATE VECTOR INDEX " + FACT_INDEX + " IF NOT EXISTS FOR ()-[r:AG_REL]-() ON (r.embedding)"
                + " OPTIONS {indexConfig: {`vector.dimensions`: " + dimensions + ", `vector.similarity_function`: 'cosine'}}");
        return dev.graphrag.core.lexical.LexicalGraph.ensureSchema(db, statements);
    }

    /** The meta node's state while agrag.index writes, and after a build that was interrupted (it resumes). */
    public static final String BUILDING = dev.graphrag.core.layer.LayerState.BUILDING;
    public static final String READY = dev.graphrag.core.layer.LayerState.READY;

    public static org.neo4j.graphdb.Node requireIndexed(Transaction tx, String corpus) {
        org.neo4j.graphdb.Node meta = tx.findNode(META, "corpus", corpus);
        if (meta == null) throw new RagException("corpus '" + corpus + "' has no AGRAG index yet: CALL agrag.index({corpus: '" + corpus + "'})");
        return meta;
    }

    /**
     * The meta node of a layer that has been built completely at least once (a later build may be running: queries
     * then see the last complete version); otherwise an error saying what to do.
     */
    public static org.neo4j.graphdb.Node requireBuilt(Transaction tx, String corpus) {
        return dev.graphrag.core.layer.LayerState.requireBuilt(tx, META, corpus, "AGRAG index", "agrag");
    }

    public static String state(org.neo4j.graphdb.Node meta) {
        return dev.graphrag.core.layer.LayerState.of(meta);
    }
}
