package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

/**
 * The reranking keys every retrieval shares (rag.search and each method's final passage selection): {@code rerank} turns
 * the stage on (false by default: it costs a request to the reranker per call). A ranked retrieval (rag.search,
 * agrag.answer, raga.answer) sends its best {@code rerankCandidates} (default max(20, 4k)) and keeps k; a method whose
 * context is already a bounded selection (ReMind's subgraph, HGMem's final context) sends all of it, orders it best first
 * (so a small window drops the least relevant) and keeps {@code rerankTopK} (0, the default: all).
 */
public record RerankConfig(boolean enabled, int candidates, int topK) {
    public static final Key<Boolean> RERANK = Key.bool("rerank", false);
    private static final int CANDIDATES_MAX = 1000;
    public static final Key<Integer> CANDIDATES = Key.integer("rerankCandidates", 20, 1, CANDIDATES_MAX);
    public static final Key<Integer> TOP_K = Key.integer("rerankTopK", 0, 0, 10_000);
    public static final RerankConfig OFF = new RerankConfig(false, 0, 0);

    /** The keys of a method whose context is a bounded selection: rerank and rerankTopK. */
    public static RerankConfig readContext(ConfigReader r) {
        boolean on = RERANK.read(r);
        int topK = TOP_K.read(r);
        if (r.has(TOP_K.name()) && !on) throw new RagException(r.owner() + ": rerankTopK is set but rerank is not true");
        return on ? new RerankConfig(true, Integer.MAX_VALUE, topK == 0 ? Integer.MAX_VALUE : topK) : OFF;
    }

    /** The two keys from {@code r}, for a retrieval that returns {@code k} passages. */
    public static RerankConfig read(ConfigReader r, int k) {
        boolean on = RERANK.read(r);
        int candidates = CANDIDATES.withDefault(Math.min(CANDIDATES_MAX, Math.max(20, 4 * k))).read(r);
        if (r.has(CANDIDATES.name()) && !on) {
            throw new RagException(r.owner() + ": rerankCandidates is set but rerank is not true");
        }
        if (on && candidates < k) {
            throw new RagException(r.owner() + ": rerankCandidates (" + candidates + ") must be at least k (" + k + "): the reranker chooses k of them");
        }
        return on ? new RerankConfig(true, candidates, k) : OFF;
    }

    /** How many passages the retrieval before the stage should deliver: the candidates when reranking, else k. */
    public int fetch(int k) {
        return enabled ? Math.max(candidates, k) : k;
    }
}
