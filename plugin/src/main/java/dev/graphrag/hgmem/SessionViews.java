package dev.graphrag.hgmem;

import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** HGMem sessions as their read procedures show them: the memory points with their graph, the numbers, the list of sessions. */
public final class SessionViews {
    /** hgmem.memory: one memory point; index is what the LLM calls point (i), -1 for a merged-away unit. */
    public record Point(long index, String unitId, String description, List<String> entities, long size, String status, String origin,
                        long createdStep, long updatedStep, List<String> mergedFrom, Node unit, List<Node> members, List<Relationship> relationships) {}

    /** hgmem.stats; avgVerticesPerUnit is the paper's Avg-N_v (memberships per active memory point). */
    public record Stats(String sessionId, String query, String status, long units, long vertices, long memberships, double avgVerticesPerUnit,
                        long maxUnitSize, long mergedUnits, long steps, long llmCalls, long promptTokens, long completionTokens) {}

    /** hgmem.session.list: one session. */
    public record Listed(String sessionId, String corpus, String query, String status, long step, long units, String error,
                         ZonedDateTime createdAt, ZonedDateTime updatedAt) {}

    private SessionViews() {}

    /** A session that exists, loaded; an error naming {@code owner} and the call that lists sessions otherwise. */
    public static SessionStore.Loaded require(Transaction tx, String owner, String sessionId) {
        if (sessionId == null || sessionId.isBlank()) throw new RagException(owner + ": sessionId must not be null or empty");
        if (SessionStore.find(tx, sessionId) == null) throw new RagException(owner + ": no HGMem session '" + sessionId + "': hgmem.session.list() lists them");
        return SessionStore.load(tx, sessionId);
    }

    /** The session's memory points in listing order, merged-away units (index -1) after them when asked for. */
    public static List<Point> points(Transaction tx, SessionStore.Loaded session, boolean includeInactive) {
        HypergraphMemory m = session.session().memory();
        List<Point> out = new ArrayList<>();
        List<MemoryUnit> listing = m.listing();
        for (MemoryUnit u : m.allUnits()) {
            int index = listing.indexOf(u);
            if (index < 0 && !includeInactive) continue;
            Node unit = tx.findNode(HgmemGraph.UNIT, "id", u.id());
            List<Node> members = new ArrayList<>();
            List<Relationship> rels = new ArrayList<>();
            unit.getRelationships(Direction.OUTGOING, HgmemGraph.MEMBER, HgmemGraph.MERGED_INTO).forEach(x -> {
                rels.add(x);
                members.add(x.getEndNode());
            });
            out.add(new Point(index, u.id(), u.description(), u.vertices(), u.vertices().size(), u.status().name().toLowerCase(Locale.ROOT),
                    u.origin().name().toLowerCase(Locale.ROOT), u.createdStep(), u.updatedStep(), u.mergedFrom(), Displayed.node(unit),
                    Displayed.nodes(members), Displayed.relationships(rels)));
        }
        out.sort((a, b) -> a.index() < 0 || b.index() < 0 ? Long.compare(b.index() < 0 ? 0 : 1, a.index() < 0 ? 0 : 1) : Long.compare(a.index(), b.index()));
        return out;
    }

    public static Stats stats(Transaction tx, SessionStore.Loaded l) {
        HypergraphMemory m = l.session().memory();
        Node s = SessionStore.find(tx, l.id());
        long merged = m.allUnits().stream().filter(u -> u.status() == MemoryUnit.Status.MERGED).count();
        long max = m.listing().stream().mapToLong(u -> u.vertices().size()).max().orElse(0);
        return new Stats(l.id(), l.session().query(), l.status(), m.listing().size(), m.vertices().size(), m.memberships(),
                m.averageVerticesPerUnit(), max, merged, l.session().step(), (Long) s.getProperty("llmCalls", 0L), (Long) s.getProperty("promptTokens", 0L),
                (Long) s.getProperty("completionTokens", 0L));
    }

    /** Sessions newest first, of one corpus or (corpus null) all. */
    public static List<Listed> list(Transaction tx, String corpus) {
        List<Listed> out = new ArrayList<>();
        tx.findNodes(HgmemGraph.SESSION).forEachRemaining(s -> {
            if (corpus != null && !corpus.equals(s.getProperty("corpus", null))) return;
            long units = 0;
            for (Relationship x : s.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_UNIT)) if ("active".equals(x.getEndNode().getProperty("status", null))) units++;
            out.add(new Listed((String) s.getProperty("id"), (String) s.getProperty("corpus"), (String) s.getProperty("query"),
                    (String) s.getProperty("status", "active"), ((Number) s.getProperty("step", 0L)).longValue(), units, (String) s.getProperty("error", null),
                    (ZonedDateTime) s.getProperty("createdAt", null), (ZonedDateTime) s.getProperty("updatedAt", null)));
        });
        out.sort((a, b) -> b.createdAt() == null || a.createdAt() == null ? 0 : b.createdAt().compareTo(a.createdAt()));
        return out;
    }
}
