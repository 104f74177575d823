package dev.graphrag.procedures;

import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.remind.Calibration;
import dev.graphrag.remind.MemoryMath;
import dev.graphrag.remind.RemindEngine;
import dev.graphrag.remind.RemindIndexConfig;
import dev.graphrag.remind.RemindIndexer;
import dev.graphrag.remind.RemindAdminConfig;
import dev.graphrag.remind.RemindLayer;
import dev.graphrag.remind.RemindQueryConfig;
import dev.graphrag.remind.Subgraph;
import dev.graphrag.remind.SubgraphView;
import dev.graphrag.remind.Walk;
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
import org.neo4j.procedure.UserFunction;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/** remind.*: ReMindRAG over the shared lexical graph (docs/remind.md). */
public class RemindProcedures {
    @Context public GraphDatabaseService db;
    @Context public Transaction tx;
    @Context public Log log;
    @Context public TerminationGuard guard;
    @Context public GraphRagRuntime rag;

    public record IndexResult(long chunks, long newChunks, long removedChunks, long entitiesCreated, long entitiesMerged, long entitiesRemoved,
                              long relations, long mentions, long nextEdges, long failedChunks, boolean reassembled, long llmCalls, long promptTokens, long completionTokens,
                              Map<String, Object> tokensByStep, long ms) {}

    public record SeedResult(Node node, double score, long rank) {}

    public record ReplayResult(List<Node> seeds, List<Node> nodes, List<String> chunks, List<Relationship> relationships,
                               List<Map<String, Object>> weights, long ms) {}

    public record TraverseResult(boolean sufficient, String stopReason, List<Node> seeds, List<Node> nodes, List<String> chunks,
                                 List<Relationship> relationships, List<Map<String, Object>> path, Map<String, Object> summaries,
                                 List<Map<String, Object>> trace, long jumps, long llmCalls, long promptTokens, long completionTokens,
                                 long traversalTokens, Map<String, Object> tokensByStep, Map<String, Object> traversal, long ms) {}

    public record MemorizeResult(boolean memorized, long enhanced, long penalized, long unchanged, List<Relationship> enhancedRels,
                                 List<Relationship> penalizedRels, long llmCalls, long promptTokens, long completionTokens,
                                 Map<String, Object> tokensByStep) {}

    public record AnswerResult(String answer, List<String> citedChunks, List<Map<String, Object>> citations, List<String> chunks, List<Node> nodes,
                               List<Relationship> relationships,
                               boolean sufficient, String stopReason, long jumps, boolean memorized, long enhanced, long penalized,
                               List<Map<String, Object>> trace, Map<String, Object> rerank, long llmCalls, long promptTokens, long completionTokens,
                               long traversalTokens, Map<String, Object> tokensByStep, long ms) {}

    public record ResetResult(long relationshipsReset) {}

    @Procedure(name = "remind.index", mode = Mode.SCHEMA)
    @Description("remind.index(config = {} :: MAP) :: (chunks, newChunks, removedChunks, entitiesCreated, entitiesMerged, entitiesRemoved, relations,"
            + " mentions, nextEdges, failedChunks :: INTEGER, reassembled :: BOOLEAN, llmCalls, promptTokens, completionTokens :: INTEGER,"
            + " tokensByStep :: MAP, ms :: INTEGER) - builds or updates"
            + " the ReMind layer of a corpus ingested with rag.ingest (chunker 'sentences' is ReMindRAG's): per chunk LLM entities, relation"
            + " triples and a title, one anchor per chunk chained in document order, entities merged above synonymThreshold, every edge with a"
            + " zero memory. Incremental and resumable: after a chunk was removed or changed the layer is assembled again from the"
            + " stored extractions and written as a diff, so nothing only the removed text supported stays. Commits in its own batches."
            + " Config: corpus, synonymThreshold, extractionConcurrency, batchSize, extractionErrors, llm.")
    public Stream<IndexResult> index(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindIndexConfig cfg = RemindIndexConfig.parse(config);
        RagCall.BoundLlm llm = call().llmIfConfigured(cfg.llm(), "remind.index");
        RemindIndexer.Stats s = call().build("remind", "remind.index", cfg.corpus(), c -> new RemindIndexer(c, llm).index(cfg));
        BuildConfig.recordLayer(db, RemindLayer.SPEC.meta(), cfg.corpus(), config);
        return Stream.of(new IndexResult(s.chunks(), s.newChunks(), s.removedChunks(), s.entitiesCreated(), s.entitiesMerged(), s.entitiesRemoved(),
                s.relations(), s.mentions(), s.nextEdges(), s.failedChunks(), s.reassembled(), s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(),
                s.usage().tokensByStep(), s.ms()));
    }

    @Procedure(name = "remind.info", mode = Mode.READ)
    @Description("remind.info(config = {} :: MAP) :: (corpus, version, state, chunksChanged, chunksRemoved, chunksNew, anchors, entities,"
            + " relations, mentions, nextEdges, embeddingModel, embeddingDimensions, synonymThreshold) - the ReMind layer of a corpus; state"
            + " ready or building (running, or interrupted: remind.index resumes it); chunksChanged once rag.ingest or rag.delete changed the"
            + " corpus since; chunksRemoved: chunks removed or changed since, whose knowledge queries already skip until remind.index removes it;"
            + " chunksNew: chunks not in the layer yet. Config: corpus.")
    public Stream<RemindLayer.Info> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(RemindLayer.info(tx, ConfigReader.corpusOnly("remind.info", config)));
    }

    @Procedure(name = "remind.drop", mode = Mode.WRITE)
    @Description("remind.drop(config = {} :: MAP) :: (nodesDeleted, relationshipsDeleted) - removes the ReMind layer of a corpus (anchors,"
            + " entities, their edges and memories, stored extractions, meta node) in batches; documents and chunks stay. Config: corpus.")
    public Stream<LayerDrop.Dropped> drop(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(call().dropLayer(RemindLayer.SPEC, ConfigReader.corpusOnly("remind.drop", config)));
    }

    @Procedure(name = "remind.seeds", mode = Mode.READ)
    @Description("remind.seeds(query :: STRING, config = {} :: MAP) :: (node :: NODE, score :: FLOAT, rank :: INTEGER) - the seed entities and"
            + " anchors of a question by cosine. Config: corpus, where, seedCount.")
    public Stream<SeedResult> seeds(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindQueryConfig cfg = RemindQueryConfig.parse(RemindQueryConfig.Use.SEEDS, config);
        List<RemindEngine.Seed> seeds = new RemindEngine(call(), null).seeds("remind.seeds", query, cfg);
        List<SeedResult> out = new ArrayList<>();
        for (int i = 0; i < seeds.size(); i++) out.add(new SeedResult(Displayed.node(seeds.get(i).node()), seeds.get(i).score(), i + 1));
        return out.stream();
    }

    @Procedure(name = "remind.replay", mode = Mode.READ)
    @Description("remind.replay(query :: STRING, config = {} :: MAP) :: (seeds, nodes :: LIST<NODE>, chunks :: LIST<STRING>, relationships ::"
            + " LIST<RELATIONSHIP>, weights :: LIST<MAP>, ms) - memory replay alone (no LLM, nothing written): from the seeds, a DFS over edges"
            + " whose weight alpha*sim + (1-alpha)*(q.memory) passes lambda. Config: corpus, where, seedCount, alpha, lambda, replayMaxNodes, seedAnchorAddsChunk.")
    public Stream<ReplayResult> replay(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindQueryConfig cfg = RemindQueryConfig.parse(RemindQueryConfig.Use.REPLAY, config);
        RemindEngine.Traversal t = new RemindEngine(call(), null).replay(query, cfg);
        Subgraph s = t.outcome().subgraph();
        return Stream.of(new ReplayResult(SubgraphView.seeds(t), SubgraphView.nodes(tx, s, false), SubgraphView.chunkIds(tx, s), SubgraphView.relationships(tx, s),
                SubgraphView.path(tx, s), t.ms()));
    }

    @Procedure(name = "remind.traverse", mode = Mode.READ)
    @Description("remind.traverse(query :: STRING, config = {} :: MAP) :: (sufficient, stopReason, seeds, nodes, chunks, relationships, path,"
            + " summaries, trace, jumps, llmCalls, promptTokens, completionTokens, traversalTokens, tokensByStep, traversal, ms) - replay, then"
            + " the LLM walk while the subgraph is judged insufficient; writes nothing (pass traversal to remind.memorize). Config: corpus, where, seedCount, alpha, lambda, replayMaxNodes, seedAnchorAddsChunk, llmGuided, maxJumps, maxIterations, maxCandidates,"
            + " promptTokenBudget, chunkSummaryThreshold, showEdgeWeights, maxFormatRetries, judgeEveryStep, llm.")
    public Stream<TraverseResult> traverse(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindQueryConfig cfg = RemindQueryConfig.parse(RemindQueryConfig.Use.TRAVERSE, config);
        RemindEngine.Traversal t = new RemindEngine(call(), llm(cfg, RemindQueryConfig.Use.TRAVERSE, "remind.traverse")).traverse("remind.traverse", query, cfg);
        Walk.Outcome o = t.outcome();
        Subgraph s = o.subgraph();
        return Stream.of(new TraverseResult(o.sufficient(), o.stopReason().name(), SubgraphView.seeds(t), SubgraphView.nodes(tx, s, true),
                SubgraphView.chunkIds(tx, s), SubgraphView.relationships(tx, s), SubgraphView.path(tx, s), SubgraphView.summaries(tx, s),
                SubgraphView.trace(o), o.jumps(), t.usage().calls(), t.usage().promptTokens(), t.usage().completionTokens(),
                SubgraphView.traversalTokens(t.usage()), t.usage().tokensByStep(), t.handoff(), t.ms()));
    }

    @Procedure(name = "remind.memorize", mode = Mode.WRITE)
    @Description("remind.memorize(query :: STRING, traversal :: MAP, config = {} :: MAP) :: (memorized, enhanced, penalized, unchanged,"
            + " enhancedRels, penalizedRels, llmCalls, promptTokens, completionTokens, tokensByStep) - memorises a traversal remind.traverse"
            + " yielded (checked: edges of the corpus forming a forest rooted at its seeds): the LLM (or explicit ids) marks the useful edges"
            + " and chunks, edges on paths to them are enhanced, the other path edges penalised; in the caller's transaction, under write"
            + " locks. Config: corpus, filter (llm, explicit), usefulRelIds, usefulChunkIds, confirmRule, penalty, requireLlmSteps, memorizeWhen,"
            + " promptTokenBudget, llm.")
    public Stream<MemorizeResult> memorize(@Name("query") String query, @Name("traversal") Object traversal,
                                           @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindQueryConfig cfg = RemindQueryConfig.parse(RemindQueryConfig.Use.MEMORIZE, config);
        RemindEngine.Memorized m = new RemindEngine(call(), llm(cfg, RemindQueryConfig.Use.MEMORIZE, "remind.memorize")).memorize(query, traversal, cfg);
        return Stream.of(new MemorizeResult(m.written(), m.enhanced(), m.penalized(), m.unchanged(), Displayed.relationships(m.enhancedRels()),
                Displayed.relationships(m.penalizedRels()), m.usage().calls(), m.usage().promptTokens(), m.usage().completionTokens(),
                m.usage().tokensByStep()));
    }

    @Procedure(name = "remind.answer", mode = Mode.WRITE)
    @Description("remind.answer(query :: STRING, config = {} :: MAP) :: (answer, citedChunks, citations, chunks, nodes, relationships, sufficient,"
            + " stopReason, jumps, memorized, enhanced, penalized, trace, rerank, llmCalls, promptTokens, completionTokens, traversalTokens, tokensByStep,"
            + " ms) - traverses, answers from the collected subgraph citing chunk ids, and memorises the useful paths (memorize: false skips"
            + " it) in the caller's transaction; with rerank the answer prompt shows the subgraph's chunks in the reranker's order (rerankTopK"
            + " kept), and rerank gives its scores and note (null without rerank). Config: corpus, where, seedCount, alpha, lambda, replayMaxNodes, seedAnchorAddsChunk,"
            + " maxJumps, maxIterations, maxCandidates, promptTokenBudget, chunkSummaryThreshold, showEdgeWeights, maxFormatRetries, judgeEveryStep, llm,"
            + " memorize, filter, usefulRelIds, usefulChunkIds, confirmRule, penalty, requireLlmSteps, memorizeWhen, filterWithAnswer, systemPrompt,"
            + " rerank (false), rerankTopK (0: all).")
    public Stream<AnswerResult> answer(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return answer(RemindQueryConfig.Use.ANSWER, query, config, true);
    }

    @Procedure(name = "remind.query", mode = Mode.READ)
    @Description("remind.query(query :: STRING, config = {} :: MAP) :: (answer, citedChunks, citations, chunks, nodes, relationships, sufficient,"
            + " stopReason, jumps, memorized, enhanced, penalized, trace, rerank, llmCalls, promptTokens, completionTokens, traversalTokens, tokensByStep,"
            + " ms) - remind.answer that never writes (for read replicas): memorized is always false. Config: corpus, where, seedCount, alpha, lambda,"
            + " replayMaxNodes, seedAnchorAddsChunk, maxJumps, maxIterations, maxCandidates, promptTokenBudget, chunkSummaryThreshold,"
            + " showEdgeWeights, maxFormatRetries, judgeEveryStep, llm, systemPrompt, rerank (false), rerankTopK (0: all).")
    public Stream<AnswerResult> query(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return answer(RemindQueryConfig.Use.QUERY, query, config, false);
    }

    private Stream<AnswerResult> answer(RemindQueryConfig.Use use, String query, Map<String, Object> config, boolean write) {
        String owner = "remind." + use.name().toLowerCase(Locale.ROOT);
        RemindQueryConfig cfg = RemindQueryConfig.parse(use, config);
        RemindEngine.Answer a = new RemindEngine(call(), llm(cfg, use, owner)).answer(owner, query, cfg, write);
        Walk.Outcome o = a.traversal().outcome();
        Subgraph s = o.subgraph();
        List<Relationship> rels = new ArrayList<>(new LinkedHashSet<>(SubgraphView.relationships(tx, s)));
        return Stream.of(new AnswerResult(a.answer(), a.citedChunks(), LexicalGraph.citations(tx, a.citedChunks()), SubgraphView.chunkIds(tx, s),
                SubgraphView.nodes(tx, s, true), rels, o.sufficient(), o.stopReason().name(), o.jumps(), a.memorized().written(),
                a.memorized().enhanced(), a.memorized().penalized(), SubgraphView.trace(o), a.rerank(), a.usage().calls(),
                a.usage().promptTokens(), a.usage().completionTokens(), SubgraphView.traversalTokens(a.usage()), a.usage().tokensByStep(), a.ms()));
    }

    @Procedure(name = "remind.memory.stats", mode = Mode.READ)
    @Description("remind.memory.stats(config = {} :: MAP) :: (relType, edges, nonZero, meanNorm, maxNorm) - the edge memories of a corpus's"
            + " ReMind layer per relationship type. Config: corpus, relTypes.")
    public Stream<RemindLayer.MemoryStats> memoryStats(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindAdminConfig.Memory c = RemindAdminConfig.Memory.parse("remind.memory.stats", config);
        RemindLayer.SPEC.requireIndexed(tx, c.corpus());
        return RemindLayer.stats(tx, c.corpus(), c.relTypes()).stream();
    }

    @Procedure(name = "remind.memory.reset", mode = Mode.WRITE)
    @Description("remind.memory.reset(config = {} :: MAP) :: (relationshipsReset) - forgets the edge memories of a corpus's ReMind layer (all"
            + " four types, or relTypes), in the caller's transaction. Config: corpus, relTypes.")
    public Stream<ResetResult> memoryReset(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindAdminConfig.Memory c = RemindAdminConfig.Memory.parse("remind.memory.reset", config);
        RemindLayer.SPEC.requireIndexed(tx, c.corpus());
        return Stream.of(new ResetResult(RemindLayer.reset(tx, c.corpus(), c.relTypes())));
    }

    @Procedure(name = "remind.calibrate", mode = Mode.READ)
    @Description("remind.calibrate(config = {} :: MAP) :: (alpha, lambda, questions, unrelatedPairs, unrelated, paraphrasePairs, paraphrases,"
            + " window, suggestedLambda, sameQuestionLimit) - where lambda sits for the configured embedder: cosine percentiles of unrelated"
            + " question pairs and of paraphrases, and for 1-3 enhancements the cosine a new question needs to replay a memory and the share"
            + " of each kind that has it. Touches no data. Config: alpha, lambda, questions (LIST<STRING>), paraphrases (LIST<LIST<STRING>> pairs).")
    public Stream<Calibration.Result> calibrate(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        RemindAdminConfig.Calibrating c = RemindAdminConfig.Calibrating.parse(config);
        return Stream.of(Calibration.run(rag.embeddings(), c.questions(), c.paraphrases(), c.alpha(), c.lambda()));
    }

    @UserFunction(name = "remind.delta")
    @Description("remind.delta(norm :: FLOAT) :: FLOAT - ReMindRAG's update weight (2/pi)*cos((pi/2)*norm), 0 above norm 1.")
    public double delta(@Name("norm") Double norm) {
        // boxed: Neo4j hands a null argument to a primitive parameter as a ClassCastException of its own
        return MemoryMath.delta(finite("remind.delta", "norm", norm));
    }

    @UserFunction(name = "remind.enhance")
    @Description("remind.enhance(memory :: LIST<FLOAT>, query :: LIST<FLOAT>) :: LIST<FLOAT> - Eq. 1's enhancement: memory + delta(|memory|) * unit(query); a null memory is zero.")
    public List<Double> enhance(@Name("memory") List<Double> memory, @Name("query") List<Double> query) {
        try {
            return list(MemoryMath.enhance(vector("remind.enhance", "memory", memory, true), vector("remind.enhance", "query", query, false)));
        } catch (IllegalArgumentException e) {
            throw new RagException("remind.enhance: " + e.getMessage());
        }
    }

    @UserFunction(name = "remind.penalize")
    @Description("remind.penalize(memory :: LIST<FLOAT>, query :: LIST<FLOAT>, mode = 'paper' :: STRING) :: LIST<FLOAT> - Eq. 1's penalty on the"
            + " query-aligned component (paper, strong or none); a memory pointing away from the query is unchanged.")
    public List<Double> penalize(@Name("memory") List<Double> memory, @Name("query") List<Double> query, @Name(value = "mode", defaultValue = "paper") String mode) {
        MemoryMath.Penalty p;
        try {
            p = MemoryMath.Penalty.valueOf(mode == null ? "" : mode.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new RagException("remind.penalize: mode must be one of [paper, strong, none], got '" + mode + "'");
        }
        try {
            return list(MemoryMath.penalize(vector("remind.penalize", "memory", memory, true), vector("remind.penalize", "query", query, false), p));
        } catch (IllegalArgumentException e) {
            throw new RagException("remind.penalize: " + e.getMessage());
        }
    }

    @UserFunction(name = "remind.edgeWeight")
    @Description("remind.edgeWeight(fromEmbedding :: LIST<FLOAT>, toEmbedding :: LIST<FLOAT>, memory :: LIST<FLOAT>, query :: LIST<FLOAT>, alpha = 0.1 :: FLOAT)"
            + " :: FLOAT - Eq. 2: alpha*cos(from, to) + (1-alpha)*(unit(query) . memory).")
    public double edgeWeight(@Name("fromEmbedding") List<Double> from, @Name("toEmbedding") List<Double> to, @Name("memory") List<Double> memory,
                             @Name("query") List<Double> query, @Name(value = "alpha", defaultValue = "0.1") double alpha) {
        double[] a = vector("remind.edgeWeight", "fromEmbedding", from, false), b = vector("remind.edgeWeight", "toEmbedding", to, false);
        double[] q = MemoryMath.unit(vector("remind.edgeWeight", "query", query, false));
        double[] m = vector("remind.edgeWeight", "memory", memory, true);
        if (a.length != b.length || a.length != q.length || m != null && m.length != q.length) {
            throw new RagException("remind.edgeWeight: the vectors differ in dimension");
        }
        double cos = MemoryMath.dot(a, b) / (MemoryMath.norm(a) * MemoryMath.norm(b));
        return MemoryMath.edgeWeight(cos, m, q, alpha);
    }

    @UserFunction(name = "remind.maxMemorizableAngle")
    @Description("remind.maxMemorizableAngle(lambda :: FLOAT) :: FLOAT - the largest pairwise angle (degrees) between questions one edge memory"
            + " can serve at threshold lambda (paper §4: cos = lambda^2).")
    public double maxMemorizableAngle(@Name("lambda") Double lambda) {
        try {
            return MemoryMath.maxMemorizableAngle(finite("remind.maxMemorizableAngle", "lambda", lambda));
        } catch (IllegalArgumentException e) {
            throw new RagException("remind.maxMemorizableAngle: " + e.getMessage());
        }
    }

    // ---- result helpers

    /** A function's number argument: present and finite, or an error naming it. */
    private static double finite(String function, String argument, Double value) {
        if (value == null || !Double.isFinite(value)) throw new RagException(function + ": " + argument + " must be a finite number, got " + value);
        return value;
    }

    private RagCall.BoundLlm llm(RemindQueryConfig cfg, RemindQueryConfig.Use use, String owner) {
        if (!cfg.needsLlm(use)) return null;
        if (!rag.llmConfigured() && cfg.llm() == null) return null; // the engine says what is missing
        return call().llm(cfg.llm(), owner);
    }

    private static double[] vector(String owner, String what, List<Double> v, boolean nullable) {
        if (v == null) {
            if (nullable) return null;
            throw new RagException(owner + ": " + what + " must be a non-empty list of numbers");
        }
        if (v.isEmpty() || v.size() > 65_536) throw new RagException(owner + ": " + what + " must hold 1 to 65536 numbers, got " + v.size());
        double[] out = new double[v.size()];
        for (int i = 0; i < out.length; i++) {
            Double x = v.get(i);
            if (x == null || !Double.isFinite(x)) throw new RagException(owner + ": " + what + "[" + i + "] is not a finite number");
            out[i] = x;
        }
        if (!nullable && MemoryMath.norm(out) == 0) throw new RagException(owner + ": " + what + " must not be the zero vector");
        return out;
    }

    private static List<Double> list(double[] v) {
        List<Double> out = new ArrayList<>(v.length);
        for (double x : v) out.add(x);
        return out;
    }

    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }
}
