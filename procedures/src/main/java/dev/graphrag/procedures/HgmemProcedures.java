package dev.graphrag.procedures;

import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.layer.LayerVersions;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.hgmem.HgmemConfig;
import dev.graphrag.hgmem.HgmemEngine;
import dev.graphrag.hgmem.HgmemGraph;
import dev.graphrag.hgmem.HgmemIndexConfig;
import dev.graphrag.hgmem.HgmemIndexer;
import dev.graphrag.hgmem.HgmemLayer;
import dev.graphrag.hgmem.HypergraphMemory;
import dev.graphrag.hgmem.MemoryUnit;
import dev.graphrag.hgmem.Neo4jHypergraph;
import dev.graphrag.hgmem.SessionStore;
import org.neo4j.graphdb.Direction;
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

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
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

    public record InfoResult(String corpus, long version, String state, boolean chunksChanged, long entities, long relations, long mentions,
                             long provisionalEntities, long sessions, String embeddingModel, long embeddingDimensions, List<String> entityTypes) {}

    public record DropResult(long nodesDeleted, long relationshipsDeleted) {}

    public record EvolveResult(String sessionId, long step, String mode, List<String> subqueries, List<Map<String, Object>> retrieval,
                               List<String> retrievedEntities, List<String> retrievedChunks, long inserted, long updated, long merged, long units,
                               long vertices, double avgVerticesPerUnit, String judgement, List<Map<String, Object>> concerns, List<String> nextSubqueries,
                               boolean done, List<String> warnings, long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep,
                               long ms) {}

    public record RespondResult(String sessionId, String answer, List<String> citedChunks, List<String> chunks, long contextTokens, long units,
                                List<Map<String, Object>> memory, long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep,
                                long ms) {}

    public record AnswerResult(String kind, String sessionId, Long step, String mode, List<String> subqueries, String judgement, long units,
                               double avgVerticesPerUnit, String answer, List<String> citedChunks, List<String> chunks, List<Map<String, Object>> memory,
                               long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep, List<Map<String, Object>> trace,
                               long ms) {}

    public record RetrieveResult(String kind, String id, String name, double score, String text, String mode, long candidates) {}

    public record MemoryResult(long index, String unitId, String description, List<String> entities, long size, String status, String origin,
                               long createdStep, long updatedStep, List<String> mergedFrom, Node unit, List<Node> members, List<Relationship> relationships) {}

    public record RenderResult(String text) {}

    public record StatsResult(String sessionId, String query, String status, long units, long vertices, long memberships, double avgVerticesPerUnit,
                              long maxUnitSize, long mergedUnits, long steps, long llmCalls, long promptTokens, long completionTokens) {}

    public record SessionResult(String sessionId, String corpus, String query, String status, long step, long units, String error,
                                ZonedDateTime createdAt, ZonedDateTime updatedAt) {}

    @Procedure(name = "hgmem.index", mode = Mode.SCHEMA)
    @Description("hgmem.index(config = {} :: MAP) :: (chunks, extracted, reusedExtractions, failedChunks, entities, relations, mentions, summarised,"
            + " staleEntities, llmCalls, promptTokens, completionTokens :: INTEGER, tokensByStep :: MAP, ms :: INTEGER) - builds or updates the HGMem"
            + " base graph of a corpus ingested with rag.ingest (token windows 200/50 are HGMem's): per chunk LLM entities and relations with"
            + " descriptions (stored, so a re-run asks only for new chunks), merged per (corpus, name), relation weights summed, long descriptions"
            + " summarised, embedded. Commits in its own batches. Config: corpus, entityTypes, summaryMaxTokens, extractionConcurrency, batchSize,"
            + " extractionErrors, llm.")
    public Stream<IndexResult> index(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemIndexConfig cfg = HgmemIndexConfig.parse(config);
        RagCall.BoundLlm llm = rag.llmConfigured() || cfg.llm() != null ? call().llm(cfg.llm(), "hgmem.index") : null;
        HgmemIndexer.Stats s;
        try (var job = rag.jobs().start("hgmem.index", db.databaseName(), cfg.corpus())) {
            job.phase("waiting for another build", 0);
            RagCall c = call().reportingTo(job);
            s = rag.layerLocks().exclusive(c.database(), cfg.corpus(), "hgmem", "hgmem.index", c.cancelled(), c.log(),
                    () -> new HgmemIndexer(c, llm).index(cfg));
        }
        Usage u = s.usage();
        return Stream.of(new IndexResult(s.chunks(), s.extracted(), s.reusedExtractions(), s.failedChunks(), s.entities(), s.relations(), s.mentions(),
                s.summarised(), s.staleEntities(), u.calls(), u.promptTokens(), u.completionTokens(), u.tokensByStep(), s.ms()));
    }

    @Procedure(name = "hgmem.info", mode = Mode.READ)
    @Description("hgmem.info(config = {} :: MAP) :: (corpus, version, state, chunksChanged, entities, relations, mentions, provisionalEntities,"
            + " sessions, embeddingModel, embeddingDimensions, entityTypes) - the HGMem base graph of a corpus; state ready or building;"
            + " chunksChanged once rag.ingest or rag.delete changed the corpus since (hgmem.index brings it up to date). Config: corpus.")
    public Stream<InfoResult> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("hgmem.info", config);
        Node corpusNode = LexicalGraph.requireCorpus(tx, corpus);
        Node meta = HgmemGraph.requireIndexed(tx, corpus);
        boolean changed = meta.hasProperty("version") && ((Number) meta.getProperty("lexicalVersion", -1L)).longValue() != LayerVersions.lexical(corpusNode);
        Map<String, Object> live = tx.execute("RETURN COUNT { (:HgEntity {corpus: $c}) } AS entities, COUNT { (:HgEntity {corpus: $c})-[:HG_RELATED]->() } AS relations,"
                + " COUNT { (e:HgEntity {corpus: $c}) WHERE e.provisional } AS provisional, COUNT { (:HgSession {corpus: $c}) } AS sessions", Map.of("c", corpus)).next();
        return Stream.of(new InfoResult(corpus, (Long) meta.getProperty("version", 0L), (String) meta.getProperty("state", "ready"), changed,
                ((Number) live.get("entities")).longValue(), ((Number) live.get("relations")).longValue(), (Long) meta.getProperty("mentions", 0L),
                ((Number) live.get("provisional")).longValue(), ((Number) live.get("sessions")).longValue(), (String) meta.getProperty("embeddingModel", null),
                (Long) meta.getProperty("embeddingDimensions", 0L), Arrays.asList((String[]) meta.getProperty("entityTypes", new String[0]))));
    }

    @Procedure(name = "hgmem.drop", mode = Mode.WRITE)
    @Description("hgmem.drop(config = {} :: MAP) :: (nodesDeleted, relationshipsDeleted) - removes the HGMem layer of a corpus (its sessions and"
            + " their memory, entities, relations, stored extractions, meta node) in batches; documents and chunks stay. Config: corpus.")
    public Stream<DropResult> drop(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("hgmem.drop", config);
        RagCall c = call();
        LayerDrop.Counts n = rag.layerLocks().exclusive(c.database(), corpus, "hgmem", "hgmem.drop", c.cancelled(), c.log(),
                () -> HgmemLayer.drop(c.db(), corpus, c.cancelled()));
        return Stream.of(new DropResult(n.nodes(), n.relationships()));
    }

    @Procedure(name = "hgmem.evolve", mode = Mode.WRITE)
    @Description("hgmem.evolve(sessionId :: STRING, query :: STRING, config = {} :: MAP) :: (sessionId, step, mode, subqueries, retrieval,"
            + " retrievedEntities, retrievedChunks, inserted, updated, merged, units, vertices, avgVerticesPerUnit, judgement, concerns, nextSubqueries,"
            + " done, warnings, llmCalls, promptTokens, completionTokens, tokensByStep, ms) - one step of HGMem's loop: retrieval for the pending"
            + " subqueries (local around targeted memory points, or global outside memory), insert/update, merge, then the sufficiency judgement"
            + " and the next subqueries. A null or unknown sessionId starts a session (query needed). The step commits in its own transaction;"
            + " a failed step writes nothing and marks the session failed (evolve again resumes it). Config: corpus, maxTurns, numConcerns,"
            + " mergeFromStep, enableUpdate, enableMerge, useHint, retrievalStrategy, updateVertexPolicy, absentEntityPolicy, absentMaxAttempts,"
            + " entityPool, entitiesPerQuery, relationsPerQuery, chunksPerQuery, passageRetrieval, relTokenBudget, chunkTokenBudget, descriptionTokens,"
            + " localHops, excludeMemoryInGlobal, minSim, hintPool, hintK, profile, llm, subqueries, targets, force.")
    public Stream<EvolveResult> evolve(@Name("sessionId") String sessionId, @Name("query") String query,
                                       @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemEngine.StepRow r = engine(config, HgmemConfig.Use.EVOLVE, "hgmem.evolve").evolve(sessionId, query, config);
        return Stream.of(evolveResult(r));
    }

    @Procedure(name = "hgmem.respond", mode = Mode.WRITE)
    @Description("hgmem.respond(sessionId :: STRING, config = {} :: MAP) :: (sessionId, answer, citedChunks, chunks, contextTokens, units, memory,"
            + " llmCalls, promptTokens, completionTokens, tokensByStep, ms) - answers a session's question from its current memory: the memory points"
            + " and the chunks of their entities (and neighbours) that some step retrieved; citedChunks are the chunk ids the answer cites, only"
            + " from those shown. Stores the answer (status answered). Config: corpus (the session's), innerPerUnit, outerPerUnit, finalMaxChunks,"
            + " finalTokenBudget, emptyMemoryChunks, responseType, profile, llm.")
    public Stream<RespondResult> respond(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        HgmemEngine.Response r = engine(config, HgmemConfig.Use.RESPOND, "hgmem.respond").respond(sessionId, config);
        return Stream.of(respondResult(r));
    }

    @Procedure(name = "hgmem.answer", mode = Mode.WRITE)
    @Description("hgmem.answer(query :: STRING, config = {} :: MAP) :: (kind, sessionId, step, mode, subqueries, judgement, units, avgVerticesPerUnit,"
            + " answer, citedChunks, chunks, memory, llmCalls, promptTokens, completionTokens, tokensByStep, trace, ms) - HGMem's whole loop: one"
            + " row (kind 'step') per step as it completes, until memory is judged sufficient or maxTurns, then one row (kind 'answer') with the"
            + " answer, its cited chunk ids and the whole call's usage. Each step commits on its own (see hgmem.evolve). Config: corpus, maxTurns,"
            + " numConcerns, mergeFromStep, enableUpdate, enableMerge, useHint, retrievalStrategy, updateVertexPolicy, absentEntityPolicy,"
            + " absentMaxAttempts, entityPool, entitiesPerQuery, relationsPerQuery, chunksPerQuery, passageRetrieval, relTokenBudget, chunkTokenBudget,"
            + " descriptionTokens, localHops, excludeMemoryInGlobal, minSim, hintPool, hintK, innerPerUnit, outerPerUnit, finalMaxChunks,"
            + " finalTokenBudget, emptyMemoryChunks, responseType, profile, llm, sessionId, keepSession, returnTrace.")
    public Stream<AnswerResult> answer(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        Map<String, Object> cfg = config == null ? Map.of() : config;
        boolean trace = Boolean.TRUE.equals(cfg.get("returnTrace"));
        Iterator<HgmemEngine.LoopRow> rows = engine(cfg, HgmemConfig.Use.ANSWER, "hgmem.answer").answer(query, cfg);
        Usage[] total = {Usage.NONE};
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(rows, Spliterator.ORDERED), false).map(row -> {
            if (row.step() != null) {
                HgmemEngine.StepRow s = row.step();
                total[0] = total[0].plus(s.usage());
                return new AnswerResult("step", s.sessionId(), s.step(), s.mode(), s.subqueries(), s.judgement(), s.units(), s.avgVerticesPerUnit(), null,
                        null, s.retrievedChunks(), null, s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(), s.usage().tokensByStep(),
                        trace ? s.retrieval() : null, s.ms());
            }
            HgmemEngine.Response r = row.response();
            Usage u = total[0].plus(r.usage());
            return new AnswerResult("answer", r.sessionId(), null, null, null, null, r.units(), r.avgVerticesPerUnit(), r.answer(), r.citedChunks(), r.chunks(), r.memory(),
                    u.calls(), u.promptTokens(), u.completionTokens(), u.tokensByStep(), null, r.ms());
        });
    }

    @Procedure(name = "hgmem.retrieve", mode = Mode.READ)
    @Description("hgmem.retrieve(sessionId :: STRING, subquery :: STRING, config = {} :: MAP) :: (kind, id, name, score, text, mode, candidates) -"
            + " a dry run of one subquery's retrieval (no LLM, nothing written): entities (Eq. 1 over the candidate set), their relations and chunks"
            + " with the dense passages; sessionId null = empty memory. Config: corpus, mode (global, local), targets (memory point indices, for"
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
    public Stream<MemoryResult> memory(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.memory", config);
        boolean inactive = r.bool("includeInactive", false);
        r.finish();
        SessionStore.Loaded l = load("hgmem.memory", sessionId);
        HypergraphMemory m = l.session().memory();
        List<MemoryResult> out = new ArrayList<>();
        List<MemoryUnit> listing = m.listing();
        for (MemoryUnit u : m.allUnits()) {
            int index = listing.indexOf(u);
            if (index < 0 && !inactive) continue;
            Node unit = tx.findNode(HgmemGraph.UNIT, "id", u.id());
            List<Node> members = new ArrayList<>();
            List<Relationship> rels = new ArrayList<>();
            unit.getRelationships(Direction.OUTGOING, HgmemGraph.MEMBER, HgmemGraph.MERGED_INTO).forEach(x -> {
                rels.add(x);
                members.add(x.getEndNode());
            });
            out.add(new MemoryResult(index, u.id(), u.description(), u.vertices(), u.vertices().size(), u.status().name().toLowerCase(java.util.Locale.ROOT),
                    u.origin().name().toLowerCase(java.util.Locale.ROOT), u.createdStep(), u.updatedStep(), u.mergedFrom(), Displayed.node(unit), Displayed.nodes(members), Displayed.relationships(rels)));
        }
        out.sort((a, b) -> a.index() < 0 || b.index() < 0 ? Long.compare(b.index() < 0 ? 0 : 1, a.index() < 0 ? 0 : 1) : Long.compare(a.index(), b.index()));
        return out.stream();
    }

    @Procedure(name = "hgmem.memory.render", mode = Mode.READ)
    @Description("hgmem.memory.render(sessionId :: STRING) :: (text :: STRING) - the memory listing exactly as the LLM sees it (- Point (i),"
            + " Involved Objects, Description).")
    public Stream<RenderResult> render(@Name("sessionId") String sessionId) {
        return Stream.of(new RenderResult(load("hgmem.memory.render", sessionId).session().memory().render()));
    }

    @Procedure(name = "hgmem.stats", mode = Mode.READ)
    @Description("hgmem.stats(sessionId :: STRING) :: (sessionId, query, status, units, vertices, memberships, avgVerticesPerUnit, maxUnitSize,"
            + " mergedUnits, steps, llmCalls, promptTokens, completionTokens) - a session's memory in numbers; avgVerticesPerUnit is the paper's"
            + " Avg-N_v (memberships per active memory point).")
    public Stream<StatsResult> stats(@Name("sessionId") String sessionId) {
        SessionStore.Loaded l = load("hgmem.stats", sessionId);
        HypergraphMemory m = l.session().memory();
        Node s = SessionStore.find(tx, sessionId);
        long merged = m.allUnits().stream().filter(u -> u.status() == MemoryUnit.Status.MERGED).count();
        long max = m.listing().stream().mapToLong(u -> u.vertices().size()).max().orElse(0);
        return Stream.of(new StatsResult(sessionId, l.session().query(), l.status(), m.listing().size(), m.vertices().size(), m.memberships(),
                m.averageVerticesPerUnit(), max, merged, l.session().step(), (Long) s.getProperty("llmCalls", 0L), (Long) s.getProperty("promptTokens", 0L),
                (Long) s.getProperty("completionTokens", 0L)));
    }

    @Procedure(name = "hgmem.session.list", mode = Mode.READ)
    @Description("hgmem.session.list(config = {} :: MAP) :: (sessionId, corpus, query, status, step, units, error, createdAt, updatedAt) - HGMem"
            + " sessions, newest first; status active, done, answered or failed (error says why; hgmem.evolve resumes it). Config: corpus (only"
            + " that corpus's sessions).")
    public Stream<SessionResult> sessionList(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.session.list", config);
        String corpus = r.has("corpus") ? r.corpus() : null;
        r.finish();
        List<SessionResult> out = new ArrayList<>();
        tx.findNodes(HgmemGraph.SESSION).forEachRemaining(s -> {
            if (corpus != null && !corpus.equals(s.getProperty("corpus", null))) return;
            long units = 0;
            for (Relationship x : s.getRelationships(Direction.OUTGOING, HgmemGraph.HAS_UNIT)) if ("active".equals(x.getEndNode().getProperty("status", null))) units++;
            out.add(new SessionResult((String) s.getProperty("id"), (String) s.getProperty("corpus"), (String) s.getProperty("query"),
                    (String) s.getProperty("status", "active"), ((Number) s.getProperty("step", 0L)).longValue(), units, (String) s.getProperty("error", null),
                    (ZonedDateTime) s.getProperty("createdAt", null), (ZonedDateTime) s.getProperty("updatedAt", null)));
        });
        out.sort((a, b) -> b.createdAt() == null || a.createdAt() == null ? 0 : b.createdAt().compareTo(a.createdAt()));
        return out.stream();
    }

    @Procedure(name = "hgmem.session.drop", mode = Mode.WRITE)
    @Description("hgmem.session.drop(sessionId :: STRING, config = {} :: MAP) :: (sessionId, unitsDeleted, stepsDeleted, entitiesDeleted) - deletes"
            + " a session with its memory points and steps, in the caller's transaction. Config: dropProvisional (also the entities the session"
            + " created during its queries that no other session's memory holds).")
    public Stream<SessionStore.Dropped> sessionDrop(@Name("sessionId") String sessionId, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.session.drop", config);
        boolean provisional = r.bool("dropProvisional", false);
        r.finish();
        load("hgmem.session.drop", sessionId);
        return Stream.of(SessionStore.drop(tx, sessionId, provisional));
    }

    // ---- helpers

    private SessionStore.Loaded load(String owner, String sessionId) {
        if (sessionId == null || sessionId.isBlank()) throw new RagException(owner + ": sessionId must not be null or empty");
        if (SessionStore.find(tx, sessionId) == null) throw new RagException(owner + ": no HGMem session '" + sessionId + "': hgmem.session.list() lists them");
        return SessionStore.load(tx, sessionId);
    }

    private HgmemEngine engine(Map<String, Object> config, HgmemConfig.Use use, String owner) {
        Map<String, Object> cfg = config == null ? Map.of() : config;
        Object llm = cfg.get("llm");
        if (llm != null && !(llm instanceof Map)) throw new RagException(owner + ": config key 'llm' must be a MAP");
        if (!rag.llmConfigured() && llm == null) return new HgmemEngine(call(), null); // the engine says what is missing
        @SuppressWarnings("unchecked") Map<String, Object> perCall = (Map<String, Object>) llm;
        Object profile = cfg.get("profile");
        if ("paper".equals(profile)) {
            Map<String, Object> m = new java.util.LinkedHashMap<>(Map.of("temperature", 0.8, "maxTokens", 2048L));
            if (perCall != null) m.putAll(perCall);
            perCall = m;
        }
        return new HgmemEngine(call(), call().llm(perCall, owner));
    }

    private static EvolveResult evolveResult(HgmemEngine.StepRow r) {
        Usage u = r.usage();
        return new EvolveResult(r.sessionId(), r.step(), r.mode(), r.subqueries(), r.retrieval(), r.retrievedEntities(), r.retrievedChunks(), r.inserted(),
                r.updated(), r.merged(), r.units(), r.vertices(), r.avgVerticesPerUnit(), r.judgement(), r.concerns(), r.nextSubqueries(), r.done(),
                r.warnings(), u.calls(), u.promptTokens(), u.completionTokens(), u.tokensByStep(), r.ms());
    }

    private static RespondResult respondResult(HgmemEngine.Response r) {
        Usage u = r.usage();
        return new RespondResult(r.sessionId(), r.answer(), r.citedChunks(), r.chunks(), r.contextTokens(), r.units(), r.memory(), u.calls(),
                u.promptTokens(), u.completionTokens(), u.tokensByStep(), r.ms());
    }

    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }
}
