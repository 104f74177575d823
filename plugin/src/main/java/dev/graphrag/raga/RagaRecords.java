package dev.graphrag.raga;

import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the RAGA layer records beside the knowledge graph, as its procedures show it: the review queue and the todos
 * (listed and closed by hand), the provenance of an entity or relation, and the corpus's entity and relation types.
 * Reads and writes run in the caller's transaction; the corpus's layer must exist ({@link RagaLayer#require}).
 */
public final class RagaRecords {
    /** Which queue: the agent's review items or its follow-ups (todos, as the procedures call them). */
    public enum Queue {
        REVIEW(RagaGraph.REVIEW, "reviewId", "subject", "review"), FOLLOW_UP(RagaGraph.FOLLOW_UP, "todoId", "task", "todo");

        final Label label;
        final String idKey;
        final String subjectKey;
        final String kind;

        Queue(Label label, String idKey, String subjectKey, String kind) {
            this.label = label;
            this.idKey = idKey;
            this.subjectKey = subjectKey;
            this.kind = kind;
        }
    }

    /** raga.review.list / raga.todo.list: one row per item. */
    public record Item(String id, String kind, String subject, String reason, String type, String priority, String status, String chunkId, String entity,
                       String resolution, ZonedDateTime createdAt) {}

    /** raga.review.resolve / raga.todo.resolve. */
    public record Resolved(boolean ok, String id, String status) {}

    /** raga.provenance: one write of an entity or relation with its evidence and offsets. */
    public record Provenance(String provId, String targetKind, String targetId, String op, String tool, String chunkId, String docId, String quote,
                             Long startOffset, Long endOffset, Long docStartOffset, Long docEndOffset, String certainty, Double confidence, String reason,
                             String sessionId, String details, ZonedDateTime createdAt, Node chunk) {}

    /** raga.schema.active: one entity or relation type. */
    public record Type(String kind, String name, String description, String domain, String range, String status) {}

    private RagaRecords() {}

    /** Items of a queue, oldest first; {@code status} OPEN, DONE, DROPPED or ALL (any). */
    public static List<Item> items(Transaction tx, String corpus, Queue queue, String status, long limit) {
        Map<String, Object> params = new HashMap<>();
        params.put("c", corpus);
        params.put("status", status.equals("ALL") ? null : status);
        params.put("limit", limit);
        List<Item> out = new ArrayList<>();
        // the label is the queue's constant, never a caller's string
        try (Result res = tx.execute("MATCH (n:" + queue.label.name() + " {corpus: $c}) WHERE $status IS NULL OR n.status = $status"
                + " OPTIONAL MATCH (n)-[:RAGA_ABOUT]->(e:RagaEntity) RETURN n, e.name AS entity ORDER BY n.createdAt LIMIT $limit", params)) {
            while (res.hasNext()) {
                Map<String, Object> row = res.next();
                Node n = (Node) row.get("n");
                out.add(new Item((String) n.getProperty(queue.idKey), queue.kind, (String) n.getProperty(queue.subjectKey), (String) n.getProperty("reason", null),
                        (String) n.getProperty("todoType", null), (String) n.getProperty("priority", null), (String) n.getProperty("status"),
                        (String) n.getProperty("chunkId", null), (String) row.get("entity"), (String) n.getProperty("resolution", null),
                        (ZonedDateTime) n.getProperty("createdAt", null)));
            }
        }
        return out;
    }

    /** Closes an item (DONE or DROPPED) with a note. */
    public static Resolved resolve(Transaction tx, String owner, String corpus, Queue queue, String id, String status, String note) {
        if (!status.equals("DONE") && !status.equals("DROPPED")) throw new RagException(owner + ": resolution status must be DONE or DROPPED, got '" + status + "'");
        Node n = id == null ? null : tx.findNode(queue.label, queue.idKey, id);
        if (n == null || !corpus.equals(n.getProperty("corpus", null))) throw new RagException(owner + ": no item '" + id + "' in corpus '" + corpus + "'");
        n.setProperty("status", status);
        n.setProperty("resolution", note);
        n.setProperty("resolvedAt", ZonedDateTime.now());
        return new Resolved(true, id, status);
    }

    /** The provenance of {@code targetId} (an entity id, or an entity's name, or a relation id), oldest first. */
    public static List<Provenance> provenance(Transaction tx, KnowledgeStore store, String corpus, String targetId) {
        Node byName = store.resolve(targetId);
        String id = byName == null ? targetId : (String) byName.getProperty("entityId");
        List<Provenance> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (p:RagaProvenance {targetId: $id, corpus: $c}) OPTIONAL MATCH (p)-[:RAGA_FROM_CHUNK]->(ch:Chunk)"
                + " RETURN p, ch ORDER BY p.createdAt", Map.of("id", id, "c", corpus))) {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                Node p = (Node) row.get("p");
                out.add(new Provenance((String) p.getProperty("provId"), (String) p.getProperty("targetKind"), (String) p.getProperty("targetId"),
                        (String) p.getProperty("op"), (String) p.getProperty("tool"), (String) p.getProperty("chunkId", null), (String) p.getProperty("docId", null),
                        (String) p.getProperty("quote", null), (Long) p.getProperty("start", null), (Long) p.getProperty("end", null),
                        (Long) p.getProperty("docStart", null), (Long) p.getProperty("docEnd", null), (String) p.getProperty("certainty", null),
                        (Double) p.getProperty("confidence", null), (String) p.getProperty("reason", null), (String) p.getProperty("sessionId", null),
                        (String) p.getProperty("details", null), (ZonedDateTime) p.getProperty("createdAt", null), Displayed.node((Node) row.get("ch"))));
            }
        }
        return out;
    }

    /** The corpus's entity types, then its relation types, by name. */
    public static List<Type> types(Transaction tx, String corpus) {
        List<Type> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (t) WHERE (t:RagaEntityType OR t:RagaRelationType) AND t.corpus = $c RETURN t,"
                + " CASE WHEN t:RagaEntityType THEN 'entity' ELSE 'relation' END AS kind ORDER BY kind, t.name", Map.of("c", corpus))) {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                Node t = (Node) row.get("t");
                out.add(new Type((String) row.get("kind"), (String) t.getProperty("name"), (String) t.getProperty("description", null),
                        (String) t.getProperty("domain", null), (String) t.getProperty("range", null), (String) t.getProperty("status")));
            }
        }
        return out;
    }
}
