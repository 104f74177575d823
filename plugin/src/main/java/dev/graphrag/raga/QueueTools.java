package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Node;

import java.time.ZonedDateTime;
import java.util.Map;
import java.util.UUID;

import static dev.graphrag.raga.ToolArgs.opt;

/** RAGA's tools that file work for later: mark_for_review and create_todo. */
final class QueueTools extends ToolGroup {
    QueueTools(ToolGroup.Scope scope) {
        super(scope);
    }

    private Node item(org.neo4j.graphdb.Label label, String idKey, String prefix) {
        Node n = tx.createNode(label);
        n.setProperty(idKey, prefix + UUID.randomUUID());
        n.setProperty("corpus", ctx.corpus);
        n.setProperty("status", "OPEN");
        if (ctx.currentChunkId != null) n.setProperty("chunkId", ctx.currentChunkId);
        if (ctx.sessionId != null) n.setProperty("sessionId", ctx.sessionId);
        n.setProperty("createdAt", ZonedDateTime.now());
        return n;
    }

    Map<String, Object> markForReview(JsonNode a) {
        String subject = a.get("subject").asText();
        if (ctx.replay("REVIEW|" + subject + "|" + a.get("reason").asText())) return Map.of("replayed", true, "linked_entity", "");
        Node about = store.resolve(subject);
        Node n = item(RagaGraph.REVIEW, "reviewId", "review-");
        n.setProperty("subject", subject);
        n.setProperty("reason", a.get("reason").asText());
        n.setProperty("priority", a.has("priority") ? a.get("priority").asText() : "medium");
        if (about != null) n.createRelationshipTo(about, RagaGraph.ABOUT);
        ctx.counters.reviews++;
        return Map.of("review_id", n.getProperty("reviewId"), "linked_entity", about == null ? "" : about.getProperty("name"));
    }

    Map<String, Object> createTodo(JsonNode a) {
        String related = opt(a, "related_entity");
        if (ctx.replay("FOLLOW_UP|" + a.get("task").asText())) return Map.of("replayed", true, "linked_entity", "");
        Node about = related == null ? null : store.resolve(related);
        Node n = item(RagaGraph.FOLLOW_UP, "todoId", "todo-");
        n.setProperty("task", a.get("task").asText());
        n.setProperty("todoType", a.get("todo_type").asText());
        n.setProperty("priority", a.has("priority") ? a.get("priority").asText() : "medium");
        if (related != null) n.setProperty("relatedEntity", related);
        if (about != null) n.createRelationshipTo(about, RagaGraph.ABOUT);
        if (ctx.currentChunkId != null) {
            Node c = tx.findNode(LexicalGraph.CHUNK, "id", ctx.currentChunkId);
            if (c != null) n.createRelationshipTo(c, RagaGraph.RAISED_IN);
        }
        ctx.counters.todos++;
        return Map.of("todo_id", n.getProperty("todoId"), "linked_entity", about == null ? "" : about.getProperty("name"));
    }
}
