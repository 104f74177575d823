package dev.graphrag.raga;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.llm.JsonSchemaCheck;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs RAGA's tools (paper Table 1) in one transaction, for the agent and for people curating by hand alike: arguments
 * checked against the tool's schema, names resolved through the alias registry, evidence verified, the quality gate
 * and schema applied, all before the first write; then the writes, each with its provenance and, for entities, its
 * vector. A refusal writes nothing and comes back as a failure envelope with a code and a hint. Each tool is an entry
 * of {@link Toolbox}; its handler runs in the group of tools that touch what it touches.
 */
public final class RagaTools {
    private final KnowledgeStore store;
    final ReadingTools reading;
    final SearchTools search;
    final GraphTools graph;
    final QueueTools queue;

    public RagaTools(Transaction tx, EmbeddingService embeddings, ToolContext ctx) {
        this.store = new KnowledgeStore(tx, embeddings, ctx);
        ToolGroup.Scope scope = new ToolGroup.Scope(tx, embeddings, ctx, store, new RagaSchema(store));
        this.reading = new ReadingTools(scope);
        this.search = new SearchTools(scope);
        this.graph = new GraphTools(scope);
        this.queue = new QueueTools(scope);
    }

    public KnowledgeStore store() {
        return store;
    }

    /** Runs a tool by name on JSON arguments; never throws for a refusal. */
    public ToolResult execute(String name, JsonNode args) {
        Toolbox.Tool tool = Toolbox.byName(name);
        if (tool == null) return ToolResult.failure(name, new ToolError("UNKNOWN_TOOL", "no tool named '" + name + "'; tools are " + Toolbox.names()));
        if (args == null || !args.isObject()) {
            return ToolResult.failure(tool.name(), new ToolError("INVALID_ARGUMENTS", "arguments must be a JSON object", "", null, null));
        }
        String problem = JsonSchemaCheck.problem(tool.parameters(), args);
        if (problem != null) {
            return ToolResult.failure(tool.name(), new ToolError("INVALID_ARGUMENTS", "invalid arguments: " + problem, JsonSchemaCheck.pointer(problem),
                    "fix the arguments to match the tool's schema", null));
        }
        List<String> warnings = new ArrayList<>();
        try {
            if (tool == Toolbox.BATCH) return batch(args);
            return ToolResult.success(tool.name(), tool.handler().run(this, args, "", warnings), warnings);
        } catch (ToolError e) {
            return ToolResult.failure(tool.name(), e);
        }
    }

    /**
     * A tool called by hand (raga.tool and its shortcuts) in the caller's transaction {@code tx}. An atomic batch_kg_ops
     * is first run in a transaction of its own that is never committed, so a batch that would be refused writes nothing.
     */
    public static ToolResult byHand(GraphDatabaseService db, Transaction tx, EmbeddingService embeddings, ToolContext ctx, String name, JsonNode args) {
        if (args == null) return ToolResult.failure(name, new ToolError("INVALID_ARGUMENTS", "args are not a JSON object", "", null, null));
        if (Toolbox.byName(name) == Toolbox.BATCH && args.path("atomic").asBoolean(false)) {
            try (Transaction scratch = db.beginTx()) {
                ToolResult dry = new RagaTools(scratch, embeddings, ctx).execute(name, args);
                if (!dry.ok()) return dry;
            }
        }
        return new RagaTools(tx, embeddings, ctx).execute(name, args);
    }

    // ---- batch

    private static final String[][] BATCH_ORDER = {
            {"creates", "entities", "create_entity"}, {"creates", "relations", "create_relation"}, {"updates", "entities", "update_entity"},
            {"updates", "relations", "update_relation"}, {"merges", "entities", "merge_entity"}, {"merges", "relations", "merge_relation"},
            {"deletes", "entities", "delete_entity"}, {"deletes", "relations", "delete_relation"}};

    private ToolResult batch(JsonNode a) {
        boolean atomic = a.path("atomic").asBoolean(false);
        Map<String, Long> counters = new LinkedHashMap<>();
        for (String k : List.of("searched", "created", "reused", "updated", "merged", "deleted", "failed")) counters.put(k, 0L);
        List<Map<String, Object>> results = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        JsonNode searches = a.path("searches");
        for (int i = 0; i < searches.size(); i++) {
            results.add(Map.of("op", "search_kg", "index", (long) i, "ok", true, "result", search.searchKg(searches.get(i))));
            counters.merge("searched", 1L, Long::sum);
        }
        for (String[] o : BATCH_ORDER) {
            JsonNode ops = a.path(o[0]).path(o[1]);
            for (int i = 0; i < ops.size(); i++) {
                String at = "/" + o[0] + "/" + o[1] + "/" + i;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("op", o[2]);
                r.put("index", (long) i);
                try {
                    Map<String, Object> out = Toolbox.byName(o[2]).handler().run(this, ops.get(i), at, warnings);
                    r.put("ok", true);
                    r.put("result", out);
                    String counter = o[2].startsWith("create") ? (Boolean.TRUE.equals(out.get("reused")) ? "reused" : "created")
                            : o[2].startsWith("update") ? "updated" : o[2].startsWith("merge") ? "merged" : "deleted";
                    counters.merge(counter, 1L, Long::sum);
                } catch (ToolError e) {
                    if (atomic) {
                        ToolError f = new ToolError(e.code(), "atomic batch: " + o[2] + " " + at + " failed, nothing written: " + e.getMessage(),
                                e.field() == null ? at : e.field(), e.hint(), e.candidates());
                        return new ToolResult(false, "batch_kg_ops", Map.of(), List.of(), f, true);
                    }
                    r.put("ok", false);
                    r.put("error", ToolResult.failure(o[2], e).envelope().get("error"));
                    counters.merge("failed", 1L, Long::sum);
                }
                results.add(r);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("counters", counters);
        out.put("results", results);
        if (counters.get("failed") > 0) warnings.add(counters.get("failed") + " operation(s) failed and wrote nothing; the others were written");
        return ToolResult.success("batch_kg_ops", out, warnings);
    }

    /** Arguments as JSON for {@link #execute}: a Cypher map, or the agent's JSON text. */
    public static JsonNode arguments(Object args) {
        if (args instanceof String s) {
            try {
                return KnowledgeStore.JSON.readTree(s);
            } catch (JsonProcessingException e) {
                return null;
            }
        }
        return KnowledgeStore.JSON.valueToTree(args);
    }
}
