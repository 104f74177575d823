package dev.graphrag.mcp;

import dev.graphrag.client.Answer;
import dev.graphrag.client.Citation;
import dev.graphrag.client.Corpus;
import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.GraphRagException;
import dev.graphrag.client.IngestResult;
import dev.graphrag.client.Method;
import dev.graphrag.client.ModelCheck;
import dev.graphrag.client.Passage;
import dev.graphrag.client.Request;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The MCP tools: search, each method's retrieve and answer, list_corpora, check_model, and ingest_files when writes
 * are allowed. Each has a JSON schema (no property beyond those listed) and a description a model can act on; each
 * returns text for the model and the same content structured; a failure is a tool error carrying the plugin's
 * message ("rag.search: where ..."), never an exception that ends the session.
 */
final class ToolCatalog {
    static final int MAX_K = 50;
    private static final List<Method> METHODS = List.of(Method.AGRAG, Method.HGMEM, Method.RAGA, Method.REMIND);
    private static final Map<Method, String> ABOUT = Map.of(
            Method.AGRAG, "AGRAG: a reasoning subgraph of statistics-based entities and facts, ranked by personalised PageRank, and the passages they come from; good for multi-hop questions about named things",
            Method.HGMEM, "HGMem: multi-step retrieval that grows a hypergraph working memory of entity groups; good for questions that need several readings combined",
            Method.RAGA, "RAGA: a knowledge graph an LLM agent built with an evidence quote for every fact, fused with vector search; good for fact lookups that need provenance",
            Method.REMIND, "ReMind: an LLM-guided walk over the knowledge graph that replays walks memorised from earlier questions");

    private final GraphRagClient client;
    private final String defaultCorpus;

    ToolCatalog(GraphRagClient client, String defaultCorpus) {
        this.client = client;
        this.defaultCorpus = defaultCorpus;
    }

    List<SyncToolSpecification> tools(boolean allowWrites) {
        List<SyncToolSpecification> out = new ArrayList<>();
        out.add(tool("search", "Search passages",
                "Searches the documents of a corpus for passages (no LLM): dense, bm25, hybrid (default) or rrf. Returns ranked passages with"
                        + " document, pages and section to cite.",
                schema(List.of("query"), prop("query", "string", "what to look for, in words"), corpusProp(),
                        prop("mode", Map.of("type", "string", "enum", List.of("dense", "bm25", "hybrid", "rrf"), "description", "how to rank (default hybrid)")),
                        kProp(), whereProp()), true,
                a -> passages(client.search(a.text("query"), request(a).with("mode", a.optionalText("mode", "hybrid"))))));
        for (Method m : METHODS) {
            String name = m.prefix();
            out.add(tool(name + "_retrieve", name.toUpperCase(Locale.ROOT) + " retrieve",
                    "Retrieves passages for a question with " + ABOUT.get(m) + ". Returns ranked passages with document, pages and section. The corpus"
                            + " must have the " + name + " layer built (see list_corpora)." + (m == Method.REMIND ? " Calls the LLM to walk." : ""),
                    schema(List.of("query"), prop("query", "string", "the question or subquery"), corpusProp(), kProp(), whereProp()), true,
                    a -> passages(client.retrieve(m, a.text("query"), request(a)))));
            out.add(tool(name + "_answer", name.toUpperCase(Locale.ROOT) + " answer",
                    "Answers a question with the database's LLM using " + ABOUT.get(m) + ". Returns the answer and the passages it cites (document,"
                            + " pages, section)." + (m == Method.HGMEM ? " Writes a working-memory session while it runs (deleted after)." : ""),
                    schema(List.of("question"), prop("question", "string", "the question, in full"), corpusProp(), whereProp()), m != Method.HGMEM,
                    a -> answer(m, a)));
        }
        out.add(tool("list_corpora", "List corpora",
                "Lists the corpora in the database with their documents, chunks, embedding model and the methods whose layer is built over each"
                        + " (which *_retrieve and *_answer tools can be used on it).", schema(List.of()), true, a -> corpora()));
        out.add(tool("check_model", "Check the LLM",
                "Checks how the database's LLM does on each method's steps (rag.llm.check). With dryRun true (the default) nothing is sent: it says how"
                        + " many calls and tokens the check would spend; run with dryRun false only after that.",
                schema(List.of(), prop("dryRun", Map.of("type", "boolean", "description", "true (default): count only; false: call the model")),
                        prop("methods", Map.of("type", "array", "items", Map.of("type", "string", "enum", List.of("agrag", "remind", "hgmem", "raga")),
                                "description", "which methods' steps (default all)"))), true,
                a -> check(a)));
        if (allowWrites) {
            out.add(tool("ingest_files", "Ingest files",
                    "Reads files the Neo4j server may read (a path or glob under its import directory, or an allowed URL) into a corpus: PDF, Office,"
                            + " HTML, Markdown, text. Unchanged files are skipped. Returns one line per file with its status.",
                    schema(List.of("source"), prop("source", Map.of("description", "a path, glob or URL, or a list of them",
                            "anyOf", List.of(Map.of("type", "string"), Map.of("type", "array", "items", Map.of("type", "string"))))), corpusProp()), false,
                    a -> ingest(a)));
        }
        return out;
    }

    private Request request(Args a) {
        Request r = Request.corpus(a.optionalText("corpus", defaultCorpus));
        Long k = a.integer("k", 1, MAX_K);
        if (k != null) r = r.k(k.intValue());
        Map<String, Object> where = a.map("where");
        return where == null ? r : r.where(where);
    }

    private static Result passages(List<Passage> hits) {
        StringBuilder text = new StringBuilder();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Passage p : hits) {
            text.append('[').append(p.rank()).append("] ").append(p.citation().label()).append(" (").append(p.chunkId()).append(")\n")
                    .append(p.text()).append("\n\n");
            Map<String, Object> row = p.citation().toMap();
            row.put("rank", p.rank());
            row.put("score", p.score());
            row.put("text", p.text());
            rows.add(row);
        }
        return new Result(hits.isEmpty() ? "No passage found." : text.toString().trim(), Map.of("passages", rows));
    }

    private Result answer(Method m, Args a) {
        Request r = request(a);
        if (m == Method.HGMEM) r = r.with("keepSession", false);
        Answer answer = client.answer(m, a.text("question"), r);
        StringBuilder text = new StringBuilder(answer.text() == null ? "" : answer.text());
        List<Map<String, Object>> citations = new ArrayList<>();
        int i = 1;
        for (Citation c : answer.citations()) {
            if (i == 1) text.append("\n\nSources:");
            text.append("\n[").append(i++).append("] ").append(c.label()).append(" (").append(c.chunkId()).append(')');
            citations.add(c.toMap());
        }
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("answer", answer.text());
        structured.put("citations", citations);
        structured.put("llmCalls", answer.llmCalls());
        return new Result(text.toString(), structured);
    }

    private Result corpora() {
        List<Corpus> corpora = client.corpora();
        StringBuilder text = new StringBuilder();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Corpus c : corpora) {
            List<String> layers = c.layers().stream().map(Method::prefix).toList();
            text.append(c.name()).append(": ").append(c.documents()).append(" documents, ").append(c.chunks()).append(" chunks; layers ")
                    .append(layers.isEmpty() ? "none (search only)" : String.join(", ", layers)).append('\n');
            rows.add(Map.of("name", c.name(), "documents", c.documents(), "chunks", c.chunks(), "layers", layers));
        }
        return new Result(corpora.isEmpty() ? "No corpus yet." : text.toString().trim(), Map.of("corpora", rows));
    }

    private Result check(Args a) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("dryRun", a.bool("dryRun", true));
        List<String> methods = a.texts("methods");
        if (methods != null) config.put("methods", methods);
        List<ModelCheck> rows = client.checkModel(config);
        StringBuilder text = new StringBuilder();
        List<Map<String, Object>> out = new ArrayList<>();
        for (ModelCheck r : rows) {
            text.append(r.method()).append(' ').append(r.step()).append(": ").append(r.verdict() == null ? "" : r.verdict())
                    .append(r.advice() == null || r.advice().isBlank() ? "" : " - " + r.advice()).append('\n');
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("method", r.method());
            row.put("step", r.step());
            row.put("trials", r.trials());
            row.put("firstTry", r.firstTry());
            row.put("repaired", r.repaired());
            row.put("unusable", r.unusable());
            row.put("wrong", r.wrong());
            row.put("verdict", r.verdict());
            row.put("methodVerdict", r.methodVerdict());
            row.put("advice", r.advice());
            out.add(row);
        }
        return new Result(text.toString().trim(), Map.of("steps", out));
    }

    private Result ingest(Args a) {
        Object source = a.raw("source");
        if (!(source instanceof String) && !(source instanceof List<?>)) throw new IllegalArgumentException("source must be a string or a list of strings");
        List<IngestResult> results = client.ingestFiles(source, a.optionalText("corpus", defaultCorpus), Map.of());
        StringBuilder text = new StringBuilder();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (IngestResult r : results) {
            text.append(r.source() == null ? r.documentId() : r.source()).append(": ").append(r.status())
                    .append(r.error() == null ? ", " + r.chunks() + " chunks" : " - " + r.error()).append('\n');
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("documentId", r.documentId());
            row.put("source", r.source());
            row.put("status", r.status());
            row.put("chunks", r.chunks());
            row.put("error", r.error());
            rows.add(row);
        }
        return new Result(text.toString().trim(), Map.of("files", rows));
    }

    /** What a tool gives back: text for the model and the same content as structured JSON. */
    record Result(String text, Map<String, Object> structured) {}

    private static SyncToolSpecification tool(String name, String title, String description, Map<String, Object> schema, boolean readOnly,
                                              Function<Args, Result> body) {
        Tool tool = Tool.builder().name(name).title(title).description(description).inputSchema(schema)
                .annotations(new ToolAnnotations(title, readOnly, false, readOnly, false, null)).build();
        return SyncToolSpecification.builder().tool(tool).callHandler((exchange, request) -> {
            try {
                Result r = body.apply(new Args(name, request.arguments(), schema));
                return CallToolResult.builder().addTextContent(r.text()).structuredContent(r.structured()).isError(false).build();
            } catch (GraphRagException | IllegalArgumentException e) {
                return CallToolResult.builder().addTextContent(e.getMessage()).isError(true).build();
            } catch (RuntimeException e) {
                // a driver or connection failure: named, so the model can tell the user what is wrong
                return CallToolResult.builder().addTextContent(name + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage()).isError(true).build();
            }
        }).build();
    }

    private Map<String, Object> corpusProp() {
        return prop("corpus", "string", "the corpus (default '" + defaultCorpus + "'; list_corpora lists them)");
    }

    private static Map<String, Object> kProp() {
        return prop("k", Map.of("type", "integer", "minimum", 1, "maximum", MAX_K, "description", "how many passages (default: the procedure's)"));
    }

    private static Map<String, Object> whereProp() {
        return prop("where", Map.of("type", "object", "description", "only documents whose properties pass: {team: 'a'}, {year: {gte: 2024}},"
                + " {or: [{team: 'a'}, {team: 'b'}]}, {not: {draft: true}}; operators eq ne in nin gt gte lt lte exists startsWith contains"));
    }

    private static Map<String, Object> prop(String name, String type, String description) {
        return prop(name, Map.of("type", type, "description", description));
    }

    private static Map<String, Object> prop(String name, Map<String, Object> spec) {
        return Map.of(name, spec);
    }

    @SafeVarargs
    private static Map<String, Object> schema(List<String> required, Map<String, Object>... props) {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (Map<String, Object> p : props) properties.putAll(p);
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", properties);
        s.put("required", required);
        s.put("additionalProperties", false);
        return s;
    }
}
