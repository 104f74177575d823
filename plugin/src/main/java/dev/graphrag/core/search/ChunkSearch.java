package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Dense, BM25 and fused chunk search over the lexical graph's indexes, within one corpus. READ only. */
public final class ChunkSearch {
    /**
     * One ranked chunk. denseScore is the cosine; bm25Score Lucene's raw score (0 when the chunk had no hit); rerankScore the
     * reranker's (null when the search did not rerank or the reranker failed).
     */
    public record Hit(long rank, String chunkId, String documentId, String text, double score, double denseScore,
                      double bm25Score, Double rerankScore, Node node) {}

    /** A search's hits, and the reranking stage's note and cost (null and none without it). */
    public record Found(List<Hit> hits, String rerankNote, dev.graphrag.core.llm.Usage rerankUsage) {}

    public static final int MAX_QUERY_CHARS = 10_000;

    private final Transaction tx;
    private final EmbeddingService embeddings;

    public ChunkSearch(Transaction tx, EmbeddingService embeddings) {
        this.tx = tx;
        this.embeddings = embeddings;
    }

    public static String checkQuery(String owner, String query) {
        if (query == null) throw new RagException(owner + ": query must not be null");
        if (query.isBlank()) throw new RagException(owner + ": query must not be empty");
        if (query.length() > MAX_QUERY_CHARS) {
            throw new RagException(owner + ": query has " + query.length() + " characters, the limit is " + MAX_QUERY_CHARS);
        }
        return query;
    }

    /**
     * The score a reader can take for the ranking: never above the score of the row before it. With the reranker's order
     * it is the reranker's score; otherwise the mode's score, raised where the dense head put a chunk above a better
     * fused one to the best score below it (so a head chunk ties the chunk it outranks instead of reading as a mistake).
     */
    public static double[] rankScores(List<Hit> hits) {
        double[] out = new double[hits.size()];
        boolean reranked = !hits.isEmpty() && hits.stream().allMatch(h -> h.rerankScore() != null);
        double floor = Double.NEGATIVE_INFINITY;
        for (int i = hits.size() - 1; i >= 0; i--) {
            Hit h = hits.get(i);
            floor = Math.max(floor, reranked ? h.rerankScore() : h.score());
            out[i] = floor;
        }
        return out;
    }

    /** The k best chunks; when cfg asks for rerank, the k the reranker puts first among the best rerankCandidates. */
    public Found search(String query, SearchConfig cfg, Reranker reranker, java.util.function.BooleanSupplier cancelled) {
        List<Hit> fused = search(query, cfg);
        if (!cfg.rerank().enabled()) return new Found(fused, null, dev.graphrag.core.llm.Usage.NONE);
        Reranker.Ranked<Hit> r = reranker.rerank(query, fused, Hit::text, cfg.k(), cancelled);
        List<Hit> out = new ArrayList<>(r.items().size());
        for (int i = 0; i < r.items().size(); i++) {
            Hit h = r.items().get(i);
            out.add(new Hit(i + 1, h.chunkId(), h.documentId(), h.text(), h.score(), h.denseScore(), h.bm25Score(), r.score(i), h.node()));
        }
        return new Found(out, r.note(), r.usage());
    }

    /** The fused ranking before any reranking: cfg.rerank().fetch(k) chunks, best first. */
    public List<Hit> search(String query, SearchConfig cfg) {
        checkQuery("rag.search", query);
        LexicalGraph.requireCorpus(tx, cfg.corpus());
        DocumentFilter.Allowed allowed = cfg.filter() == null ? null : cfg.filter().allowed(tx, cfg.corpus());
        Map<Node, double[]> scores = new LinkedHashMap<>(); // node -> {dense, bm25, denseRank, bm25Rank}
        float[] qv = null;
        if (cfg.mode() != SearchMode.BM25) {
            qv = embeddings.embed(query);
            int r = 0;
            Map<Node, Double> dense = allowed == null ? dense(qv, cfg.corpus(), cfg.candidates()) : dense(qv, cfg.corpus(), allowed, cfg.candidates());
            for (Map.Entry<Node, Double> e : dense.entrySet()) {
                scores.put(e.getKey(), new double[] {e.getValue(), 0, ++r, Double.POSITIVE_INFINITY});
            }
        }
        if (cfg.mode() != SearchMode.DENSE) {
            int r = 0;
            Map<Node, Double> bm25 = allowed == null ? bm25(query, cfg.corpus(), cfg.candidates())
                    : bm25(query, cfg.candidates(), node -> cfg.corpus().equals(node.getProperty("corpus", null)) && allowed.admits(node));
            for (Map.Entry<Node, Double> e : bm25.entrySet()) {
                double[] s = scores.get(e.getKey());
                if (s == null) {
                    s = new double[] {Double.NaN, 0, Double.POSITIVE_INFINITY, 0};
                    scores.put(e.getKey(), s);
                }
                s[1] = e.getValue();
                s[3] = ++r;
            }
        }
        for (Map.Entry<Node, double[]> e : scores.entrySet()) {
            double[] s = e.getValue();
            if (qv != null && Double.isNaN(s[0])) {
                // a BM25-only candidate: its cosine comes from the stored vector
                s[0] = EmbeddingService.cosine(qv, (float[]) e.getKey().getProperty("embedding"));
            }
        }
        MinMax denseRange = new MinMax(), bm25Range = new MinMax();
        for (double[] s : scores.values()) {
            denseRange.add(Double.isNaN(s[0]) ? 0 : s[0]);
            bm25Range.add(s[1]);
        }
        List<Hit> hits = new ArrayList<>(scores.size());
        for (Map.Entry<Node, double[]> e : scores.entrySet()) {
            double[] s = e.getValue();
            double dense = Double.isNaN(s[0]) ? 0 : s[0];
            double score = switch (cfg.mode()) {
                case DENSE -> dense;
                case BM25 -> s[1];
                case HYBRID -> hybrid(denseRange.scale(dense), bm25Range.max() > 0 ? bm25Range.scale(s[1]) : Double.NaN, cfg.denseWeight());
                // weighted as hybrid is; twice the weighted mean, so denseWeight 0.5 is the classic sum of reciprocal ranks
                case RRF -> 2 * (cfg.denseWeight() / (cfg.rrfK() + s[2]) + (1 - cfg.denseWeight()) / (cfg.rrfK() + s[3]));
            };
            Node n = e.getKey();
            // the id alone for ranking (ties): a candidate's document and text are read only if it is returned
            hits.add(new Hit(0, (String) n.getProperty("id"), null, null, score, dense, s[1], null, n));
        }
        hits.sort(Comparator.comparingDouble(Hit::score).reversed().thenComparing(Hit::chunkId));
        if (cfg.mode() == SearchMode.HYBRID || cfg.mode() == SearchMode.RRF) hits = denseHeadFirst(hits, cfg.denseHead());
        int n = cfg.rerank().fetch(cfg.k());
        List<Hit> out = new ArrayList<>(Math.min(n, hits.size()));
        for (int i = 0; i < hits.size() && i < n; i++) {
            Hit h = hits.get(i);
            out.add(new Hit(i + 1, h.chunkId(), (String) h.node().getProperty("documentId"), (String) h.node().getProperty("text"), h.score(),
                    h.denseScore(), h.bm25Score(), null, h.node()));
        }
        return out;
    }

    /**
     * The fused ranking with dense's {@code head} best first, in dense order (docs/benchmarks.md, fusion): on the training
     * sets BM25's gains over dense all come from below the head, its losses from displacing dense's confident first hits,
     * so the head is kept and fusion orders the rest. A fused list then differs from dense in its last k - head places only.
     */
    static List<Hit> denseHeadFirst(List<Hit> fused, int head) {
        if (head == 0 || fused.isEmpty()) return fused;
        List<Hit> byDense = new ArrayList<>(fused);
        byDense.sort(Comparator.comparingDouble(Hit::denseScore).reversed().thenComparing(Hit::chunkId));
        List<Hit> out = new ArrayList<>(fused.size());
        java.util.Set<String> first = new java.util.HashSet<>();
        for (int i = 0; i < head && i < byDense.size(); i++) {
            out.add(byDense.get(i));
            first.add(byDense.get(i).chunkId());
        }
        for (Hit h : fused) if (!first.contains(h.chunkId())) out.add(h);
        return out;
    }

    /**
     * AGRAG Eq. 21 as docs/agrag.md#pipeline-and-defaults resolves it: the mean of the min-max normalised
     * cosine and BM25 scores; the dense score alone when no candidate matched a term (bm25 = NaN).
     */
    public static double hybrid(double denseMinMax, double bm25MinMax) {
        return hybrid(denseMinMax, bm25MinMax, 0.5);
    }

    /** rag.search's hybrid: {@code denseWeight} of the normalised cosine plus the rest of normalised BM25 (dense alone when no term matched). */
    public static double hybrid(double denseMinMax, double bm25MinMax, double denseWeight) {
        return Double.isNaN(bm25MinMax) ? denseMinMax : denseWeight * denseMinMax + (1 - denseWeight) * bm25MinMax;
    }

    /** Min-max normalisation with the zero-range guard (all equal -> 0). */
    public static final class MinMax {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;

        public void add(double x) {
            min = Math.min(min, x);
            max = Math.max(max, x);
        }

        public double max() {
            return max;
        }

        public double scale(double x) {
            return max > min ? (x - min) / (max - min) : 0;
        }
    }

    /** Top-n chunks of the corpus by cosine; over-fetches when other corpora share the index. */
    public Map<Node, Double> dense(float[] qv, String corpus, int n) {
        return VectorIndexQuery.topInCorpus(tx, LexicalGraph.VECTOR_INDEX, qv, corpus, n, this::countChunks);
    }

    /** Filters admitting at most this many chunks are searched exactly (every admitted vector read); wider ones through the index. */
    public static final long EXACT_FILTER_CHUNKS = 20_000;

    /**
     * Top-n chunks by cosine among those a filter admits: exact over the admitted chunks when they are few, else the
     * vector index asked for more until n admitted ones are found, so a filter never returns fewer than n when n pass.
     */
    public Map<Node, Double> dense(float[] qv, String corpus, DocumentFilter.Allowed allowed, int n) {
        if (allowed.chunks() > EXACT_FILTER_CHUNKS) {
            return VectorIndexQuery.topNodes(tx, LexicalGraph.VECTOR_INDEX, qv, n,
                    node -> corpus.equals(node.getProperty("corpus", null)) && allowed.admits(node), this::countChunks);
        }
        List<Map.Entry<Node, Double>> all = new ArrayList<>();
        try (Result r = tx.execute("MATCH (d:Document {corpus: $c})-[:HAS_CHUNK]->(ch:Chunk) WHERE d.id IN $ids RETURN ch",
                Map.of("c", corpus, "ids", List.copyOf(allowed.documentIds())))) {
            while (r.hasNext()) {
                Node ch = (Node) r.next().get("ch");
                all.add(Map.entry(ch, EmbeddingService.cosine(qv, (float[]) ch.getProperty("embedding"))));
            }
        }
        all.sort(Map.Entry.<Node, Double>comparingByValue().reversed().thenComparing(e -> (String) e.getKey().getProperty("id")));
        Map<Node, Double> out = new LinkedHashMap<>();
        for (int i = 0; i < all.size() && i < n; i++) out.put(all.get(i).getKey(), all.get(i).getValue());
        return out;
    }

    /** Distinct terms a BM25 query keeps: Lucene refuses a query of more than 1,024 clauses (TooManyClauses). */
    public static final int MAX_BM25_TERMS = 1000;

    /** The BM25 query text and, when it had to be shortened, a note saying so (null otherwise). */
    public record Bm25Query(String text, String note) {}

    /**
     * The query text for Lucene: the escaped text as it is when it has at most MAX_BM25_TERMS distinct terms, else its
     * first MAX_BM25_TERMS distinct terms. Terms are runs of letters and digits, and each ideographic or syllabic
     * character on its own: never fewer than the analyser makes, so the count bounds its clauses.
     */
    public static Bm25Query bm25Query(String query) {
        java.util.LinkedHashSet<String> terms = new java.util.LinkedHashSet<>();
        StringBuilder term = new StringBuilder();
        String lower = query.toLowerCase(Locale.ROOT);
        for (int i = 0; i < lower.length(); ) {
            int cp = lower.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.isLetterOrDigit(cp) && !ownTerm(cp)) {
                term.appendCodePoint(cp);
                continue;
            }
            if (term.length() > 0) terms.add(term.toString());
            term.setLength(0);
            if (Character.isLetterOrDigit(cp)) terms.add(new String(Character.toChars(cp)));
        }
        if (term.length() > 0) terms.add(term.toString());
        if (terms.size() <= MAX_BM25_TERMS) return new Bm25Query(escapeLucene(query), null);
        List<String> kept = new ArrayList<>(terms).subList(0, MAX_BM25_TERMS);
        return new Bm25Query(String.join(" ", kept), "the query has " + terms.size() + " distinct terms; BM25 used its first "
                + MAX_BM25_TERMS + " (Lucene's clause limit)");
    }

    private static boolean ownTerm(int cp) {
        Character.UnicodeScript s = Character.UnicodeScript.of(cp);
        return s == Character.UnicodeScript.HAN || s == Character.UnicodeScript.HIRAGANA || s == Character.UnicodeScript.KATAKANA
                || s == Character.UnicodeScript.THAI || s == Character.UnicodeScript.LAO || s == Character.UnicodeScript.KHMER
                || s == Character.UnicodeScript.MYANMAR;
    }

    /** Top-n chunks of the corpus by Lucene BM25 on the escaped query text (shortened by {@link #bm25Query}). */
    public Map<Node, Double> bm25(String query, String corpus, int n) {
        return bm25(query, n, node -> corpus.equals(node.getProperty("corpus", null)));
    }

    /**
     * The n best BM25 hits among the chunks {@code belongs} accepts (the index spans every corpus): for a caller
     * that knows its corpus's chunk nodes already and need not read each hit's corpus property.
     */
    public Map<Node, Double> bm25(String query, int n, java.util.function.Predicate<Node> belongs) {
        String escaped = bm25Query(query).text();
        Map<Node, Double> out = new LinkedHashMap<>();
        if (escaped.isBlank()) return out;
        long total = -1;
        for (int fetch = n; ; fetch *= 4) {
            out.clear();
            int seen = 0;
            try (Result r = tx.execute("CALL db.index.fulltext.queryNodes($index, $q, {limit: $n}) YIELD node, score RETURN node, score",
                    Map.of("index", LexicalGraph.FULLTEXT_INDEX, "q", escaped, "n", fetch))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    seen++;
                    Node node = (Node) row.get("node");
                    if (out.size() < n && belongs.test(node)) {
                        out.put(node, ((Number) row.get("score")).doubleValue());
                    }
                }
            }
            if (out.size() >= n || seen < fetch) return out;
            if (total < 0) total = countChunks();
            if (fetch >= total) return out;
        }
    }

    private long countChunks() {
        try (Result r = tx.execute("MATCH (c:Chunk) RETURN count(c) AS n")) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    /**
     * Makes user text a plain bag of terms for Lucene's query parser: special characters escaped and the
     * text lower-cased so AND/OR/NOT are words, not operators (the analyser lower-cases anyway).
     */
    public static String escapeLucene(String text) {
        StringBuilder b = new StringBuilder(text.length() + 16);
        for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
            if ("\\+-!():^[]\"{}~*?|&/".indexOf(c) >= 0) b.append('\\');
            b.append(Character.isISOControl(c) ? ' ' : c);
        }
        return b.toString();
    }
}
