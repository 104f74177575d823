package dev.graphrag.core.graph;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes and relationships a procedure yields, as a client sees them: the same entities (same id and element id,
 * so they compare equal to the stored ones and Cypher reads any property of them, {@code n.embedding} included,
 * from the store), but their property maps leave out vectors. A 384-float embedding on every chunk and entity of a
 * drawn subgraph made each yielded node some 4 KB and filled Browser's inspector with numbers.
 * <p>
 * Neo4j serialises a yielded entity that is not its own entity class by reading {@link Entity#getAllProperties()},
 * which is the one method filtered here; every other call goes to the stored entity.
 */
public final class Displayed {
    /** A float or double array at least this long is a vector, not a display value. */
    public static final int VECTOR_MIN_LENGTH = 16;

    private Displayed() {
    }

    public static boolean isVector(Object value) {
        return (value instanceof float[] f && f.length >= VECTOR_MIN_LENGTH) || (value instanceof double[] d && d.length >= VECTOR_MIN_LENGTH);
    }

    public static Node node(Node n) {
        return n == null || n instanceof DisplayedNode ? n : new DisplayedNode(n);
    }

    public static Relationship relationship(Relationship r) {
        return r == null || r instanceof DisplayedRelationship ? r : new DisplayedRelationship(r);
    }

    public static List<Node> nodes(List<Node> nodes) {
        if (nodes == null) return null;
        List<Node> out = new ArrayList<>(nodes.size());
        for (Node n : nodes) out.add(node(n));
        return out;
    }

    public static List<Relationship> relationships(List<Relationship> rels) {
        if (rels == null) return null;
        List<Relationship> out = new ArrayList<>(rels.size());
        for (Relationship r : rels) out.add(relationship(r));
        return out;
    }

    static Map<String, Object> withoutVectors(Map<String, Object> props) {
        Map<String, Object> out = new LinkedHashMap<>();
        props.forEach((k, v) -> {
            if (!isVector(v)) out.put(k, v);
        });
        return out;
    }

    static Iterable<String> keysWithoutVectors(Entity e) {
        return withoutVectors(e.getAllProperties()).keySet();
    }

    private abstract static class DisplayedEntity<E extends Entity> implements Entity {
        final E stored;

        DisplayedEntity(E stored) {
            this.stored = stored;
        }

        @Override public long getId() { return stored.getId(); }
        @Override public String getElementId() { return stored.getElementId(); }
        @Override public boolean hasProperty(String key) { return stored.hasProperty(key); }
        @Override public Object getProperty(String key) { return stored.getProperty(key); }
        @Override public Object getProperty(String key, Object defaultValue) { return stored.getProperty(key, defaultValue); }
        @Override public void setProperty(String key, Object value) { stored.setProperty(key, value); }
        @Override public Object removeProperty(String key) { return stored.removeProperty(key); }
        @Override public Iterable<String> getPropertyKeys() { return keysWithoutVectors(stored); }
        @Override public Map<String, Object> getProperties(String... keys) { return stored.getProperties(keys); }
        @Override public Map<String, Object> getAllProperties() { return withoutVectors(stored.getAllProperties()); }
        @Override public void delete() { stored.delete(); }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entity e && (o instanceof Node) == (stored instanceof Node) && e.getElementId().equals(stored.getElementId());
        }

        @Override
        public int hashCode() {
            return stored.hashCode();
        }

        @Override
        public String toString() {
            return stored.toString();
        }
    }

    static final class DisplayedNode extends DisplayedEntity<Node> implements Node {
        DisplayedNode(Node stored) {
            super(stored);
        }

        @Override public ResourceIterable<Relationship> getRelationships() { return stored.getRelationships(); }
        @Override public boolean hasRelationship() { return stored.hasRelationship(); }
        @Override public ResourceIterable<Relationship> getRelationships(RelationshipType... types) { return stored.getRelationships(types); }
        @Override public ResourceIterable<Relationship> getRelationships(Direction d, RelationshipType... types) { return stored.getRelationships(d, types); }
        @Override public boolean hasRelationship(RelationshipType... types) { return stored.hasRelationship(types); }
        @Override public boolean hasRelationship(Direction d, RelationshipType... types) { return stored.hasRelationship(d, types); }
        @Override public ResourceIterable<Relationship> getRelationships(Direction d) { return stored.getRelationships(d); }
        @Override public boolean hasRelationship(Direction d) { return stored.hasRelationship(d); }
        @Override public Relationship getSingleRelationship(RelationshipType type, Direction d) { return stored.getSingleRelationship(type, d); }
        @Override public Relationship createRelationshipTo(Node other, RelationshipType type) { return stored.createRelationshipTo(other, type); }
        @Override public Iterable<RelationshipType> getRelationshipTypes() { return stored.getRelationshipTypes(); }
        @Override public int getDegree() { return stored.getDegree(); }
        @Override public int getDegree(RelationshipType type) { return stored.getDegree(type); }
        @Override public int getDegree(Direction d) { return stored.getDegree(d); }
        @Override public int getDegree(RelationshipType type, Direction d) { return stored.getDegree(type, d); }
        @Override public void addLabel(Label label) { stored.addLabel(label); }
        @Override public void removeLabel(Label label) { stored.removeLabel(label); }
        @Override public boolean hasLabel(Label label) { return stored.hasLabel(label); }
        @Override public Iterable<Label> getLabels() { return stored.getLabels(); }
    }

    static final class DisplayedRelationship extends DisplayedEntity<Relationship> implements Relationship {
        DisplayedRelationship(Relationship stored) {
            super(stored);
        }

        @Override public Node getStartNode() { return node(stored.getStartNode()); }
        @Override public Node getEndNode() { return node(stored.getEndNode()); }
        @Override public Node getOtherNode(Node n) { return node(stored.getOtherNode(n instanceof DisplayedNode d ? d.stored : n)); }
        @Override public Node[] getNodes() { return new Node[] {getStartNode(), getEndNode()}; }
        @Override public RelationshipType getType() { return stored.getType(); }
        @Override public boolean isType(RelationshipType type) { return stored.isType(type); }
        @Override public long getStartNodeId() { return stored.getStartNodeId(); }
        @Override public long getEndNodeId() { return stored.getEndNodeId(); }
        @Override public long getOtherNodeId(long id) { return stored.getOtherNodeId(id); }
    }
}
