package dev.graphrag.raga;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * KG-vector synchronisation checks (paper §3.5, Algorithm 2, Eq. 1): every entity and chunk of the corpus must carry a vector of the
 * server's model and dimension made from its current text. Writes keep them in step atomically; drift comes from
 * outside: a model change, a hand edit in Cypher, a chunk re-ingested under provenance that quoted it. check lists the
 * drift, repair re-embeds what can be re-embedded (dangling provenance cannot be: it is reported for a person to judge).
 */
public final class RagaSync {
    /** kind ENTITY, CHUNK or PROVENANCE; issue MISSING, STALE, WRONG_DIMENSION, WRONG_MODEL, UNSYNCED or CHUNK_GONE. */
    public record Issue(String kind, String id, String issue) {}

    private RagaSync() {}

    public static List<Issue> check(Transaction tx, EmbeddingService embeddings, String corpus, int limit) {
        List<Issue> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (e:RagaEntity {corpus: $c}) RETURN e", Map.of("c", corpus))) {
            while (r.hasNext() && out.size() < limit) {
                Node e = (Node) r.next().get("e");
                String issue = entityIssue(e, embeddings);
                if (issue != null) out.add(new Issue("ENTITY", (String) e.getProperty("entityId"), issue));
            }
        }
        try (Result r = tx.execute("MATCH (c:Chunk {corpus: $c}) WHERE c.embedding IS NULL OR size(c.embedding) <> $d RETURN c.id AS id,"
                + " c.embedding IS NULL AS missing", Map.of("c", corpus, "d", (long) embeddings.dimensions()))) {
            while (r.hasNext() && out.size() < limit) {
                Map<String, Object> row = r.next();
                out.add(new Issue("CHUNK", (String) row.get("id"), Boolean.TRUE.equals(row.get("missing")) ? "MISSING" : "WRONG_DIMENSION"));
            }
        }
        try (Result r = tx.execute("MATCH (p:RagaProvenance {corpus: $c}) WHERE p.chunkId IS NOT NULL AND NOT EXISTS { (p)-[:RAGA_FROM_CHUNK]->(:Chunk) }"
                + " RETURN p.provId AS id", Map.of("c", corpus))) {
            while (r.hasNext() && out.size() < limit) out.add(new Issue("PROVENANCE", (String) r.next().get("id"), "CHUNK_GONE"));
        }
        return out;
    }

    static String entityIssue(Node e, EmbeddingService embeddings) {
        Object v = e.getProperty("embedding", null);
        if (v == null) return "MISSING";
        if (ModelIdentity.floats(v).length != embeddings.dimensions()) return "WRONG_DIMENSION";
        if (!embeddings.modelName().equals(e.getProperty("embeddingModel", null))) return "WRONG_MODEL";
        if (!KnowledgeStore.sha1(KnowledgeStore.embedText(e)).equals(e.getProperty("embeddingTextHash", null))) return "STALE";
        if (!Boolean.TRUE.equals(e.getProperty("vectorSynced", false))) return "UNSYNCED";
        return null;
    }

    public record Repair(long repaired, long failed, long unrepairable) {}

    /**
     * Re-embeds drifted entities and chunks in batches of {@code batch}, each batch embedded before its transaction; once
     * none failed, records the server's model on the layer.
     */
    public static Repair repair(GraphDatabaseService db, EmbeddingService embeddings, String corpus, int batch, BooleanSupplier cancelled) {
        long repaired = 0, failed = 0, unrepairable = 0;
        List<Issue> issues;
        try (Transaction tx = db.beginTx()) {
            issues = check(tx, embeddings, corpus, Integer.MAX_VALUE);
        }
        List<Issue> todo = new ArrayList<>();
        for (Issue i : issues) {
            if (i.kind().equals("PROVENANCE")) unrepairable++;
            else todo.add(i);
        }
        for (int from = 0; from < todo.size(); from += batch) {
            if (cancelled.getAsBoolean()) throw new dev.graphrag.core.RagException("raga.sync.repair cancelled; what was repaired stays");
            List<Issue> part = todo.subList(from, Math.min(todo.size(), from + batch));
            List<String> texts = new ArrayList<>();
            try (Transaction tx = db.beginTx()) {
                for (Issue i : part) {
                    Node n = node(tx, i);
                    texts.add(n == null ? "" : i.kind().equals("ENTITY") ? KnowledgeStore.embedText(n) : (String) n.getProperty("text"));
                }
            }
            float[][] vectors;
            try {
                vectors = embeddings.embedAll(texts, false);
            } catch (RuntimeException e) {
                failed += part.size();
                continue;
            }
            try (Transaction tx = db.beginTx()) {
                for (int k = 0; k < part.size(); k++) {
                    Node n = node(tx, part.get(k));
                    if (n == null) {
                        failed++;
                        continue;
                    }
                    if (part.get(k).kind().equals("ENTITY")) {
                        n.setProperty("embedding", vectors[k]);
                        n.setProperty("embeddingModel", embeddings.modelName());
                        n.setProperty("embeddingTextHash", KnowledgeStore.sha1(texts.get(k)));
                        n.setProperty("vectorSynced", true);
                    } else {
                        n.setProperty("embedding", vectors[k]);
                    }
                    repaired++;
                }
                tx.commit();
            }
        }
        if (failed == 0) {
            // nothing left to repair: the layer's vectors are now all the server's model's
            try (Transaction tx = db.beginTx()) {
                ModelIdentity.record(tx.findNode(RagaGraph.META, "corpus", corpus), embeddings);
                tx.commit();
            }
        }
        return new Repair(repaired, failed, unrepairable);
    }

    private static Node node(Transaction tx, Issue i) {
        return i.kind().equals("ENTITY") ? tx.findNode(RagaGraph.ENTITY, "entityId", i.id()) : tx.findNode(dev.graphrag.core.lexical.LexicalGraph.CHUNK, "id", i.id());
    }
}
