package dev.graphrag.demo;

import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.demo.eval.EvalCorpus;
import dev.graphrag.demo.eval.RuleExtractor;
import dev.graphrag.demo.eval.ScoredQuestion;
import dev.graphrag.raga.Fusion;
import dev.graphrag.raga.NameKey;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An in-memory probe of a RAGA graph stream that was measured and not shipped (docs/benchmarks.md, "A bridge stream"):
 * the chunks sharing a non-hub entity with the best vector chunk, ranked by cosine with the question's vector plus b
 * times that chunk's, after the entity pages, fused with vector by {@link Fusion#fuse}. No server: one chunk per
 * passage, the construction agent's entities ({@link RuleExtractor}), a page per title key ({@link NameKey}), the
 * default embedder. Prints R@2/R@5 of vector, of the shipped stream's copy (entity pages, anchor mentions) and of the
 * bridge, on MuSiQue's tuning half (a grid), its report half and HotpotQA (the middle setting, df 10 and b 1).
 * Usage: RagaBridgeProbe DATA_DIR.
 */
public final class RagaBridgeProbe {
    private static final Fusion.Settings SHIPPED = new Fusion.Settings(3, 1, 0, 0.5, 0, 10_000, 60, 1, 1, 10);
    private static final Fusion.Settings PAGES_ONLY = new Fusion.Settings(0, 1, 0, 0.5, 0, 10_000, 60, 1, 1, 10);

    private final List<Fusion.Chunk> chunks = new ArrayList<>();
    private final float[][] vectors;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, List<String>> entitiesOf = new HashMap<>();
    private final Map<String, List<Fusion.Chunk>> mentioning = new HashMap<>(), pagesByKey = new HashMap<>();

    private RagaBridgeProbe(EvalCorpus corpus, EmbeddingService embedder) {
        List<String> texts = new ArrayList<>();
        for (Map<String, Object> d : corpus.documents()) {
            String id = (String) d.get("id"), title = corpus.title(id), text = corpus.text(id);
            Fusion.Chunk c = new Fusion.Chunk(id, id, 0);
            index.put(id, chunks.size());
            chunks.add(c);
            texts.add(text);
            Set<String> keys = new LinkedHashSet<>();
            boolean named = title != null && text.toLowerCase(Locale.ROOT).contains(title.toLowerCase(Locale.ROOT));
            for (String e : RuleExtractor.entities(named ? title : null, text)) keys.add(NameKey.of(e));
            entitiesOf.put(id, new ArrayList<>(keys));
            for (String k : keys) mentioning.computeIfAbsent(k, x -> new ArrayList<>()).add(c);
            if (title != null) pagesByKey.computeIfAbsent(NameKey.of(title), x -> new ArrayList<>()).add(c);
        }
        vectors = embedder.embedAll(texts, false);
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        try (EmbeddingService embedder = new EmbeddingService(EmbeddingModel.load(ModelSpec.defaults(), s -> {}), 0)) {
            EvalCorpus musique = EvalCorpus.of(CorpusFiles.read(data.resolve("musique/musique_train_corpus.json")), Benchmark.SEED);
            RagaBridgeProbe m = new RagaBridgeProbe(musique, embedder);
            List<ScoredQuestion> mq = ScoredQuestion.musique(data.resolve("musique/musique_train.json"), musique);
            m.report("MuSiQue tuning half", mq, ScoredQuestion::tuning, embedder, true);
            m.report("MuSiQue report half", mq, q -> !q.tuning(), embedder, false);
            EvalCorpus hotpot = EvalCorpus.of(CorpusFiles.read(data.resolve("hotpotqa/hotpotqa_train_corpus.json")), Benchmark.SEED);
            new RagaBridgeProbe(hotpot, embedder).report("HotpotQA", ScoredQuestion.hotpot(data.resolve("hotpotqa/hotpotqa_train.json"), hotpot), q -> true,
                    embedder, false);
        }
    }

    private void report(String set, List<ScoredQuestion> all, Predicate<ScoredQuestion> in, EmbeddingService embedder, boolean grid) {
        List<ScoredQuestion> qs = all.stream().filter(in).toList();
        float[][] q = new float[qs.size()][];
        for (int i = 0; i < qs.size(); i++) q[i] = embedder.embed(qs.get(i).text()); // one at a time, as raga.retrieve embeds a question
        List<List<Map.Entry<Fusion.Chunk, Double>>> vector = new ArrayList<>();
        int goldFirst = 0;
        for (int i = 0; i < qs.size(); i++) {
            vector.add(vectorRanked(q[i]));
            if (qs.get(i).goldIds().contains(vector.get(i).get(0).getKey().id())) goldFirst++;
        }
        System.out.printf("%n%s: %d questions; the best vector chunk is gold for %d%n", set, qs.size(), goldFirst);
        print("vector", qs, i -> vector.get(i).stream().map(Map.Entry::getKey).toList());
        print("shipped stream's copy (entity pages, anchor mentions)", qs, i -> fused(vector.get(i), Fusion.graphScores(vector.get(i), Map.of(), graph(q[i]), SHIPPED)));
        List<double[]> settings = new ArrayList<>();
        if (grid) {
            for (double df : new double[] {5, 10, 20, 50, Integer.MAX_VALUE}) for (double b : new double[] {0.5, 1, 2}) settings.add(new double[] {df, b});
            for (double b : new double[] {0.5, 1}) settings.add(new double[] {-1, b});
        } else {
            settings.add(new double[] {10, 1});
        }
        for (double[] s : settings) {
            int df = (int) s[0];
            String label = df < 0 ? String.format("bridged query over every chunk, b %.1f", s[1])
                    : String.format("bridge, df <= %s, b %.1f", df == Integer.MAX_VALUE ? "any" : df, s[1]);
            print(label, qs, i -> fused(vector.get(i), bridge(q[i], vector.get(i), df, s[1])));
        }
    }

    private interface Ranking { List<Fusion.Chunk> of(int question); }

    private static void print(String label, List<ScoredQuestion> qs, Ranking ranking) {
        double r2 = 0, r5 = 0;
        for (int i = 0; i < qs.size(); i++) {
            List<Fusion.Chunk> top = ranking.of(i);
            Set<String> gold = qs.get(i).goldIds();
            for (int k = 0; k < Math.min(5, top.size()); k++) {
                if (!gold.contains(top.get(k).id())) continue;
                if (k < 2) r2 += 1.0 / gold.size();
                r5 += 1.0 / gold.size();
            }
        }
        System.out.printf("  %-56s R@2 %5.1f  R@5 %5.1f%n", label, 100 * r2 / qs.size(), 100 * r5 / qs.size());
    }

    private List<Map.Entry<Fusion.Chunk, Double>> vectorRanked(float[] q) {
        List<Map.Entry<Fusion.Chunk, Double>> out = new ArrayList<>();
        for (int i = 0; i < chunks.size(); i++) out.add(Map.entry(chunks.get(i), Fusion.vectorScore(EmbeddingService.cosine(q, vectors[i]))));
        out.sort(Map.Entry.<Fusion.Chunk, Double>comparingByValue().reversed());
        return out.subList(0, 10);
    }

    private Fusion.Graph graph(float[] q) {
        return new Fusion.Graph(entitiesOf::get, e -> List.of(), e -> mentioning.getOrDefault(e, List.of()), e -> 0, e -> pagesByKey.getOrDefault(e, List.of()),
                c -> Fusion.vectorScore(EmbeddingService.cosine(q, vectors[index.get(c.id())])));
    }

    /** Entity pages first, then the chunks sharing a non-hub entity with the best vector chunk (df < 0: every chunk), by their cosine with q + b·that chunk. */
    private LinkedHashMap<Fusion.Chunk, Double> bridge(float[] q, List<Map.Entry<Fusion.Chunk, Double>> vector, int df, double b) {
        LinkedHashMap<Fusion.Chunk, Double> out = Fusion.graphScores(vector, Map.of(), graph(q), PAGES_ONLY);
        Fusion.Chunk best = vector.get(0).getKey();
        Set<Fusion.Chunk> pool = new LinkedHashSet<>(out.keySet());
        if (df < 0) pool.addAll(chunks);
        else {
            pool.add(best);
            for (String e : entitiesOf.get(best.id())) if (mentioning.get(e).size() <= df) pool.addAll(mentioning.get(e));
        }
        float[] bridged = bridged(q, vectors[index.get(best.id())], b);
        Map<Fusion.Chunk, Double> score = new HashMap<>();
        for (Fusion.Chunk c : pool) score.put(c, EmbeddingService.cosine(bridged, vectors[index.get(c.id())]));
        score.entrySet().stream().sorted(Map.Entry.<Fusion.Chunk, Double>comparingByValue().reversed().thenComparing(e -> e.getKey().id())).limit(50)
                .forEach(e -> out.putIfAbsent(e.getKey(), e.getValue()));
        return out;
    }

    private static float[] bridged(float[] q, float[] chunk, double b) {
        float[] m = new float[q.length];
        for (int i = 0; i < q.length; i++) m[i] = (float) (q[i] + b * chunk[i]);
        return m;
    }

    private static List<Fusion.Chunk> fused(List<Map.Entry<Fusion.Chunk, Double>> vector, LinkedHashMap<Fusion.Chunk, Double> graph) {
        return Fusion.fuse(vector, graph, SHIPPED).stream().map(Fusion.Hit::chunk).toList();
    }
}
