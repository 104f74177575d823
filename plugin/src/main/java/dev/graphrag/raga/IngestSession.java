package dev.graphrag.raga;

import dev.graphrag.core.llm.Usage;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.List;

/**
 * One raga.ingest run's (:RagaSession) node, written in a transaction of its own as the run goes (status, heartbeat,
 * counts, the last tool errors), and the (:RagaAlert) nodes it raises; raga.info and raga.review.list read them.
 */
final class IngestSession {
    private final GraphDatabaseService db;
    private final String corpus;
    private final String sessionId;
    private final String model;

    IngestSession(GraphDatabaseService db, String corpus, String sessionId, String model) {
        this.db = db;
        this.corpus = corpus;
        this.sessionId = sessionId;
        this.model = model;
    }

    String id() {
        return sessionId;
    }

    void update(String status, String reason, long toolCalls, long invalidCalls, ToolContext.Counters totals, Usage u, List<String> errors) {
        try (Transaction tx = db.beginTx()) {
            Node s = tx.findNode(RagaGraph.SESSION, "sessionId", sessionId);
            if (s == null) {
                s = tx.createNode(RagaGraph.SESSION);
                s.setProperty("sessionId", sessionId);
                s.setProperty("corpus", corpus);
                s.setProperty("startedAt", ZonedDateTime.now());
                s.setProperty("llmModel", model);
            }
            s.setProperty("status", status);
            if (reason != null) s.setProperty("stopReason", reason);
            s.setProperty("heartbeatAt", ZonedDateTime.now());
            s.setProperty("toolCalls", toolCalls);
            s.setProperty("invalidToolCalls", invalidCalls);
            s.setProperty("entitiesCreated", totals.entitiesCreated);
            s.setProperty("relationsCreated", totals.relationsCreated);
            s.setProperty("llmCalls", u.calls());
            s.setProperty("promptTokens", u.promptTokens());
            s.setProperty("completionTokens", u.completionTokens());
            s.setProperty("errorHistory", errors.toArray(new String[0]));
            tx.commit();
        }
    }

    void alert(Transaction tx, String kind, String message, String target) {
        Node a = tx.createNode(RagaGraph.ALERT);
        a.setProperty("corpus", corpus);
        a.setProperty("kind", kind);
        a.setProperty("message", message);
        a.setProperty("targetId", target);
        a.setProperty("sessionId", sessionId);
        a.setProperty("createdAt", ZonedDateTime.now());
    }
}
