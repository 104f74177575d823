package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.llm.ReplyReader;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * RAGA's follow-up queue (step raga.L4, the todos the reading agent files with {@code create_todo}): which open follow-ups a
 * chunk brings up, and what the agent's final reply resolved. The agent loop that works through them stays in
 * {@link RagaIngest}; this class only reads and writes the {@code RagaTodo} nodes.
 */
final class FollowUps {
    /** How often one follow-up is offered before it is left open for a person to look at. */
    static final long MAX_ATTEMPTS = 2;

    private final GraphDatabaseService db;
    private final String corpus;
    private final int batchSize;

    FollowUps(GraphDatabaseService db, String corpus, int batchSize) {
        this.db = db;
        this.corpus = corpus;
        this.batchSize = batchSize;
    }

    /**
     * The open follow-ups this chunk brings up (high priority, or about an entity the chunk mentions; never the chunk's
     * own), oldest first, at most the batch size, each counted as one more attempt in {@code tx}. Each is the map the
     * follow-up prompt shows: todo_id, type, task and, when it is about an entity, its name and facts.
     */
    List<Map<String, Object>> claim(Transaction tx, String chunkId) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (t:RagaTodo {corpus: $corpus, status: 'OPEN'}) WHERE coalesce(t.attempts, 0) < $attempts AND coalesce(t.chunkId, '') <> $chunk"
                + " AND (t.priority = 'high' OR EXISTS { (t)-[:RAGA_ABOUT]->(:RagaEntity)<-[:RAGA_MENTIONS_ENTITY]-(:Chunk {id: $chunk}) })"
                + " OPTIONAL MATCH (t)-[:RAGA_ABOUT]->(e:RagaEntity)"
                + " RETURN t, e.name AS entity, e.description AS facts ORDER BY t.createdAt LIMIT $n",
                Map.of("corpus", corpus, "chunk", chunkId, "n", (long) batchSize, "attempts", MAX_ATTEMPTS))) {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                Node t = (Node) row.get("t");
                t.setProperty("attempts", ((Number) t.getProperty("attempts", 0L)).longValue() + 1);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("todo_id", t.getProperty("todoId"));
                m.put("type", t.getProperty("todoType"));
                m.put("task", t.getProperty("task"));
                if (row.get("entity") != null) m.put("entity", row.get("entity"));
                if (row.get("facts") != null) m.put("facts", row.get("facts"));
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Marks DONE or DROPPED what the agent's final reply ({"resolved": [{todo_id, outcome, resolution}]}) says of the
     * follow-ups it was offered; an id it was not offered, another outcome or a reply that is not JSON resolves nothing.
     * Returns how many were resolved.
     */
    int resolve(String content, List<Map<String, Object>> offered) {
        if (content == null) return 0;
        JsonNode n;
        try {
            n = ReplyReader.json(content).value();
        } catch (ReplyReader.Problem e) {
            return 0;
        }
        List<String> ids = offered.stream().map(m -> String.valueOf(m.get("todo_id"))).toList();
        int resolved = 0;
        try (Transaction tx = db.beginTx()) {
            for (JsonNode r : n.path("resolved")) {
                String id = r.path("todo_id").asText();
                String outcome = r.path("outcome").asText("").toUpperCase(Locale.ROOT);
                if (!ids.contains(id) || !(outcome.equals("DONE") || outcome.equals("DROPPED"))) continue;
                Node t = tx.findNode(RagaGraph.FOLLOW_UP, "todoId", id);
                if (t == null) continue;
                t.setProperty("status", outcome);
                t.setProperty("resolution", r.path("resolution").asText(""));
                t.setProperty("resolvedAt", ZonedDateTime.now());
                resolved++;
            }
            tx.commit();
        }
        return resolved;
    }
}
