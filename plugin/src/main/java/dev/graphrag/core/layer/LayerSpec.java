package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.lexical.LayerVersions;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * A method layer over a corpus's lexical graph as the core frame sees it: the namespace of its procedures, its name in
 * messages, the label of its meta node ({@code (:<Meta> {corpus})}), its schema, what a drop removes, and whether its
 * vectors are tied to the embedding model. A method declares one; its indexer builds through {@link #begin}, and its
 * index, info and drop procedures are a statement each.
 */
public final class LayerSpec {
    private final String namespace;
    private final String title;
    private final Label meta;
    private final IntFunction<LayerSchema> schema;
    private final List<LayerDrop.Step> drop;
    private final String vectors;
    private final String rebuildLoses;
    private final java.util.function.BiConsumer<GraphDatabaseService, String> afterDrop;
    private final String buildCall;

    private LayerSpec(Builder b) {
        this.namespace = b.namespace;
        this.title = b.title;
        this.meta = b.meta;
        this.schema = b.schema;
        List<LayerDrop.Step> steps = new ArrayList<>(b.drop);
        steps.add(LayerDrop.Step.meta(b.meta));
        this.drop = List.copyOf(steps);
        this.vectors = b.vectors;
        this.rebuildLoses = b.rebuildLoses;
        this.afterDrop = b.afterDrop;
        this.buildCall = b.buildCall == null ? namespace + ".index" : b.buildCall;
    }

    /** {@code namespace} is the procedures' ("hgmem"), {@code title} the layer's name in messages ("HGMem base graph"). */
    public static Builder of(String namespace, String title, Label meta) {
        return new Builder(namespace, title, meta);
    }

    public String namespace() {
        return namespace;
    }

    public String title() {
        return title;
    }

    public Label meta() {
        return meta;
    }

    /** Constraints and indexes of the layer; idempotent; returns the names created. */
    public List<String> setup(GraphDatabaseService db, int dimensions) {
        return dev.graphrag.core.lexical.SchemaSetup.ensure(db, statements(dimensions));
    }

    /** The schema statements by name, the meta node's uniqueness first. */
    Map<String, String> statements(int dimensions) {
        return schema.apply(dimensions).statements();
    }

    /** What a drop runs, in order, the meta node last. */
    List<LayerDrop.Step> dropSteps() {
        return drop;
    }

    /** The corpus's meta node, in whatever state; errors name the corpus or the call that builds the layer. */
    public Node requireIndexed(Transaction tx, String corpus) {
        LexicalGraph.requireCorpus(tx, corpus);
        return metaOf(tx, corpus);
    }

    /** The meta node of an existing corpus, or the error naming the call that builds the layer. */
    private Node metaOf(Transaction tx, String corpus) {
        Node m = tx.findNode(meta, "corpus", corpus);
        if (m == null) throw new RagException("corpus '" + corpus + "' has no " + title + " yet: CALL " + buildCall + "({corpus: '" + corpus + "'})");
        return m;
    }

    /**
     * The meta node of a layer built completely at least once (a later build may be running: queries then see the last
     * complete version), whose vectors come from the server's model; otherwise an error saying what to do.
     */
    public Node requireBuilt(Transaction tx, String corpus, EmbeddingService embeddings) {
        LexicalGraph.requireCorpus(tx, corpus);
        Node m = LayerState.requireBuilt(tx, meta, corpus, title, namespace, buildCall);
        requireSameModel(m, corpus, embeddings);
        return m;
    }

    /** {@link #requireBuilt(Transaction, String, EmbeddingService)} for a layer whose vectors are not tied to the model. */
    public Node requireBuilt(Transaction tx, String corpus) {
        if (vectors != null) throw new IllegalStateException("the " + title + " ties its vectors to the model: check it");
        return requireBuilt(tx, corpus, null);
    }

    /** Refuses a layer whose vectors come from another model than the server's (layers that tie none pass). */
    public void requireSameModel(Node m, String corpus, EmbeddingService embeddings) {
        if (vectors != null) ModelIdentity.require(m, embeddings, corpus, title, namespace, vectors, rebuildLoses);
    }

    /**
     * The start of a build: reads the corpus's lexical version (what the build will have covered) and refuses a layer
     * built with another model. Writes nothing: the method extracts first, then {@link LayerBuild#start} before its first write.
     */
    public LayerBuild begin(GraphDatabaseService db, String corpus, EmbeddingService embeddings) {
        try (Transaction tx = db.beginTx()) {
            long lexical = LayerVersions.lexical(LexicalGraph.requireCorpus(tx, corpus));
            Node m = tx.findNode(meta, "corpus", corpus);
            boolean built = m != null && m.hasProperty("version");
            if (built) requireSameModel(m, corpus, embeddings);
            return new LayerBuild(db, this, corpus, embeddings, lexical, built);
        }
    }

    /**
     * For a layer built incrementally (each of its writes commits: RAGA's agent): schema, then a meta node that is ready
     * from the start, through the same build as any layer's (version, model, state); a layer being dropped is refused
     * with the call that finishes the drop, a layer already set up is left as it is, and one whose set-up stopped between
     * start and finish is set up again.
     */
    public void ensureReady(GraphDatabaseService db, String corpus, EmbeddingService embeddings) {
        try (Transaction tx = db.beginTx()) {
            LexicalGraph.requireCorpus(tx, corpus);
            Node m = tx.findNode(meta, "corpus", corpus);
            // set up already (or being dropped: the error names the drop); a set-up interrupted between start and finish runs again
            if (m != null && (m.hasProperty("version") || LayerState.DROPPING.equals(LayerState.of(m)))) {
                LayerState.requireBuilt(tx, meta, corpus, title, namespace, buildCall);
                return;
            }
        }
        LayerBuild build = begin(db, corpus, embeddings);
        build.start();
        build.finish(Map.of());
    }

    /** What every layer's info row starts with. */
    public LayerInfo info(Transaction tx, String corpus) {
        Node m = metaOf(tx, corpus);
        boolean changed = chunksChangedSinceBuild(tx, corpus, m);
        return new LayerInfo(corpus, ((Number) m.getProperty("version", 0L)).longValue(), LayerState.of(m), changed, m);
    }

    /**
     * Whether rag.ingest or rag.delete changed the corpus's chunks since the layer's last complete build (its meta node
     * {@code m}): queries then check what they serve against the chunks that are there, so nothing only removed or
     * replaced text supported reaches a row or a prompt before the next build removes it.
     */
    public boolean chunksChangedSinceBuild(Transaction tx, String corpus, Node m) {
        long lexical = LayerVersions.lexical(LexicalGraph.requireCorpus(tx, corpus));
        return m.hasProperty("version") && ((Number) m.getProperty("lexicalVersion", -1L)).longValue() != lexical;
    }

    /** The meta node says "dropping" first (queries then refuse), then the layer's steps run in batches, the meta node last. */
    public LayerDrop.Dropped drop(GraphDatabaseService db, String corpus, BooleanSupplier cancelled) {
        LayerState.markDropping(db, meta, corpus);
        LayerDrop.Dropped dropped = LayerDrop.run(db, namespace + ".drop", corpus, drop, cancelled);
        afterDrop.accept(db, corpus);
        return dropped;
    }

    /** The one row of a statement of counts ({@code RETURN COUNT {...} AS name, ...} over {@code $c}), as longs by column. */
    public static Map<String, Long> counts(Transaction tx, String statement, String corpus) {
        Map<String, Long> out = new LinkedHashMap<>();
        tx.execute(statement, Map.of("c", corpus)).next().forEach((k, v) -> out.put(k, ((Number) v).longValue()));
        return out;
    }

    public static final class Builder {
        private final String namespace;
        private final String title;
        private final Label meta;
        private IntFunction<LayerSchema> schema = d -> new LayerSchema();
        private final List<LayerDrop.Step> drop = new ArrayList<>();
        private String vectors;
        private String rebuildLoses = "";
        private java.util.function.BiConsumer<GraphDatabaseService, String> afterDrop = (db, corpus) -> {};
        private String buildCall;

        private Builder(String namespace, String title, Label meta) {
            this.namespace = namespace;
            this.title = title;
            this.meta = meta;
        }

        /** The layer's constraints and indexes for the model's dimensions; the meta node's uniqueness on corpus comes first, with them. */
        public Builder schema(IntFunction<LayerSchema> schema) {
            this.schema = d -> new LayerSchema().unique(namespace + "_meta_corpus", meta, "corpus").then(schema.apply(d));
            return this;
        }

        /** What a drop removes, in order (the meta node goes last on its own). */
        public Builder drop(LayerDrop.Step... steps) {
            drop.addAll(List.of(steps));
            return this;
        }

        /**
         * The layer's vectors are the embedding model's: builds and queries refuse another model. {@code vectors} says what
         * would be mixed ("its entity embeddings"), {@code rebuildLoses} what a rebuild loses ("sessions are lost", or empty).
         */
        public Builder vectors(String vectors, String rebuildLoses) {
            this.vectors = vectors;
            this.rebuildLoses = rebuildLoses;
            return this;
        }

        /** What a drop does after the graph's part, outside the graph (AGRAG's GDS projection). */
        public Builder afterDrop(java.util.function.BiConsumer<GraphDatabaseService, String> afterDrop) {
            this.afterDrop = afterDrop;
            return this;
        }

        /** The call that builds the layer, as errors name it (default {@code <namespace>.index}). */
        public Builder builtBy(String procedure) {
            this.buildCall = procedure;
            return this;
        }

        public LayerSpec build() {
            return new LayerSpec(this);
        }
    }
}
