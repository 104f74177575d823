package dev.graphrag.benchmarks;

import dev.graphrag.procedures.TestServer;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scaling report's arithmetic: growth exponents between consecutive sizes and from the first to the last. */
@LineIndependent
class ScaleBenchmarkTest {
    static ScaleBenchmark.Size size(int copies, long chunks, double indexS, long heap, double p50) {
        Map<String, double[]> latency = new LinkedHashMap<>();
        latency.put("agrag.mcmi", new double[] {p50, 2 * p50});
        return new ScaleBenchmark.Size(copies, chunks, null, null, null, indexS, null, heap, new ScaleBenchmark.Heap(1, heap, 0), 2.5, latency);
    }

    static ScaleBenchmark.Size withLayers(ScaleBenchmark.Size s, long remindChunks, double remindS, long ragaChunks, double ragaS) {
        Map<String, ScaleLlmLayers.Build> layers = new LinkedHashMap<>();
        layers.put("remind.index", ScaleLlmLayers.Build.NONE.plus(remindChunks, remindS, 0, 3 * remindChunks, 0, 0));
        layers.put("hgmem.index", ScaleLlmLayers.Build.NONE);
        layers.put("raga.ingest", ScaleLlmLayers.Build.NONE.plus(ragaChunks, ragaS, 0, 4 * ragaChunks, 0, 0));
        return new ScaleBenchmark.Size(s.copies(), s.chunks(), null, null, null, s.indexS(), null, s.heapBytes(), s.heap(), 2.5, s.latency(), layers);
    }

    @Test
    void aLayerBuildHasAnExponentOnlyOnceItCoversEachCorpus() {
        // remind: 0.1 s a chunk at 1x, 0.2 at 4x (whole builds 100 s and 800 s: exponent 1.5); raga at 4x over half the corpus so far
        List<ScaleBenchmark.Size> sizes = List.of(withLayers(size(1, 1000, 10, 100, 5), 1000, 100, 1000, 50),
                withLayers(size(4, 4000, 40, 200, 5), 4000, 800, 2000, 100));
        String table = ScaleBenchmark.exponents(sizes);
        assertTrue(table.contains("| remind.index build time | 1.50 |"), table);
        assertTrue(table.contains("| raga.ingest build time | - |"), table);
        assertTrue(table.contains("| hgmem.index build time | - |"), table);
    }

    @Test
    void exponentsAreLogRatiosOverTheChunkRatio() {
        // index time linear, heap growing as the square root, latency constant from 1x to 4x and doubling from 4x to 16x
        List<ScaleBenchmark.Size> sizes = List.of(size(1, 1000, 10, 100, 5), size(4, 4000, 40, 200, 5), size(16, 16000, 160, 400, 10));
        String table = ScaleBenchmark.exponents(sizes);
        assertTrue(table.contains("| exponent | 1x to 4x | 4x to 16x | 1x to 16x |"), table);
        assertTrue(table.contains("| agrag.index time | 1.00 | 1.00 | 1.00 |"), table);
        assertTrue(table.contains("| heap, all | 0.50 | 0.50 | 0.50 |"), table);
        assertTrue(table.contains("| agrag.mcmi p50 | 0.00 | 0.50 | 0.25 |"), table);
        String results = ScaleBenchmark.table(sizes);
        assertTrue(results.contains("| agrag.mcmi | 5.0 / 10.0 | 5.0 / 10.0 | 10.0 / 20.0 |"), results);
        assertTrue(results.contains("| 16x | 16000 | - | - | - | 160.0 | - | 0 | 0 | 0 | 0 | 2.5 |"), results);
    }

    @Test
    void theLlmLayersAreBuiltOnceTheirFiguresKeptInTheStoreAndTheirRetrievalTimed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path store) throws Exception {
        String corpus = "scale-llm";
        List<Map<String, Object>> docs = List.of(
                Map.of("id", "d1", "title", "Tars Tarkas", "text", "Tars Tarkas was a Thark warrior. He fought beside John Carter in Helium."),
                Map.of("id", "d2", "title", "Dejah Thoris", "text", "Dejah Thoris was the princess of Helium. She married John Carter of Virginia."),
                Map.of("id", "d3", "title", "Zodanga", "text", "Zodanga was a city at war with Helium. Its navy was led by Than Kosis."));
        long chunks = Benchmark.ingest(TestServer.db(), corpus, docs);
        java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        try (dev.graphrag.oracle.EvalLlmServer llm = ScaleLlmLayers.server()) {
            // --llm-minutes reached while hgmem.index runs (each X1 call slowed past the limit): it is stopped, its seconds and
            // calls kept, no chunk counted; the next run completes it and counts the corpus's chunks
            java.util.concurrent.atomic.AtomicInteger slowed = new java.util.concurrent.atomic.AtomicInteger();
            llm.on(dev.graphrag.oracle.HgmemPolicies.EXTRACT, r -> {
                slowed.incrementAndGet();
                try {
                    Thread.sleep(1500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return dev.graphrag.oracle.HgmemPolicies.extract(r);
            });
            ScaleLlmLayers.Build stopped = ScaleLlmLayers.build(TestServer.db(), store, corpus, llm, quiet, java.util.Set.of("hgmem.index"),
                    System.nanoTime() + 300_000_000L).get("hgmem.index");
            assertEquals(0, stopped.chunks(), stopped.toString());
            assertEquals(1, stopped.runs());
            assertTrue(stopped.seconds() > 0, stopped.toString());
            assertFalse(ScaleLlmLayers.complete(stopped, chunks));
            // the stand-in finishes the requests it had (each counts at least 1.5 s of its time): their time is not the next build's
            for (long until = System.nanoTime() + 10_000_000_000L; llm.handlerMillis() < 1500.0 * slowed.get() && System.nanoTime() < until; ) Thread.onSpinWait();
            assertTrue(llm.handlerMillis() >= 1500.0 * slowed.get(), slowed + " slowed calls, " + llm.handlerMillis() + " ms");
            llm.on(dev.graphrag.oracle.HgmemPolicies.EXTRACT, dev.graphrag.oracle.HgmemPolicies::extract);
            // --layers: only remind and hgmem now, raga's figures untouched; then what is left
            Map<String, ScaleLlmLayers.Build> some = ScaleLlmLayers.build(TestServer.db(), store, corpus, llm, quiet, java.util.Set.of("remind.index", "hgmem.index"),
                    Long.MAX_VALUE);
            assertEquals(ScaleLlmLayers.Build.NONE, some.get("raga.ingest"));
            assertFalse(ScaleLlmLayers.complete(some.get("raga.ingest"), chunks));
            assertTrue(ScaleLlmLayers.complete(some.get("remind.index"), chunks));
            // --llm-minutes passed already: no raga batch starts
            assertEquals(some, ScaleLlmLayers.build(TestServer.db(), store, corpus, llm, quiet, java.util.Set.of("raga.ingest"), System.nanoTime()));
            Map<String, ScaleLlmLayers.Build> first = ScaleLlmLayers.build(TestServer.db(), store, corpus, llm, quiet);
            assertEquals(some.get("remind.index"), first.get("remind.index"));
            assertEquals("hgmem.index", ScaleLlmLayers.layerOf("hgmem.retrieve (global)"));
            for (String layer : ScaleLlmLayers.LAYERS) {
                ScaleLlmLayers.Build b = first.get(layer);
                assertEquals(chunks, b.chunks(), layer);
                assertEquals(layer.equals("hgmem.index") ? 2 : 1, b.runs(), layer);
                assertTrue(b.calls() >= chunks && b.promptTokens() > 0 && b.seconds() > 0 && b.standInSeconds() <= b.seconds(), layer + " " + b);
            }
            assertEquals(first, ScaleLlmLayers.read(store.resolve(ScaleLlmLayers.FILE)), "the figures are in the store");
            // the build-cost probe makes from the stored extractions the texts the build embedded: one per entity and relation
            try (dev.graphrag.core.embed.EmbeddingModel model = dev.graphrag.core.embed.EmbeddingModel.load(Benchmark.serverModelSpec(TestServer.db()), m -> {})) {
                HgmemBuildCost.Cost cost = HgmemBuildCost.measure(TestServer.db(), corpus, new dev.graphrag.core.embed.EmbeddingService(model, 0), 2000, 4);
                assertEquals(chunks, cost.chunks());
                assertEquals(chunks, cost.extracted());
                java.util.Set<String> built = new java.util.HashSet<>();
                List<String> relationDescriptions = new java.util.ArrayList<>();
                TestServer.db().executeTransactionally("MATCH (e:HgEntity {corpus: $c}) OPTIONAL MATCH (e)-[x:HG_RELATED]->() RETURN e.name AS name, e.description AS d,"
                        + " collect(x.description) AS xs", Map.of("c", corpus), r -> {
                    r.forEachRemaining(row -> {
                        built.add(dev.graphrag.hgmem.HgmemIndexer.entityText((String) row.get("name"), (String) row.get("d")));
                        for (Object x : (List<?>) row.get("xs")) relationDescriptions.add((String) x);
                    });
                    return null;
                });
                assertFalse(built.isEmpty());
                assertEquals(built, java.util.Set.copyOf(cost.entityTexts()));
                assertEquals(relationDescriptions.size(), cost.relations());
                for (String d : relationDescriptions) assertTrue(cost.relationTexts().stream().anyMatch(t -> t.endsWith("\n" + d)), d + " in " + cost.relationTexts());
                assertEquals(0, cost.summaries());
                assertTrue(cost.entityTokens() > 3L * cost.entities() && cost.relationTokens() > 3L * cost.relations(), cost.toString());
                assertTrue(cost.entitySecondsPerText() > 0 && cost.relationSecondsPerText() > 0 && cost.projectedSeconds() > 0, cost.toString());
            }
            int logged = llm.log().size();
            // built already: no LLM call, nothing added
            assertEquals(first, ScaleLlmLayers.build(TestServer.db(), store, corpus, llm, quiet));
            assertEquals(logged, llm.log().size());
            Map<String, double[]> latency = new LinkedHashMap<>();
            ScaleBenchmark.time(TestServer.db(), corpus, List.of("Who married John Carter?", "Which city fought Helium?"), ScaleLlmLayers.CALLS, 0,
                    ScaleLlmLayers.CALLS.size() / 2, latency);
            assertEquals(List.of("remind.seeds", "remind.replay", "hgmem.retrieve (global)", "raga.retrieve fusion"), List.copyOf(latency.keySet()));
            assertEquals(logged, llm.log().size(), "the retrieval timed calls no LLM");
            String table = ScaleLlmLayers.table(Map.of(1, first), Map.of(1, 2 * chunks));
            ScaleLlmLayers.Build r = first.get("raga.ingest");
            assertTrue(table.contains(String.format(java.util.Locale.ROOT, "| 1x | raga.ingest | %d (1) | %.3f (", chunks, r.seconds() / chunks)), table);
            assertTrue(table.contains(String.format(java.util.Locale.ROOT, "| %.0f |%n", 2 * r.seconds())), "the whole build: s/chunk times the corpus's chunks\n" + table);
            // a layer not built at a size reads "-", not NaN
            String partial = ScaleLlmLayers.table(Map.of(1, some), Map.of(1, chunks));
            assertTrue(partial.contains(String.format("| 1x | raga.ingest | 0 (0) | - | - | - | - | - |%n")), partial);
            assertFalse(partial.contains("NaN"), partial);
        }
    }
}
