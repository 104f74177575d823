package dev.graphrag.agrag;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.search.RerankConfig;
import dev.graphrag.core.search.DocumentFilter;

import java.util.Map;

/**
 * Config of agrag.mcmi / agrag.retrieve / agrag.answer / agrag.mapFacts (docs/agrag.md), composed by type as the
 * procedures are: every query maps facts ({@link Facts}); mcmi, retrieve and answer build the reasoning subgraph
 * ({@link Subgraph}); retrieve and answer rank chunks ({@link Ranking}); answer has its own two keys ({@link Answer}).
 * A procedure reads only the groups it uses, so any other key is an error naming it. Each key is declared once with
 * its default and range, and named as its accessor.
 */
public record AgragQueryConfig(String corpus, Map<String, Object> llm, RetrieveMode mode, Lookup lookup, Facts facts, Subgraph subgraph,
                               Ranking ranking, Answer answer, DocumentFilter where) {
    public enum RetrieveMode { MCMI, HYBRID, PPR }

    /** NATIVE: Gauss-Seidel sweeps on the snapshot's cached CSR; GDS: gds.pageRank.stream on the corpus projection. Same fixed point. */
    /** native: sweeps over the whole graph to the tolerance; push: forward push from the reset, bounded by pushEpsilon; gds: GDS's PageRank. */
    public enum PprEngine { NATIVE, PUSH, GDS }

    /** INDUCED: every graph edge among the subgraph's nodes; SELECTED: the Steiner tree's and the expansion's edges only. */
    public enum OutputEdges { INDUCED, SELECTED }

    /** HYBRID: passages scored by dense + BM25 (AGRAG Eq. 21); DENSE: by cosine alone. */
    public enum RetrievalMode { HYBRID, DENSE }

    /** Which procedure parses: each reads (and so accepts) only the groups it uses. */
    public enum Use {
        MCMI("agrag.mcmi"), RETRIEVE("agrag.retrieve"), ANSWER("agrag.answer"), MAP_FACTS("agrag.mapFacts");

        final String procedure;

        Use(String procedure) {
            this.procedure = procedure;
        }

        boolean subgraph() {
            return this != MAP_FACTS;
        }

        boolean ranks() {
            return this == RETRIEVE || this == ANSWER;
        }
    }

    /**
     * How a query finds the chunks and facts most like the question: a corpus with at least {@code indexFrom} distinct chunk
     * (or fact) vectors asks the vector index for its {@code indexCandidates} nearest and re-scores them exactly, reading any
     * other cosine when a cost or ranking needs it; a smaller one is scanned whole, which is exact. The scan is the default
     * at every size: at 6.7k and 27k chunks it was the faster way, as Neo4j's own index call grows almost as fast as the
     * scan there (docs/benchmarks.md "Scaling"). From {@code cellsFrom} distinct vectors the candidates come from the
     * snapshot's own k-means cells instead (VectorCells: the {@code cellProbes} cells nearest the query), with no index
     * call; cellsFrom wins where both apply. Every query reads these keys.
     */
    public record Lookup(int indexCandidates, int indexFrom, int cellsFrom, int cellProbes) {
        static final Key<Integer> INDEX_CANDIDATES = Key.integer("indexCandidates", 200, 1, 10_000);
        static final Key<Integer> INDEX_FROM = Key.integer("indexFrom", Integer.MAX_VALUE, 0, Integer.MAX_VALUE);
        static final Key<Integer> CELLS_FROM = Key.integer("cellsFrom", Integer.MAX_VALUE, 0, Integer.MAX_VALUE);
        static final Key<Integer> CELL_PROBES = Key.integer("cellProbes", 32, 1, 100_000);

        /** Where a matrix's best rows come from. */
        enum Source { SCAN, INDEX, CELLS }

        static Lookup read(ConfigReader r) {
            return new Lookup(INDEX_CANDIDATES.read(r), INDEX_FROM.read(r), CELLS_FROM.read(r), CELL_PROBES.read(r));
        }

        /** A matrix of this many distinct vectors: its cells from cellsFrom on, else its index from indexFrom on, else a scan. */
        Source source(int distinctVectors) {
            return distinctVectors >= cellsFrom ? Source.CELLS : distinctVectors >= indexFrom ? Source.INDEX : Source.SCAN;
        }
    }

    /** The facts most similar to the question, and whether the LLM triple filter checks them (on by default only with an LLM). */
    public record Facts(int factTopK, boolean filter) {
        static final Key<Integer> FACT_TOP_K = Key.integer("factTopK", 5, 1, 1000);
        static final Key<Boolean> FILTER = Key.bool("filter", false);

        /** ppr mode's factTopK (10) was tuned on MuSiQue (docs/lab-notebook.md); the other modes keep 5 (docs/agrag.md#pipeline-and-defaults). */
        static Facts read(ConfigReader r, boolean ppr, boolean withLlm) {
            return new Facts((ppr ? FACT_TOP_K.withDefault(10) : FACT_TOP_K).read(r), FILTER.withDefault(withLlm).read(r));
        }
    }

    /** Personalized PageRank, the cost graph, the Steiner tree and its expansion (paper Eq. 10-18). */
    public record Subgraph(double damping, double pprTolerance, int pprMaxIterations, boolean pprWeighted, double passageScoreFactor,
                           EdgeCosts costMode, boolean expansion, McmiExpansion.Rule expansionRule, int maxExpansions, int maxSearchNodes,
                           OutputEdges outputEdges, RetrievalMode retrievalMode, PprEngine pprEngine, double pushEpsilon, int concurrency) {
        static final Key<Double> DAMPING = Key.number("damping", 0.5, 0, 0.99);
        static final Key<Double> PPR_TOLERANCE = Key.number("pprTolerance", 1e-7, 0, 1);
        static final Key<Integer> PPR_MAX_ITERATIONS = Key.integer("pprMaxIterations", 100, 1, 10_000);
        static final Key<Boolean> PPR_WEIGHTED = Key.bool("pprWeighted", true);
        static final Key<Double> PASSAGE_SCORE_FACTOR = Key.number("passageScoreFactor", 0.05, 0, 1);
        static final Key<EdgeCosts> COST_MODE = Key.choice("costMode", EdgeCosts.class, EdgeCosts.HALF);
        static final Key<Boolean> EXPANSION = Key.bool("expansion", true);
        static final Key<McmiExpansion.Rule> EXPANSION_RULE = Key.choice("expansionRule", McmiExpansion.Rule.class, McmiExpansion.Rule.MEAN);
        static final Key<Integer> MAX_EXPANSIONS = Key.integer("maxExpansions", 20, 0, 10_000);
        /** The Steiner search's node budget (SteinerTree.Cut): past it, terminals are joined by the paths found so far. */
        static final Key<Integer> MAX_SEARCH_NODES = Key.integer("maxSearchNodes", 5_000, 1, Integer.MAX_VALUE);
        static final Key<OutputEdges> OUTPUT_EDGES = Key.choice("outputEdges", OutputEdges.class, OutputEdges.INDUCED);
        static final Key<RetrievalMode> RETRIEVAL_MODE = Key.choice("retrievalMode", RetrievalMode.class, RetrievalMode.HYBRID);
        // push by default: its work is bounded by the seeds' neighbourhood, where the native sweeps read every edge of the
        // corpus (docs/benchmarks.md "Scaling"); GDS's PageRank call alone takes ~100 ms per query on 2Wiki (docs/lab-notebook.md)
        static final Key<PprEngine> PPR_ENGINE = Key.choice("pprEngine", PprEngine.class, PprEngine.PUSH);
        /** pprEngine 'push': every node's residual ends at most this times its weighted degree (its value's error bound). */
        static final Key<Double> PUSH_EPSILON = Key.number("pushEpsilon", 1e-6, 1e-12, 1);
        // 2: the stages that touch no transaction (the fact scan, native PageRank, entity cosines) run beside the caller's; more has nothing to run
        static final Key<Integer> CONCURRENCY = Key.integer("concurrency", 2, 1, 2);

        /** ppr mode's damping (0.4) was tuned on MuSiQue; the other modes keep 0.5 (paper Eq. 10, the code's value). */
        static Subgraph read(ConfigReader r, boolean ppr) {
            return new Subgraph((ppr ? DAMPING.withDefault(0.4) : DAMPING).read(r), PPR_TOLERANCE.read(r), PPR_MAX_ITERATIONS.read(r), PPR_WEIGHTED.read(r),
                    PASSAGE_SCORE_FACTOR.read(r), COST_MODE.read(r), EXPANSION.read(r), EXPANSION_RULE.read(r), MAX_EXPANSIONS.read(r), MAX_SEARCH_NODES.read(r), OUTPUT_EDGES.read(r),
                    RETRIEVAL_MODE.read(r), PPR_ENGINE.read(r), PUSH_EPSILON.read(r), CONCURRENCY.read(r));
        }

        /** For agrag.mapFacts, which builds no subgraph: the defaults, on the caller's thread alone. */
        static Subgraph notBuilt() {
            return new Subgraph(DAMPING.dflt(), PPR_TOLERANCE.dflt(), PPR_MAX_ITERATIONS.dflt(), PPR_WEIGHTED.dflt(), PASSAGE_SCORE_FACTOR.dflt(),
                    COST_MODE.dflt(), EXPANSION.dflt(), EXPANSION_RULE.dflt(), MAX_EXPANSIONS.dflt(), MAX_SEARCH_NODES.dflt(), OUTPUT_EDGES.dflt(), RETRIEVAL_MODE.dflt(),
                    PPR_ENGINE.dflt(), PUSH_EPSILON.dflt(), 1);
        }

        boolean inducedOutput() {
            return outputEdges == OutputEdges.INDUCED;
        }

        boolean denseOnly() {
            return retrievalMode == RetrievalMode.DENSE;
        }
    }

    /**
     * How agrag.retrieve and agrag.answer rank chunks: k of them, the denseFirst densest leading, then up to namedPassages
     * of documents the question names by title and linkedPassages of documents the densest chunk names by title
     * ({denseFirst: 0, namedPassages: 0, linkedPassages: 0} is the paper's ranking). passageNodeWeight is agrag.retrieve's
     * (the ppr mode's passage reset weight).
     */
    public record Ranking(int k, int denseFirst, int namedPassages, int linkedPassages, double passageNodeWeight) {
        static final Key<Integer> K = Key.integer("k", 5, 1, 1000);
        static final Key<Integer> DENSE_FIRST = Key.integer("denseFirst", 1, 0, 1000);
        static final Key<Integer> NAMED_PASSAGES = Key.integer("namedPassages", 1, 0, 1000);
        static final Key<Integer> LINKED_PASSAGES = Key.integer("linkedPassages", 1, 0, 1000);
        static final Key<Double> PASSAGE_NODE_WEIGHT = Key.number("passageNodeWeight", 1.0, 0, 100);
        static final Ranking DEFAULTS = new Ranking(K.dflt(), DENSE_FIRST.dflt(), NAMED_PASSAGES.dflt(), LINKED_PASSAGES.dflt(), PASSAGE_NODE_WEIGHT.dflt());

        static Ranking read(ConfigReader r, boolean retrieve) {
            return new Ranking(K.read(r), DENSE_FIRST.read(r), NAMED_PASSAGES.read(r), LINKED_PASSAGES.read(r),
                    retrieve ? PASSAGE_NODE_WEIGHT.read(r) : PASSAGE_NODE_WEIGHT.dflt());
        }
    }

    /**
     * agrag.answer's own keys: whether the reasoning subgraph's chunks join the prompt, whether the prompt is returned, and
     * the reranking stage over the retrieved chunks ({@link RerankConfig}: rerankCandidates in, k out).
     */
    public record Answer(boolean includePathChunks, boolean returnPrompt, RerankConfig rerank) {
        static final Key<Boolean> INCLUDE_PATH_CHUNKS = Key.bool("includePathChunks", true);
        static final Key<Boolean> RETURN_PROMPT = Key.bool("returnPrompt", false);
        static final Answer DEFAULTS = new Answer(INCLUDE_PATH_CHUNKS.dflt(), RETURN_PROMPT.dflt(), RerankConfig.OFF);

        static Answer read(ConfigReader r, int k) {
            return new Answer(INCLUDE_PATH_CHUNKS.read(r), RETURN_PROMPT.read(r), RerankConfig.read(r, k));
        }
    }

    static final Key<RetrieveMode> MODE = Key.choice("mode", RetrieveMode.class, RetrieveMode.MCMI);

    public static AgragQueryConfig parse(Use use, Map<String, Object> config, boolean llmConfigured) {
        ConfigReader r = ConfigReader.of(use.procedure, config);
        String corpus = r.corpus();
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        RetrieveMode mode = use == Use.RETRIEVE || use == Use.MAP_FACTS ? MODE.read(r) : MODE.dflt();
        boolean ppr = mode == RetrieveMode.PPR;
        Lookup lookup = Lookup.read(r);
        Facts facts = Facts.read(r, ppr, llmConfigured || llm != null);
        Subgraph subgraph = use.subgraph() ? Subgraph.read(r, ppr) : Subgraph.notBuilt();
        Ranking ranking = use.ranks() ? Ranking.read(r, use == Use.RETRIEVE) : Ranking.DEFAULTS;
        Answer answer = use == Use.ANSWER ? Answer.read(r, ranking.k()) : Answer.DEFAULTS;
        // chunks outside the filter are never ranked, put on the subgraph or into the answer prompt (docs/agrag.md)
        DocumentFilter where = use.subgraph() ? DocumentFilter.parse(use.procedure, DocumentFilter.WHERE.read(r)) : null;
        r.finish();
        return new AgragQueryConfig(corpus, llm, mode, lookup, facts, subgraph, ranking, answer, where);
    }
}
