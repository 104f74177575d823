package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;

import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;

/**
 * The lifecycle a method layer's meta node ({@code (:<Meta> {corpus})}) records in {@code state}: building while a build
 * writes (and after one that never finished, which the next build resumes), ready once complete, dropping while a drop
 * runs (queries then refuse instead of reading a layer going away). Committed in a transaction of its own, so every
 * cluster member sees it.
 */
public final class LayerState {
    public static final String BUILDING = "building";
    public static final String READY = "ready";
    public static final String DROPPING = "dropping";

    private LayerState() {}

    /**
     * The meta node of a method's layer that has been built completely at least once (a later build may be running:
     * queries then see the last complete version); otherwise an error naming the call that fixes it.
     * {@code layer} names the layer in messages ("ReMind layer"), {@code method} its procedures' namespace.
     */
    public static Node requireBuilt(Transaction tx, Label metaLabel, String corpus, String layer, String method) {
        return requireBuilt(tx, metaLabel, corpus, layer, method, method + ".index");
    }

    /** As above, naming {@code buildCall} as the call that builds the layer. */
    public static Node requireBuilt(Transaction tx, Label metaLabel, String corpus, String layer, String method, String buildCall) {
        Node meta = tx.findNode(metaLabel, "corpus", corpus);
        if (meta == null) throw new RagException("corpus '" + corpus + "' has no " + layer + " yet: CALL " + buildCall + "({corpus: '" + corpus + "'})");
        if (DROPPING.equals(of(meta))) {
            throw new RagException("the " + layer + " of corpus '" + corpus + "' is being dropped, or a drop was interrupted: CALL " + method + ".drop({corpus: '" + corpus + "'}) finishes it");
        }
        if (!meta.hasProperty("version")) {
            throw new RagException("the " + layer + " of corpus '" + corpus + "' is being built, or its first build was interrupted: CALL " + buildCall + "({corpus: '" + corpus
                    + "'}) finishes it (it resumes where it stopped)");
        }
        return meta;
    }

    /** The meta node's state; layers built before states existed were complete. */
    public static String of(Node meta) {
        return (String) meta.getProperty("state", READY);
    }

    /** Marks the layer as being built before its first write (creating the meta node); true when the last build or drop never finished. */
    public static boolean markBuilding(GraphDatabaseService db, Label meta, String corpus) {
        try (Transaction tx = db.beginTx()) {
            Node m = tx.findNode(meta, "corpus", corpus);
            if (m == null) {
                m = tx.createNode(meta);
                m.setProperty("corpus", corpus);
            }
            boolean unfinished = !READY.equals(of(m));
            m.setProperty("state", BUILDING);
            m.setProperty("buildStartedAt", ZonedDateTime.now());
            tx.commit();
            return unfinished;
        }
    }

    /** Marks the layer as being dropped and takes its version away (the corpus must exist; a missing layer is fine). */
    public static void markDropping(GraphDatabaseService db, Label meta, String corpus) {
        try (Transaction tx = db.beginTx()) {
            LexicalGraph.requireCorpus(tx, corpus);
            Node m = tx.findNode(meta, "corpus", corpus);
            if (m != null) {
                m.setProperty("state", DROPPING);
                m.removeProperty("version");
            }
            tx.commit();
        }
    }
}
