package dev.graphrag.benchmarks;

import dev.graphrag.procedures.EmbeddedNeo4j;

import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.oracle.HgmemPolicies;
import dev.graphrag.hgmem.BaseGraphExtraction;
import dev.graphrag.hgmem.HgmemIndexer;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * What hgmem.index's write phase will embed for a corpus whose X1 extractions are stored, and what that costs on this
 * machine, without building the layer (docs/benchmarks.md#scaling). On 2 cores the embedding is nearly all of the
 * build (89 % of a profiled 1x build), and a 4x build does not fit in one working session, so its cost is projected:
 * every entity's and relation's text as the build makes it (descriptions joined, or the stand-in's X2 summary where
 * they reach {@code summaryMaxTokens}), its length in the model's tokens, and the measured time to embed a seeded
 * sample of those texts the way the build does (one length-sorted pass), scaled to all of them. A projection, not a build: it
 * leaves out X1, X2's LLM time and the writes.
 * <p>
 * {@code --data DIR --sizes 1,4 [--sample 2000] [--summary-max-tokens 2000]}: the stores ScaleBenchmark built, each
 * with hgmem.index's extraction done (a build stopped in its write phase leaves it).
 */
public final class HgmemBuildCost {
    /** One corpus: counts, tokens as the model reads them (cut at its maximum), and the sampled embedding time. */
    record Cost(int chunks, int extracted, List<String> entityTexts, List<String> relationTexts, int summaries, long entityTokens, long relationTokens,
                double entitySecondsPerText, double relationSecondsPerText) {
        int entities() {
            return entityTexts.size();
        }

        int relations() {
            return relationTexts.size();
        }

        double projectedSeconds() {
            return entities() * entitySecondsPerText + relations() * relationSecondsPerText;
        }
    }

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path stores = args.path("--data");
        if (stores == null) throw new IllegalArgumentException("--data DIR: the stores ScaleBenchmark built");
        int sample = args.option("--sample", 2000);
        int summaryMaxTokens = args.option("--summary-max-tokens", 2000);
        StringBuilder report = new StringBuilder("| size | chunks (extracted) | entities | relations | X2 summaries | model tokens: entities | relations "
                + "| ms per text, sampled: entity | relation | projected embedding s |\n|---|---|---|---|---|---|---|---|---|---|\n");
        Map<Integer, Cost> costs = new LinkedHashMap<>();
        for (String s : args.string("--sizes", "1,4").split(",")) {
            int size = Integer.parseInt(s.trim());
            Path work = Files.createTempDirectory("graphrag-hgmem-cost");
            Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, stores.resolve("x" + size), "127.0.0.1", -1, -1, EmbeddedNeo4j.SINGLE_USER));
            try (EmbeddingModel model = EmbeddingModel.load(Benchmark.serverModelSpec(neo4j.defaultDatabaseService()), m -> {})) {
                Cost c = measure(neo4j.defaultDatabaseService(), "scale-x" + size, new EmbeddingService(model, 0), summaryMaxTokens, sample);
                costs.put(size, c);
                String row = String.format(Locale.ROOT, "| %dx | %d (%d) | %d | %d | %d | %d | %d | %.1f | %.1f | %.0f |%n", size, c.chunks(), c.extracted(),
                        c.entities(), c.relations(), c.summaries(), c.entityTokens(), c.relationTokens(), 1000 * c.entitySecondsPerText(),
                        1000 * c.relationSecondsPerText(), c.projectedSeconds());
                System.out.print(row);
                report.append(row);
            } finally {
                neo4j.close();
            }
        }
        List<Integer> sizes = List.copyOf(costs.keySet());
        for (int i = 1; i < sizes.size(); i++) {
            Cost a = costs.get(sizes.get(i - 1)), b = costs.get(sizes.get(i));
            double chunks = Math.log((double) b.chunks() / a.chunks());
            report.append(String.format(Locale.ROOT, "%n%dx to %dx: exponent of the texts %.2f, of their model tokens %.2f, of the projected embedding time %.2f%n",
                    sizes.get(i - 1), sizes.get(i), Math.log((double) (b.entities() + b.relations()) / (a.entities() + a.relations())) / chunks,
                    Math.log((double) (b.entityTokens() + b.relationTokens()) / (a.entityTokens() + a.relationTokens())) / chunks,
                    Math.log(b.projectedSeconds() / a.projectedSeconds()) / chunks));
        }
        System.out.println();
        System.out.println(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "hgmem-build-cost.md"), report.toString());
    }

    /** The write phase's texts for {@code corpus} from its stored extractions, and {@code sample} of each kind embedded and timed. */
    static Cost measure(GraphDatabaseService db, String corpus, EmbeddingService embeddings, int summaryMaxTokens, int sample) {
        Map<String, BaseGraphExtraction.Extraction> byChunk = new LinkedHashMap<>();
        int chunks = 0;
        try (Transaction tx = db.beginTx()) {
            for (LexicalGraph.ChunkRow c : LexicalGraph.chunks(tx, corpus, false)) {
                chunks++;
                Object stored = tx.getNodeByElementId(c.elementId()).getProperty(HgmemIndexer.EXTRACTIONS.resultProperty(), null);
                if (stored != null) byChunk.put(c.id(), HgmemIndexer.EXTRACTIONS.decode().apply(stored));
            }
        }
        BaseGraphExtraction.Merged merged = BaseGraphExtraction.merge(byChunk);
        int[] summaries = {0};
        List<String> entities = new ArrayList<>(), relations = new ArrayList<>();
        for (BaseGraphExtraction.MergedEntity e : merged.entities().values()) {
            entities.add(HgmemIndexer.entityText(e.name(), description(e.descriptions(), embeddings, summaryMaxTokens, summaries)));
        }
        for (BaseGraphExtraction.MergedRelation r : merged.relations().values()) {
            relations.add(HgmemIndexer.relationText(r, description(r.descriptions(), embeddings, summaryMaxTokens, summaries)));
        }
        return new Cost(chunks, byChunk.size(), entities, relations, summaries[0], modelTokens(entities, embeddings),
                modelTokens(relations, embeddings), secondsPerText(entities, embeddings, sample), secondsPerText(relations, embeddings, sample));
    }

    /** As the build describes a record: the joined descriptions, or (past the budget) X2's reply, here the stand-in's. */
    private static String description(List<String> descriptions, EmbeddingService embeddings, int summaryMaxTokens, int[] summaries) {
        String joined = String.join(BaseGraphExtraction.SEP, descriptions);
        if (embeddings.tokenizer().tokenize(joined).size() < summaryMaxTokens) return joined;
        summaries[0]++;
        return HgmemPolicies.summary(descriptions);
    }

    /** Tokens the model reads: each text's, with its two special tokens, cut at the model's maximum. */
    private static long modelTokens(List<String> texts, EmbeddingService embeddings) {
        long n = 0;
        for (String t : texts) n += Math.min(embeddings.maxLength(), embeddings.tokenizer().tokenize(t).size() + 2);
        return n;
    }

    /** Seconds per text over a seeded sample, embedded in one length-sorted pass as the build does (since 742d701), after a warm-up. */
    private static double secondsPerText(List<String> texts, EmbeddingService embeddings, int sample) {
        if (texts.isEmpty() || sample <= 0) return 0;
        List<String> shuffled = new ArrayList<>(texts);
        Collections.shuffle(shuffled, new Random(20261127));
        List<String> timed = shuffled.subList(0, Math.min(sample, shuffled.size()));
        embeddings.embedAll(timed.subList(0, Math.min(32, timed.size())), false);
        long t = System.nanoTime();
        embeddings.embedAll(timed, false);
        return (System.nanoTime() - t) / 1e9 / timed.size();
    }

    private HgmemBuildCost() {}
}
