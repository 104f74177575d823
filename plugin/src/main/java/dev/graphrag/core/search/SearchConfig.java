package dev.graphrag.core.search;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.Map;

/**
 * rag.search's config. {@code candidates}: how many hits each index contributes before fusion; {@code denseWeight}:
 * the dense side's share in hybrid (of the normalised cosine; the rest is normalised BM25) and in rrf (of the
 * reciprocal ranks); {@code where}: the {@link DocumentFilter} chunks must pass (null: all); {@code rerank}: the
 * {@link Reranker} stage over the best {@code rerankCandidates}.
 */
public record SearchConfig(String corpus, int k, SearchMode mode, int candidates, int rrfK, double denseWeight, int denseHead,
                           DocumentFilter filter, RerankConfig rerank) {
    public static final int MAX_K = 1000;
    /**
     * The default dense share: for hybrid 0.8 and 0.9 tie on MuSiQue Recall@5 (the tuning set), and the tie goes to the
     * share nearer dense, since hybrid must not lose to dense; for rrf 0.9 is the best of 0.5 to 0.9 there
     * (docs/benchmarks.md, retrieval quality).
     */
    public static final double DEFAULT_DENSE_WEIGHT = 0.9;
    /** How many of dense's best lead a hybrid or rrf ranking ({@link ChunkSearch#denseHeadFirst}); chosen by leave-one-set-out (docs/benchmarks.md). */
    public static final int DEFAULT_DENSE_HEAD = 2;

    static final Key<Integer> K = Key.integer("k", 10, 1, MAX_K);
    static final Key<SearchMode> MODE = Key.choice("mode", SearchMode.class, SearchMode.HYBRID);
    static final Key<Integer> CANDIDATES = Key.integer("candidates", 50, 1, 10_000);
    static final Key<Integer> RRF_K = Key.integer("rrfK", 60, 1, 10_000);
    static final Key<Double> DENSE_WEIGHT = Key.number("denseWeight", DEFAULT_DENSE_WEIGHT, 0, 1);
    static final Key<Integer> DENSE_HEAD = Key.integer("denseHead", DEFAULT_DENSE_HEAD, 0, MAX_K);

    public static SearchConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.search", config);
        String corpus = r.corpus();
        int k = K.read(r);
        SearchMode mode = MODE.read(r);
        // each index's hits before fusion: max(50, 4k) unless set
        int candidates = CANDIDATES.withDefault(Math.max(CANDIDATES.dflt(), 4 * k)).read(r);
        int rrfK = RRF_K.read(r);
        double denseWeight = DENSE_WEIGHT.read(r);
        int denseHead = DENSE_HEAD.read(r);
        DocumentFilter filter = DocumentFilter.parse("rag.search", DocumentFilter.WHERE.read(r));
        RerankConfig rerank = RerankConfig.read(r, k);
        r.finish();
        return new SearchConfig(corpus, k, mode, Math.max(candidates, rerank.fetch(k)), rrfK, denseWeight, denseHead, filter, rerank);
    }
}
