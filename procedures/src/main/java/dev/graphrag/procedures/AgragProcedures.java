package dev.graphrag.procedures;

import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.agrag.AgragIndexConfig;
import dev.graphrag.agrag.AgragIndexer;
import dev.graphrag.agrag.AgragLayer;
import dev.graphrag.agrag.AgragProjection;
import dev.graphrag.agrag.AgragQueryConfig;
import dev.graphrag.agrag.AgragRetriever;
import dev.graphrag.agrag.EntityStatistics;
import dev.graphrag.agrag.McmiOnGraph;
import dev.graphrag.core.RagException;
import dev.graphrag.core.graph.Displayed;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.layer.LayerDrop;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** agrag.*: AGRAG over the shared lexical graph (docs/agrag.md). */
public class AgragProcedures {
    @Context public GraphDatabaseService db;
    @Context public Transaction tx;
    @Context public Log log;
    @Context public TerminationGuard guard;
    @Context public GraphRagRuntime rag;

    public record IndexResult(long chunks, long newChunks, long entities, long facts, long containsEdges, long synonymEdges,
                              long titleLinks, long failedChunks, long llmCalls, long promptTokens, long completionTokens,
                              Map<String, Object> tokensByStep, long ms) {}

    public record McmiResult(List<String> terminals, List<Node> nodes, List<Relationship> relationships, List<String> pathChunkIds,
                             List<String> graphStrings, List<List<String>> facts, long mcstNodeCount, long mcstEdgeCount, long nodeCount,
                             long edgeCount, double ratio, long expansions, boolean usedPseudo, long searchedNodes, boolean searchCut, long llmCalls, long promptTokens,
                             long completionTokens, Map<String, Object> tokensByStep, long ms) {}

    public record AnswerResult(String answer, String thought, List<String> graphStrings, List<List<String>> facts, List<String> pathChunkIds,
                               List<String> retrievedChunkIds, List<Map<String, Object>> citations, boolean usedGraph, String prompt, Map<String, Object> rerank,
                               long llmCalls, long promptTokens, long completionTokens, Map<String, Object> tokensByStep, long ms) {}

    public record ProjectResult(String graphName, boolean projected, long nodeCount, long relationshipCount, long ms) {}

    public record EntityResult(long index, String entity, double score, long ngram) {}

    /** Texts per agrag.extractEntities call: it holds every text's n-grams in memory at once. */
    static final int MAX_EXTRACT_TEXTS = 100_000;

    @Procedure(name = "agrag.index", mode = Mode.SCHEMA)
    @Description("agrag.index(config = {} :: MAP) :: (chunks, newChunks, entities, facts, containsEdges, synonymEdges, titleLinks, failedChunks,"
            + " llmCalls, promptTokens, completionTokens :: INTEGER, tokensByStep :: MAP, ms :: INTEGER) - builds or updates the AGRAG layer of a corpus ingested with rag.ingest:"
            + " TF-IDF entities, relations (llm, or cooccurrence without an LLM), fact embeddings, contains and synonym edges, title links"
            + " between chunks and the documents they name, GDS projection. Commits in its own batches (not undone by the caller's rollback);"
            + " a second build of the same corpus waits for the first. Config: corpus, relations, maxNgram,"
            + " entityScoring, entityThreshold, maxEntitiesPerChunk, synonymThreshold, maxSynonymsPerNode, exactSynonymsUpTo, synonymProbes, titleLinks, batchSize,"
            + " project, extractionConcurrency, extractionErrors, llm.")
    public Stream<IndexResult> index(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        AgragIndexConfig cfg = AgragIndexConfig.parse(config, rag.llmConfigured());
        RagCall.BoundLlm llm = cfg.relations() == AgragIndexConfig.Relations.LLM ? call().llm(cfg.llm(), "agrag.index") : null;
        AgragIndexer.Stats s = call().build("agrag", "agrag.index", cfg.corpus(), c -> new AgragIndexer(c, llm).index(cfg));
        BuildConfig.recordLayer(db, AgragLayer.SPEC.meta(), cfg.corpus(), config);
        return Stream.of(new IndexResult(s.chunks(), s.newChunks(), s.entities(), s.facts(), s.containsEdges(), s.synonymEdges(), s.titleLinks(),
                s.failedChunks(), s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(), s.usage().tokensByStep(), s.ms()));
    }

    @Procedure(name = "agrag.mcmi", mode = Mode.READ)
    @Description("agrag.mcmi(query :: STRING, config = {} :: MAP) :: (terminals, nodes :: LIST<NODE>, relationships :: LIST<RELATIONSHIP>,"
            + " pathChunkIds, graphStrings, facts, mcstNodeCount, mcstEdgeCount, nodeCount, edgeCount, ratio, expansions, usedPseudo, searchedNodes, searchCut,"
            + " llmCalls, promptTokens, completionTokens, tokensByStep, ms) - the Minimum-Cost Maximum-Influence reasoning subgraph of a question."
            + " Config: corpus, where, factTopK, filter, indexCandidates, indexFrom, cellsFrom, cellProbes, damping, pprTolerance, pprMaxIterations, pprWeighted, passageScoreFactor, costMode,"
            + " expansion, expansionRule, maxExpansions, maxSearchNodes, outputEdges, retrievalMode, pprEngine, pushEpsilon, concurrency, llm.")
    public Stream<McmiResult> mcmi(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        AgragQueryConfig cfg = AgragQueryConfig.parse(AgragQueryConfig.Use.MCMI, config, rag.llmConfigured());
        AgragRetriever.Subgraph s = retriever(cfg).mcmi(query, cfg);
        return Stream.of(new McmiResult(s.terminals(), Displayed.nodes(s.nodes()), Displayed.relationships(s.relationships()), s.pathChunkIds(),
                s.graphStrings(), s.facts(), s.mcstNodeCount(), s.mcstEdgeCount(), s.nodeCount(), s.edgeCount(), s.ratio(), s.expansions(),
                s.usedPseudo(), s.searchedNodes(), s.searchCut(), s.usage().calls(), s.usage().promptTokens(), s.usage().completionTokens(), s.usage().tokensByStep(), s.ms()));
    }

    @Procedure(name = "agrag.retrieve", mode = Mode.READ)
    @Description("agrag.retrieve(query :: STRING, config = {} :: MAP) :: (rank, chunkId, documentId, text, score, source, sourceScore, denseScore) - ranked chunks"
            + " (score = 1/rank; sourceScore what the source measured; denseScore the cosine):"
            + " mode mcmi (chunks on the reasoning subgraph, then hybrid), hybrid (dense+BM25, AGRAG Eq. 21) or ppr (passages by"
            + " Personalized PageRank, as HippoRAG 2); in mcmi and ppr modes the denseFirst densest chunks lead, then up to namedPassages"
            + " chunks of documents the question names by title and up to linkedPassages of documents the densest chunk names by title."
            + " Config: the agrag.mcmi keys (corpus, where, llm, factTopK, filter, indexCandidates, indexFrom, cellsFrom, cellProbes, damping, pprTolerance, pprMaxIterations, pprWeighted,"
            + " passageScoreFactor, costMode, expansion, expansionRule, maxExpansions, maxSearchNodes, outputEdges, retrievalMode, pprEngine, pushEpsilon, concurrency) plus k (5), mode,"
            + " denseFirst, namedPassages, linkedPassages, passageNodeWeight.")
    public Stream<AgragRetriever.RankedChunk> retrieve(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        AgragQueryConfig cfg = AgragQueryConfig.parse(AgragQueryConfig.Use.RETRIEVE, config, rag.llmConfigured());
        return retriever(cfg).retrieve(query, cfg).stream();
    }

    @Procedure(name = "agrag.answer", mode = Mode.READ)
    @Description("agrag.answer(query :: STRING, config = {} :: MAP) :: (answer, thought, graphStrings, facts, pathChunkIds, retrievedChunkIds, citations,"
            + " usedGraph, prompt, rerank, llmCalls, promptTokens, completionTokens, tokensByStep, ms) - answers with the LLM from the reasoning subgraph, its"
            + " chunks and the retrieved chunks (those agrag.retrieve leads with, then hybrid; with rerank, the reranker's k of rerankCandidates);"
            + " citations gives each of those chunks' document, pages and section; rerank the reranker's scores and note (null without rerank). Config: the agrag.mcmi keys (corpus, where, llm, factTopK, filter, indexCandidates, indexFrom, cellsFrom, cellProbes, damping, pprTolerance, pprMaxIterations, pprWeighted,"
            + " passageScoreFactor, costMode, expansion, expansionRule, maxExpansions, maxSearchNodes, outputEdges, retrievalMode, pprEngine, pushEpsilon, concurrency) plus k (5),"
            + " denseFirst, namedPassages, linkedPassages, includePathChunks, returnPrompt, rerank (false), rerankCandidates (max(20, 4k)).")
    public Stream<AnswerResult> answer(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        AgragQueryConfig cfg = AgragQueryConfig.parse(AgragQueryConfig.Use.ANSWER, config, rag.llmConfigured());
        AgragRetriever.Answer a = new AgragRetriever(call(), call().llm(cfg.llm(), "agrag.answer")).answer(query, cfg);
        List<String> cited = new ArrayList<>(a.pathChunkIds());
        cited.addAll(a.retrievedChunkIds());
        return Stream.of(new AnswerResult(a.answer(), a.thought(), a.graphStrings(), a.facts(), a.pathChunkIds(), a.retrievedChunkIds(),
                LexicalGraph.citations(tx, cited), a.usedGraph(), a.prompt(), a.rerank(), a.usage().calls(), a.usage().promptTokens(),
                a.usage().completionTokens(), a.usage().tokensByStep(), a.ms()));
    }

    @Procedure(name = "agrag.info", mode = Mode.READ)
    @Description("agrag.info(config = {} :: MAP) :: (corpus, version, state, chunksChanged, unsupportedEntities, relations, chunks, entities, facts,"
            + " synonymEdges, containsEdges, titleLinks, embeddingModel, projected) - the AGRAG layer of a corpus; state ready or building (running,"
            + " or interrupted: agrag.index resumes it); chunksChanged once rag.ingest or rag.delete changed the corpus since; unsupportedEntities:"
            + " entities no present chunk contains, which queries leave out until agrag.index removes them. Config: corpus.")
    public Stream<AgragLayer.Info> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(AgragLayer.info(tx, ConfigReader.corpusOnly("agrag.info", config)));
    }

    @Procedure(name = "agrag.extractEntities", mode = Mode.READ)
    @Description("agrag.extractEntities(texts :: LIST<STRING>, config = {} :: MAP) :: (index, entity, score, ngram) - AGRAG's"
            + " statistics-based entity candidates (TF-IDF n-grams, document frequencies over the given texts as one batch), as agrag.index"
            + " derives them from chunks; index is the text's position. Writes nothing. Config: maxNgram, entityScoring, entityThreshold,"
            + " maxEntitiesPerChunk.")
    public Stream<EntityResult> extractEntities(@Name("texts") List<String> texts, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("agrag.extractEntities", config);
        AgragIndexConfig.Entities e = AgragIndexConfig.Entities.read(r);
        r.finish();
        if (texts == null || texts.isEmpty()) throw new RagException("agrag.extractEntities: texts must be a non-empty list of strings");
        if (texts.size() > MAX_EXTRACT_TEXTS) {
            throw new RagException("agrag.extractEntities: " + texts.size() + " texts in one call, at most " + MAX_EXTRACT_TEXTS);
        }
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i) == null || texts.get(i).isBlank()) throw new RagException("agrag.extractEntities: text " + i + " is null or blank");
        }
        List<List<EntityStatistics.Candidate>> all = EntityStatistics.extract(texts, e.maxNgram(), e.entityScoring(), e.entityThreshold(), e.maxEntitiesPerChunk());
        return java.util.stream.IntStream.range(0, all.size()).boxed()
                .flatMap(i -> all.get(i).stream().map(c -> new EntityResult(i, c.term(), c.score(), c.ngram())));
    }

    @Procedure(name = "agrag.mapFacts", mode = Mode.READ)
    @Description("agrag.mapFacts(query :: STRING, config = {} :: MAP) :: (rank, factId, subject, predicate, object, similarity, kept) - the"
            + " first steps of agrag.mcmi alone: the factTopK facts most similar to the question and whether the LLM triple filter kept them"
            + " (all kept without the filter). Config: corpus, llm, factTopK, filter, indexCandidates, indexFrom, cellsFrom, cellProbes, mode.")
    public Stream<AgragRetriever.MappedFact> mapFacts(@Name("query") String query, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        AgragQueryConfig cfg = AgragQueryConfig.parse(AgragQueryConfig.Use.MAP_FACTS, config, rag.llmConfigured());
        return retriever(cfg).mapFacts(query, cfg).stream();
    }

    @Procedure(name = "agrag.util.mcmi", mode = Mode.READ)
    @Description("agrag.util.mcmi(scores :: MAP, edges :: LIST<MAP>, terminals :: LIST<STRING>, config = {} :: MAP) :: (mcstNodes,"
            + " mcstEdges, nodes, selectedEdges, edges, ratio, expansions) - Mehlhorn's Steiner tree and the MCMI expansion on a graph given"
            + " as values: scores maps node name to influence, edges are {u, v, cost}. Touches no data. Config: expansion, expansionRule,"
            + " maxExpansions, outputEdges.")
    public Stream<McmiOnGraph.Result> utilMcmi(@Name("scores") Map<String, Object> scores, @Name("edges") List<Map<String, Object>> edges,
                                           @Name("terminals") List<String> terminals, @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return Stream.of(McmiOnGraph.run(scores, edges, terminals, config));
    }

    @Procedure(name = "agrag.project", mode = Mode.READ)
    @Description("agrag.project(config = {} :: MAP) :: (graphName, projected, nodeCount, relationshipCount, ms) - (re)creates the corpus's"
            + " GDS projection (lost on restart; queries also re-create it on demand) and loads the in-memory snapshot queries use, so the"
            + " next query starts warm. Without GDS only the snapshot is loaded (projected false, counts from it). Config: corpus.")
    public Stream<ProjectResult> project(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        long t0 = System.nanoTime();
        String corpus = ConfigReader.corpusOnly("agrag.project", config);
        long[] snapshot = new AgragRetriever(call(), null).warm(corpus);
        AgragProjection.Projected p = AgragProjection.project(tx, corpus);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return Stream.of(p == null ? new ProjectResult(null, false, snapshot[0], snapshot[1], ms)
                : new ProjectResult(p.graphName(), true, p.nodeCount(), p.relationshipCount(), ms));
    }

    @Procedure(name = "agrag.drop", mode = Mode.WRITE)
    @Description("agrag.drop(config = {} :: MAP) :: (nodesDeleted, relationshipsDeleted) - removes the AGRAG layer of a corpus (entities,"
            + " facts, contains and synonym edges, title links, stored LLM triples, meta node, GDS projection) in batches; documents and chunks stay. Config: corpus.")
    public Stream<LayerDrop.Dropped> drop(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        String corpus = ConfigReader.corpusOnly("agrag.drop", config);
        RagCall c = call();
        return Stream.of(c.dropLayer(AgragLayer.SPEC, corpus));
    }

    private AgragRetriever retriever(AgragQueryConfig cfg) {
        return new AgragRetriever(call(), cfg.facts().filter() ? call().llm(cfg.llm(), "agrag") : null);
    }

    /** This call's context for the engine: built here once, so the engine never sees Neo4j's procedure plumbing. */
    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }



}
