package dev.graphrag.agrag;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.embed.EmbeddingService;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class SynonymSearchTest {
    /** Runs body with a pool of that many threads, shut down after. */
    static void withPool(int threads, java.util.function.Consumer<ExecutorService> body) {
        ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            body.accept(pool);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Random unit-ish vectors with planted near-duplicates (clusters of up to 6), as entity-name embeddings have. */
    static List<float[]> vectors(Random r, int n, int dim) {
        List<float[]> out = new ArrayList<>();
        float[] base = null;
        for (int i = 0; i < n; i++) {
            float[] v = new float[dim];
            boolean variant = base != null && r.nextInt(3) > 0;
            for (int k = 0; k < dim; k++) v[k] = variant ? base[k] + (float) (r.nextGaussian() * 0.03 * (1 + r.nextInt(8))) : (float) r.nextGaussian();
            if (!variant) base = v;
            out.add(v);
        }
        return out;
    }

    static List<String> names(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(i % 97 == 0 ? "x" + (i % 10) : String.format("entity %05d", (i * 7919) % 100_003));
        return out;
    }

    /** The rule by the book: float cosines of every pair, each end's best maxPerNode, either end keeping the other. */
    static List<String> reference(List<String> names, List<float[]> vectors, double t, int k) {
        int n = names.size();
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (int i = 0; i < n; i++) {
            if (names.get(i).replace(" ", "").length() <= 2) continue;
            List<double[]> list = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                if (j == i || names.get(j).replace(" ", "").length() <= 2) continue;
                double c = EmbeddingService.cosine(vectors.get(i), vectors.get(j));
                if (c > t) list.add(new double[] {j, c});
            }
            int me = i;
            list.sort(Comparator.<double[]>comparingDouble(p -> -p[1]).thenComparing(p -> names.get((int) p[0])));
            for (int r = 0; r < Math.min(k, list.size()); r++) {
                String a = names.get(me), b = names.get((int) list.get(r)[0]);
                out.add(a.compareTo(b) <= 0 ? a + "|" + b : b + "|" + a);
            }
        }
        return new ArrayList<>(out);
    }

    static List<String> found(List<String> names, List<SynonymSearch.Edge> edges) {
        List<String> out = new ArrayList<>();
        for (SynonymSearch.Edge e : edges) out.add(names.get(e.lo()) + "|" + names.get(e.hi()));
        out.sort(null);
        return out;
    }

    @Test
    void equalsTheBruteForceRuleOnRandomGraphs() {
        withPool(3, pool -> {
            for (long seed = 1; seed <= 4; seed++) {
                Random r = new Random(seed);
                int n = 300 + r.nextInt(500);
                List<float[]> v = vectors(r, n, 384);
                List<String> names = names(n);
                for (double t : new double[] {0.8, 0.9}) {
                    for (int k : new int[] {1, 3, 100}) {
                        List<String> want = reference(names, v, t, k);
                        assertEquals(want, found(names, SynonymSearch.edges(names, v, t, k, pool, 3, () -> false)), "seed " + seed + " t " + t + " k " + k);
                        if (k == 100) assertTrue(want.size() > n / 4, "the planted synonyms are found: " + want.size());
                    }
                }
            }
        });
    }

    @Test
    void theEdgesDoNotDependOnTheOrderEntitiesCameIn() {
        withPool(2, pool -> {
            Random r = new Random(42);
            List<float[]> v = vectors(r, 600, 384);
            List<String> names = names(600);
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < 600; i++) order.add(i);
            java.util.Collections.shuffle(order, new Random(7));
            List<String> shuffledNames = order.stream().map(names::get).toList();
            List<float[]> shuffledVectors = order.stream().map(v::get).toList();
            assertEquals(found(names, SynonymSearch.edges(names, v, 0.8, 5, pool, 2, () -> false)),
                    found(shuffledNames, SynonymSearch.edges(shuffledNames, shuffledVectors, 0.8, 5, pool, 2, () -> false)));
        });
    }

    @Test
    void cellsProbedEverywhereEqualTheExactSearch() {
        withPool(3, pool -> {
            for (long seed = 5; seed <= 7; seed++) {
                Random r = new Random(seed);
                int n = 400 + r.nextInt(400);
                List<float[]> v = vectors(r, n, 384);
                List<String> names = names(n);
                for (int k : new int[] {2, 100}) {
                    assertEquals(reference(names, v, 0.8, k), found(names, SynonymSearch.edges(names, v, 0.8, k, SynonymSearch.Plan.cells(100_000), pool, 3,
                            () -> false)), "seed " + seed + " k " + k);
                }
            }
        });
    }

    @Test
    void fewProbesFindMostEdgesOnlyTrueOnesAndTheSameWhateverTheOrder() {
        withPool(2, pool -> {
            Random r = new Random(9);
            int n = 3000;
            List<float[]> v = vectors(r, n, 384);
            List<String> names = names(n);
            java.util.Set<String> exact = new java.util.HashSet<>(reference(names, v, 0.8, 100));
            List<SynonymSearch.Edge> edges = SynonymSearch.edges(names, v, 0.8, 100, SynonymSearch.Plan.cells(1), pool, 2, () -> false);
            List<String> cells = found(names, edges);
            assertTrue(exact.containsAll(cells), "no edge the exact search does not have");
            // one probe of about 219 cells: the planted variants lie in their base's cell
            assertTrue(cells.size() >= 0.9 * exact.size(), cells.size() + " of " + exact.size());
            for (SynonymSearch.Edge e : edges) assertEquals(EmbeddingService.cosine(v.get(e.lo()), v.get(e.hi())), e.cos(), 1e-6);
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < n; i++) order.add(i);
            java.util.Collections.shuffle(order, new Random(3));
            assertEquals(cells, found(order.stream().map(names::get).toList(), SynonymSearch.edges(order.stream().map(names::get).toList(),
                    order.stream().map(v::get).toList(), 0.8, 100, SynonymSearch.Plan.cells(1), pool, 2, () -> false)), "the same edges in any order");
        });
    }

    @Test
    void aCancelledCellSearchStopsWithTheResumeHint() {
        withPool(2, pool -> {
            Random r = new Random(2);
            List<float[]> v = vectors(r, 500, 384);
            RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                    () -> SynonymSearch.edges(names(500), v, 0.8, 10, SynonymSearch.Plan.cells(1), pool, 2, () -> true));
            assertTrue(e.getMessage().contains("terminated while searching synonyms"), e.getMessage());
        });
    }
}
