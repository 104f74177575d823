package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of RAGA's 16 tools (paper Table 1) and the control tool chunk_complete, which the agent loop and raga.tool
 * both use: each tool's name, Table 1 phase, its one description, the JSON schema of its arguments (which the agent is
 * given and every call is checked against, unknown keys refused) and the handler that runs it.
 */
public final class Toolbox {
    /** Runs a tool on arguments already checked against its schema; {@code at} prefixes error fields inside a batch. */
    @FunctionalInterface
    interface Handler {
        Map<String, Object> run(RagaTools tools, JsonNode args, String at, List<String> warnings);
    }

    public record Tool(String name, String phase, boolean writes, String description, Map<String, Object> parameters, Handler handler) {}

    private Toolbox() {}

    static Map<String, Object> str() { return Map.of("type", "string", "minLength", 1); }
    static Map<String, Object> text() { return Map.of("type", "string"); }
    static Map<String, Object> integer() { return Map.of("type", "integer"); }
    static Map<String, Object> bool() { return Map.of("type", "boolean"); }
    static Map<String, Object> number(double min, double max) { return Map.of("type", "number", "minimum", min, "maximum", max); }
    static Map<String, Object> strings() { return Map.of("type", "array", "items", Map.of("type", "string")); }
    static Map<String, Object> oneOf(String... values) { return Map.of("type", "string", "enum", List.of(values)); }
    static Map<String, Object> freeObject() { return Map.of("type", "object"); }
    static Map<String, Object> arrayOf(Map<String, Object> item) { return Map.of("type", "array", "items", item); }

    /** An object schema: required keys are the names ending in '*'; no other keys. */
    static Map<String, Object> obj(Object... nameSchemaPairs) {
        Map<String, Object> props = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (int i = 0; i < nameSchemaPairs.length; i += 2) {
            String n = (String) nameSchemaPairs[i];
            if (n.endsWith("*")) {
                n = n.substring(0, n.length() - 1);
                required.add(n);
            }
            props.put(n, nameSchemaPairs[i + 1]);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "object");
        m.put("properties", props);
        if (!required.isEmpty()) m.put("required", required);
        m.put("additionalProperties", false);
        return m;
    }

    static final Map<String, Object> CERTAINTY = oneOf("high", "medium", "low");
    static final Map<String, Object> PRIORITY = oneOf("low", "medium", "high");

    static final Map<String, Object> CREATE_ENTITY = obj("name*", str(), "entity_type*", str(), "evidence*", str(), "description", text(), "aliases", strings(),
            "properties", freeObject(), "source_chunk_id", str(), "certainty", CERTAINTY);
    static final Map<String, Object> CREATE_RELATION = obj("head*", str(), "relation_type*", str(), "tail*", str(), "evidence*", str(), "description", text(),
            "certainty", CERTAINTY, "source_chunk_id", str(), "properties", freeObject(), "force_new_type", bool());
    static final Map<String, Object> UPDATE_ENTITY = obj("entity_name*", str(), "updates*", obj("description", text(), "entity_type", str(), "aliases", strings(),
            "remove_aliases", strings(), "properties", freeObject(), "name", str()), "reason*", str(), "source_chunk_id", str(), "evidence", str());
    static final Map<String, Object> UPDATE_RELATION = obj("relation_id*", str(), "evidence", str(), "confidence", number(0, 1), "source_chunk_id", str());
    static final Map<String, Object> MERGE_ENTITY = obj("target_name*", str(), "source_name*", str(), "reason", text());
    static final Map<String, Object> MERGE_RELATION = obj("target_id*", str(), "source_id*", str(), "reason", text());
    static final Map<String, Object> DELETE_ENTITY = obj("entity_name*", str(), "reason*", str());
    static final Map<String, Object> DELETE_RELATION = obj("relation_id*", str(), "reason*", str(), "soft", bool());
    static final Map<String, Object> SEARCH_KG = obj("query*", str(), "search_type", oneOf("entity", "relation", "fuzzy"), "limit", integer());

    public static final List<Tool> ALL = List.of(
            new Tool("read_paragraph", "READ", false, "Reads a paragraph (chunk) of a document by index; the chunk becomes quotable.",
                    obj("paragraph_idx*", integer(), "doc_id", str(), "purpose", text()),
                    (t, a, at, w) -> t.reading.readParagraph(a)),
            new Tool("browse_context", "SEARCH", false, "Neighbouring text (local: chunks index±radius, which become quotable), the KG around the chunk"
                    + " or a query (kg_neighbors), or an outline of the document (document_overview).",
                    obj("mode*", oneOf("local", "kg_neighbors", "document_overview"), "query", text(), "radius", integer(), "chunk_id", str()),
                    (t, a, at, w) -> t.reading.browseContext(a)),
            new Tool("search_kg", "SEARCH", false, "Searches the KG before you create anything: entities by exact alias, full text and (fuzzy) vector"
                    + " similarity, or relations by type and description.", SEARCH_KG,
                    (t, a, at, w) -> t.search.searchKg(a)),
            new Tool("explore_fusion", "SEARCH", false, "Finds chunks related to a query by vector and graph retrieval fused with RRF; returned chunks"
                    + " become quotable.", obj("query*", str(), "mode", oneOf("parallel", "vector_first", "graph_first"), "top_k", integer()),
                    (t, a, at, w) -> t.search.exploreFusion(a)),
            new Tool("create_entity", "CONSTRUCT", true, "Creates an entity with a verbatim evidence quote, or reuses the entity that already has the"
                    + " name or an alias (adding the evidence).", CREATE_ENTITY,
                    (t, a, at, w) -> t.graph.createEntity(a, at, w)),
            new Tool("create_relation", "CONSTRUCT", true, "Creates a relation between two existing entities with a verbatim evidence quote;"
                    + " relation_type in UPPER_SNAKE_CASE.", CREATE_RELATION,
                    (t, a, at, w) -> t.graph.createRelation(a, at)),
            new Tool("batch_kg_ops", "CONSTRUCT", true, "Several operations in one call, in this order: searches, entity creates, relation creates (may"
                    + " use entities created in the same batch), updates, merges, deletes; atomic:true writes all or nothing.",
                    obj("searches", arrayOf(SEARCH_KG), "creates", obj("entities", arrayOf(CREATE_ENTITY), "relations", arrayOf(CREATE_RELATION)),
                            "updates", obj("entities", arrayOf(UPDATE_ENTITY), "relations", arrayOf(UPDATE_RELATION)),
                            "merges", obj("entities", arrayOf(MERGE_ENTITY), "relations", arrayOf(MERGE_RELATION)),
                            "deletes", obj("entities", arrayOf(DELETE_ENTITY), "relations", arrayOf(DELETE_RELATION)), "atomic", bool()),
                    (t, a, at, w) -> { throw new IllegalStateException("batch_kg_ops runs in RagaTools.batch"); }),
            new Tool("update_entity", "VERIFY", true, "Changes an entity's description, type, aliases, properties or name, with a reason.", UPDATE_ENTITY,
                    (t, a, at, w) -> t.graph.updateEntity(a)),
            new Tool("update_relation", "VERIFY", true, "Adds evidence to a relation or sets its confidence.", UPDATE_RELATION,
                    (t, a, at, w) -> t.graph.updateRelation(a)),
            new Tool("merge_entity", "VERIFY", true, "Merges a duplicate (source) into the target: names become aliases, relations, evidence and"
                    + " mentions move to the target.", MERGE_ENTITY,
                    (t, a, at, w) -> t.graph.mergeEntity(a)),
            new Tool("merge_relation", "VERIFY", true, "Merges a duplicate relation between the same two entities into the target.", MERGE_RELATION,
                    (t, a, at, w) -> t.graph.mergeRelation(a)),
            new Tool("delete_entity", "VERIFY", true, "Deletes an entity and its relations (a snapshot stays in provenance).", DELETE_ENTITY,
                    (t, a, at, w) -> t.graph.deleteEntity(a)),
            new Tool("delete_relation", "VERIFY", true, "Deletes a relation (soft by default: hidden, kept for audit).", DELETE_RELATION,
                    (t, a, at, w) -> t.graph.deleteRelation(a)),
            new Tool("mark_for_review", "VERIFY", true, "Files a review item when you are unsure about a fact, a boundary or a direction.",
                    obj("subject*", str(), "reason*", str(), "priority", PRIORITY),
                    (t, a, at, w) -> t.queue.markForReview(a)),
            new Tool("create_todo", "VERIFY", true, "Files a todo when context is missing (disambiguate, verify, attribute_completion, follow_up).",
                    obj("task*", str(), "todo_type*", oneOf("disambiguate", "verify", "attribute_completion", "follow_up"), "related_entity", str(),
                            "priority", PRIORITY),
                    (t, a, at, w) -> t.queue.createTodo(a)),
            new Tool("get_progress", "READ", false, "Reading progress and KG counts.", obj(),
                    (t, a, at, w) -> t.reading.progress()));

    public static final Tool CHUNK_COMPLETE = new Tool("chunk_complete", "CONTROL", false, "Ends the work on this paragraph with a short summary.",
            obj("summary*", text(), "entities_touched", strings(), "open_questions", strings()),
                    (t, a, at, w) -> Map.of("status", "chunk_complete", "summary", a.path("summary").asText()));

    /** An array whose items are the arguments of the named single tool, which the same toolset describes in full. */
    static Map<String, Object> itemsOf(String tool) {
        return Map.of("type", "array", "items", Map.of("type", "object", "description", "the arguments of " + tool));
    }

    /**
     * batch_kg_ops as a toolset that also holds the single tools shows it: each operation's items point at the single
     * tool whose arguments they take instead of repeating its schema (a third of the full toolset's tokens, sent every
     * round). Calls are still checked against the full nested schema.
     */
    static final Map<String, Object> BATCH_BY_REFERENCE = obj("searches", itemsOf("search_kg"),
            "creates", obj("entities", itemsOf("create_entity"), "relations", itemsOf("create_relation")),
            "updates", obj("entities", itemsOf("update_entity"), "relations", itemsOf("update_relation")),
            "merges", obj("entities", itemsOf("merge_entity"), "relations", itemsOf("merge_relation")),
            "deletes", obj("entities", itemsOf("delete_entity"), "relations", itemsOf("delete_relation")), "atomic", bool());

    /** The batch toolset (the paper's §4 setup): read and search tools plus batch_kg_ops, mark_for_review, create_todo, get_progress. */
    public static final List<String> BATCH_TOOLSET = List.of("read_paragraph", "browse_context", "search_kg", "explore_fusion", "batch_kg_ops",
            "mark_for_review", "create_todo", "get_progress");

    /** Table 1's older spelling, accepted as a synonym. */
    public static final Map<String, String> SYNONYMS = Map.of("batch_kg_operations", "batch_kg_ops");

    /** batch_kg_ops, which RagaTools runs itself (its operations are the other tools' handlers). */
    static final Tool BATCH = byName("batch_kg_ops");

    /** A tool by name (Table 1's older spelling accepted), chunk_complete included; null for no such tool. */
    public static Tool byName(String name) {
        String n = SYNONYMS.getOrDefault(name, name);
        if (n.equals(CHUNK_COMPLETE.name())) return CHUNK_COMPLETE;
        for (Tool t : ALL) if (t.name().equals(n)) return t;
        return null;
    }

    /** The agent's 16 tools by name (chunk_complete is the loop's control, not a tool a user calls). */
    public static List<String> names() {
        return Arrays.asList(ALL.stream().map(Tool::name).toArray(String[]::new));
    }
}
