package dev.graphrag.agrag;

import dev.graphrag.core.Forked;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.search.Reranker;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.QueryCosines;
import dev.graphrag.core.embed.VectorMatrix;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.ChatResponse;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.PromptFit;
import dev.graphrag.core.llm.TokenCounter;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.search.ChunkSearch;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * AGRAG's queries (paper §III-C and §III-D, Eq. 7-22) in the caller's READ transaction: agrag.mcmi, agrag.retrieve, agrag.mapFacts and
 * agrag.answer over the corpus's snapshot ({@link AgragSnapshots}), with the query's cosines from {@link CosineLookup},
 * its facts from {@link FactMapper} and its chunk places filled by {@link ChunkRanking}. A query that finds the snapshot
 * stale runs once more on a fresh one.
 */
public final class AgragRetriever {
    static final int BM25_CANDIDATES = 1000;

    /** The MCMI subgraph and everything about it. */
    public record Subgraph(List<String> terminals, List<Node> nodes, List<Relationship> relationships, List<String> pathChunkIds,
                           List<String> graphStrings, List<List<String>> facts, int mcstNodeCount, int mcstEdgeCount, int nodeCount,
                           int edgeCount, double ratio, int expansions, boolean usedPseudo, long searchedNodes, boolean searchCut,
                           Usage usage, long ms) {}

    /** One ranked chunk of agrag.retrieve. source: dense (denseFirst), named (namedPassages), link (linkedPassages), graph (on the MCMI subgraph), hybrid or ppr. */
    /**
     * One row of agrag.retrieve: score is 1 / rank (the sources score on different scales, so the ranking's own score is
     * its place); sourceScore what the row's source measured (cosine, influence, hybrid or PPR score); denseScore the
     * chunk's cosine to the query, whatever its source.
     */
    public record RankedChunk(long rank, String chunkId, String documentId, String text, double score, String source, double sourceScore,
                              double denseScore) {}

    /** agrag.answer's result. */
    public record Answer(String answer, String thought, List<String> graphStrings, List<List<String>> facts, List<String> pathChunkIds,
                         List<String> retrievedChunkIds, boolean usedGraph, String prompt, Map<String, Object> rerank, Usage usage, long ms) {}

    private final Transaction tx;
    private final EmbeddingService embeddings;
    private final LlmClient llm;
    private final LlmConfig llmConfig;
    private final BooleanSupplier cancelled;
    private final java.util.function.Function<String, Reranker> rerankers;
    private final java.util.concurrent.Executor pool;
    private final AgragSnapshots snapshots;
    private final CosineLookup lookup;
    private final FactMapper factMapper;

    /** Reads in the caller's transaction; {@code llm} is null when no step of the call asks an LLM. */
    public AgragRetriever(RagCall call, RagCall.BoundLlm llm) {
        this.tx = call.tx();
        this.snapshots = new AgragSnapshots(call.tx(), call.layerCache(), call.database());
        this.lookup = new CosineLookup(call.tx());
        this.embeddings = call.embeddings();
        this.llm = llm == null ? null : llm.client();
        this.llmConfig = llm == null ? null : llm.config();
        this.cancelled = call.cancelled();
        this.pool = call.executor();
        this.rerankers = call::reranker;
        this.factMapper = new FactMapper(this.llm, this.llmConfig, this.cancelled);
    }

    /** Loads (or finds) the corpus's in-memory snapshot, so the first query does not pay for it: {nodes, relationships}. */
    public long[] warm(String corpus) {
        return snapshots.warm(corpus);
    }

    /** Where a stage that touches no transaction runs beside the caller's work: the shared pool, or null (the caller) at concurrency 1. */
    private java.util.concurrent.Executor pool(AgragQueryConfig cfg) {
        return cfg.subgraph().concurrency() > 1 ? pool : null;
    }

    /**
     * What one query computes once, whatever it is then used for: the corpus snapshot, every chunk's cosine and
     * hybrid score, the fact mapping (with the LLM filter's usage) and the query's entity cosines as far as known.
     */
    /** admitted: per chunk row, whether a where filter lets it through (null: no filter). */
    private record QueryState(long startNanos, AgragSnapshot g, QueryCosines dense, HybridScores hybrid, FactMapper.FactMapping facts, VectorMatrix.Scorer entitySim,
                              boolean[] admitted) {}

    /**
     * The cost of a contains edge to a chunk outside the where filter: finite (the searches need finite costs) but far above
     * any real path's, so the Steiner search and the expansion take such a chunk only where nothing else connects; it is then
     * left out of the result, as every chunk outside the filter is.
     */
    static final double EXCLUDED_CHUNK_COST = 1e12;

    /** Per chunk row of the snapshot, whether its document passes the call's where filter; null when there is none. */
    private boolean[] admitted(AgragSnapshot g, AgragQueryConfig cfg) {
        if (cfg.where() == null) return null;
        Set<String> docs = cfg.where().allowed(tx, cfg.corpus()).documentIds();
        boolean[] m = new boolean[g.chunkCount()];
        for (int c = 0; c < m.length; c++) m[c] = docs.contains(g.chunkDocs.get(c));
        return m;
    }

    /** @param hybrid whether the call needs §2.4's hybrid chunk scores (an MCMI run does; the ppr ranking does not) */
    private QueryState state(String owner, String query, AgragQueryConfig cfg, boolean hybrid) {
        long t0 = System.nanoTime();
        ChunkSearch.checkQuery(owner, query);
        AgragSnapshot g = snapshots.snapshot(cfg.corpus());
        float[] q = embeddings.embed(query);
        AgragQueryConfig.Lookup.Source factSource = lookup.factSource(g, cfg);
        boolean factsByIndex = factSource == AgragQueryConfig.Lookup.Source.INDEX;
        // on a worker what needs no transaction (the facts' cosines unless the index gives them, then entity cosines ahead of
        // the Steiner search, an MCMI run's largest cost) while this thread asks the indexes and BM25, which read the transaction
        VectorMatrix.Scorer entitySim = hybrid ? g.entityVectors.scorer(q) : null;
        AtomicBoolean scanned = new AtomicBoolean();
        Forked<QueryCosines> factScan = thenScoreAhead(pool(cfg), () -> factsByIndex ? null : lookup.factCosines(g, q, cfg, factSource), g, entitySim, scanned);
        QueryCosines dense, factsFromIndex;
        HybridScores hybridScores;
        try {
            dense = lookup.dense(g, q, cfg);
            factsFromIndex = factsByIndex ? lookup.factCosines(g, q, cfg, factSource) : null;
            hybridScores = hybrid ? hybridScores(g, query, dense, cfg) : null;
        } finally {
            scanned.set(true);
        }
        QueryCosines factSim = factsByIndex ? factsFromIndex : factScan.join();
        FactMapper.FactMapping facts = factMapper.map(g, query, factSim, cfg);
        return new QueryState(t0, g, dense, hybridScores, facts, entitySim, admitted(g, cfg));
    }

    /**
     * {@code work} beside the caller; then, in the worker's spare time, entity cosines ahead of the Steiner search
     * (entitySim null: none) until the caller sets {@code callerDone}, which it must do before it joins.
     */
    private static <T> Forked<T> thenScoreAhead(java.util.concurrent.Executor pool, java.util.function.Supplier<T> work, AgragSnapshot g,
                                                VectorMatrix.Scorer entitySim, AtomicBoolean callerDone) {
        return Forked.start(pool, () -> {
            T result = work.get();
            if (entitySim != null) entitySim.fill(g.synonymEntities, callerDone::get);
            return result;
        });
    }

    /** An MCMI run and the per-chunk scores it computed, which retrieve and answer reuse. */
    private record McmiRun(QueryState state, Subgraph subgraph, HybridScores hybrid, double[] influence) {}

    /** agrag.mcmi; a layer without facts has no subgraph to build, and the error says so (retrieve and answer still rank chunks). */
    public Subgraph mcmi(String query, AgragQueryConfig cfg) {
        return snapshots.fresh(cfg.corpus(), () -> {
            QueryState st = state("agrag", query, cfg, true);
            if (st.g().factCount == 0) {
                throw new RagException("agrag.mcmi: the AGRAG layer of corpus '" + cfg.corpus() + "' has no facts (agrag.index found no"
                        + " entity pairs in its " + st.g().chunkCount() + " chunks), so there is no reasoning subgraph to build;"
                        + " agrag.retrieve and rag.search still rank its chunks");
            }
            return mcmiRun(st, cfg).subgraph();
        });
    }

    private McmiRun mcmiRun(QueryState st, AgragQueryConfig cfg) {
        long t0 = st.startNanos();
        AgragSnapshot g = st.g();
        FactMapper.FactMapping fm = st.facts();
        Usage tokens = fm.usage();
        QueryCosines factSim = fm.similarity();
        List<List<String>> facts = new ArrayList<>();
        Set<Integer> terminals = new LinkedHashSet<>();
        for (int i : fm.kept()) {
            AgragSnapshot.FactEdge f = g.fact(i);
            facts.add(List.of(f.s(), f.p(), f.o()));
            terminals.add(f.u());
            terminals.add(f.v());
        }
        // §2.4 hybrid scores, used for costs and for retrieval
        HybridScores hybrid = st.hybrid();
        if (terminals.isEmpty()) {
            return new McmiRun(st, new Subgraph(List.of(), List.of(), List.of(), List.of(), List.of(), facts, 0, 0, 0, 0, Double.POSITIVE_INFINITY,
                    0, false, 0, false, tokens, (System.nanoTime() - t0) / 1_000_000), hybrid, new double[g.nodeCount()]);
        }
        VectorMatrix.Scorer entitySim = st.entitySim();
        boolean[] admitted = st.admitted();
        // B5: this query's costs over the snapshot's fixed topology (edge order: facts, synonyms, contains, pseudo)
        EdgeCosts f = cfg.subgraph().costMode();
        // each cost is computed when the searches below first read it, so a query pays only for the edges they reach;
        // that matters most for synonym edges, which read entity cosines (each entity once, tens of thousands on a large corpus),
        // and it keeps them in pages made as they are read, not in an array of every edge
        int firstSynonym = g.factCount, firstContains = firstSynonym + g.synonymCount, firstPseudo = firstContains + g.containsCount;
        int[] ends = g.topology.u, otherEnds = g.topology.v;
        CostGraph cg = new CostGraph(g.topology, e -> {
            if (e < firstSynonym) return g.factVectors.has(e) ? f.cost(factSim.cosine(e)) : f.unknown();
            if (e < firstContains) return f.synonym(entitySim.cosine(ends[e]), entitySim.cosine(otherEnds[e]));
            if (e < firstPseudo) {
                int chunk = ends[e] - g.entityCount;
                return admitted != null && !admitted[chunk] ? EXCLUDED_CHUNK_COST : f.cost(hybrid.score(chunk));
            }
            return EdgeCosts.PSEUDO_COST;
        });
        // B4: native PageRank reads only the snapshot, so it runs beside the Steiner search, which does not need it, and
        // then scores entities ahead of the search until it is done; GDS's runs in the caller's transaction, so here
        int[] sources = terminals.stream().mapToInt(Integer::intValue).toArray();
        AtomicBoolean searched = new AtomicBoolean();
        Forked<double[]> influence = thenScoreAhead(cfg.subgraph().pprEngine() != AgragQueryConfig.PprEngine.GDS ? pool(cfg) : null,
                () -> influence(g, sources, cfg), g, entitySim, searched);
        // B6-B8
        SteinerTree.Tree tree;
        try {
            tree = SteinerTree.mehlhorn(cg, terminals, cfg.subgraph().maxSearchNodes());
        } finally {
            searched.set(true);
        }
        double[] s = influence.join();
        McmiExpansion.Result r = McmiExpansion.expand(cg, s, tree, cfg.subgraph().expansionRule(), cfg.subgraph().expansion(), cfg.subgraph().maxExpansions(), cfg.subgraph().inducedOutput(), g.pseudo());
        Set<Integer> nodes = new LinkedHashSet<>(r.nodes());
        nodes.remove(g.pseudo());
        if (admitted != null) nodes.removeIf(v -> !g.isEntity(v) && !admitted[v - g.entityCount]); // a last resort only: their edges cost EXCLUDED_CHUNK_COST
        SubgraphText.Rendered text = SubgraphText.render(nodes, r.output(), s, g::isEntity, i -> g.names.get(i));
        List<String> terminalNames = terminals.stream().map(g.names::get).toList();
        List<Node> nodeList = new ArrayList<>();
        for (int v : nodes) nodeList.add(snapshots.nodeOf(g, v));
        List<Relationship> rels = new ArrayList<>();
        for (CostGraph.Edge e : r.output()) if (e.ref() >= 0 && nodes.contains(e.u()) && nodes.contains(e.v())) rels.add(snapshots.relationship(g, e.ref()));
        List<String> pathChunks = text.pathChunks().stream().map(i -> g.chunkIds.get(i - g.entityCount)).toList();
        boolean usedPseudo = r.nodes().contains(g.pseudo());
        int mcstNodes = (int) r.mcstNodes().stream().filter(v -> v != g.pseudo()).count();
        int mcstEdges = (int) r.mcstEdges().stream().filter(e -> e.type() != CostGraph.EdgeType.PSEUDO).count();
        return new McmiRun(st, new Subgraph(terminalNames, nodeList, rels, pathChunks, text.graphStrings(), facts, mcstNodes, mcstEdges,
                nodes.size(), r.output().size(), r.ratio(), r.expansions(), usedPseudo, tree.settledNodes(), tree.cut() != null, tokens, (System.nanoTime() - t0) / 1_000_000), hybrid, s);
    }

    /** One candidate fact of agrag.mapFacts: its rank by cosine and whether the filter kept it. */
    public record MappedFact(long rank, String factId, String subject, String predicate, String object, double similarity, boolean kept) {}

    /** agrag.mapFacts: the fact mapping and filter (paper Eq. 7-9) alone, for inspecting what a question maps to. */
    public List<MappedFact> mapFacts(String query, AgragQueryConfig cfg) {
        return snapshots.fresh(cfg.corpus(), () -> mapFactsOnce(query, cfg));
    }

    private List<MappedFact> mapFactsOnce(String query, AgragQueryConfig cfg) {
        ChunkSearch.checkQuery("agrag.mapFacts", query);
        AgragSnapshot g = snapshots.snapshot(cfg.corpus());
        float[] q = embeddings.embed(query);
        FactMapper.FactMapping fm = factMapper.map(g, query, lookup.factCosines(g, q, cfg, lookup.factSource(g, cfg)), cfg);
        List<MappedFact> out = new ArrayList<>();
        for (int i : fm.similarity().top(cfg.facts().factTopK())) {
            AgragSnapshot.FactEdge f = g.fact(i);
            out.add(new MappedFact(out.size() + 1, (String) snapshots.relationship(g, f.relId()).getProperty("factId", null), f.s(), f.p(), f.o(),
                    fm.similarity().cosine(i), fm.kept().contains(i)));
        }
        return out;
    }

    /**
     * HippoRAG 2's passage ranking: PPR reset on the kept facts' entities (fact score over the entity's chunk count)
     * and on every passage (its min-max dense score times passageNodeWeight); passages ranked by PPR.
     */
    private double[] hippoPageRank(AgragSnapshot g, FactMapper.FactMapping fm, QueryCosines dense, AgragQueryConfig cfg) {
        double[] reset = new double[g.nodeCount()];
        int[] degree = g.chunkDegree();
        ChunkSearch.MinMax fmm = new ChunkSearch.MinMax();
        fmm.add(fm.similarity().min());
        fmm.add(fm.similarity().max());
        for (int i : fm.kept()) {
            AgragSnapshot.FactEdge f = g.fact(i);
            double w = Math.max(fmm.scale(fm.similarity().cosine(i)), 1e-6);
            reset[f.u()] += w / Math.max(1, degree[f.u()]);
            reset[f.v()] += w / Math.max(1, degree[f.v()]);
        }
        ChunkSearch.MinMax dmm = new ChunkSearch.MinMax();
        dmm.add(dense.min());
        dmm.add(dense.max());
        // every passage when the cosines were scanned; the index's candidates otherwise, as the rest would only spread
        // mass thinly over the whole graph (docs/benchmarks.md "Scaling" measures what that changes)
        for (int c : dense.rows()) reset[g.entityCount + c] = dmm.scale(dense.cosine(c)) * cfg.ranking().passageNodeWeight();
        double[] x = pageRank(g, reset, cfg);
        double[] out = new double[g.chunkCount()];
        for (int c = 0; c < out.length; c++) out[c] = x[g.entityCount + c];
        return out;
    }

    /** PPR influence (B4), native or through GDS (re-projecting a lost projection); normalised, chunks scaled by the passage factor. */
    private double[] influence(AgragSnapshot g, int[] terminals, AgragQueryConfig cfg) {
        double[] s = new double[g.nodeCount()];
        if (terminals.length == 0) return s;
        if (cfg.subgraph().pprEngine() == AgragQueryConfig.PprEngine.GDS) {
            if (!AgragProjection.ensureProjected(tx, cfg.corpus())) {
                throw new RagException("agrag: pprEngine 'gds' but the Graph Data Science plugin is not installed; use pprEngine 'native'");
            }
            List<Long> sources = java.util.Arrays.stream(terminals).mapToObj(t -> g.nodeIds[t]).toList();
            Map<Long, Double> raw = AgragProjection.pageRank(tx, cfg.corpus(), sources, cfg.subgraph().damping(), cfg.subgraph().pprTolerance(), cfg.subgraph().pprMaxIterations(), cfg.subgraph().pprWeighted());
            double sum = 0;
            for (Map.Entry<Long, Double> e : raw.entrySet()) {
                int i = g.indexOf(e.getKey());
                if (i >= 0) {
                    s[i] = e.getValue();
                    sum += e.getValue();
                }
            }
            if (sum > 0) for (int i = 0; i < s.length; i++) s[i] /= sum;
        } else {
            double[] reset = new double[g.nodeCount()];
            for (int t : terminals) reset[t] += 1;
            s = pageRank(g, reset, cfg);
        }
        for (int c = 0; c < g.chunkCount(); c++) s[g.entityCount + c] *= cfg.subgraph().passageScoreFactor();
        return s;
    }

    /** The snapshot's own PageRank from {@code reset}: the push (the default) or the sweeps, as pprEngine says. */
    private static double[] pageRank(AgragSnapshot g, double[] reset, AgragQueryConfig cfg) {
        AgragQueryConfig.Subgraph c = cfg.subgraph();
        return c.pprEngine() == AgragQueryConfig.PprEngine.PUSH ? g.pushRank(reset, c.damping(), c.pushEpsilon(), c.pprWeighted())
                : g.pageRank(reset, c.damping(), c.pprTolerance(), c.pprMaxIterations(), c.pprWeighted());
    }

    private HybridScores hybridScores(AgragSnapshot g, String query, QueryCosines dense, AgragQueryConfig cfg) {
        Map<Integer, Double> bm25 = new java.util.HashMap<>();
        if (!cfg.subgraph().denseOnly()) {
            // chunks past the top BM25_CANDIDATES keep 0, the min-max floor they would be close to anyway
            // the snapshot knows the corpus's chunk nodes, so no hit's corpus property is read
            @SuppressWarnings("deprecation")
            Map<Node, Double> hits = new ChunkSearch(tx, embeddings).bm25(query, Math.max(1, Math.min(g.chunkCount(), BM25_CANDIDATES)),
                    node -> g.indexOf(node.getId()) >= 0);
            for (Map.Entry<Node, Double> e : hits.entrySet()) bm25.put(g.chunkRow(e.getKey()), e.getValue());
        }
        return HybridScores.of(dense, bm25, g.chunkCount(), cfg.subgraph().denseOnly());
    }

    /** agrag.retrieve: chunks by mode. mcmi = path chunks by influence, then hybrid; hybrid = §2.4; ppr = PPR over passages. */
    public List<RankedChunk> retrieve(String query, AgragQueryConfig cfg) {
        return snapshots.fresh(cfg.corpus(), () -> retrieveOnce(query, cfg));
    }

    private List<RankedChunk> retrieveOnce(String query, AgragQueryConfig cfg) {
        double[] score;
        String[] source;
        Set<Integer> taken = new LinkedHashSet<>();
        if (cfg.mode() == AgragQueryConfig.RetrieveMode.HYBRID) {
            ChunkSearch.checkQuery("agrag.retrieve", query);
            AgragSnapshot g = snapshots.snapshot(cfg.corpus());
            score = new double[g.chunkCount()];
            source = new String[g.chunkCount()];
            QueryCosines dense = lookup.dense(g, embeddings.embed(query), cfg);
            HybridScores hybrid = hybridScores(g, query, dense, cfg);
            boolean[] admitted = admitted(g, cfg);
            // the denseFirst densest lead here too, as in rag.search's denseHead: Eq. 21's equal weights alone fall below dense
            // on every training set (docs/benchmarks.md, fusion); denseFirst: 0 is the paper's ranking
            for (int c : ChunkRanking.topAdmitted(g.chunkCount(), dense::cosine, Math.min(cfg.ranking().denseFirst(), cfg.ranking().k()), admitted, dense::top)) {
                taken.add(c);
                score[c] = dense.cosine(c);
                source[c] = "dense";
            }
            List<Integer> top = ChunkRanking.topAdmitted(g.chunkCount(), hybrid::score, cfg.ranking().k() + taken.size(), admitted, hybrid::top);
            return ranked(g, top, hybrid::score, "hybrid", taken, score, source, dense, cfg.ranking().k());
        }
        QueryState st = state("agrag.retrieve", query, cfg, cfg.mode() == AgragQueryConfig.RetrieveMode.MCMI);
        AgragSnapshot g = st.g();
        score = new double[g.chunkCount()];
        source = new String[g.chunkCount()];
        QueryCosines dense = st.dense();
        FactMapper.FactMapping facts = st.facts();
        // the HippoRAG 2 passage ranking reads only the snapshot: beside the MCMI run
        Forked<double[]> passageRanks = Forked.start(pool(cfg), () -> hippoPageRank(g, facts, dense, cfg));
        McmiRun run = cfg.mode() == AgragQueryConfig.RetrieveMode.MCMI ? mcmiRun(st, cfg) : null;
        ChunkRanking.leadingChunks(g, query, dense, cfg, taken, score, source, st.admitted());
        if (run != null) {
            for (String id : run.subgraph().pathChunkIds()) {
                int c = g.indexOfChunk.get(id) - g.entityCount;
                if (taken.size() < cfg.ranking().k() && taken.add(c)) {
                    score[c] = run.influence()[c + g.entityCount];
                    source[c] = "graph";
                }
            }
        }
        // then HippoRAG 2 passage ranking from the kept facts
        double[] ppr = passageRanks.join();
        double[] rankable = ppr.clone();
        if (st.admitted() != null) for (int c = 0; c < rankable.length; c++) if (!st.admitted()[c]) rankable[c] = Double.NEGATIVE_INFINITY;
        List<Integer> best = ChunkRanking.bestUntaken(rankable, taken, cfg.ranking().k());
        if (st.admitted() != null) best = best.stream().filter(c -> st.admitted()[c]).toList();
        return ranked(g, best, c -> ppr[c], "ppr", taken, score, source, dense, cfg.ranking().k());
    }

    /** Fills the ranking up to k after the chunks already taken, in {@code order}, each scored by {@code scoreOf} and labelled. */
    private List<RankedChunk> ranked(AgragSnapshot g, List<Integer> order, java.util.function.IntToDoubleFunction scoreOf, String label,
                                     Set<Integer> taken, double[] score, String[] source, QueryCosines dense, int k) {
        for (int c : order) {
            if (taken.size() >= k) break;
            if (!taken.add(c)) continue;
            score[c] = scoreOf.applyAsDouble(c);
            source[c] = label;
        }
        List<RankedChunk> out = new ArrayList<>();
        long rank = 0;
        for (int c : taken) {
            if (rank >= k) break;
            String id = g.chunkIds.get(c);
            rank++;
            out.add(new RankedChunk(rank, id, g.chunkDocs.get(c), (String) snapshots.chunk(id).getProperty("text"), 1.0 / rank, source[c], score[c],
                    dense.cosine(c)));
        }
        return out;
    }

    /** agrag.answer: the subgraph strings, path chunks and retrieved chunks (leading, then hybrid) in the answer prompt (§2.5, hrMode fixed). */
    public Answer answer(String query, AgragQueryConfig cfg) {
        return snapshots.fresh(cfg.corpus(), () -> answerOnce(query, cfg));
    }

    private Answer answerOnce(String query, AgragQueryConfig cfg) {
        long t0 = System.nanoTime();
        if (llm == null || llmConfig == null) throw new RagException("agrag.answer: " + LlmConfig.HOW_TO_CONFIGURE);
        McmiRun run = mcmiRun(state("agrag.answer", query, cfg, true), cfg);
        Subgraph sg = run.subgraph();
        AgragSnapshot g = run.state().g();
        List<String> path = cfg.answer().includePathChunks() ? sg.pathChunkIds() : List.of();
        // the chunks agrag.retrieve would lead with, then the hybrid ranking (§2.4) up to k; path chunks are in the prompt already
        Set<Integer> taken = new LinkedHashSet<>();
        boolean[] admitted = run.state().admitted();
        ChunkRanking.leadingChunks(g, query, run.state().dense(), cfg, taken, new double[g.chunkCount()], new String[g.chunkCount()], admitted);
        // with rerank: rerankCandidates chunks in the same order, the reranker's k of them kept
        int fetch = cfg.answer().rerank().fetch(cfg.ranking().k());
        for (int c : ChunkRanking.topAdmitted(g.chunkCount(), run.hybrid()::score, fetch, admitted, run.hybrid()::top)) {
            if (taken.size() >= fetch) break;
            taken.add(c);
        }
        List<String> candidates = new ArrayList<>();
        for (int c : taken) candidates.add(g.chunkIds.get(c));
        Map<String, Object> rerankColumn = null;
        Usage rerankUsage = Usage.NONE;
        if (cfg.answer().rerank().enabled()) {
            Reranker.Ranked<String> r = rerankers.apply("agrag.answer").rerank(query, candidates, id -> (String) snapshots.chunk(id).getProperty("text"),
                    cfg.ranking().k(), cancelled);
            candidates = r.items();
            rerankColumn = r.column(id -> id);
            rerankUsage = r.usage();
        }
        List<String> retrieved = new ArrayList<>();
        for (String id : candidates) if (!path.contains(id)) retrieved.add(id);
        // in a small window the last retrieved passages go first, then the last path passages, then the last subgraph strings
        List<String> graphStrings = sg.graphStrings(), pathTexts = texts(path), retrievedTexts = texts(retrieved);
        int items = graphStrings.size() + pathTexts.size() + retrievedTexts.size();
        PromptFit.Fitted fit = PromptFit.fit(llmConfig, "agrag.answer", items, n -> AgragPrompts.answer(query,
                graphStrings.subList(0, Math.min(n, graphStrings.size())),
                pathTexts.subList(0, Math.max(0, Math.min(n - graphStrings.size(), pathTexts.size()))),
                retrievedTexts.subList(0, Math.max(0, n - graphStrings.size() - pathTexts.size()))), TokenCounter.responseFormat("json_object"));
        List<Map<String, Object>> messages = fit.messages();
        LlmClient.JsonReply reply = llm.chatJson(llmConfig, new ChatRequest("agrag.answer", messages, null, null, "json_object", null),
                j -> j.path("answer").isMissingNode() ? "it has no \"answer\"" : null, true, cancelled);
        String prompt = cfg.answer().returnPrompt() ? (String) messages.get(messages.size() - 1).get("content") : null;
        ChatResponse r = reply.response();
        return new Answer(reply.json().path("answer").asText(), reply.json().path("thought").asText(null), sg.graphStrings(), sg.facts(), path,
                retrieved, !sg.terminals().isEmpty(), prompt, rerankColumn, sg.usage().plus(rerankUsage).plus(Usage.of("agrag.answer", r))
                .plus(Usage.trimmed("agrag.answer", fit.trimmed(), fit.trimmedTokens())), (System.nanoTime() - t0) / 1_000_000);
    }

    private List<String> texts(List<String> chunkIds) {
        List<String> out = new ArrayList<>();
        for (String id : chunkIds) out.add((String) snapshots.chunk(id).getProperty("text"));
        return out;
    }

}
