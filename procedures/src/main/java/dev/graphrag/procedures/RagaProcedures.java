package dev.graphrag.procedures;

import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.llm.UsageMeter;
import dev.graphrag.core.search.ChunkSearch;
import dev.graphrag.raga.RagaAnswer;
import dev.graphrag.raga.KnowledgeStore;
import dev.graphrag.raga.RagaIngest;
import dev.graphrag.raga.RagaAdminConfig;
import dev.graphrag.raga.RagaIngestConfig;
import dev.graphrag.raga.RagaLayer;
import dev.graphrag.raga.RagaQueryConfig;
import dev.graphrag.raga.RagaRecords;
import dev.graphrag.raga.RagaRetriever;
import dev.graphrag.raga.RagaSync;
import dev.graphrag.raga.RagaTools;
import dev.graphrag.raga.ToolContext;
import dev.graphrag.raga.ToolResult;
import dev.graphrag.raga.Toolbox;
import com.fasterxml.jackson.databind.JsonNode;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** raga.*: RAGA's agent-built knowledge graph with evidence provenance, and fusion retrieval over it (docs/raga.md). */
public class RagaProcedures {
    @Context public GraphDatabaseService db;
    @Context public Transaction tx;
    @Context public Log log;
    @Context public TerminationGuard guard;
    @Context public GraphRagRuntime rag;

    public record SetupResult(String corpus, String embeddingModel, long embeddingDimensions) {}

    public record IngestResult(String kind, String sessionId, String documentId, String chunkId, Long index, String state, String summary, boolean incomplete,
                               long toolCalls, long invalidToolCalls, long entitiesCreated, long entitiesReused, long relationsCreated, long updates, long merges,
                               long deletes, long reviews, long todos, long todosResolved, long llmCalls, long promptTokens, long completionTokens,
                               Map<String, Object> tokensByStep, String stopReason, long ms) {}

    public record ToolRow(boolean ok, String code, String message, Map<String, Object> result, List<String> warnings) {}

    public record RetrieveResult(long rank, String chunkId, String docId, String text, double score, long vecRank, long kgRank, double vecScore, double kgScore,
                                 long startOffset, long endOffset, boolean degraded, String degradedReason, Node chunk, List<Node> entities,
                                 List<Relationship> relationships, long llmCalls, long promptTokens, long completionTokens) {}

    public record AnswerResult(String answer, String answerType, List<Map<String, Object>> evidence, List<String> retrieved, List<Map<String, Object>> facts,
                               boolean grounded, String mode, boolean degraded, Map<String, Object> rerank, long llmCalls, long promptTokens,
                               long completionTokens, Map<String, Object> tokensByStep) {}

    public record SyncIssue(String kind, String id, String issue) {}

    public record RepairResult(long repaired, long failed, long unrepairable) {}

    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }

    @Procedure(name = "raga.setup", mode = Mode.SCHEMA)
    @Description("raga.setup(config = {} :: MAP) :: (corpus, embeddingModel, embeddingDimensions) - creates RAGA's constraints and indexes (entity"
            + " vector and full-text indexes, relation full-text index) and the corpus's RAGA layer, so tools can be called by hand before any"
            + " raga.ingest. Idempotent. Config: corpus.")
    public Stream<SetupResult> setup(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("raga.setup", config);
        RagaLayer.setup(db, rag.embeddings(), corpus);
        return Stream.of(new SetupResult(corpus, rag.embeddings().modelName(), rag.embeddings().dimensions()));
    }

    @Procedure(name = "raga.ingest", mode = Mode.SCHEMA)
    @Description("raga.ingest(documentIds :: LIST<STRING>, config = {} :: MAP) :: (kind, sessionId, documentId, chunkId, index, state, summary,"
            + " incomplete, toolCalls, invalidToolCalls, entitiesCreated, entitiesReused, relationsCreated, updates, merges, deletes, reviews, todos,"
            + " todosResolved, llmCalls, promptTokens, completionTokens, tokensByStep, stopReason, ms) - an LLM agent reads the documents (all of the"
            + " corpus when the list is empty) chunk by chunk and builds the knowledge graph with RAGA's tools; a row per chunk as it completes"
            + " (kind 'chunk'), then one summary row (kind 'summary'). Each tool call commits on its own; archived chunks are skipped, so a re-run"
            + " resumes. Config: corpus, toolset, maxRounds, maxToolCallsPerChunk, maxObservationChars, adjacentContextChars, recentEntities, promptTypes,"
            + " tokenBudgetPerChunk, tokenBudget, toolMode, bootstrapSchema, schemaSampleDocs, schemaSampleChars, todos, todoBatchSize, todoMaxRounds,"
            + " phaseGuard, dupHintThreshold, evidenceMinChars, evidenceMaxChars, requireEvidenceOnUpdate, qualityGate, maxNameChars,"
            + " minPrintableRatio, schemaMode, similarTypeThreshold, llm.")
    public Stream<IngestResult> ingest(@Name("documentIds") List<String> documentIds, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RagaIngestConfig cfg = RagaIngestConfig.parse(config);
        if (documentIds == null) throw new RagException("raga.ingest: documentIds must be a LIST<STRING> (empty for every document of the corpus), got null");
        for (String d : documentIds) if (d == null || d.isBlank()) throw new RagException("raga.ingest: documentIds must not contain null or empty ids");
        dev.graphrag.core.lexical.LexicalGraph.requireCorpus(tx, cfg.corpus());
        RagCall c = call();
        Iterator<RagaIngest.Row> rows = new RagaIngest(c, c.llm(cfg.llm(), "raga.ingest"), cfg).run(documentIds);
        BuildConfig.recordLayer(db, RagaLayer.SPEC.meta(), cfg.corpus(), config);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(rows, Spliterator.ORDERED), false).map(r -> new IngestResult(r.kind(), r.sessionId(), r.documentId(), r.chunkId(), r.index(), r.state(), r.summary(), r.incomplete(),
                r.toolCalls(), r.invalidToolCalls(), r.entitiesCreated(), r.entitiesReused(), r.relationsCreated(), r.updates(), r.merges(),
                r.deletes(), r.reviews(), r.todos(), r.todosResolved(), r.usage().calls(), r.usage().promptTokens(),
                r.usage().completionTokens(), r.usage().tokensByStep(), r.stopReason(), r.ms()));
    }

    // ---- tools by hand

    @Procedure(name = "raga.tool", mode = Mode.WRITE)
    @Description("raga.tool(name :: STRING, args :: MAP or STRING, context = {} :: MAP) :: (ok, code, message, result, warnings) - runs one of RAGA's"
            + " 16 tools by name with the agent's JSON arguments (a map, or JSON text), in the caller's transaction, with the checks the agent gets:"
            + " an invalid call returns ok=false with a code, a message and result {field, hint, candidates}, and writes nothing. Context: corpus,"
            + " currentChunkId, failOnError, phaseGuard, dupHintThreshold, evidenceMinChars, evidenceMaxChars, requireEvidenceOnUpdate, qualityGate,"
            + " maxNameChars, minPrintableRatio, schemaMode, similarTypeThreshold.")
    public Stream<ToolRow> tool(@Name("name") String name, @Name("args") Object args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        if (name == null || name.isBlank()) throw new RagException("raga.tool: name must be one of " + Toolbox.names());
        return Stream.of(run(name, args, context, "raga.tool"));
    }

    private ToolRow run(String name, Object args, Map<String, Object> context, String owner) {
        RagaAdminConfig.ToolCall c = RagaAdminConfig.ToolCall.parse(owner, context);
        RagaLayer.require(tx, c.corpus());
        if (args != null && !(args instanceof Map) && !(args instanceof String)) {
            throw new RagException(owner + ": args must be a MAP or a JSON STRING, got " + ConfigReader.typeName(args));
        }
        if (args != null) ConfigReader.checkNesting(owner, "args", args);
        JsonNode json = args == null ? null : RagaTools.arguments(args);
        return row(RagaTools.byHand(db, tx, rag.embeddings(), new ToolContext(c.corpus(), c.currentChunkId(), null, c.settings()), name, json), c.failOnError(), owner);
    }

    private static ToolRow row(ToolResult r, boolean failOnError, String owner) {
        if (!r.ok() && failOnError) throw new RagException(owner + ": " + r.tool() + " refused with " + r.code() + ": " + r.message());
        return r.ok() ? new ToolRow(true, null, null, r.result(), r.warnings()) : new ToolRow(false, r.code(), r.message(), r.errorDetails(), List.of());
    }

    private static final String CONTEXT = " Context: corpus, currentChunkId, failOnError and the tool settings of raga.tool.";

    @Procedure(name = "raga.paragraph.read", mode = Mode.READ)
    @Description("raga.paragraph.read(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the read_paragraph tool: args"
            + " {paragraph_idx, doc_id, purpose}." + CONTEXT)
    public Stream<ToolRow> paragraphRead(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("read_paragraph", args, context, "raga.paragraph.read"));
    }

    @Procedure(name = "raga.context.browse", mode = Mode.READ)
    @Description("raga.context.browse(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the browse_context tool: args"
            + " {mode: local|kg_neighbors|document_overview, query, radius, chunk_id}." + CONTEXT)
    public Stream<ToolRow> contextBrowse(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("browse_context", args, context, "raga.context.browse"));
    }

    @Procedure(name = "raga.entity.search", mode = Mode.READ)
    @Description("raga.entity.search(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the search_kg tool: args {query,"
            + " search_type: entity|relation|fuzzy, limit}." + CONTEXT)
    public Stream<ToolRow> entitySearch(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("search_kg", args, context, "raga.entity.search"));
    }

    @Procedure(name = "raga.relation.search", mode = Mode.READ)
    @Description("raga.relation.search(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - search_kg for relations: args"
            + " {query, limit}." + CONTEXT)
    public Stream<ToolRow> relationSearch(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        Map<String, Object> a = new java.util.LinkedHashMap<>(args == null ? Map.of() : args);
        a.put("search_type", "relation");
        return Stream.of(run("search_kg", a, context, "raga.relation.search"));
    }

    @Procedure(name = "raga.explore", mode = Mode.READ)
    @Description("raga.explore(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the explore_fusion tool: args {query,"
            + " mode: parallel|vector_first|graph_first, top_k}." + CONTEXT)
    public Stream<ToolRow> explore(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("explore_fusion", args, context, "raga.explore"));
    }

    @Procedure(name = "raga.progress", mode = Mode.READ)
    @Description("raga.progress(args = {} :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the get_progress tool: KG counts,"
            + " and the paragraph position when context names currentChunkId." + CONTEXT)
    public Stream<ToolRow> progress(@Name(value = "args", defaultValue = "{}") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("get_progress", args, context, "raga.progress"));
    }

    @Procedure(name = "raga.entity.create", mode = Mode.WRITE)
    @Description("raga.entity.create(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the create_entity tool: args {name,"
            + " entity_type, evidence, description, aliases, properties, source_chunk_id, certainty}." + CONTEXT)
    public Stream<ToolRow> entityCreate(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("create_entity", args, context, "raga.entity.create"));
    }

    @Procedure(name = "raga.entity.update", mode = Mode.WRITE)
    @Description("raga.entity.update(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the update_entity tool: args"
            + " {entity_name, updates {description, entity_type, aliases, remove_aliases, properties, name}, reason, source_chunk_id, evidence}." + CONTEXT)
    public Stream<ToolRow> entityUpdate(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("update_entity", args, context, "raga.entity.update"));
    }

    @Procedure(name = "raga.entity.merge", mode = Mode.WRITE)
    @Description("raga.entity.merge(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the merge_entity tool: args"
            + " {target_name, source_name, reason}." + CONTEXT)
    public Stream<ToolRow> entityMerge(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("merge_entity", args, context, "raga.entity.merge"));
    }

    @Procedure(name = "raga.entity.delete", mode = Mode.WRITE)
    @Description("raga.entity.delete(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the delete_entity tool: args"
            + " {entity_name, reason}." + CONTEXT)
    public Stream<ToolRow> entityDelete(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("delete_entity", args, context, "raga.entity.delete"));
    }

    @Procedure(name = "raga.relation.create", mode = Mode.WRITE)
    @Description("raga.relation.create(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the create_relation tool: args"
            + " {head, relation_type, tail, evidence, description, certainty, source_chunk_id, properties, force_new_type}." + CONTEXT)
    public Stream<ToolRow> relationCreate(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("create_relation", args, context, "raga.relation.create"));
    }

    @Procedure(name = "raga.relation.update", mode = Mode.WRITE)
    @Description("raga.relation.update(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the update_relation tool: args"
            + " {relation_id, evidence, confidence, source_chunk_id}." + CONTEXT)
    public Stream<ToolRow> relationUpdate(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("update_relation", args, context, "raga.relation.update"));
    }

    @Procedure(name = "raga.relation.merge", mode = Mode.WRITE)
    @Description("raga.relation.merge(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the merge_relation tool: args"
            + " {target_id, source_id, reason}." + CONTEXT)
    public Stream<ToolRow> relationMerge(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("merge_relation", args, context, "raga.relation.merge"));
    }

    @Procedure(name = "raga.relation.delete", mode = Mode.WRITE)
    @Description("raga.relation.delete(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the delete_relation tool: args"
            + " {relation_id, reason, soft}." + CONTEXT)
    public Stream<ToolRow> relationDelete(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("delete_relation", args, context, "raga.relation.delete"));
    }

    @Procedure(name = "raga.batch", mode = Mode.WRITE)
    @Description("raga.batch(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the batch_kg_ops tool: args {searches,"
            + " creates {entities, relations}, updates {...}, merges {...}, deletes {...}, atomic}." + CONTEXT)
    public Stream<ToolRow> batch(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("batch_kg_ops", args, context, "raga.batch"));
    }

    @Procedure(name = "raga.review.mark", mode = Mode.WRITE)
    @Description("raga.review.mark(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the mark_for_review tool: args"
            + " {subject, reason, priority}." + CONTEXT)
    public Stream<ToolRow> reviewMark(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("mark_for_review", args, context, "raga.review.mark"));
    }

    @Procedure(name = "raga.todo.create", mode = Mode.WRITE)
    @Description("raga.todo.create(args :: MAP, context = {} :: MAP) :: (ok, code, message, result, warnings) - the create_todo tool: args {task,"
            + " todo_type, related_entity, priority}." + CONTEXT)
    public Stream<ToolRow> todoCreate(@Name("args") Map<String, Object> args, @Name(value = "context", defaultValue = "{}") Map<String, Object> context) {
        return Stream.of(run("create_todo", args, context, "raga.todo.create"));
    }

    // ---- review queue and todos

    @Procedure(name = "raga.review.list", mode = Mode.READ)
    @Description("raga.review.list(config = {} :: MAP) :: (id, kind, subject, reason, type, priority, status, chunkId, entity, resolution, createdAt) -"
            + " review items, oldest first. Config: corpus, status (OPEN, DONE, DROPPED or ALL), limit.")
    public Stream<RagaRecords.Item> reviewList(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return items("raga.review.list", config, RagaRecords.Queue.REVIEW);
    }

    @Procedure(name = "raga.todo.list", mode = Mode.READ)
    @Description("raga.todo.list(config = {} :: MAP) :: (id, kind, subject, reason, type, priority, status, chunkId, entity, resolution, createdAt) -"
            + " todos, oldest first. Config: corpus, status (OPEN, DONE, DROPPED or ALL), limit.")
    public Stream<RagaRecords.Item> todoList(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return items("raga.todo.list", config, RagaRecords.Queue.FOLLOW_UP);
    }

    private Stream<RagaRecords.Item> items(String owner, Map<String, Object> config, RagaRecords.Queue queue) {
        RagaAdminConfig.Listing c = RagaAdminConfig.Listing.parse(owner, config);
        RagaLayer.require(tx, c.corpus());
        return RagaRecords.items(tx, c.corpus(), queue, c.status().name(), c.limit()).stream();
    }

    @Procedure(name = "raga.review.resolve", mode = Mode.WRITE)
    @Description("raga.review.resolve(id :: STRING, resolution :: MAP) :: (ok, id, status) - closes a review item: resolution {status: DONE|DROPPED,"
            + " note, corpus}.")
    public Stream<RagaRecords.Resolved> reviewResolve(@Name("id") String id, @Name(value = "resolution", defaultValue = "{}") Map<String, Object> resolution) {
        return Stream.of(resolve("raga.review.resolve", id, resolution, RagaRecords.Queue.REVIEW));
    }

    @Procedure(name = "raga.todo.resolve", mode = Mode.WRITE)
    @Description("raga.todo.resolve(id :: STRING, resolution :: MAP) :: (ok, id, status) - closes a todo: resolution {status: DONE|DROPPED, note, corpus}.")
    public Stream<RagaRecords.Resolved> todoResolve(@Name("id") String id, @Name(value = "resolution", defaultValue = "{}") Map<String, Object> resolution) {
        return Stream.of(resolve("raga.todo.resolve", id, resolution, RagaRecords.Queue.FOLLOW_UP));
    }

    private RagaRecords.Resolved resolve(String owner, String id, Map<String, Object> resolution, RagaRecords.Queue queue) {
        RagaAdminConfig.Resolution c = RagaAdminConfig.Resolution.parse(owner, resolution);
        return RagaRecords.resolve(tx, owner, c.corpus(), queue, id, c.status().name(), c.note());
    }

    @Procedure(name = "raga.provenance", mode = Mode.READ)
    @Description("raga.provenance(targetId :: STRING, config = {} :: MAP) :: (provId, targetKind, targetId, op, tool, chunkId, docId, quote,"
            + " startOffset, endOffset, docStartOffset, docEndOffset, certainty, confidence, reason, sessionId, details, createdAt, chunk) - the"
            + " provenance records of an entity (entityId, or its name) or a relation (relId), oldest first: every write with its evidence"
            + " quote and its offsets in the chunk and the document. Config: corpus.")
    public Stream<RagaRecords.Provenance> provenance(@Name("targetId") String targetId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("raga.provenance", config);
        if (targetId == null || targetId.isBlank()) throw new RagException("raga.provenance: targetId must be an entity id, an entity name or a relation id");
        RagaLayer.require(tx, corpus);
        KnowledgeStore store = new KnowledgeStore(tx, rag.embeddings(), new ToolContext(corpus, null, null, ToolContext.Settings.DEFAULTS));
        return RagaRecords.provenance(tx, store, corpus, targetId).stream();
    }

    // ---- retrieval

    @Procedure(name = "raga.retrieve", mode = Mode.READ)
    @Description("raga.retrieve(query :: STRING, config = {} :: MAP) :: (rank, chunkId, docId, text, score, vecRank, kgRank, vecScore, kgScore,"
            + " startOffset, endOffset, degraded, degradedReason, chunk, entities, relationships, llmCalls, promptTokens, completionTokens) - chunks"
            + " ranked by mode: vector (the chunk vector index), kg (BFS with decay around entity anchors), fusion (their RRF; default) or deep"
            + " (LLM-extracted entities walked hop by hop). The graph stream lists first the pages (chunks of documents titled by the entity) of"
            + " the entities the top pageAnchors vector chunks mention. A graph stream past kgTimeoutMs falls back to vector with degraded=true."
            + " chunk, entities and relationships are for Browser. Config: corpus, where, mode, topK, k1, rrfK, wVec, wKg, hops, decay, semanticFilter,"
            + " anchorChunks, pageAnchors, anchorEntities, maxExpanded, kgTimeoutMs, deepHops, docIds, llm.")
    public Stream<RetrieveResult> retrieve(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RagaQueryConfig cfg = RagaQueryConfig.parse("raga.retrieve", config, false);
        ChunkSearch.checkQuery("raga.retrieve", query);
        RagaLayer.require(tx, cfg.corpus());
        RagCall c = call();
        UsageMeter usage = new UsageMeter();
        RagaRetriever.Retrieval r = new RagaRetriever(tx, rag.embeddings(), cfg.corpus()).retrieve(query, cfg.retrieval(), c.cancelled(),
                cfg.needsLlm() ? RagaAnswer.analyser(c.llm(cfg.llm(), "raga.retrieve"), usage, c) : null);
        List<RetrieveResult> out = new ArrayList<>();
        for (RagaRetriever.Hit h : r.hits()) {
            out.add(new RetrieveResult(out.size() + 1, h.chunkId(), h.docId(), h.text(), h.score(), h.vecRank(), h.kgRank(), h.vecScore(),
                h.kgScore(), h.start(), h.end(), r.degraded(), r.degradedReason(), Displayed.node(h.chunk()), Displayed.nodes(h.entities()),
                Displayed.relationships(h.mentions()), usage.usage().calls(), usage.usage().promptTokens(), usage.usage().completionTokens()));
        }
        return out.stream();
    }

    @Procedure(name = "raga.answer", mode = Mode.READ)
    @Description("raga.answer(query :: STRING, config = {} :: MAP) :: (answer, answerType, evidence, retrieved, facts, grounded, mode, degraded,"
            + " rerank, llmCalls, promptTokens, completionTokens, tokensByStep) - retrieves (as raga.retrieve; with rerank, rerankCandidates chunks"
            + " of which the reranker keeps topK) and answers from the chunks and the facts among their entities. evidence lists only chunks the"
            + " answer cites that were in its prompt, with offsets; when it cites none, evidence is empty and grounded is false; rerank the"
            + " reranker's scores and note (null without rerank). Config: corpus, where, mode, topK, k1, rrfK, wVec, wKg, hops, decay, semanticFilter,"
            + " anchorChunks, pageAnchors, anchorEntities, maxExpanded, kgTimeoutMs, deepHops, docIds, includeFacts, maxFacts, maxContextChars, llm,"
            + " rerank (false), rerankCandidates (max(20, 4 topK)).")
    public Stream<AnswerResult> answer(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RagaQueryConfig cfg = RagaQueryConfig.parse("raga.answer", config, true);
        ChunkSearch.checkQuery("raga.answer", query);
        RagaLayer.require(tx, cfg.corpus());
        RagCall c = call();
        UsageMeter usage = new UsageMeter();
        RagaAnswer.Answer a = RagaAnswer.answer(c, c.llm(cfg.llm(), "raga.answer"), query, cfg, usage);
        return Stream.of(new AnswerResult(a.answer(), a.answerType(), a.evidence(), a.retrieved(), a.facts(), a.grounded(), a.mode(), a.degraded(),
                a.rerank(), usage.usage().calls(), usage.usage().promptTokens(), usage.usage().completionTokens(), usage.usage().tokensByStep()));
    }

    // ---- sync, schema, info, drop

    @Procedure(name = "raga.sync.check", mode = Mode.READ)
    @Description("raga.sync.check(config = {} :: MAP) :: (kind, id, issue) - graph and vector drift: entities whose vector is MISSING, STALE (made"
            + " from other text), WRONG_DIMENSION, WRONG_MODEL or UNSYNCED; chunks without a vector of the model's dimension; provenance whose"
            + " chunk is gone (CHUNK_GONE). Config: corpus, limit.")
    public Stream<SyncIssue> syncCheck(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RagaAdminConfig.SyncCheck c = RagaAdminConfig.SyncCheck.parse(config);
        RagaLayer.require(tx, c.corpus());
        return RagaSync.check(tx, rag.embeddings(), c.corpus(), c.limit()).stream().map(i -> new SyncIssue(i.kind(), i.id(), i.issue()));
    }

    @Procedure(name = "raga.sync.repair", mode = Mode.WRITE)
    @Description("raga.sync.repair(config = {} :: MAP) :: (repaired, failed, unrepairable) - re-embeds what raga.sync.check lists, in batches"
            + " committed on their own, and records the server's model on the layer once no entity is left to repair; dangling provenance is"
            + " counted as unrepairable. Config: corpus, batchSize.")
    public Stream<RepairResult> syncRepair(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RagaAdminConfig.SyncRepair cfg = RagaAdminConfig.SyncRepair.parse(config);
        RagaLayer.require(tx, cfg.corpus());
        RagaSync.Repair out = RagaSync.repair(db, rag.embeddings(), cfg.corpus(), cfg.batchSize(), call().cancelled());
        return Stream.of(new RepairResult(out.repaired(), out.failed(), out.unrepairable()));
    }

    @Procedure(name = "raga.schema.active", mode = Mode.READ)
    @Description("raga.schema.active(config = {} :: MAP) :: (kind, name, description, domain, range, status) - the corpus's entity and relation types:"
            + " ACTIVE (bootstrapped), PROPOSED (introduced by the agent), CANDIDATE (undeclared domain or range). Config: corpus.")
    public Stream<RagaRecords.Type> schemaActive(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("raga.schema.active", config);
        RagaLayer.require(tx, corpus);
        return RagaRecords.types(tx, corpus).stream();
    }

    @Procedure(name = "raga.info", mode = Mode.READ)
    @Description("raga.info(config = {} :: MAP) :: (corpus, entities, relations, deletedRelations, aliases, provenance, quotesRemoved, chunks,"
            + " chunksArchived, chunksIncomplete, todosOpen, reviewsOpen, sessions, embeddingModel, modelMatches) - the RAGA layer of a corpus;"
            + " quotesRemoved: quotes whose chunk was removed or replaced since, whose unsupported knowledge retrieval already hides and the next"
            + " raga.ingest removes; modelMatches false when entity vectors come from another model than the server's (raga.sync.repair re-embeds"
            + " them). Config: corpus.")
    public Stream<RagaLayer.Info> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(RagaLayer.info(tx, ConfigReader.corpusOnly("raga.info", config), rag.embeddings()));
    }

    @Procedure(name = "raga.drop", mode = Mode.WRITE)
    @Description("raga.drop(config = {} :: MAP) :: (nodesDeleted, relationshipsDeleted) - removes the RAGA layer of a corpus (entities, aliases,"
            + " provenance, todos, review items, sessions, types, alerts, mentions, chunk reading states, meta node) in batches; documents and"
            + " chunks stay. Config: corpus.")
    public Stream<LayerDrop.Dropped> drop(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(call().dropLayer(RagaLayer.SPEC, ConfigReader.corpusOnly("raga.drop", config)));
    }
}
