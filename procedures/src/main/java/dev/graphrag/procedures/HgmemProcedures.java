package dev.graphrag.procedures;

import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.hgmem.HgmemConfig;
import dev.graphrag.hgmem.HgmemEngine;
import dev.graphrag.hgmem.HgmemSessionConfig;
import dev.graphrag.hgmem.HgmemIndexConfig;
import dev.graphrag.hgmem.HgmemIndexer;
import dev.graphrag.hgmem.HgmemLayer;
import dev.graphrag.hgmem.Neo4jHypergraph;
import dev.graphrag.hgmem.SessionStore;
import dev.graphrag.hgmem.SessionViews;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** hgmem.*: HGMem's hypergraph working memory for multi-step RAG over the shared lexical graph (docs/hgmem.md). */
public class HgmemProcedures {
    @Context public GraphDatabaseService db;
    @Context public Transaction tx;
    @Context public Log log;
    @Context public TerminationGuard guard;
    @Context public GraphRagRuntime rag;

    public record IndexResult(long chunks, long extracted, long reusedExtractions, long failedChunks, long entities, long relations, long mentions,
                              long summarised, long staleEntities, long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep,
                              long ms) {}

    public record EvolveResult(String sessionId, long step, String mode, List<String> subqueries, List<Map<String, Object>> retrieval,
                               List<String> retrievedEntities, List<String> retrievedChunks, long inserted, long updated, long merged, long units,
                               long vertices, double avgVerticesPerUnit, String judgement, List<Map<String, Object>> concerns, List<String> nextSubqueries,
                               boolean done, List<String> warnings, long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep,
                               long ms) {}

    public record RespondResult(String sessionId, String answer, List<String> citedChunks, List<Map<String, Object>> citations, List<String> chunks, long contextTokens, long units,
                                List<Map<String, Object>> memory, Map<String, Object> rerank, long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep,
                                long ms) {}

    public record AnswerResult(String kind, String sessionId, Long step, String mode, List<String> subqueries, String judgement, long units,
                               double avgVerticesPerUnit, String answer, List<String> citedChunks, List<Map<String, Object>> citations, List<String> chunks,
                               List<Map<String, Object>> memory, Map<String, Object> rerank,
                               long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep, List<Map<String, Object>> trace,
                               long ms) {}

    public record RetrieveResult(String kind, String id, String name, double score, String text, String mode, long candidates) {}

    public record RenderResult(String text) {}

    @Procedure(name = "hgmem.index", mode = Mode.SCHEMA)
    @Description("hgmem.index(config = {} :: MAP) :: (chunks, extracted, reusedExtractions, failedChunks, entities, relations, mentions, summarised,"
            + " staleEntities, llmCalls, promptTokens, completionTokens :: INTEGER, tokensByStep :: MAP, ms :: INTEGER) - builds or updates the HGMem"
            + " base graph of a corpus ingested with rag.ingest (token windows 200/50 are HGMem's): per chunk LLM entities and relations with"
            + " descriptions (stored, so a re-run asks only for new chunks), merged per (corpus, name), relation weights summed, long descriptions"
            + " summarised, embedded. Commits in its own batches. Config: corpus, entityTypes, summaryMaxTokens, extractionConcurrency, batchSize,"
            + " extractionErrors, llm.")
    public Stream<IndexResult> index(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemIndexConfig cfg = HgmemIndexConfig.parse(config);
        RagCall.BoundLlm llm = call().llmIfConfigured(cfg.llm(), "hgmem.index");
        HgmemIndexer.Stats s = call().build("hgmem", "hgmem.index", cfg.corpus(), c -> new HgmemIndexer(c, llm).index(cfg));
        BuildConfig.recordLayer(db, HgmemLayer.SPEC.meta(), cfg.corpus(), config);
        return Stream.of(new IndexResult(s.chunks(), s.extracted(), s.reusedExtractions(), s.failedChunks(), s.entities(), s.relations(), s.mentions(),
                s.summarised(), s.staleEntities(), s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(),
                s.usage().tokensByStep(), s.ms()));
    }

    @Procedure(name = "hgmem.info", mode = Mode.READ)
    @Description("hgmem.info(config = {} :: MAP) :: (corpus, version, state, chunksChanged, entities, relations, mentions, provisionalEntities,"
            + " staleEntities, unsupportedEntities, sessions, embeddingModel, embeddingDimensions, entityTypes) - the HGMem base graph of a"
            + " corpus; state ready or building; chunksChanged once rag.ingest or rag.delete changed the corpus since (hgmem.index brings it up"
            + " to date); staleEntities: kept only for sessions' memory, never retrieved; unsupportedEntities: every chunk naming them was"
            + " removed or replaced, skipped by retrieval until hgmem.index removes them. Config: corpus.")
    public Stream<HgmemLayer.Info> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(HgmemLayer.info(tx, ConfigReader.corpusOnly("hgmem.info", config)));
    }

    @Procedure(name = "hgmem.drop", mode = Mode.WRITE)
    @Description("hgmem.drop(config = {} :: MAP) :: (nodesDeleted, relationshipsDeleted) - removes the HGMem layer of a corpus (its sessions and"
            + " their memory, entities, relations, stored extractions, meta node) in batches; documents and chunks stay. Config: corpus.")
    public Stream<LayerDrop.Dropped> drop(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(call().dropLayer(HgmemLayer.SPEC, ConfigReader.corpusOnly("hgmem.drop", config)));
    }

    @Procedure(name = "hgmem.evolve", mode = Mode.WRITE)
    @Description("hgmem.evolve(sessionId :: STRING, query :: STRING, config = {} :: MAP) :: (sessionId, step, mode, subqueries, retrieval,"
            + " retrievedEntities, retrievedChunks, inserted, updated, merged, units, vertices, avgVerticesPerUnit, judgement, concerns, nextSubqueries,"
            + " done, warnings, llmCalls, promptTokens, completionTokens, tokensByStep, ms) - one step of HGMem's loop: retrieval for the pending"
            + " subqueries (local around targeted memory points, or global outside memory), insert/update, merge, then the sufficiency judgement"
            + " and the next subqueries. A null or unknown sessionId starts a session (query needed). The step commits in its own transaction;"
            + " a failed step writes nothing and marks the session failed (evolve again resumes it). Config: corpus, where, maxTurns, numConcerns,"
            + " mergeFromStep, enableUpdate, enableMerge, useHint, retrievalStrategy, updateVertexPolicy, absentEntityPolicy, absentMaxAttempts, rereadSources,"
            + " entityPool, entitiesPerQuery, relationsPerQuery, chunksPerQuery, passageRetrieval, relTokenBudget, chunkTokenBudget, descriptionTokens,"
            + " localHops, excludeMemoryInGlobal, minSim, hintPool, hintK, hintDescriptionTokens, profile, llm, subqueries, targets, force.")
    public Stream<EvolveResult> evolve(@Name("sessionId") String sessionId, @Name("query") String query,
                                       @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemEngine.StepRow r = engine(HgmemConfig.parse(HgmemConfig.Use.EVOLVE, orEmpty(config)), "hgmem.evolve").evolve(sessionId, query, config);
        return Stream.of(new EvolveResult(r.sessionId(), r.step(), r.mode(), r.subqueries(), r.retrieval(), r.retrievedEntities(), r.retrievedChunks(),
                r.inserted(), r.updated(), r.merged(), r.units(), r.vertices(), r.avgVerticesPerUnit(), r.judgement(), r.concerns(),
                r.nextSubqueries(), r.done(), r.warnings(), r.usage().calls(), r.usage().promptTokens(), r.usage().completionTokens(),
                r.usage().tokensByStep(), r.ms()));
    }

    @Procedure(name = "hgmem.respond", mode = Mode.WRITE)
    @Description("hgmem.respond(sessionId :: STRING, config = {} :: MAP) :: (sessionId, answer, citedChunks, citations, chunks, contextTokens, units, memory,"
            + " rerank, llmCalls, promptTokens, completionTokens, tokensByStep, ms) - answers a session's question from its current memory: the memory points"
            + " and the chunks of their entities (and neighbours) that some step retrieved (with rerank: best first by the reranker, rerankTopK kept;"
            + " rerank gives its scores and note); citedChunks are the chunk ids the answer cites, only from those shown. Stores the answer (status"
            + " answered). Config: corpus (the session's), innerPerUnit, outerPerUnit, finalMaxChunks, finalTokenBudget, emptyMemoryChunks, responseType,"
            + " rerank (false), rerankTopK (0: all), profile, llm.")
    public Stream<RespondResult> respond(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemEngine.Response r = engine(HgmemConfig.parse(HgmemConfig.Use.RESPOND, orEmpty(config)), "hgmem.respond").respond(sessionId, config);
        return Stream.of(new RespondResult(r.sessionId(), r.answer(), r.citedChunks(), LexicalGraph.citations(tx, r.citedChunks()), r.chunks(),
                r.contextTokens(), r.units(), r.memory(), r.rerank(), r.usage().calls(), r.usage().promptTokens(), r.usage().completionTokens(),
                r.usage().tokensByStep(), r.ms()));
    }

    @Procedure(name = "hgmem.answer", mode = Mode.WRITE)
    @Description("hgmem.answer(query :: STRING, config = {} :: MAP) :: (kind, sessionId, step, mode, subqueries, judgement, units, avgVerticesPerUnit,"
            + " answer, citedChunks, citations, chunks, memory, rerank, llmCalls, promptTokens, completionTokens, tokensByStep, trace, ms) - HGMem's whole loop: one"
            + " row (kind 'step') per step as it completes, until memory is judged sufficient or maxTurns, then one row (kind 'answer') with the"
            + " answer, its cited chunk ids and the whole call's usage. Each step commits on its own (see hgmem.evolve). Config: corpus, where, maxTurns,"
            + " numConcerns, mergeFromStep, enableUpdate, enableMerge, useHint, retrievalStrategy, updateVertexPolicy, absentEntityPolicy,"
            + " absentMaxAttempts, rereadSources, entityPool, entitiesPerQuery, relationsPerQuery, chunksPerQuery, passageRetrieval, relTokenBudget, chunkTokenBudget,"
            + " descriptionTokens, localHops, excludeMemoryInGlobal, minSim, hintPool, hintK, hintDescriptionTokens, innerPerUnit, outerPerUnit, finalMaxChunks,"
            + " finalTokenBudget, emptyMemoryChunks, responseType, rerank (false), rerankTopK (0: all), profile, llm, sessionId, keepSession, returnTrace.")
    public Stream<AnswerResult> answer(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        Map<String, Object> cfg = config == null ? Map.of() : config;
        HgmemConfig parsed = HgmemConfig.parse(HgmemConfig.Use.ANSWER, cfg);
        boolean trace = parsed.call().returnTrace();
        Iterator<HgmemEngine.LoopRow> rows = engine(parsed, "hgmem.answer").answer(query, cfg);
        Usage[] total = {Usage.NONE};
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(rows, Spliterator.ORDERED), false).map(row -> {
            if (row.step() != null) {
                HgmemEngine.StepRow s = row.step();
                total[0] = total[0].plus(s.usage());
                return new AnswerResult("step", s.sessionId(), s.step(), s.mode(), s.subqueries(), s.judgement(), s.units(), s.avgVerticesPerUnit(),
                null, null, null, s.retrievedChunks(), null, null, s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(),
                s.usage().tokensByStep(), trace ? s.retrieval() : null, s.ms());
            }
            HgmemEngine.Response r = row.response();
            Usage all = total[0].plus(r.usage());
            return new AnswerResult("answer", r.sessionId(), null, null, null, null, r.units(), r.avgVerticesPerUnit(), r.answer(), r.citedChunks(),
                LexicalGraph.citations(tx, r.citedChunks()), r.chunks(), r.memory(), r.rerank(), all.calls(), all.promptTokens(),
                all.completionTokens(), all.tokensByStep(), null, r.ms());
        });
    }

    @Procedure(name = "hgmem.retrieve", mode = Mode.READ)
    @Description("hgmem.retrieve(sessionId :: STRING, subquery :: STRING, config = {} :: MAP) :: (kind, id, name, score, text, mode, candidates) -"
            + " a dry run of one subquery's retrieval (no LLM, nothing written): entities (Eq. 1 over the candidate set), their relations and chunks"
            + " with the dense passages; sessionId null = empty memory. Config: corpus, where, mode (global, local), targets (memory point indices, for"
            + " local), entityPool, entitiesPerQuery, relationsPerQuery, chunksPerQuery, passageRetrieval, relTokenBudget, chunkTokenBudget,"
            + " descriptionTokens, localHops, excludeMemoryInGlobal, minSim.")
    public Stream<RetrieveResult> retrieve(@Name("sessionId") String sessionId, @Name("subquery") String subquery,
                                           @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        long[] candidates = new long[1];
        String[] mode = new String[1];
        List<Neo4jHypergraph.Scored> rows = new HgmemEngine(call(), null).retrieveRows(sessionId, subquery, config, candidates, mode);
        return rows.stream().map(s -> new RetrieveResult(s.kind(), s.id(), s.name(), Double.isFinite(s.score()) ? s.score() : 0, s.text(), mode[0], candidates[0]));
    }

    @Procedure(name = "hgmem.memory", mode = Mode.READ)
    @Description("hgmem.memory(sessionId :: STRING, config = {} :: MAP) :: (index, unitId, description, entities, size, status, origin, createdStep,"
            + " updatedStep, mergedFrom, unit :: NODE, members :: LIST<NODE>, relationships :: LIST<RELATIONSHIP>) - a session's memory points in"
            + " listing order (index is what the LLM calls point (i)), with the unit node, its entities and memberships for Browser to draw."
            + " Config: includeInactive (merged-away units too, index -1).")
    public Stream<SessionViews.Point> memory(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        boolean inactive = HgmemSessionConfig.includeInactive(config);
        return SessionViews.points(tx, SessionViews.require(tx, "hgmem.memory", sessionId), inactive).stream();
    }

    @Procedure(name = "hgmem.memory.render", mode = Mode.READ)
    @Description("hgmem.memory.render(sessionId :: STRING) :: (text :: STRING) - the memory listing exactly as the LLM sees it (- Point (i),"
            + " Involved Objects, Description).")
    public Stream<RenderResult> render(@Name("sessionId") String sessionId) {
        return Stream.of(new RenderResult(SessionViews.require(tx, "hgmem.memory.render", sessionId).session().memory().render()));
    }

    @Procedure(name = "hgmem.stats", mode = Mode.READ)
    @Description("hgmem.stats(sessionId :: STRING) :: (sessionId, query, status, units, vertices, memberships, avgVerticesPerUnit, maxUnitSize,"
            + " mergedUnits, steps, llmCalls, promptTokens, completionTokens) - a session's memory in numbers; avgVerticesPerUnit is the paper's"
            + " Avg-N_v (memberships per active memory point).")
    public Stream<SessionViews.Stats> stats(@Name("sessionId") String sessionId) {
        return Stream.of(SessionViews.stats(tx, SessionViews.require(tx, "hgmem.stats", sessionId)));
    }

    @Procedure(name = "hgmem.session.list", mode = Mode.READ)
    @Description("hgmem.session.list(config = {} :: MAP) :: (sessionId, corpus, query, status, step, units, error, createdAt, updatedAt) - HGMem"
            + " sessions, newest first; status active, done, answered or failed (error says why; hgmem.evolve resumes it). Config: corpus (only"
            + " that corpus's sessions).")
    public Stream<SessionViews.Listed> sessionList(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return SessionViews.list(tx, HgmemSessionConfig.listedCorpus(config)).stream();
    }

    @Procedure(name = "hgmem.session.drop", mode = Mode.WRITE)
    @Description("hgmem.session.drop(sessionId :: STRING, config = {} :: MAP) :: (sessionId, unitsDeleted, stepsDeleted, entitiesDeleted) - deletes"
            + " a session with its memory points and steps, in the caller's transaction. Config: dropProvisional (also the entities the session"
            + " created during its queries that no other session's memory holds).")
    public Stream<SessionStore.Dropped> sessionDrop(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        boolean provisional = HgmemSessionConfig.dropProvisional(config);
        SessionViews.require(tx, "hgmem.session.drop", sessionId);
        return Stream.of(SessionStore.drop(tx, sessionId, provisional));
    }

    // ---- helpers

    /** The engine for one call, its LLM under the call's llm map (with the paper's sampling under profile 'paper'). */
    private HgmemEngine engine(HgmemConfig cfg, String owner) {
        if (!rag.llmConfigured() && cfg.llm() == null) return new HgmemEngine(call(), null); // the engine says what is missing
        Map<String, Object> perCall = cfg.llm();
        if (cfg.paperProfile()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>(Map.of("temperature", 0.8, "maxTokens", 2048L));
            if (perCall != null) m.putAll(perCall);
            perCall = m;
        }
        return new HgmemEngine(call(), call().llm(perCall, owner));
    }

    private static Map<String, Object> orEmpty(Map<String, Object> config) {
        return config == null ? Map.of() : config;
    }

    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }
}
