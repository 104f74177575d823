package dev.graphrag.raga;

import dev.graphrag.core.layer.BatchWriter;
import dev.graphrag.core.lexical.LayerVersions;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What removed or replaced chunks leave of a corpus's RAGA graph (docs/raga.md#updates-and-deletes). Every write quotes
 * a chunk: its provenance record hangs on that chunk node by RAGA_FROM_CHUNK, and the chunk mentions what the write
 * touched (RAGA_MENTIONS_ENTITY). rag.delete, and a re-ingest with changed text, delete the chunk node and with it
 * those relationships, so evidence is tied to the text it quoted, never to a chunk id a new text takes over.
 */
final class RemovedEvidence {
    /** On the layer's meta node: the corpus's lexical version the last {@link #forget} covered. */
    static final String FORGOTTEN = "forgottenLexicalVersion";

    private RemovedEvidence() {}

    /** An entity a quote in a present chunk still supports. */
    static boolean supported(Node entity) {
        return entity.hasRelationship(Direction.INCOMING, RagaGraph.MENTIONS);
    }

    /** The chunk ids of the relation's quotes whose chunk is still there (the order the store lists them). */
    static List<String> liveEvidence(Transaction tx, Relationship rel) {
        Set<String> out = new LinkedHashSet<>();
        Object relId = rel.getProperty("relId", null);
        if (relId == null) return List.of();
        tx.findNodes(RagaGraph.PROVENANCE, "targetId", relId).forEachRemaining(p -> {
            if (p.hasRelationship(Direction.OUTGOING, RagaGraph.FROM_CHUNK)) out.add((String) p.getProperty("chunkId"));
        });
        return List.copyOf(out);
    }

    /** A relation retrieval and answers may show: not deleted, both entities supported, and a quote of it still there. */
    static boolean shown(Transaction tx, Relationship rel) {
        return !Boolean.TRUE.equals(rel.getProperty("deleted", false)) && supported(rel.getStartNode()) && supported(rel.getEndNode())
                && !liveEvidence(tx, rel).isEmpty();
    }

    /**
     * Whether chunks changed since the graph last forgot what removed text supported: queries then check each entity
     * and relation they show. (Checking always would give the same rows at the cost of a lookup per relation.)
     */
    static boolean pending(Transaction tx, String corpus) {
        Node meta = tx.findNode(RagaGraph.META, "corpus", corpus);
        if (meta == null) return false;
        return ((Number) meta.getProperty(FORGOTTEN, -1L)).longValue() != LayerVersions.lexical(LexicalGraph.requireCorpus(tx, corpus));
    }

    /** What one pass removed: quotes whose chunk is gone, relations and entities no quote supports any more. */
    record Forgotten(long quotes, long relations, long entities) {}

    /**
     * Removes what only removed or replaced text supported, in batches: each quote whose chunk is gone; each relation
     * left without a quote (with its provenance), the others keeping only the chunk ids of their remaining quotes; each
     * entity no present chunk mentions (with its aliases, relations and provenance; follow-ups and review items about
     * it lose the link), the others with their quote count redone. Then records the lexical version it covered.
     */
    static Forgotten forget(GraphDatabaseService db, String corpus, BatchWriter batch) {
        long lexical;
        List<String> quotes = new ArrayList<>();
        Set<String> relIds = new LinkedHashSet<>(), entities = new LinkedHashSet<>();
        try (Transaction tx = db.beginTx()) {
            if (!pending(tx, corpus)) return new Forgotten(0, 0, 0);
            lexical = LayerVersions.lexical(LexicalGraph.requireCorpus(tx, corpus));
            try (Result r = tx.execute("MATCH (p:RagaProvenance {corpus: $c}) WHERE p.chunkId IS NOT NULL AND NOT EXISTS { (p)-[:RAGA_FROM_CHUNK]->() }"
                    + " OPTIONAL MATCH (e:RagaEntity)-[:RAGA_EVIDENCED_BY]->(p) RETURN elementId(p) AS p, p.targetKind AS kind, p.targetId AS target,"
                    + " elementId(e) AS entity", Map.of("c", corpus))) {
                r.forEachRemaining(row -> {
                    quotes.add((String) row.get("p"));
                    if ("RELATION".equals(row.get("kind"))) relIds.add((String) row.get("target"));
                    if (row.get("entity") != null) entities.add((String) row.get("entity"));
                });
            }
        }
        for (String p : quotes) batch.run(tx -> delete(tx.getNodeByElementId(p)));
        batch.commit();
        long[] removed = {0, 0};
        for (String relId : relIds) {
            batch.run(tx -> {
                Relationship rel = relation(tx, relId);
                if (rel == null) return;
                entities.add(rel.getStartNode().getElementId());
                entities.add(rel.getEndNode().getElementId());
                List<String> live = liveEvidence(tx, rel);
                if (live.isEmpty()) {
                    removeRelation(tx, rel);
                    removed[0]++;
                } else {
                    rel.setProperty("evidenceChunkIds", live.toArray(new String[0]));
                }
            });
        }
        batch.commit();
        for (String id : entities) {
            batch.run(tx -> {
                Node e;
                try {
                    e = tx.getNodeByElementId(id);
                } catch (org.neo4j.graphdb.NotFoundException gone) {
                    return;
                }
                if (supported(e)) {
                    e.setProperty(KnowledgeStore.QUOTED_EVIDENCE, KnowledgeStore.countQuoted(e));
                    return;
                }
                for (Relationship r : list(e.getRelationships(RagaGraph.REL))) removeRelation(tx, r);
                for (Relationship r : list(e.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY))) {
                    Node p = r.getEndNode();
                    r.delete();
                    delete(p);
                }
                for (Relationship r : list(e.getRelationships(Direction.INCOMING, RagaGraph.ALIAS_OF))) {
                    Node alias = r.getStartNode();
                    r.delete();
                    delete(alias);
                }
                delete(e);
                removed[1]++;
            });
        }
        batch.commit();
        try (Transaction tx = db.beginTx()) {
            Node meta = tx.findNode(RagaGraph.META, "corpus", corpus);
            if (meta != null) meta.setProperty(FORGOTTEN, lexical);
            tx.commit();
        }
        return new Forgotten(quotes.size(), removed[0], removed[1]);
    }

    private static Relationship relation(Transaction tx, String relId) {
        try (Result r = tx.execute("MATCH ()-[x:RAGA_REL {relId: $id}]->() RETURN x", Map.of("id", relId))) {
            return r.hasNext() ? (Relationship) r.next().get("x") : null;
        }
    }

    /** A relation and every provenance record about it. */
    private static void removeRelation(Transaction tx, Relationship rel) {
        Object relId = rel.getProperty("relId", null);
        rel.delete();
        if (relId != null) tx.findNodes(RagaGraph.PROVENANCE, "targetId", relId).forEachRemaining(RemovedEvidence::delete);
    }

    private static List<Relationship> list(Iterable<Relationship> rels) {
        List<Relationship> out = new ArrayList<>();
        rels.forEach(out::add);
        return out;
    }

    private static void delete(Node n) {
        list(n.getRelationships()).forEach(Relationship::delete);
        n.delete();
    }
}
