package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.core.llm.RerankEndpoint;
import dev.graphrag.core.llm.Usage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The reranking stage every retrieval may end with: a method's candidates, best first, go to the server's cross-encoder
 * (graphrag.rerank.*) in requests of at most graphrag.rerank.maxDocuments, and the k best by its score come back. Each
 * request asks only for its top k (a candidate outside every request's top k cannot be in the overall top k). Equal scores
 * keep the retrieval order. When the reranker fails (timeout, 5xx after its retries, a malformed reply) the stage keeps
 * the retrieval order, says so in a note and counts the fallback: a retrieval never fails for its reranker.
 */
public final class Reranker {
    /** The step reranking is counted under in tokensByStep. */
    public static final String STEP = RerankEndpoint.STEP;
    /** The fallback's name in tokensByStep. */
    public static final String KEPT_ORDER = "retrieval order kept";

    /**
     * The stage's outcome: the top k candidates in their new order, each one's reranker score (NaN where the stage fell
     * back), the note saying why it fell back (null otherwise), and its cost for tokensByStep.
     */
    public record Ranked<T>(List<T> items, double[] scores, String note, Usage usage, String reranker, int candidates) {
        public boolean fellBack() {
            return note != null;
        }

        /**
         * What an answer procedure's {@code rerank} column shows: {reranker, candidates, chunks: [{chunkId, score}] in the
         * new order, note} (score null and the note set where the stage fell back).
         */
        public Map<String, Object> column(Function<T, String> chunkId) {
            List<Map<String, Object>> chunks = new ArrayList<>(items.size());
            for (int i = 0; i < items.size(); i++) {
                Map<String, Object> c = new java.util.LinkedHashMap<>();
                c.put("chunkId", chunkId.apply(items.get(i)));
                c.put("score", score(i));
                chunks.add(c);
            }
            Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("reranker", reranker);
            out.put("candidates", (long) candidates);
            out.put("chunks", chunks);
            out.put("note", note);
            return out;
        }

        /** The reranker's score of the i-th item, null where the stage fell back. */
        public Double score(int i) {
            return Double.isNaN(scores[i]) ? null : scores[i];
        }
    }

    private final RerankEndpoint endpoint;

    public Reranker(RerankEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    public String describe() {
        return endpoint.provider().name().toLowerCase(java.util.Locale.ROOT) + " at " + endpoint.host()
                + (endpoint.model().isEmpty() ? "" : " (model " + endpoint.model() + ")");
    }

    /** The k best of {@code candidates} (retrieval order, best first) by the reranker's score of {@code text} of each. */
    public <T> Ranked<T> rerank(String query, List<T> candidates, Function<T, String> text, int k, BooleanSupplier cancelled) {
        int n = candidates.size();
        double[] score = new double[n];
        Arrays.fill(score, Double.NaN);
        int requests = 0;
        try {
            for (int from = 0; from < n; from += endpoint.maxDocuments()) {
                int to = Math.min(n, from + endpoint.maxDocuments());
                List<String> texts = new ArrayList<>(to - from);
                for (T c : candidates.subList(from, to)) texts.add(text.apply(c));
                requests++;
                for (RerankEndpoint.Scored s : endpoint.score(query, texts, Math.min(k, to - from), cancelled)) score[from + s.index()] = s.score();
            }
        } catch (RagException e) {
            if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) throw e;
            List<T> kept = List.copyOf(candidates.subList(0, Math.min(k, n)));
            double[] none = new double[kept.size()];
            Arrays.fill(none, Double.NaN);
            return new Ranked<>(kept, none, "reranker failed, retrieval order kept: " + e.getMessage(),
                    cost(requests).plus(Usage.fallback(STEP, 0, KEPT_ORDER)), describe(), n);
        }
        // scored first, best first; equal scores, and candidates a server left out past its top_n, in retrieval order
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> Double.isNaN(score[i]) ? 1 : 0)
                .thenComparingDouble(i -> Double.isNaN(score[i]) ? 0 : -score[i]).thenComparingInt(i -> i));
        int m = Math.min(k, n);
        List<T> items = new ArrayList<>(m);
        double[] scores = new double[m];
        for (int i = 0; i < m; i++) {
            items.add(candidates.get(order[i]));
            scores[i] = score[order[i]];
        }
        return new Ranked<>(items, scores, null, cost(requests), describe(), n);
    }

    /** Reranker requests under their own step (the calls total counts LLM exchanges only). */
    private static Usage cost(int requests) {
        return requests == 0 ? Usage.NONE : new Usage(0, 0, 0, Map.of(STEP, new Usage.Step(requests, 0, 0)));
    }
}
