package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rebuilds equal clean builds: a seeded series of deletes, changes and re-adds of documents, with the AGRAG, ReMind and
 * HGMem layers built again at seeded points between them, ends with each layer equal, by content, to a clean build of
 * the documents that are left (docs/remind.md#updates-and-deletes and the other methods' pages). The kill test does the
 * same for builds interrupted anywhere.
 */
class LayersForgetSeriesTest {
    static EvalLlmServer llm;

    @BeforeAll
    static void start() {
        llm = RemindExtractionPolicies.register(EvalLlmServer.start());
        llm.on("hgmem extract", HgmemForgetsTest::extract);
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static void ingest(String corpus, List<Map<String, Object>> docs) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunker: 'sentences', chunkSize: 24, chunkOverlap: 0})", Map.of("docs", docs, "c", corpus));
    }

    static void buildAll(String corpus) {
        rows("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus));
        rows("CALL remind.index($cfg)", Map.of("cfg", llm.config(corpus, Map.of())));
        rows("CALL hgmem.index($cfg)", Map.of("cfg", llm.config(corpus, Map.of())));
    }

    static List<Object> census(String corpus) {
        return List.of(AgragLayerLifecycleTest.census(corpus), RemindForgetsTest.census(corpus), HgmemForgetsTest.census(corpus));
    }

    @Test
    void aSeededSeriesOfDeletesChangesAndReAddsRebuildsToWhatACleanBuildGives() {
        List<Map<String, Object>> first = AgragLayerLifecycleTest.families(8), second = families(8, 23);
        Map<String, String> present = new TreeMap<>(), removed = new TreeMap<>();
        for (Map<String, Object> d : first) present.put((String) d.get("id"), (String) d.get("text"));
        ingest("series", first);
        buildAll("series");
        Random r = new Random(5);
        List<String> ops = new ArrayList<>();
        for (int step = 0; step < 6; step++) {
            int op = r.nextInt(3);
            List<String> ids = new ArrayList<>(present.keySet());
            if (op == 0 && ids.size() > 3) {
                String id = ids.get(r.nextInt(ids.size()));
                rows("CALL rag.delete([$id], {corpus: 'series'})", Map.of("id", id));
                removed.put(id, present.remove(id));
                ops.add("delete " + id);
            } else if (op == 1 || removed.isEmpty()) {
                String id = ids.get(r.nextInt(ids.size()));
                String text = (String) second.get(r.nextInt(second.size())).get("text");
                ingest("series", List.of(Map.of("id", id, "text", text)));
                present.put(id, text);
                ops.add("change " + id);
            } else {
                String id = new ArrayList<>(removed.keySet()).get(r.nextInt(removed.size()));
                ingest("series", List.of(Map.of("id", id, "text", removed.get(id))));
                present.put(id, removed.remove(id));
                ops.add("re-add " + id);
            }
            if (r.nextBoolean()) {
                buildAll("series");
                ops.add("build");
            }
        }
        buildAll("series");
        assertTrue(ops.stream().anyMatch(o -> o.startsWith("delete")) && ops.stream().anyMatch(o -> o.startsWith("change"))
                && ops.stream().anyMatch(o -> o.startsWith("re-add")), "the series holds every kind of change: " + ops);
        List<Map<String, Object>> left = new ArrayList<>();
        present.forEach((id, text) -> left.add(Map.of("id", id, "text", text)));
        ingest("seriesClean", left);
        buildAll("seriesClean");
        List<Object> clean = census("seriesClean"), series = census("series");
        for (int layer = 0; layer < clean.size(); layer++) {
            assertEquals(clean.get(layer), series.get(layer), List.of("agrag", "remind", "hgmem").get(layer) + " after " + ops);
        }
    }

    /** Documents like AgragLayerLifecycleTest.families, from another seed: the same names, other sentences. */
    static List<Map<String, Object>> families(int count, long seed) {
        List<Map<String, Object>> base = AgragLayerLifecycleTest.families(count * 3);
        Random r = new Random(seed);
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Map<String, Object> d = new LinkedHashMap<>(base.get(r.nextInt(base.size())));
            out.add(d);
        }
        return out;
    }
}
