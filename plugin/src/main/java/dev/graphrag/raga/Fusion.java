package dev.graphrag.raga;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * RAGA's fusion retrieval (paper §3.6, Eq. 1-3), over a graph given as functions: anchors from the vector stream (α), a BFS
 * with decay over the KG (σ), the chunks' graph score (s_kg) through their mentions, and weighted reciprocal rank
 * fusion of the two rankings. Knows nothing of Neo4j; chunks and entities are ids.
 */
public final class Fusion {
    /** A chunk with its (docId, index) order, for ties. */
    public record Chunk(String id, String docId, long index) {}

    public record Settings(int anchorChunks, int pageAnchors, int hops, double decay, double semanticFilter, int maxExpanded, int rrfK, double wVec, double wKg, int topK) {}

    /** A fused chunk: its RRF score and the 1-based ranks in each stream (0 = absent), with the stream scores. */
    public record Hit(Chunk chunk, double score, int vecRank, int kgRank, double vecScore, double kgScore) {}

    /**
     * What the graph side reads. {@code pages}: an entity's pages, the chunks of the documents whose title names it;
     * {@code chunkScore}: a chunk's s_vec against the question.
     */
    public record Graph(Function<String, List<String>> mentionedIn, Function<String, List<String>> neighbours, Function<String, List<Chunk>> mentioning,
                        ToDoubleFunction<String> querySimilarity, Function<String, List<Chunk>> pages, ToDoubleFunction<Chunk> chunkScore) {
        /** A graph without entity pages. */
        public Graph(Function<String, List<String>> mentionedIn, Function<String, List<String>> neighbours, Function<String, List<Chunk>> mentioning,
                     ToDoubleFunction<String> querySimilarity) {
            this(mentionedIn, neighbours, mentioning, querySimilarity, e -> List.of(), c -> 0);
        }
    }

    private Fusion() {}

    /** Eq. 3: 1 / (1 + ||q - x||) for unit vectors, from their cosine. */
    public static double vectorScore(double cos) {
        return 1 / (1 + Math.sqrt(Math.max(0, 2 - 2 * cos)));
    }

    /** Eq. 2: the confidence-weighted mean of member vectors, L2-normalised. */
    public static float[] clusterVector(List<float[]> vectors, List<Double> weights) {
        float[] m = new float[vectors.get(0).length];
        for (int i = 0; i < vectors.size(); i++) for (int d = 0; d < m.length; d++) m[d] += (float) (weights.get(i) * vectors.get(i)[d] / vectors.size());
        double n = 0;
        for (float x : m) n += x * x;
        n = Math.sqrt(n);
        for (int d = 0; d < m.length; d++) m[d] = (float) (m[d] / n);
        return m;
    }

    /**
     * s_kg per chunk: α(e) = the best s_vec of the top anchorChunks vector chunks mentioning e (and {@code entityAnchors}'
     * own scores); σ(y) = max over anchors a of α(a)·decay^dist(a, y) within {@code hops}; beyond the anchors y is kept
     * only if its cosine with the question reaches semanticFilter (when positive); a chunk scores the sum of σ of the
     * entities it mentions.
     *
     * <p>Entity pages come first: each entity the top {@code pageAnchors} vector chunks mention leads to its pages (the
     * chunks of documents titled by its name or an alias), scored s_vec(anchor)·s_vec(page); the anchors themselves are
     * not their own pages. A multi-hop question's next passage is often the page of an entity the best passage names,
     * and summing σ over mentions cannot tell that page from any other chunk naming the entity (docs/raga.md).
     * Returned in kg-rank order: pages by score, then the other chunks by s_kg, ties in document order.
     */
    public static LinkedHashMap<Chunk, Double> graphScores(List<Map.Entry<Chunk, Double>> vectorRanked, Map<String, Double> entityAnchors, Graph g, Settings s) {
        Map<String, Double> alpha = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(s.anchorChunks(), vectorRanked.size()); i++) {
            Map.Entry<Chunk, Double> c = vectorRanked.get(i);
            for (String e : g.mentionedIn().apply(c.getKey().id())) alpha.merge(e, c.getValue(), Math::max);
        }
        entityAnchors.forEach((e, v) -> alpha.merge(e, v, Math::max));
        Map<String, Double> sigma = new LinkedHashMap<>();
        for (Map.Entry<String, Double> a : alpha.entrySet()) {
            Map<String, Integer> dist = new HashMap<>();
            Deque<String> queue = new ArrayDeque<>(List.of(a.getKey()));
            dist.put(a.getKey(), 0);
            while (!queue.isEmpty()) {
                String x = queue.poll();
                int d = dist.get(x);
                double v = a.getValue() * Math.pow(s.decay(), d);
                boolean keep = d == 0 || s.semanticFilter() <= 0 || g.querySimilarity().applyAsDouble(x) >= s.semanticFilter();
                if (keep) sigma.merge(x, v, Math::max);
                if (d == s.hops() || sigma.size() >= s.maxExpanded()) continue;
                for (String y : g.neighbours().apply(x)) {
                    if (!dist.containsKey(y)) {
                        dist.put(y, d + 1);
                        queue.add(y);
                    }
                }
            }
        }
        Map<Chunk, Double> skg = new HashMap<>();
        sigma.forEach((e, v) -> {
            for (Chunk c : g.mentioning().apply(e)) skg.merge(c, v, Double::sum);
        });
        LinkedHashMap<Chunk, Double> out = new LinkedHashMap<>();
        for (Map.Entry<Chunk, Double> e : byScore(pages(vectorRanked, g, s.pageAnchors()))) out.put(e.getKey(), e.getValue());
        for (Map.Entry<Chunk, Double> e : byScore(skg)) out.putIfAbsent(e.getKey(), e.getValue());
        return out;
    }

    /** The pages of the entities the top {@code anchors} vector chunks mention, with s_vec(anchor)·s_vec(page), the best per page. */
    static Map<Chunk, Double> pages(List<Map.Entry<Chunk, Double>> vectorRanked, Graph g, int anchors) {
        int n = Math.min(anchors, vectorRanked.size());
        Set<String> anchorIds = new HashSet<>();
        for (int i = 0; i < n; i++) anchorIds.add(vectorRanked.get(i).getKey().id());
        Map<Chunk, Double> out = new HashMap<>(), pageScore = new HashMap<>(); // a page reached twice is scored once
        for (int i = 0; i < n; i++) {
            double a = vectorRanked.get(i).getValue();
            for (String e : g.mentionedIn().apply(vectorRanked.get(i).getKey().id())) {
                for (Chunk p : g.pages().apply(e)) {
                    if (!anchorIds.contains(p.id())) out.merge(p, a * pageScore.computeIfAbsent(p, g.chunkScore()::applyAsDouble), Math::max);
                }
            }
        }
        return out;
    }

    /** Positive scores, highest first, ties in document order. */
    private static List<Map.Entry<Chunk, Double>> byScore(Map<Chunk, Double> scores) {
        List<Map.Entry<Chunk, Double>> sorted = new ArrayList<>(scores.entrySet());
        sorted.removeIf(e -> e.getValue() <= 0);
        sorted.sort(Comparator.comparingDouble((Map.Entry<Chunk, Double> e) -> -e.getValue()).thenComparing(e -> e.getKey().docId())
                .thenComparingLong(e -> e.getKey().index()));
        return sorted;
    }

    /**
     * RRF(x) = Σ w_m / (k + rank_m(x)); ties: the better best single-stream rank, then the better vector rank (absent
     * last), then document order; zero scores dropped; the first topK.
     */
    public static List<Hit> fuse(List<Map.Entry<Chunk, Double>> vectorRanked, LinkedHashMap<Chunk, Double> kgRanked, Settings s) {
        Map<Chunk, int[]> ranks = new LinkedHashMap<>();
        Map<Chunk, double[]> scores = new HashMap<>();
        for (int i = 0; i < vectorRanked.size(); i++) {
            ranks.computeIfAbsent(vectorRanked.get(i).getKey(), k -> new int[2])[0] = i + 1;
            scores.computeIfAbsent(vectorRanked.get(i).getKey(), k -> new double[2])[0] = vectorRanked.get(i).getValue();
        }
        int r = 0;
        for (Map.Entry<Chunk, Double> e : kgRanked.entrySet()) {
            ranks.computeIfAbsent(e.getKey(), k -> new int[2])[1] = ++r;
            scores.computeIfAbsent(e.getKey(), k -> new double[2])[1] = e.getValue();
        }
        List<Hit> hits = new ArrayList<>();
        ranks.forEach((c, rk) -> {
            double sc = (rk[0] > 0 ? s.wVec() / (s.rrfK() + rk[0]) : 0) + (rk[1] > 0 ? s.wKg() / (s.rrfK() + rk[1]) : 0);
            if (sc > 0) hits.add(new Hit(c, sc, rk[0], rk[1], scores.get(c)[0], scores.get(c)[1]));
        });
        hits.sort(Comparator.comparingDouble((Hit h) -> -h.score()).thenComparingInt(h -> best(h.vecRank(), h.kgRank()))
                .thenComparingInt(h -> h.vecRank() == 0 ? Integer.MAX_VALUE : h.vecRank()).thenComparing(h -> h.chunk().docId())
                .thenComparingLong(h -> h.chunk().index()));
        return hits.subList(0, Math.min(s.topK(), hits.size()));
    }

    private static int best(int a, int b) {
        return Math.min(a == 0 ? Integer.MAX_VALUE : a, b == 0 ? Integer.MAX_VALUE : b);
    }
}
