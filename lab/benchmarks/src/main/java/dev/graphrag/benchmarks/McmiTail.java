package dev.graphrag.benchmarks;

import dev.graphrag.oracle.Scores;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * agrag.mcmi's slow questions on a ScaleBenchmark store: every question timed twice (the second round counts), then
 * the slowest ones with what their subgraphs were (terminals, tree, expansions, pseudo node), and those repeated
 * {@code --repeat} times so that a profiler attached to this JVM sees only them.
 * {@code McmiTail DATA --data DIR --size 1 [--repeat 20] [--budgets 2000,5000] [--config "key: value"]}: with budgets, each
 * agrag.mcmi maxSearchNodes is timed too, and its subgraphs compared with the unbounded search's.
 */
public final class McmiTail {
    private McmiTail() {}

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path data = args.data();
        int m = args.option("--size", 1);
        int repeat = args.option("--repeat", 20);
        String extra = args.string("--config", "");
        List<String> questions = ScaleBenchmark.questions(data);
        String corpus = "scale-x" + m;
        Neo4j neo4j = ScaleBenchmark.open(Files.createTempDirectory("graphrag-mcmi-tail"), args.path("--data").resolve("x" + m));
        try {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            List<String> budgets = new ArrayList<>(List.of("unbounded"));
            if (!args.string("--budgets", "").isEmpty()) budgets.addAll(List.of(args.string("--budgets", "").split(",")));
            List<Object> fullNodes = null;
            for (String budget : budgets) {
                String cfg = (extra.isEmpty() ? "" : ", " + extra) + ", maxSearchNodes: " + (budget.equals("unbounded") ? Integer.MAX_VALUE : Integer.parseInt(budget.trim()));
                String call = "CALL agrag.mcmi($q, {corpus: $corpus" + cfg + "}) YIELD terminals, mcstNodeCount, nodeCount, expansions, usedPseudo,"
                        + " searchedNodes, searchCut, nodes RETURN size(terminals) AS t, mcstNodeCount AS tree, nodeCount AS n, expansions AS x,"
                        + " usedPseudo AS p, searchedNodes AS settled, searchCut AS cut, [x IN nodes | elementId(x)] AS ids";
                record Run(String q, double ms, Map<String, Object> row) {}
                List<Run> runs = new ArrayList<>();
                for (int round = 1; round <= 2; round++) {
                    runs.clear();
                    for (String q : questions) {
                        long s = System.nanoTime();
                        Map<String, Object> row = db.executeTransactionally(call, Map.of("q", q, "corpus", corpus), r -> r.next());
                        runs.add(new Run(q, (System.nanoTime() - s) / 1e6, row));
                    }
                }
                List<Double> ms = runs.stream().map(Run::ms).toList();
                List<Double> settled = runs.stream().map(r -> ((Number) r.row().get("settled")).doubleValue()).toList();
                long cut = runs.stream().filter(r -> Boolean.TRUE.equals(r.row().get("cut"))).count();
                List<Object> ids = runs.stream().map(r -> (Object) new java.util.HashSet<>((List<?>) r.row().get("ids"))).toList();
                if (fullNodes == null) fullNodes = ids;
                int same = 0;
                for (int i = 0; i < ids.size(); i++) if (ids.get(i).equals(fullNodes.get(i))) same++;
                System.out.printf(Locale.ROOT, "%s, %d questions, maxSearchNodes %s: p50 %.1f ms, p95 %.1f ms (%.1fx); nodes settled p50 %.0f, p95 %.0f, max %.0f;"
                                + " %d cut; %d with the unbounded search's subgraph%n", corpus, ms.size(), budget, Scores.percentile(ms, 50), Scores.percentile(ms, 95),
                        Scores.percentile(ms, 95) / Scores.percentile(ms, 50), Scores.percentile(settled, 50), Scores.percentile(settled, 95),
                        settled.stream().mapToDouble(Double::doubleValue).max().orElse(0), cut, same);
                if (!budget.equals("unbounded")) continue;
                List<Run> slow = runs.stream().sorted(Comparator.comparingDouble(Run::ms).reversed()).limit(Math.max(1, runs.size() / 20)).toList();
                for (Run r : slow) {
                    Map<String, Object> row = new java.util.TreeMap<>(r.row());
                    row.remove("ids");
                    System.out.printf(Locale.ROOT, "%8.1f ms %s  %s%n", r.ms(), row, r.q());
                }
                long t = System.nanoTime();
                for (int i = 0; i < repeat; i++) {
                    for (Run r : slow) db.executeTransactionally(call, Map.of("q", r.q(), "corpus", corpus), x -> x.next());
                }
                if (repeat > 0) System.out.printf(Locale.ROOT, "the slowest %d repeated %d times: %.1f ms each on average%n", slow.size(), repeat,
                        (System.nanoTime() - t) / 1e6 / repeat / slow.size());
            }
        } finally {
            neo4j.close();
        }
    }
}
