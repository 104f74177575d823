package dev.graphrag.core.lexical;

import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.time.temporal.TemporalAccessor;

/**
 * Versions of a corpus's layers, stored in the graph so every cluster member sees the same ones. One counter on
 * the corpus node ({@code versionSeq}) hands out every version of every layer of the corpus, so versions never
 * restart: a layer dropped and rebuilt gets a higher version than any before. The lexical layer's version
 * ({@code lexicalVersion}) moves with every rag.ingest batch and rag.delete; a method layer records its own on its
 * meta node when a build completes. In-memory caches key their entries by {@link Key}: a write by another member,
 * or a drop and re-creation of the corpus, changes the key and the next query reloads.
 */
public final class LayerVersions {
    public static final String SEQUENCE = "versionSeq";
    public static final String LEXICAL = "lexicalVersion";

    /** What a cached layer was loaded from: the corpus node's identity and the versions of the layer and the chunks under it. */
    public record Key(String corpus, long layerVersion, long lexicalVersion) {}

    private LayerVersions() {}

    /** The corpus's next version; takes the corpus node's write lock (held until the transaction ends). */
    public static long next(Transaction tx, Node corpus) {
        tx.acquireWriteLock(corpus);
        long v = ((Number) corpus.getProperty(SEQUENCE, 0L)).longValue() + 1;
        corpus.setProperty(SEQUENCE, v);
        return v;
    }

    /** Marks the corpus's chunks as changed (a write transaction of rag.ingest or rag.delete). */
    public static long bumpLexical(Transaction tx, Node corpus) {
        long v = next(tx, corpus);
        corpus.setProperty(LEXICAL, v);
        return v;
    }

    public static long lexical(Node corpus) {
        return ((Number) corpus.getProperty(LEXICAL, 0L)).longValue();
    }

    /**
     * The corpus node's identity: its element id and creation time. A corpus node deleted and created again (or a
     * database recreated under the same name) gets another identity, so versions counted afresh never collide.
     */
    public static String identity(Node corpus) {
        Object created = corpus.getProperty("createdAt", null);
        return corpus.getElementId() + "@" + (created instanceof TemporalAccessor t ? t.toString() : String.valueOf(created));
    }

    public static Key key(Node corpus, long layerVersion) {
        return new Key(identity(corpus), layerVersion, lexical(corpus));
    }
}
