package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.oracle.AgragExtractionPolicy;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.Latency;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds at a real model's pace (docs/benchmarks.md#builds-at-a-models-pace): each layer built on the stand-in with
 * the oracle's index-time policies answering after a fixed delay per call, the stand-in serving at most C requests at
 * once and the plugin's graphrag.llm.maxConcurrent set to C, against the bound {@code calls x delay / C + own time}
 * (the same build with no delay: the plugin's work, the embedding and the stand-in's). One embedded server per C, one
 * corpus per build, so every build is a first build.
 * <p>
 * {@code DATA [--documents 120] [--latency-ms 500] [--concurrency 1,4,16] [--layers "agrag;remind;hgmem"]}: 2Wiki at
 * 1x, its first N documents.
 */
public final class PaceBench {
    static final long SEED = 20261202L;

    private PaceBench() {}

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        int documents = args.option("--documents", 120);
        long latencyMs = args.option("--latency-ms", 500);
        List<Integer> concurrencies = new ArrayList<>();
        for (String c : args.string("--concurrency", "1,4,16").split(",")) concurrencies.add(Integer.parseInt(c.trim()));
        List<String> layers = List.of(args.string("--layers", "agrag;remind;hgmem").split(";"));
        List<Map<String, Object>> docs = ScaledCorpus.of(CorpusFiles.read(args.data().resolve("2wikimultihopqa/2wikimultihopqa_corpus.json")), 1, SEED);
        docs = new ArrayList<>(docs.subList(0, Math.min(documents, docs.size())));
        StringBuilder table = new StringBuilder("| layer | C | LLM calls | own time s | bound s | measured s | measured / bound | most in flight |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
        Path work = Files.createTempDirectory("graphrag-pace");
        for (int c : concurrencies) {
            Map<String, String> settings = new HashMap<>(dev.graphrag.procedures.EmbeddedNeo4j.SINGLE_USER);
            settings.put("graphrag.llm.maxConcurrent", String.valueOf(c));
            // a build's workers may wait for a permit longer than the default 10 s at C = 1; the bound is what is measured
            settings.put("graphrag.llm.maxQueueMs", "600000");
            settings.put(dev.graphrag.agrag.AgragSettings.WARM_ON_START.name(), "false");
            Neo4j neo4j = dev.graphrag.procedures.EmbeddedNeo4j.start(new dev.graphrag.procedures.EmbeddedNeo4j.Options(
                    Files.createDirectories(work.resolve("server-" + c)), work.resolve("store-" + c), "127.0.0.1", -1, -1, settings));
            try (EvalLlmServer llm = ScaleLlmLayers.server()) {
                llm.on(AgragExtractionPolicy.STEP, new AgragExtractionPolicy());
                GraphDatabaseService db = neo4j.defaultDatabaseService();
                for (String layer : layers) {
                    // own time: the same build with no delay and no capacity limit beyond the plugin's permits
                    llm.latency(Latency.NONE);
                    Benchmark.ingest(db, "pace-own-" + layer, docs);
                    long t0 = System.nanoTime();
                    build(db, llm, layer, "pace-own-" + layer);
                    double own = (System.nanoTime() - t0) / 1e9;
                    llm.latency(Latency.fixed(latencyMs).withConcurrency(c));
                    Benchmark.ingest(db, "pace-" + layer, docs);
                    llm.clearLog();
                    t0 = System.nanoTime();
                    build(db, llm, layer, "pace-" + layer);
                    double measured = (System.nanoTime() - t0) / 1e9;
                    long calls = llm.log().size();
                    double bound = calls * latencyMs / 1000.0 / c + own;
                    String row = String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f | %.1f | %.2f | %d |%n", layer, c, calls, own, bound, measured, measured / bound,
                            llm.maxInFlight());
                    System.out.print(row);
                    table.append(row);
                }
            } finally {
                neo4j.close();
            }
        }
        System.out.println();
        System.out.println(table);
        Files.writeString(Path.of("target", "pace-results.md"), table);
    }

    static void build(GraphDatabaseService db, EvalLlmServer llm, String layer, String corpus) {
        String query = switch (layer) {
            case "agrag" -> "CALL agrag.index($cfg) YIELD chunks RETURN chunks";
            case "remind" -> "CALL remind.index($cfg) YIELD newChunks RETURN newChunks";
            case "hgmem" -> "CALL hgmem.index($cfg) YIELD llmCalls RETURN llmCalls";
            case "raga" -> "CALL raga.ingest([], $cfg) YIELD kind RETURN kind";
            default -> throw new IllegalArgumentException("no layer '" + layer + "'; the layers are agrag, remind, hgmem, raga");
        };
        Map<String, Object> cfg = switch (layer) {
            case "agrag" -> llm.config(corpus, Map.of("relations", "llm"));
            case "raga" -> llm.config(corpus, Map.of("bootstrapSchema", false));
            default -> llm.config(corpus, Map.of());
        };
        db.executeTransactionally(query, Map.of("cfg", cfg), r -> {
            while (r.hasNext()) r.next();
            return null;
        });
    }
}
