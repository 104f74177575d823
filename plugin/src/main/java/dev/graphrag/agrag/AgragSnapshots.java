package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import dev.graphrag.core.layer.LayerCache;
import dev.graphrag.core.lexical.LayerVersions;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

/**
 * A corpus's AGRAG snapshot as one call sees it: loaded once and cached by the runtime, keyed by the layer's and the
 * chunks' stored versions; every node and relationship it hands out checked against the graph, so one that no longer
 * matches (deleted by plain Cypher, its id reused by another corpus) reloads the snapshot instead of returning another
 * corpus's data.
 */
final class AgragSnapshots {
    private final Transaction tx;
    private final LayerCache cache;
    private final String databaseName;

    AgragSnapshots(Transaction tx, LayerCache cache, String databaseName) {
        this.tx = tx;
        this.cache = cache;
        this.databaseName = databaseName;
    }

    static final String LAYER = "agrag";

    /** What the snapshot holds no longer matches the graph. */
    static final class StaleSnapshotException extends RuntimeException {
        StaleSnapshotException(String what) {
            super(what, null, false, false);
        }
    }

    AgragSnapshot snapshot(String corpus) {
        Node corpusNode = LexicalGraph.requireCorpus(tx, corpus);
        Node meta = AgragLayer.SPEC.requireBuilt(tx, corpus);
        long version = ((Number) meta.getProperty("version")).longValue();
        return cache.get(databaseName, corpus, LAYER, LayerVersions.key(corpusNode, version), () -> AgragSnapshot.load(tx, corpus, version));
    }

    /** Runs a query; if what the snapshot holds turned out stale, once more on a freshly loaded one. */
    <T> T fresh(String corpus, java.util.function.Supplier<T> query) {
        try {
            return query.get();
        } catch (StaleSnapshotException e) {
            cache.invalidate(databaseName, corpus, LAYER);
            try {
                return query.get();
            } catch (StaleSnapshotException again) {
                throw new RagException("agrag: the AGRAG layer of corpus '" + corpus + "' changed while it was read (" + again.getMessage()
                        + "); run agrag.index and ask again");
            }
        }
    }

    /** The graph node of snapshot node v, checked to be the same entity or chunk of this corpus. */
    @SuppressWarnings("deprecation")
    Node nodeOf(AgragSnapshot g, int v) {
        Node n;
        try {
            n = tx.getNodeById(g.nodeIds[v]);
        } catch (org.neo4j.graphdb.NotFoundException e) {
            throw new StaleSnapshotException("a node it holds was deleted");
        }
        boolean same = g.corpus.equals(n.getProperty("corpus", null)) && (g.isEntity(v)
                ? n.hasLabel(AgragGraph.ENTITY) && g.names.get(v).equals(n.getProperty("name", null))
                : n.hasLabel(LexicalGraph.CHUNK) && g.chunkIds.get(v - g.entityCount).equals(n.getProperty("id", null)));
        if (!same) throw new StaleSnapshotException("a node id it holds now belongs to another node");
        return n;
    }

    /** A relationship of the snapshot, checked to run between this corpus's nodes. */
    @SuppressWarnings("deprecation")
    Relationship relationship(AgragSnapshot g, long id) {
        Relationship r;
        try {
            r = tx.getRelationshipById(id);
        } catch (org.neo4j.graphdb.NotFoundException e) {
            throw new StaleSnapshotException("a relationship it holds was deleted");
        }
        if (!g.corpus.equals(r.getStartNode().getProperty("corpus", null)) || !g.corpus.equals(r.getEndNode().getProperty("corpus", null))) {
            throw new StaleSnapshotException("a relationship id it holds now belongs to another corpus");
        }
        return r;
    }

    /** A chunk's node by its id, or stale when it is gone. */
    Node chunk(String id) {
        Node n = tx.findNode(LexicalGraph.CHUNK, "id", id);
        if (n == null) throw new StaleSnapshotException("chunk " + id + " was deleted");
        return n;
    }

    /** Loads (or finds) the corpus's in-memory snapshot, so the first query does not pay for it: {nodes, relationships}. */
    long[] warm(String corpus) {
        AgragSnapshot g = snapshot(corpus);
        return new long[] {g.nodeCount() - 1, g.edgeCount() - g.chunkCount()};
    }

    /** Forgets the corpus's cached snapshot (after agrag.drop). */
    public static void invalidate(LayerCache cache, String databaseName, String corpus) {
        cache.invalidate(databaseName, corpus, LAYER);
    }
}
