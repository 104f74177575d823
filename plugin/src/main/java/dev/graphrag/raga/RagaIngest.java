package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.ReplyReader;
import dev.graphrag.core.llm.ToolLoop;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;

/**
 * raga.ingest's reading loop (paper §3.3.1-3.3.3, Algorithm 1): per chunk of the given documents, in order, an agent reads through
 * core's tool loop (native tool calls, or JSON actions for endpoints without them) and writes the graph through RAGA's
 * tools, each call committed in a transaction of its own, so nothing needs compensating. A chunk goes READING, then
 * VERIFIED (its summary stored), then ARCHIVED once the todos it triggered were handled; a re-run skips archived
 * chunks, so an interrupted ingest resumes without duplicates (creates reuse by alias key anyway). Rows come as chunks
 * complete, then one summary row.
 */
public final class RagaIngest {

    /** A row: kind "chunk" per chunk read, then kind "summary" with the totals and why the run stopped. */
    public record Row(String kind, String sessionId, String documentId, String chunkId, Long index, String state, String summary, boolean incomplete,
                      long toolCalls, long invalidToolCalls, long entitiesCreated, long entitiesReused, long relationsCreated, long updates, long merges,
                      long deletes, long reviews, long todos, long todosResolved, Usage usage, String stopReason, long ms) {}

    private final RagCall call;
    private final GraphDatabaseService db;
    private final LlmClient llm;
    private final dev.graphrag.core.llm.LlmConfig llmConfig;
    private final RagaIngestConfig cfg;
    private final List<String> errors = new ArrayList<>();
    private final UsageMeter total = new UsageMeter();
    private final ToolContext.Counters totals = new ToolContext.Counters();
    private long toolCalls, invalidCalls, todosResolved;
    private final ReadingPrompts prompts;
    private final FollowUps followUps;
    private IngestSession session;

    public RagaIngest(RagCall call, RagCall.BoundLlm llm, RagaIngestConfig cfg) {
        this.call = call;
        this.db = call.db();
        this.llm = llm.client();
        this.llmConfig = llm.config();
        this.cfg = cfg;
        this.prompts = new ReadingPrompts(cfg);
        this.followUps = new FollowUps(db, cfg.corpus(), cfg.todoBatchSize());
    }

    /** Chunks still to read, in document order; documentIds empty means every document of the corpus. */
    record Pending(String documentId, String chunkId, long index, String state) {}

    public Iterator<Row> run(List<String> documentIds) {
        RagaLayer.setup(db, call.embeddings(), cfg.corpus());
        List<Pending> pending = new ArrayList<>();
        try (Transaction tx = db.beginTx()) {
            LexicalGraph.requireCorpus(tx, cfg.corpus());
            List<String> docs = documentIds;
            if (docs.isEmpty()) {
                docs = new ArrayList<>();
                try (Result r = tx.execute("MATCH (d:Document {corpus: $c}) RETURN d.id AS id ORDER BY id", Map.of("c", cfg.corpus()))) {
                    while (r.hasNext()) docs.add((String) r.next().get("id"));
                }
            }
            for (String d : docs) {
                Node document = (Node) tx.execute("MATCH (d:Document {corpus: $c, id: $id}) RETURN d", Map.of("c", cfg.corpus(), "id", d)).stream()
                        .findAny().map(row -> row.get("d")).orElse(null);
                if (document == null) {
                    throw new RagException("raga.ingest: corpus '" + cfg.corpus() + "' has no document '" + d + "'; ingest it first with rag.ingest");
                }
                stampTitleKey(document);
                try (Result r = tx.execute("MATCH (:Document {corpus: $c, id: $d})-[:HAS_CHUNK]->(c:Chunk) RETURN c.id AS id, c.index AS idx, c.ragaState AS state ORDER BY idx",
                        Map.of("c", cfg.corpus(), "d", d))) {
                    while (r.hasNext()) {
                        Map<String, Object> row = r.next();
                        if (!RagaGraph.ARCHIVED.equals(row.get("state"))) {
                            pending.add(new Pending(d, (String) row.get("id"), ((Number) row.get("idx")).longValue(), (String) row.get("state")));
                        }
                    }
                }
            }
            tx.commit();
        }
        // what removed or replaced chunks alone supported goes before the agent reads (and is shown) anything
        RemovedEvidence.Forgotten forgotten = RemovedEvidence.forget(db, cfg.corpus(),
                new dev.graphrag.core.layer.BatchWriter(db, 500, call.cancelled(), call.progress(), "raga.ingest"));
        if (forgotten.quotes() > 0) {
            call.log().accept(String.format("raga.ingest corpus=%s: %d quotes of removed or replaced chunks removed, with %d relations and %d entities"
                    + " nothing else supports", cfg.corpus(), forgotten.quotes(), forgotten.relations(), forgotten.entities()));
        }
        session = new IngestSession(db, cfg.corpus(), "raga-" + UUID.randomUUID(), llmConfig.model());
        session.update("RUNNING", null, toolCalls, invalidCalls, totals, total.usage(), errors);
        if (cfg.bootstrapSchema()) bootstrapSchema();
        long started = System.currentTimeMillis();
        Iterator<Pending> it = pending.iterator();
        return new Iterator<>() {
            boolean done;

            @Override
            public boolean hasNext() {
                return !done;
            }

            @Override
            public Row next() {
                if (done) throw new NoSuchElementException();
                while (true) {
                    String stop = null;
                    if (!it.hasNext()) stop = "done";
                    else if (cfg.tokenBudget() > 0 && total.usage().totalTokens() >= cfg.tokenBudget()) stop = "tokenBudget";
                    else if (call.cancelled().getAsBoolean()) stop = "cancelled";
                    if (stop != null) return summary(stop);
                    Pending p = it.next();
                    try {
                        // one chunk at a time per corpus; a chunk another ingest archived meanwhile is skipped
                        Row row = call.exclusive(RagaLayer.SPEC.namespace(), "raga.ingest", cfg.corpus(), () -> stillPending(p) ? readChunk(p) : null);
                        if (row != null) return row;
                    } catch (RuntimeException e) {
                        done = true;
                        session.update("FAILED", "chunk " + p.chunkId() + ": " + e.getMessage(), toolCalls, invalidCalls, totals, total.usage(), errors);
                        throw new RagException("raga.ingest: reading chunk '" + p.chunkId() + "' failed: " + e.getMessage()
                                + "; what was written stays, and the next raga.ingest resumes from this chunk");
                    }
                }
            }

            private Row summary(String stop) {
                done = true;
                session.update(stop.equals("done") ? "DONE" : "STOPPED", stop, toolCalls, invalidCalls, totals, total.usage(), errors);
                return new Row("summary", session.id(), null, null, null, stop.equals("done") ? "DONE" : "STOPPED", null, false, toolCalls, invalidCalls,
                        totals.entitiesCreated, totals.entitiesReused, totals.relationsCreated, totals.updates, totals.merges, totals.deletes, totals.reviews,
                        totals.todos, todosResolved, total.usage(), stop, System.currentTimeMillis() - started);
            }
        };
    }

    private boolean stillPending(Pending p) {
        try (Transaction tx = db.beginTx()) {
            Node c = tx.findNode(LexicalGraph.CHUNK, "id", p.chunkId());
            return c != null && !RagaGraph.ARCHIVED.equals(c.getProperty("ragaState", null));
        }
    }

    // ---- one chunk

    private Row readChunk(Pending p) {
        Pending fresh = p;
        try (Transaction tx = db.beginTx()) {
            fresh = new Pending(p.documentId(), p.chunkId(), p.index(), (String) tx.findNode(LexicalGraph.CHUNK, "id", p.chunkId()).getProperty("ragaState", null));
        }
        p = fresh;
        long t0 = System.currentTimeMillis();
        ToolContext ctx = new ToolContext(cfg.corpus(), p.chunkId(), session.id(), cfg.tools());
        UsageMeter usage = new UsageMeter();
        String summary = null;
        boolean incomplete = false;
        String stopReason = "final";
        long calls0 = toolCalls, invalid0 = invalidCalls, resolved0 = todosResolved;
        if (!RagaGraph.VERIFIED.equals(p.state())) {
            List<Map<String, Object>> messages;
            if (RagaGraph.READING.equals(p.state())) rememberInterrupted(ctx, p.chunkId());
            try (Transaction tx = db.beginTx()) {
                Node c = tx.findNode(LexicalGraph.CHUNK, "id", p.chunkId());
                c.setProperty("ragaState", RagaGraph.READING);
                messages = prompts.read(tx, c, errors);
                tx.commit();
            }
            ToolLoop.Outcome o = loop(ctx, RagaPrompts.READ, cfg.maxRounds()).run(messages, cfg.toolMode());
            usage.add(o.usage());
            if (o.stopReason().equals("final") && o.calls().isEmpty() && !declaresCompletion(o.content())) {
                // prose before any tool call (a small model's apology): asked once more to use the tools; a reply that says the
                // paragraph is complete in chunk_complete's own JSON is taken at its word
                usage.add(Usage.fallback(RagaPrompts.READ, 0, PROSE_REMINDED));
                List<Map<String, Object>> again = new ArrayList<>(messages);
                again.add(Map.of("role", "assistant", "content", o.content() == null ? "" : o.content()));
                again.add(Map.of("role", "user", "content", PROSE_REMINDER));
                ToolLoop.Outcome second = loop(ctx, RagaPrompts.READ, cfg.maxRounds()).run(again, cfg.toolMode());
                usage.add(second.usage());
                o = new ToolLoop.Outcome(second.content(), second.calls(), o.usage().plus(second.usage()), second.stopReason(), second.mode(),
                        o.invalidCalls() + second.invalidCalls());
            }
            // a loop stopped by a bound keeps what it wrote (each write with its evidence), flagged ragaIncomplete and alerted;
            // a reading that ends in prose again wrote nothing: counted, so a weak model shows in the figures
            if (!o.stopReason().equals("final")) usage.add(Usage.fallback(RagaPrompts.READ, 0, "chunk kept incomplete (" + o.stopReason() + ")"));
            else if (o.calls().isEmpty() && !declaresCompletion(o.content())) {
                usage.add(Usage.fallback(RagaPrompts.READ, 0, "chunk ended in prose before any tool call"));
            }
            toolCalls += o.calls().size();
            invalidCalls += o.invalidCalls();
            stopReason = o.stopReason();
            incomplete = !o.stopReason().equals("final");
            summary = incomplete ? "" : completionSummary(o.content());
            try (Transaction tx = db.beginTx()) {
                Node c = tx.findNode(LexicalGraph.CHUNK, "id", p.chunkId());
                c.setProperty("ragaState", RagaGraph.VERIFIED);
                c.setProperty("ragaSummary", summary);
                c.setProperty("ragaIncomplete", incomplete);
                c.setProperty("ragaSessionId", session.id());
                if (incomplete) session.alert(tx, "ROUND_LIMIT", "chunk " + p.chunkId() + " stopped at " + o.stopReason(), p.chunkId());
                tx.commit();
            }
        }
        if (cfg.todos()) usage.add(handleTodos(ctx, p));
        try (Transaction tx = db.beginTx()) {
            tx.findNode(LexicalGraph.CHUNK, "id", p.chunkId()).setProperty("ragaState", RagaGraph.ARCHIVED);
            tx.commit();
        }
        total.add(usage.usage());
        ToolContext.Counters k = ctx.counters;
        totals.add(k);
        session.update("RUNNING", null, toolCalls, invalidCalls, totals, total.usage(), errors);
        return new Row("chunk", session.id(), p.documentId(), p.chunkId(), p.index(), RagaGraph.ARCHIVED, summary, incomplete, toolCalls - calls0,
                invalidCalls - invalid0, k.entitiesCreated, k.entitiesReused, k.relationsCreated, k.updates, k.merges, k.deletes, k.reviews, k.todos,
                todosResolved - resolved0, usage.usage(), stopReason, System.currentTimeMillis() - t0);
    }

    /** What an interrupted reading of the chunk committed: the resumed reading replays those calls without writing them again. */
    private void rememberInterrupted(ToolContext ctx, String chunkId) {
        try (Transaction tx = db.beginTx()) {
            try (Result r = tx.execute("MATCH (p:RagaProvenance {corpus: $c, chunkId: $chunk}) WHERE p.op IN ['CREATE', 'REUSE', 'EVIDENCE_ADD']"
                    + " AND p.tool IN ['create_entity', 'create_relation'] RETURN p.targetKind AS k, p.targetId AS id, p.start AS s, p.end AS e",
                    Map.of("c", cfg.corpus(), "chunk", chunkId))) {
                r.forEachRemaining(row -> ctx.replayable(ToolContext.writeKey((String) row.get("k"), (String) row.get("id"), chunkId,
                        ((Number) row.get("s")).longValue(), ((Number) row.get("e")).longValue())));
            }
            try (Result r = tx.execute("MATCH (t:RagaTodo {corpus: $c, chunkId: $chunk}) RETURN t.task AS x", Map.of("c", cfg.corpus(), "chunk", chunkId))) {
                r.forEachRemaining(row -> ctx.replayable("FOLLOW_UP|" + row.get("x")));
            }
            try (Result r = tx.execute("MATCH (t:RagaReviewItem {corpus: $c, chunkId: $chunk}) RETURN t.subject + '|' + t.reason AS x",
                    Map.of("c", cfg.corpus(), "chunk", chunkId))) {
                r.forEachRemaining(row -> ctx.replayable("REVIEW|" + row.get("x")));
            }
        }
    }

    /** Whether a plain reply is chunk_complete's JSON ({"status": "chunk_complete"} or a summary), not prose. */
    static boolean declaresCompletion(String content) {
        if (content == null || content.isBlank()) return false;
        try {
            JsonNode n = ReplyReader.json(content).value();
            return "chunk_complete".equals(n.path("status").asText()) || n.path("summary").isTextual() || n.path("result").path("summary").isTextual();
        } catch (Exception e) {
            return false; // prose
        }
    }

    /** The summary of a chunk_complete (tool result or plain reply); a reply that is not that JSON is kept as the summary text. */
    static String completionSummary(String content) {
        if (content == null) return "";
        try {
            JsonNode n = ReplyReader.json(content).value();
            JsonNode s = n.path("result").path("summary");
            if (s.isTextual()) return s.asText();
            if (n.path("summary").isTextual()) return n.path("summary").asText();
        } catch (Exception e) {
            // not JSON: the model answered in prose
        }
        return content.length() <= 1000 ? content.trim() : content.substring(0, 1000).trim();
    }

    /** What a reading that ended in prose before any tool call is told once (docs/llm.md#when-the-model-gets-it-wrong). */
    static final String PROSE_REMINDER = "Your reply called no tool. Read the paragraph with the tools: create the entities and relations it"
            + " states, with evidence quoted from it, then call chunk_complete (with an empty summary if it states nothing).";
    static final String PROSE_REMINDED = "prose before any tool call: asked once more";

    /** The tool loop of one chunk: every tool call commits in its own transaction, or writes nothing. */
    private ToolLoop loop(ToolContext ctx, String step, int maxRounds) {
        List<ToolLoop.Tool> tools = new ArrayList<>();
        List<Toolbox.Tool> specs = new ArrayList<>();
        for (Toolbox.Tool s : Toolbox.ALL) if (!cfg.batchToolset() || Toolbox.BATCH_TOOLSET.contains(s.name())) specs.add(s);
        specs.add(Toolbox.CHUNK_COMPLETE);
        long[] callNo = {0};
        Observation shown = new Observation(ctx.currentChunkId);
        for (Toolbox.Tool s : specs) {
            Map<String, Object> shownSchema = s.name().equals("batch_kg_ops") && !cfg.batchToolset() ? Toolbox.BATCH_BY_REFERENCE : null;
            tools.add(new ToolLoop.Tool(s.name(), s.description(), s.parameters(), args -> {
                ctx.toolCallId = session.id() + "#" + (++callNo[0]);
                ToolResult r = runTool(ctx, s.name(), args);
                if (!r.ok()) remember(s.name(), r);
                Map<String, Object> env = observation(shown.of(r.envelope()));
                if (s.name().equals(Toolbox.CHUNK_COMPLETE.name()) && r.ok()) return new ToolLoop.Finished(env);
                return r.ok() ? env : new ToolLoop.Refused(env);
            }).shownAs(shownSchema).digestedBy(s.name().equals("search_kg") || s.name().equals("batch_kg_ops") ? Observation::digest : null));
        }
        ToolLoop.Budget budget = new ToolLoop.Budget(maxRounds, cfg.maxToolCallsPerChunk(), cfg.tokenBudgetPerChunk());
        return new ToolLoop(llm, llmConfig, step, tools, budget, call.cancelled()).refusalsAs(ref -> {
            String code = ref.kind() == ToolLoop.RefusalKind.UNKNOWN_TOOL ? "UNKNOWN_TOOL" : "INVALID_ARGUMENTS";
            ToolResult r = ToolResult.failure(ref.tool(), new ToolError(code, ref.message(), ref.field(), "fix the call to match the tool's schema", null));
            remember(ref.tool(), r);
            return shown.of(r.envelope());
        });
    }

    private ToolResult runTool(ToolContext ctx, String name, JsonNode args) {
        ToolContext.Counters before = ctx.counters.copy();
        try (Transaction tx = db.beginTx()) {
            ToolResult r = new RagaTools(tx, call.embeddings(), ctx).execute(name, args);
            if (r.ok() && !r.rollback()) tx.commit();
            else ctx.restore(before);
            return r;
        } catch (RuntimeException e) {
            // a write that failed at commit (a concurrent writer took the same alias key): rolled back, nothing written
            ctx.restore(before);
            if (call.cancelled().getAsBoolean()) throw e;
            return ToolResult.failure(name, new ToolError("WRITE_CONFLICT", "the write failed and was rolled back: " + e.getMessage(), null,
                    "search again and retry", null));
        }
    }

    private void remember(String tool, ToolResult r) {
        errors.add(tool + ": " + r.code() + " " + r.message());
        if (errors.size() > 20) errors.remove(0);
    }

    private Map<String, Object> observation(Map<String, Object> env) {
        String json = KnowledgeStore.json(env);
        if (json.length() <= cfg.maxObservationChars()) return env;
        Map<String, Object> fitted = Observation.withoutSnippets(env, cfg.maxObservationChars());
        if (fitted != null) return fitted;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", env.get("ok"));
        m.put("truncated", true);
        m.put("text", json.substring(0, cfg.maxObservationChars()));
        return m;
    }

    /**
     * The document's title key, for retrieval's entity pages (docs/raga.md); set on every run, so a graph built before
     * the key existed gets it from a re-run that has no chunk left to read (no LLM call).
     */
    static void stampTitleKey(Node document) {
        Object title = document.getProperty("title", null);
        String key = title instanceof String t ? RagaGraph.titleKey(t) : null;
        if (key == null) {
            if (document.hasProperty(RagaGraph.TITLE_KEY)) document.removeProperty(RagaGraph.TITLE_KEY);
        } else if (!key.equals(document.getProperty(RagaGraph.TITLE_KEY, null))) {
            document.setProperty(RagaGraph.TITLE_KEY, key);
        }
    }

    // ---- follow-ups (L4)

    /** The open follow-ups this chunk brings up (FollowUps.claim), worked through in one agent loop. */
    private Usage handleTodos(ToolContext chunkCtx, Pending p) {
        List<Map<String, Object>> todos;
        List<Map<String, Object>> messages;
        try (Transaction tx = db.beginTx()) {
            todos = followUps.claim(tx, p.chunkId());
            if (todos.isEmpty()) return Usage.NONE;
            messages = RagaPrompts.todos(prompts.schemaBlock(tx), todos);
            tx.commit();
        }
        ToolLoop.Outcome o = loop(chunkCtx, RagaPrompts.FOLLOW_UPS, cfg.todoMaxRounds()).run(messages, cfg.toolMode());
        toolCalls += o.calls().size();
        invalidCalls += o.invalidCalls();
        todosResolved += followUps.resolve(o.content(), todos);
        return o.usage();
    }

    // ---- schema bootstrap (L2)

    /** When the corpus has no schema yet: L2 on samples of the first documents; on failure, the bootstrap domain. */
    private void bootstrapSchema() {
        List<String> samples = new ArrayList<>();
        try (Transaction tx = db.beginTx()) {
            if (tx.execute("MATCH (t:RagaEntityType {corpus: $c}) RETURN t LIMIT 1", Map.of("c", cfg.corpus())).hasNext()) return;
            try (Result r = tx.execute("MATCH (d:Document {corpus: $c}) RETURN d.text AS text ORDER BY d.id LIMIT $n",
                    Map.of("c", cfg.corpus(), "n", (long) cfg.schemaSampleDocs()))) {
                r.forEachRemaining(row -> samples.add(ReadingPrompts.head(String.valueOf(row.get("text")), cfg.schemaSampleChars())));
            }
        }
        RagaPrompts.SchemaReply reply = null;
        UsageMeter usage = new UsageMeter();
        try {
            reply = llm.ask(llmConfig, RagaPrompts.SCHEMA, RagaPrompts.schema(samples), RagaPrompts.SCHEMA_OUT, usage, call.cancelled());
        } catch (RagException e) {
            if (call.cancelled().getAsBoolean()) throw e;
            usage.fallback(RagaPrompts.SCHEMA, "bootstrap domain used");
            call.log().accept("raga.ingest: schema discovery failed (" + e.getMessage() + "); using the bootstrap domain");
        }
        total.add(usage.usage());
        try (Transaction tx = db.beginTx()) {
            SchemaBootstrap.activate(tx, call.embeddings(), cfg.corpus(), reply);
            tx.commit();
        }
    }
}
