package dev.graphrag.raga;

import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The active schema of a corpus (paper §3.3.7): {@code RagaEntityType} and {@code RagaRelationType} nodes, status ACTIVE
 * (bootstrapped or declared), PROPOSED (introduced by the agent while reading) or CANDIDATE (a bootstrap type whose
 * domain or range is undeclared). A new relation type too close to an ACTIVE one (cosine of "name: description" at or
 * above the threshold) is refused with RELATION_TYPE_SIMILAR unless the agent insists (P4).
 */
public final class RagaSchema {
    public static final Pattern RELATION_TYPE = Pattern.compile("^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$");

    /** The bootstrap domain used when discovery is off or fails (docs/raga.md#our-own-rules-where-the-paper-gives-none). */
    public static final List<String> DEFAULT_ENTITY_TYPES = List.of("Method", "Dataset", "Metric", "Task", "Model", "System", "Concept", "Person", "Organization");
    public static final List<String> DEFAULT_RELATION_TYPES = List.of("USES", "EVALUATED_ON", "OUTPERFORMS", "PART_OF", "IS_A", "PROPOSED_BY", "RELATED_TO");

    /** The statuses listed to the agent, ACTIVE first: every status but REJECTED. */
    public static final List<String> LISTED_STATUSES = List.of("ACTIVE", "PROPOSED", "CANDIDATE");

    /** The columns a {@link TypeRow} is read from. */
    private static final String TYPE_COLUMNS = " RETURN t.name AS name, t.status AS status, t.domain AS domain, t.range AS range, t.createdAt AS createdAt";

    /**
     * A corpus's types of one status, newest first: a seek on the (corpus, status, createdAt) index read in its order, so
     * a prompt's schema costs the same at any number of types (the label is one of RagaGraph's two). The ORDER BY names
     * the index's prefix and nothing after createdAt, so that the planner reads the index in order and stops at the limit.
     */
    public static final String TYPES_OF_STATUS = "MATCH (t:%s {corpus: $c, status: $s}) WHERE t.createdAt IS NOT NULL"
            + TYPE_COLUMNS + " ORDER BY t.corpus DESC, t.status DESC, t.createdAt DESC LIMIT $n";

    /** Every type of one status created at one instant: the ties at a listing's cut, which are then taken by name. */
    static final String TYPES_AT = "MATCH (t:%s {corpus: $c, status: $s, createdAt: $at})" + TYPE_COLUMNS;

    /** How many types of one status a corpus has, counted on the same index (entries only, no node read). */
    public static final String COUNT_OF_STATUS = "MATCH (t:%s {corpus: $c, status: $s}) WHERE t.createdAt IS NOT NULL RETURN count(t) AS n";

    /** The ACTIVE relation types with an embedding, oldest first: what a new relation type is compared with. */
    public static final String ACTIVE_RELATION_TYPES = "MATCH (t:RagaRelationType {corpus: $c, status: 'ACTIVE'}) WHERE t.createdAt IS NOT NULL AND t.embedding IS NOT NULL"
            + " RETURN t.name AS name, t.embedding AS embedding ORDER BY t.corpus, t.status, t.createdAt, t.name";

    /** A type as prompts and error candidates list it. */
    public record TypeRow(String name, String status, Object domain, Object range, ZonedDateTime createdAt) {}

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
            // the ACTIVE types only, in creation order, through the (corpus, status, createdAt) index: the agent's many PROPOSED types are not read
            try (Result r = store.tx.execute(ACTIVE_RELATION_TYPES, Map.of("c", store.corpus))) {
                while (r.hasNext()) {
                    Map<String, Object> o = r.next();
                    double cos = dev.graphrag.core.embed.EmbeddingService.cosine(v, (float[]) o.get("embedding"));
                    if (cos >= store.ctx.settings.similarTypeThreshold()) similar.add(Map.of("name", o.get("name"), "similarity", Math.round(cos * 1000) / 1000.0));
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

    List<Map<String, Object>> activeTypes(Label label) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (TypeRow t : newestTypes(store.tx, label, store.corpus, 40)) out.add(Map.of("name", t.name(), "status", t.status()));
        return out;
    }

    /**
     * A corpus's types that are not REJECTED, at most n: ACTIVE ones newest first, then the others (PROPOSED and
     * CANDIDATE together) newest first, ties by name. Each status is a bounded seek; the others are merged here.
     */
    public static List<TypeRow> newestTypes(Transaction tx, Label label, String corpus, int n) {
        List<TypeRow> out = new ArrayList<>(ofStatus(tx, label, corpus, "ACTIVE", n));
        if (out.size() < n) {
            List<TypeRow> others = new ArrayList<>();
            for (String status : LISTED_STATUSES.subList(1, LISTED_STATUSES.size())) others.addAll(ofStatus(tx, label, corpus, status, n - out.size()));
            others.sort(NEWEST_FIRST);
            out.addAll(others.subList(0, Math.min(others.size(), n - out.size())));
        }
        return out;
    }

    /** How many of a corpus's types are not REJECTED. */
    public static long countTypes(Transaction tx, Label label, String corpus) {
        long all = 0;
        for (String status : LISTED_STATUSES) {
            try (Result r = tx.execute(COUNT_OF_STATUS.formatted(label.name()), Map.of("c", corpus, "s", status))) {
                all += (Long) r.next().get("n");
            }
        }
        return all;
    }

    /** The n newest types of one status, ties on createdAt by name: the index's first n, and all the types tied with the last. */
    private static List<TypeRow> ofStatus(Transaction tx, Label label, String corpus, String status, int n) {
        List<TypeRow> rows = typeRows(tx, TYPES_OF_STATUS.formatted(label.name()), Map.of("c", corpus, "s", status, "n", (long) n));
        if (n > 0 && rows.size() == n) {
            ZonedDateTime cut = rows.get(n - 1).createdAt();
            rows.removeIf(t -> t.createdAt().isEqual(cut));
            rows.addAll(typeRows(tx, TYPES_AT.formatted(label.name()), Map.of("c", corpus, "s", status, "at", cut)));
        }
        rows.sort(NEWEST_FIRST);
        return rows.subList(0, Math.min(n, rows.size()));
    }

    private static final Comparator<TypeRow> NEWEST_FIRST = Comparator.comparing((TypeRow t) -> t.createdAt().toInstant()).reversed().thenComparing(TypeRow::name);

    private static List<TypeRow> typeRows(Transaction tx, String statement, Map<String, Object> params) {
        List<TypeRow> rows = new ArrayList<>();
        try (Result r = tx.execute(statement, params)) {
            r.forEachRemaining(row -> rows.add(new TypeRow((String) row.get("name"), (String) row.get("status"), row.get("domain"), row.get("range"),
                    (ZonedDateTime) row.get("createdAt"))));
        }
        return rows;
    }
}
