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

    Neo4jMemoryGraph(Transaction tx) {
        this(tx, null);
    }

    Neo4jMemoryGraph(Transaction tx, java.util.Set<String> admittedDocuments) {
        this.tx = tx;
        this.admittedDocuments = admittedDocuments;
    }

    /** Whether a where filter hides the node: a chunk, or an anchor (its title summarises its chunk), of a document outside it. */
    boolean hidden(Node n) {
        if (admittedDocuments == null || !(n.hasLabel(LexicalGraph.CHUNK) || n.hasLabel(RemindGraph.ANCHOR))) return false;
        return !admittedDocuments.contains((String) n.getProperty("documentId", null));
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
            if (hidden(other)) continue;
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
