package dev.graphrag.remind;

import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ReMind layer of one corpus as replay and the walk read it, straight from the caller's transaction (memories
 * change with every memorisation, so nothing is cached across calls); node kinds and embeddings are kept for the
 * call only. Only the four memory-carrying types are traversed.
 */
final class Neo4jMemoryGraph implements MemoryGraph {
    private static final org.neo4j.graphdb.RelationshipType[] TYPES = RemindGraph.MEMORY_TYPES.toArray(new org.neo4j.graphdb.RelationshipType[0]);

    private final Transaction tx;
    private final Map<String, Node> nodes = new HashMap<>();
    private final Map<String, Kind> kinds = new HashMap<>();
    private final Map<String, float[]> embeddings = new HashMap<>();

    /** Document ids whose chunks and anchors the walk may see; null: all (no where filter). */
    private final java.util.Set<String> admittedDocuments;

    /**
     * Whether chunks changed since the layer's build (docs/remind.md#updates-and-deletes): then an anchor whose chunk is
     * gone, a relation whose sentence came from such a chunk, and an entity nothing present supports any more are
     * hidden, as if the next remind.index had removed them already.
     */
    private final boolean chunksChanged;
    private final Map<String, Boolean> live = new HashMap<>();

    Neo4jMemoryGraph(Transaction tx) {
        this(tx, null, false);
    }

    Neo4jMemoryGraph(Transaction tx, java.util.Set<String> admittedDocuments, boolean chunksChanged) {
        this.tx = tx;
        this.admittedDocuments = admittedDocuments;
        this.chunksChanged = chunksChanged;
    }

    /** Whether seeds must be checked one by one: a where filter or removed text may hide some. */
    boolean hidesNodes() {
        return admittedDocuments != null || chunksChanged;
    }

    /**
     * Whether the walk must not see the node: an anchor (its title summarises its chunk) or entity only removed text
     * supported, or a chunk or anchor of a document outside the where filter.
     */
    boolean hidden(Node n) {
        if (chunksChanged && (n.hasLabel(RemindGraph.ANCHOR) && !liveAnchor(n) || n.hasLabel(RemindGraph.ENTITY) && !supported(n))) return true;
        if (admittedDocuments == null || !(n.hasLabel(LexicalGraph.CHUNK) || n.hasLabel(RemindGraph.ANCHOR))) return false;
        return !admittedDocuments.contains((String) n.getProperty("documentId", null));
    }

    /** Whether the walk may see this edge and both its ends. */
    boolean shows(Relationship r) {
        return !hidden(r.getStartNode()) && !hidden(r.getEndNode()) && !(chunksChanged && r.isType(RemindGraph.RELATION) && !liveRelation(r));
    }

    private boolean liveAnchor(Node anchor) {
        return live.computeIfAbsent(anchor.getElementId(), k -> anchor.hasRelationship(Direction.OUTGOING, RemindGraph.HAS_CHUNK));
    }

    /** A relation lives while the chunk its sentence came from does; one written before relations recorded their chunk counts as live. */
    private boolean liveRelation(Relationship r) {
        Object chunk = r.getProperty("chunkId", null);
        if (!(chunk instanceof String id)) return true;
        Node anchor = tx.findNode(RemindGraph.ANCHOR, "key", id);
        return anchor != null && liveAnchor(anchor);
    }

    /** An entity lives while a present chunk mentions it or one of its relations lives. */
    private boolean supported(Node entity) {
        Boolean known = live.get(entity.getElementId());
        if (known != null) return known;
        boolean ok = false;
        for (Relationship m : entity.getRelationships(Direction.OUTGOING, RemindGraph.MENTIONED_IN)) {
            if (ok = liveAnchor(m.getEndNode())) break;
        }
        if (!ok) {
            for (Relationship r : entity.getRelationships(RemindGraph.RELATION)) {
                if (ok = liveRelation(r)) break;
            }
        }
        live.put(entity.getElementId(), ok);
        return ok;
    }

    Node node(String id) {
        return nodes.computeIfAbsent(id, tx::getNodeByElementId);
    }

    @Override
    public Kind kind(String id) {
        return kinds.computeIfAbsent(id, k -> {
            Node n = node(k);
            if (n.hasLabel(RemindGraph.ANCHOR)) return Kind.ANCHOR;
            if (n.hasLabel(RemindGraph.ENTITY)) return Kind.ENTITY;
            if (n.hasLabel(LexicalGraph.CHUNK)) return Kind.CHUNK;
            return null;
        });
    }

    @Override
    public List<Edge> edges(String id) {
        List<Edge> out = new ArrayList<>();
        Node n = node(id);
        for (Relationship r : n.getRelationships(Direction.BOTH, TYPES)) {
            Node other = r.getOtherNode(n);
            if (hidden(other) || chunksChanged && r.isType(RemindGraph.RELATION) && !liveRelation(r)) continue;
            nodes.putIfAbsent(other.getElementId(), other);
            out.add(new Edge(r.getElementId(), r.getType().name(), other.getElementId(), ((Number) r.getProperty("memoryNorm", 0.0)).doubleValue()));
        }
        return out;
    }

    @Override
    public float[] embedding(String id) {
        return embeddings.computeIfAbsent(id, k -> (float[]) node(k).getProperty("embedding"));
    }

    @Override
    public double[] memory(String edge) {
        return MemoryMath.toDouble(RemindGraph.floats(tx.getRelationshipByElementId(edge).getProperty("memory", null)));
    }

    @Override
    public String name(String id) {
        Node n = node(id);
        return switch (kind(id)) {
            case ENTITY -> (String) n.getProperty("name");
            case ANCHOR -> (String) n.getProperty("title", "");
            case CHUNK -> (String) n.getProperty("id");
        };
    }

    @Override
    public String chunkText(String chunk) {
        return (String) node(chunk).getProperty("text", "");
    }

    @Override
    public String chunkDocumentTitle(String chunk) {
        return LexicalGraph.documentTitle(node(chunk));
    }

    @Override
    public long chunkTokens(String chunk) {
        return ((Number) node(chunk).getProperty("tokens", 0L)).longValue();
    }

    @Override
    public String edgeText(String edge) {
        return (String) tx.getRelationshipByElementId(edge).getProperty("text", "");
    }
}
