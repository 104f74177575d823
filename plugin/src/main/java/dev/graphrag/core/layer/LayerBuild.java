package dev.graphrag.core.layer;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.lexical.LayerVersions;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.Map;

/**
 * One build of a layer, from {@link LayerSpec#begin}: the lexical version it covers, {@link #start} before its first
 * write (schema, meta node marked building) and {@link #finish} after its last (the meta write that makes it the
 * version queries read). Between the two, the method writes its own nodes in batches; a build that stops there is
 * resumed by the next one.
 */
public final class LayerBuild {
    private final GraphDatabaseService db;
    private final LayerSpec spec;
    private final String corpus;
    private final EmbeddingService embeddings;
    private final long lexicalVersion;
    private final boolean built;

    LayerBuild(GraphDatabaseService db, LayerSpec spec, String corpus, EmbeddingService embeddings, long lexicalVersion, boolean built) {
        this.db = db;
        this.spec = spec;
        this.corpus = corpus;
        this.embeddings = embeddings;
        this.lexicalVersion = lexicalVersion;
        this.built = built;
    }

    /** The corpus's lexical version when the build began: the chunks it covers. */
    public long lexicalVersion() {
        return lexicalVersion;
    }

    /** Whether a complete build existed when this one began. */
    public boolean previouslyBuilt() {
        return built;
    }

    /**
     * Schema, then the meta node marked building; call it right before the first write, once extraction succeeded (a
     * failed extraction then leaves the layer and the schema as they were). True when the last build or drop never finished.
     */
    public boolean start() {
        spec.setup(db, embeddings.dimensions());
        return LayerState.markBuilding(db, spec.meta(), corpus);
    }

    /**
     * Completes the build in one transaction: a new version from the corpus's counter (a rebuild after a drop never
     * reuses one a cache may hold), state ready, the lexical version covered, the embedding model, what the method
     * records (settings, counts) and the time. Returns the version.
     */
    public long finish(Map<String, ?> recorded) {
        try (Transaction tx = db.beginTx()) {
            Node meta = tx.findNode(spec.meta(), "corpus", corpus);
            long version = LayerVersions.next(tx, LexicalGraph.requireCorpus(tx, corpus));
            meta.setProperty("version", version);
            meta.setProperty("state", LayerState.READY);
            meta.setProperty("lexicalVersion", lexicalVersion);
            ModelIdentity.record(meta, embeddings);
            recorded.forEach(meta::setProperty);
            meta.setProperty("indexedAt", ZonedDateTime.now());
            tx.commit();
            return version;
        }
    }

    /** The counts of a statement over the corpus ({@link LayerSpec#counts}), read in a transaction of its own. */
    public Map<String, Long> count(String statement) {
        try (Transaction tx = db.beginTx()) {
            return LayerSpec.counts(tx, statement, corpus);
        }
    }
}
