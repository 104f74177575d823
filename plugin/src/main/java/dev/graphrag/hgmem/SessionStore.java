package dev.graphrag.hgmem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A session's memory as nodes (docs/hgmem.md): loading it into the loop's objects, and committing one step (units,
 * memberships, merge provenance, the absent entities the step created, the step's record) in one transaction, under
 * the session node's write lock and only if no other step committed meanwhile. Never stores an LLM key or header:
 * the stored config excludes {@code llm}.
 */
public final class SessionStore {
    public static final String ACTIVE = "active", DONE = "done", ANSWERED = "answered", FAILED = "failed";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A loaded session: its node's facts and the loop's state. */
    public record Loaded(String id, String corpus, String status, Map<String, Object> config, Evolution.Session session) {}

    private SessionStore() {}

    public static String newId() {
        return UUID.randomUUID().toString();
    }

    public static Node find(Transaction tx, String id) {
        return tx.findNode(HgmemGraph.SESSION, "id", id);
    }

    public static Loaded load(Transaction tx, String id) {
        Node s = find(tx, id);
        if (s == null) throw new RagException("no HGMem session '" + id + "': hgmem.session.list() lists them");
        List<MemoryUnit> active = new ArrayList<>(), retired = new ArrayList<>();
        List<Node> units = new ArrayList<>();
        s.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_UNIT).forEach(r -> units.add(r.getEndNode()));
        units.sort(Comparator.comparingLong((Node u) -> ((Number) u.getProperty("pos", Long.MAX_VALUE)).longValue())
                .thenComparingLong(u -> ((Number) u.getProperty("seq", 0L)).longValue()));
        for (Node u : units) {
            MemoryUnit m = unit(u);
            if (m.status() == MemoryUnit.Status.ACTIVE) active.add(m);
            else retired.add(m);
        }
        HypergraphMemory memory = HypergraphMemory.restore(SessionStore::newId, active, retired);
        List<Evolution.Task> pending = new ArrayList<>();
        for (Map<String, Object> t : read((String) s.getProperty("pending", "[]"), new TypeReference<List<Map<String, Object>>>() {})) {
            @SuppressWarnings("unchecked") List<String> targets = (List<String>) t.get("targets");
            pending.add(new Evolution.Task((String) t.get("subquery"), targets));
        }
        Evolution.Session session = Evolution.Session.restore((String) s.getProperty("query"), memory, ((Number) s.getProperty("step")).intValue(),
                (Boolean) s.getProperty("done", false), pending, read((String) s.getProperty("historySubqueries", "[]"), new TypeReference<>() {}),
                Arrays.asList((String[]) s.getProperty("historyChunkIds", new String[0])), Arrays.asList((String[]) s.getProperty("judgements", new String[0])),
                read((String) s.getProperty("readAt", "{}"), new TypeReference<Map<String, Integer>>() {}),
                read((String) s.getProperty("vertexSince", "{}"), new TypeReference<Map<String, Integer>>() {}));
        return new Loaded(id, (String) s.getProperty("corpus"), (String) s.getProperty("status"),
                read((String) s.getProperty("config", "{}"), new TypeReference<>() {}), session);
    }

    private static MemoryUnit unit(Node u) {
        List<Relationship> members = new ArrayList<>();
        u.getRelationships(Direction.OUTGOING, HgmemGraph.MEMBER).forEach(members::add);
        members.sort(Comparator.comparingLong(r -> ((Number) r.getProperty("pos", 0L)).longValue()));
        List<String> vertices = members.stream().map(r -> (String) r.getEndNode().getProperty("name")).toList();
        List<String> into = new ArrayList<>();
        u.getRelationships(Direction.OUTGOING, HgmemGraph.MERGED_INTO).forEach(r -> into.add((String) r.getEndNode().getProperty("id")));
        return MemoryUnit.restore((String) u.getProperty("id"), vertices, (String) u.getProperty("description", ""),
                MemoryUnit.Origin.valueOf(((String) u.getProperty("origin")).toUpperCase(Locale.ROOT)), ((Number) u.getProperty("createdStep")).intValue(),
                ((Number) u.getProperty("updatedStep")).intValue(), MemoryUnit.Status.valueOf(((String) u.getProperty("status")).toUpperCase(Locale.ROOT)),
                Arrays.asList((String[]) u.getProperty("mergedFrom", new String[0])), into);
    }

    /** What one step adds to the record besides the memory: its HgStep node's properties. */
    public record StepRecord(Map<String, Object> properties) {}

    /**
     * Commits a step that ran from step {@code expectedStep}: creates the session node if new, refuses if another step
     * committed meanwhile (another cluster member, or a caller that bypassed this member's lock), writes the absent
     * entities the step created, brings units and memberships to the memory's state, records the step.
     */
    public static void commitStep(Transaction tx, String id, String corpus, Map<String, Object> config, int expectedStep, Evolution.Session s,
                                  Neo4jHypergraph graph, EmbeddingService embeddings, StepRecord step) {
        Node node = find(tx, id);
        if (node == null) {
            node = tx.createNode(HgmemGraph.SESSION);
            node.setProperty("id", id);
            node.setProperty("corpus", corpus);
            node.setProperty("query", s.query());
            node.setProperty("createdAt", ZonedDateTime.now());
            node.setProperty("step", (long) expectedStep);
        }
        tx.acquireWriteLock(node);
        long stored = ((Number) node.getProperty("step")).longValue();
        if (stored != expectedStep) {
            throw new RagException("HGMem session '" + id + "' moved on to step " + stored + " while step " + expectedStep
                    + " ran elsewhere; nothing of this step was written: call hgmem.evolve again");
        }
        writeAbsent(tx, corpus, id, graph, embeddings);
        writeUnits(tx, node, id, corpus, s.memory());
        node.setProperty("status", s.done() ? DONE : ACTIVE);
        node.removeProperty("error");
        node.setProperty("step", (long) s.step());
        node.setProperty("done", s.done());
        node.setProperty("judgements", s.judgements().toArray(String[]::new));
        List<Map<String, Object>> pending = new ArrayList<>();
        for (Evolution.Task t : s.pending()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("subquery", t.subquery());
            m.put("targets", t.targets());
            pending.add(m);
        }
        node.setProperty("pending", write(pending));
        node.setProperty("historySubqueries", write(s.subqueries()));
        node.setProperty("historyChunkIds", s.chunkIds().toArray(String[]::new));
        node.setProperty("readAt", write(s.readAt()));
        node.setProperty("vertexSince", write(s.vertexSince()));
        node.setProperty("config", write(config));
        node.setProperty("updatedAt", ZonedDateTime.now());
        Node st = tx.createNode(HgmemGraph.STEP);
        st.setProperty("corpus", corpus);
        st.setProperty("sessionId", id);
        step.properties().forEach(st::setProperty);
        node.createRelationshipTo(st, HgmemGraph.HAS_STEP);
        addUsage(node, step.properties());
    }

    private static void addUsage(Node node, Map<String, Object> p) {
        for (String k : List.of("llmCalls", "promptTokens", "completionTokens")) {
            Object v = p.get(k);
            if (v instanceof Number n) node.setProperty(k, ((Number) node.getProperty(k, 0L)).longValue() + n.longValue());
        }
    }

    /** Marks a session failed at its current step (created if its first step failed), with the error; resumable by hgmem.evolve. */
    public static void markFailed(Transaction tx, String id, String corpus, String query, Map<String, Object> config, int step, String error) {
        Node node = find(tx, id);
        if (node == null) {
            node = tx.createNode(HgmemGraph.SESSION);
            node.setProperty("id", id);
            node.setProperty("corpus", corpus);
            node.setProperty("query", query);
            node.setProperty("createdAt", ZonedDateTime.now());
            node.setProperty("step", (long) step);
            node.setProperty("done", false);
            node.setProperty("pending", write(List.of(Map.of("subquery", query))));
            node.setProperty("config", write(config));
        }
        tx.acquireWriteLock(node);
        node.setProperty("status", FAILED);
        node.setProperty("error", error.length() > 2000 ? error.substring(0, 2000) : error);
        node.setProperty("updatedAt", ZonedDateTime.now());
    }

    /** Stores the final answer: status answered. */
    public static void storeAnswer(Transaction tx, String id, String answer, List<String> cited, List<String> context, Map<String, Object> usage) {
        Node node = find(tx, id);
        tx.acquireWriteLock(node);
        node.setProperty("answer", answer);
        node.setProperty("citedChunks", cited.toArray(String[]::new));
        node.setProperty("contextChunks", context.toArray(String[]::new));
        node.setProperty("status", ANSWERED);
        node.setProperty("updatedAt", ZonedDateTime.now());
        addUsage(node, usage);
    }

    /** The absent names the step described (or left bare) as provisional entities, MERGEd by key so two sessions never duplicate one. */
    private static void writeAbsent(Transaction tx, String corpus, String session, Neo4jHypergraph graph, EmbeddingService embeddings) {
        for (Neo4jHypergraph.PendingEntity e : graph.pendingEntities()) {
            Map<String, Object> props = new LinkedHashMap<>();
            props.put("corpus", corpus);
            props.put("name", e.name());
            props.put("type", e.type());
            props.put("description", e.description());
            props.put("provisional", true);
            props.put("createdBySession", session);
            // the chunks it was described from: once none of them is there, it is served no more (Neo4jHypergraph.servable)
            props.put("sourceChunks", (long) e.chunkIds().size());
            props.put("embedding", embeddings.embed(e.name() + ": " + e.description()));
            tx.execute("MERGE (e:HgEntity {key: $key}) ON CREATE SET e += $props WITH e UNWIND $chunks AS id MATCH (c:Chunk {id: id})"
                    + " MERGE (c)-[:HG_MENTIONS]->(e)", Map.of("key", HgmemGraph.entityKey(corpus, e.name()), "props", props, "chunks", e.chunkIds())).close();
        }
        for (Neo4jHypergraph.PendingRelation r : graph.pendingRelations()) {
            Node a = tx.findNode(HgmemGraph.ENTITY, "key", HgmemGraph.entityKey(corpus, r.source()));
            Node b = tx.findNode(HgmemGraph.ENTITY, "key", HgmemGraph.entityKey(corpus, r.target()));
            if (a == null || b == null) continue;
            boolean exists = false;
            for (Relationship x : a.getRelationships(HgmemGraph.RELATED)) if (x.getOtherNode(a).equals(b)) exists = true;
            if (exists) continue;
            Relationship rel = a.createRelationshipTo(b, HgmemGraph.RELATED);
            rel.setProperty("description", r.description());
            rel.setProperty("keywords", r.keywords());
            rel.setProperty("weight", 1.0);
            rel.setProperty("chunkIds", new String[0]);
            rel.setProperty("provisional", true);
            rel.setProperty("createdBySession", session);
            rel.setProperty("embedding", embeddings.embed(r.source() + " -- " + r.target() + " | " + r.keywords() + "\n" + r.description()));
        }
    }

    /** Units to the memory's state: new ones created, changed ones rewritten (memberships in vertex order), retired ones linked to what they went into. */
    private static void writeUnits(Transaction tx, Node session, String id, String corpus, HypergraphMemory memory) {
        Map<String, Node> stored = new LinkedHashMap<>();
        session.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_UNIT).forEach(r -> stored.put((String) r.getEndNode().getProperty("id"), r.getEndNode()));
        Set<String> keep = new HashSet<>();
        List<MemoryUnit> listing = memory.listing();
        long seq = stored.size();
        for (MemoryUnit u : memory.allUnits()) {
            keep.add(u.id());
            Node n = stored.get(u.id());
            if (n == null) {
                n = tx.createNode(HgmemGraph.UNIT);
                n.setProperty("id", u.id());
                n.setProperty("sessionId", id);
                n.setProperty("corpus", corpus);
                n.setProperty("seq", seq++);
                n.setProperty("origin", u.origin().name().toLowerCase(Locale.ROOT));
                n.setProperty("createdStep", (long) u.createdStep());
                n.setProperty("mergedFrom", u.mergedFrom().toArray(String[]::new));
                session.createRelationshipTo(n, HgmemGraph.HAS_UNIT);
                stored.put(u.id(), n);
            }
            n.setProperty("description", u.description() == null ? "" : u.description());
            n.setProperty("status", u.status().name().toLowerCase(Locale.ROOT));
            n.setProperty("updatedStep", (long) u.updatedStep());
            n.setProperty("size", (long) u.vertices().size());
            int pos = listing.indexOf(u);
            if (pos >= 0) n.setProperty("pos", (long) pos);
            else n.removeProperty("pos");
            List<String> current = new ArrayList<>();
            List<Relationship> members = new ArrayList<>();
            n.getRelationships(Direction.OUTGOING, HgmemGraph.MEMBER).forEach(members::add);
            members.sort(Comparator.comparingLong(r -> ((Number) r.getProperty("pos", 0L)).longValue()));
            for (Relationship r : members) current.add((String) r.getEndNode().getProperty("name"));
            if (!current.equals(u.vertices())) {
                members.forEach(Relationship::delete);
                for (int i = 0; i < u.vertices().size(); i++) {
                    Node e = tx.findNode(HgmemGraph.ENTITY, "key", HgmemGraph.entityKey(corpus, u.vertices().get(i)));
                    if (e == null) throw new IllegalStateException("memory names entity '" + u.vertices().get(i) + "' that the graph lacks");
                    n.createRelationshipTo(e, HgmemGraph.MEMBER).setProperty("pos", (long) i);
                }
            }
        }
        for (MemoryUnit u : memory.allUnits()) {
            Node n = stored.get(u.id());
            Set<String> linked = new HashSet<>();
            n.getRelationships(Direction.OUTGOING, HgmemGraph.MERGED_INTO).forEach(r -> linked.add((String) r.getEndNode().getProperty("id")));
            for (String into : u.mergedInto()) if (!linked.contains(into)) n.createRelationshipTo(stored.get(into), HgmemGraph.MERGED_INTO);
        }
        stored.forEach((uid, n) -> { // units the memory dropped (absentEntityPolicy drop emptied them)
            if (!keep.contains(uid)) {
                n.getRelationships().forEach(Relationship::delete);
                n.delete();
            }
        });
    }

    /** What a drop deleted. */
    public record Dropped(String sessionId, long unitsDeleted, long stepsDeleted, long entitiesDeleted) {}

    /**
     * Deletes a session, its units and its steps; with {@code provisional}, also the entities it created during its
     * queries that no unit of another session holds (their provisional relations go with them).
     */
    public static Dropped drop(Transaction tx, String id, boolean provisional) {
        Node s = find(tx, id);
        if (s == null) throw new RagException("no HGMem session '" + id + "': hgmem.session.list() lists them");
        tx.acquireWriteLock(s);
        String corpus = (String) s.getProperty("corpus");
        long units = 0, steps = 0, entities = 0;
        for (Relationship r : s.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_UNIT)) {
            Node u = r.getEndNode();
            u.getRelationships().forEach(Relationship::delete);
            u.delete();
            units++;
        }
        for (Relationship r : s.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_STEP)) {
            Node st = r.getEndNode();
            st.getRelationships().forEach(Relationship::delete);
            st.delete();
            steps++;
        }
        s.getRelationships().forEach(Relationship::delete);
        s.delete();
        if (provisional) {
            try (var r = tx.execute("MATCH (e:HgEntity {corpus: $corpus, createdBySession: $id}) WHERE e.provisional"
                    + " AND NOT EXISTS { (u:HgUnit)-[:HG_MEMBER]->(e) WHERE u.sessionId <> $id }"
                    + " DETACH DELETE e RETURN count(*) AS n", Map.of("corpus", corpus, "id", id))) {
                entities = ((Number) r.next().get("n")).longValue();
            }
            tx.execute("MATCH (:HgEntity {corpus: $corpus})-[x:HG_RELATED {createdBySession: $id}]->() WHERE x.provisional DELETE x",
                    Map.of("corpus", corpus, "id", id)).close();
        }
        return new Dropped(id, units, steps, entities);
    }

    static String write(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T> T read(String s, TypeReference<T> type) {
        try {
            return JSON.readValue(s, type);
        } catch (JsonProcessingException e) {
            throw new RagException("an HGMem session's stored state cannot be read (" + e.getOriginalMessage() + "); hgmem.session.drop it");
        }
    }
}
