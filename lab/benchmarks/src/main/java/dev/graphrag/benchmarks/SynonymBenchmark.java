package dev.graphrag.benchmarks;

import dev.graphrag.procedures.EmbeddedNeo4j;

import dev.graphrag.agrag.SynonymSearch;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * AGRAG's synonym search, exact against cells (docs/benchmarks.md#scaling): the entity names and name embeddings of
 * each size's stored AGRAG layer (ScaleBenchmark's stores), searched with every pair compared and with each number of
 * probes; per plan the time on the machine's threads, the edges, and the share of the exact search's edges it keeps.
 * <p>
 * {@code --data DIR --sizes 1,4 [--probes 4,8,16] [--exact-up-to N]}: sizes with more than N entities (default
 * 200,000) skip the exact search and report cells only.
 */
public final class SynonymBenchmark {
    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path stores = args.path("--data");
        if (stores == null) throw new IllegalArgumentException("--data DIR: the stores ScaleBenchmark built");
        int exactUpTo = args.option("--exact-up-to", 200_000);
        StringBuilder report = new StringBuilder("| size | entities | plan | seconds | edges | exact edges kept | their cosine, median (lowest) of those missed | edges the exact search has not |\n|---|---|---|---|---|---|---|---|\n");
        ExecutorService pool = Executors.newFixedThreadPool(SynonymSearch.threads());
        try {
            for (String size : args.string("--sizes", "1,4").split(",")) {
                List<String> names = new ArrayList<>();
                List<float[]> vectors = new ArrayList<>();
                read(stores, Integer.parseInt(size.trim()), names, vectors);
                List<SynonymSearch.Plan> plans = new ArrayList<>();
                if (names.size() <= exactUpTo) plans.add(SynonymSearch.Plan.EXACT);
                for (String p : args.string("--probes", "4,8,16").split(",")) plans.add(SynonymSearch.Plan.cells(Integer.parseInt(p.trim())));
                Map<String, Double> exact = null;
                for (SynonymSearch.Plan plan : plans) {
                    long t = System.nanoTime();
                    List<SynonymSearch.Edge> edges = SynonymSearch.edges(names, vectors, 0.8, 100, plan, pool, SynonymSearch.threads(), () -> false);
                    double s = (System.nanoTime() - t) / 1e9;
                    Map<String, Double> found = new java.util.HashMap<>();
                    for (SynonymSearch.Edge e : edges) found.put(names.get(e.lo()) + "|" + names.get(e.hi()), e.cos());
                    if (plan.exact()) exact = found;
                    String kept = "-", missed = "-", extra = "-";
                    if (exact != null) {
                        List<Double> lost = new ArrayList<>();
                        exact.forEach((k, cos) -> { if (!found.containsKey(k)) lost.add(cos); });
                        lost.sort(null);
                        kept = String.format(Locale.ROOT, "%.4f", exact.isEmpty() ? 1.0 : 1 - (double) lost.size() / exact.size());
                        missed = lost.isEmpty() ? "-" : String.format(Locale.ROOT, "%.3f (%.3f)", lost.get(lost.size() / 2), lost.get(0));
                        extra = String.valueOf(found.size() - (exact.size() - lost.size()));
                    }
                    String row = String.format(Locale.ROOT, "| %sx | %d | %s | %.1f | %d | %s | %s | %s |%n", size.trim(), names.size(), plan.recorded(), s, edges.size(),
                            kept, missed, extra);
                    System.out.print(row);
                    report.append(row);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println();
        System.out.println(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "synonym-results.md"), report.toString());
    }

    /** The corpus's entities in name order, as agrag.index gives them to the search. */
    static void read(Path stores, int copies, List<String> names, List<float[]> vectors) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(EmbeddedNeo4j.SINGLE_USER);
        settings.put(dev.graphrag.agrag.AgragSettings.WARM_ON_START.name(), "false");
        Path work = Files.createTempDirectory("graphrag-synonyms");
        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, stores.resolve("x" + copies), "127.0.0.1", -1, -1, settings));
        try {
            neo4j.defaultDatabaseService().executeTransactionally("MATCH (e:AgEntity {corpus: $c}) WHERE e.embedding IS NOT NULL RETURN e.name AS name, e.embedding AS v ORDER BY name",
                    Map.of("c", "scale-x" + copies), r -> {
                        r.forEachRemaining(row -> {
                            names.add((String) row.get("name"));
                            vectors.add((float[]) row.get("v"));
                        });
                        return null;
                    });
        } finally {
            neo4j.close();
        }
    }
}
