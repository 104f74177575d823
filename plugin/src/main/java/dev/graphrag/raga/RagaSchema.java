package dev.graphrag.raga;

import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The active schema of a corpus (spec §2.2): {@code RagaEntityType} and {@code RagaRelationType} nodes, status ACTIVE
 * (bootstrapped or declared), PROPOSED (introduced by the agent while reading) or CANDIDATE (a bootstrap type whose
 * domain or range is undeclared). A new relation type too close to an ACTIVE one (cosine of "name: description" at or
 * above the threshold) is refused with RELATION_TYPE_SIMILAR unless the agent insists (P4).
 */
public final class RagaSchema {
    public static final Pattern RELATION_TYPE = Pattern.compile("^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$");

    /** The bootstrap domain used when discovery is off or fails (spec §2.2 P0). */
    public static final List<String> DEFAULT_ENTITY_TYPES = List.of("Method", "Dataset", "Metric", "Task", "Model", "System", "Concept", "Person", "Organization");
    public static final List<String> DEFAULT_RELATION_TYPES = List.of("USES", "EVALUATED_ON", "OUTPERFORMS", "PART_OF", "IS_A", "PROPOSED_BY", "RELATED_TO");

    private final KnowledgeStore store;

    public RagaSchema(KnowledgeStore store) {
        this.store = store;
    }

    public Node entityType(String name) {
        return store.tx.findNode(RagaGraph.ENTITY_TYPE, "typeUid", RagaGraph.uid(store.corpus, name.toUpperCase(Locale.ROOT)));
    }

    public Node relationType(String name) {
        return store.tx.findNode(RagaGraph.RELATION_TYPE, "typeUid", RagaGraph.uid(store.corpus, name));
    }

    /** Checks an entity type: known, or allowed as PROPOSED in open mode; {@link #registerEntityType} writes it. */
    public void checkEntityType(String type, String field) {
        if (type == null || type.isBlank() || type.length() > 60) throw new ToolError("INVALID_ARGUMENTS", "entity_type must be 1-60 characters", field, null, null);
        Node t = entityType(type);
        if (t != null && "REJECTED".equals(t.getProperty("status"))) {
            throw new ToolError("ENTITY_TYPE_UNKNOWN", "entity type '" + type + "' was rejected", field, "use a type of the active schema", activeTypes(RagaGraph.ENTITY_TYPE));
        }
        if (t == null && !store.ctx.settings.openSchema()) {
            throw new ToolError("ENTITY_TYPE_UNKNOWN", "entity type '" + type + "' is not in the schema (schema mode closed)", field,
                    "use a type of the active schema", activeTypes(RagaGraph.ENTITY_TYPE));
        }
    }

    public void registerEntityType(String type, String description) {
        if (entityType(type) == null) create(RagaGraph.ENTITY_TYPE, type, type.toUpperCase(Locale.ROOT), description, null, null, "PROPOSED", null);
    }

    /** A relation type the agent may use now; null when it must be registered PROPOSED with its embedding (returned by {@link #proposal}). */
    public float[] checkRelationType(String type, String description, boolean forceNew, String field) {
        if (type == null || !RELATION_TYPE.matcher(type).matches()) {
            throw new ToolError("RELATION_TYPE_INVALID", "relation_type '" + type + "' must be UPPER_SNAKE_CASE (^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$)", field,
                    "for example BORN_IN", null);
        }
        Node t = relationType(type);
        if (t != null) {
            if ("REJECTED".equals(t.getProperty("status"))) throw new ToolError("RELATION_TYPE_INVALID", "relation type '" + type + "' was rejected", field, null, null);
            return null;
        }
        if (!store.ctx.settings.openSchema()) {
            throw new ToolError("RELATION_TYPE_INVALID", "relation type '" + type + "' is not in the schema (schema mode closed)", field, null, activeTypes(RagaGraph.RELATION_TYPE));
        }
        float[] v = store.embed(typeText(type, description));
        if (!forceNew) {
            List<Map<String, Object>> similar = new ArrayList<>();
            try (ResourceIterator<Node> it = store.tx.findNodes(RagaGraph.RELATION_TYPE, "corpus", store.corpus)) {
                while (it.hasNext()) {
                    Node o = it.next();
                    if (!"ACTIVE".equals(o.getProperty("status")) || !o.hasProperty("embedding")) continue;
                    double cos = dev.graphrag.core.embed.EmbeddingService.cosine(v, (float[]) o.getProperty("embedding"));
                    if (cos >= store.ctx.settings.similarTypeThreshold()) similar.add(Map.of("name", o.getProperty("name"), "similarity", Math.round(cos * 1000) / 1000.0));
                }
            }
            if (!similar.isEmpty()) {
                throw new ToolError("RELATION_TYPE_SIMILAR", "relation type '" + type + "' is close to an active type", field,
                        "reuse one of the candidates, or resend with force_new_type: true", similar);
            }
        }
        return v;
    }

    public void registerRelationType(String type, String description, String domain, String range, float[] v, String status) {
        if (relationType(type) == null) create(RagaGraph.RELATION_TYPE, type, type, description, domain, range, status, v);
    }

    static String typeText(String name, String description) {
        String words = name.replace('_', ' ').toLowerCase(Locale.ROOT);
        return description == null || description.isBlank() ? words : words + ": " + description;
    }

    void create(org.neo4j.graphdb.Label label, String name, String keyName, String description, String domain, String range, String status, float[] v) {
        Node n = store.tx.createNode(label);
        n.setProperty("typeUid", RagaGraph.uid(store.corpus, keyName));
        n.setProperty("corpus", store.corpus);
        n.setProperty("name", name);
        if (description != null) n.setProperty("description", description);
        if (domain != null) n.setProperty("domain", domain);
        if (range != null) n.setProperty("range", range);
        n.setProperty("status", status);
        n.setProperty("createdAt", ZonedDateTime.now());
        if (v != null) n.setProperty("embedding", v);
    }

    List<Map<String, Object>> activeTypes(org.neo4j.graphdb.Label label) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (ResourceIterator<Node> it = store.tx.findNodes(label, "corpus", store.corpus)) {
            while (it.hasNext() && out.size() < 40) {
                Node n = it.next();
                if (!"REJECTED".equals(n.getProperty("status"))) out.add(Map.of("name", n.getProperty("name"), "status", n.getProperty("status")));
            }
        }
        return out;
    }
}
