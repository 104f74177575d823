package dev.graphrag.procedures;

import dev.graphrag.agrag.AgragLayer;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.hgmem.HgmemLayer;
import dev.graphrag.raga.RagaLayer;
import dev.graphrag.remind.RemindLayer;
import org.neo4j.graphdb.Node;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * rag.refresh: brings a corpus up to date in one call (docs/rag/rag.refresh.md). The files its rag.ingest.files calls
 * read are read again with deleteMissing, then every layer already built on it is built again, in a fixed order, each
 * with the config of its last build (recorded in the graph, without the llm map: the call's, else the server's
 * endpoint). A step that fails is reported with its error and the next runs: each step is resumable on its own, so
 * the next refresh finishes what this one could not.
 */
final class CorpusRefresh {
    static final Key<Boolean> FILES = Key.bool("files", true);
    static final Key<Boolean> DELETE_MISSING = Key.bool("deleteMissing", true);
    static final Key<List<String>> LAYERS = Key.strings("layers", List.of("agrag", "remind", "hgmem", "raga"));
    static final Key<Map<String, Object>> LLM = Key.map("llm");

    /** The layers in the order a refresh builds them: the LLM-free one first, the agent last (the longest). */
    private static final Map<String, LayerSpec> ORDER = new LinkedHashMap<>();
    static {
        ORDER.put("agrag", AgragLayer.SPEC);
        ORDER.put("remind", RemindLayer.SPEC);
        ORDER.put("hgmem", HgmemLayer.SPEC);
        ORDER.put("raga", RagaLayer.SPEC);
    }

    private final RagProcedures host;

    CorpusRefresh(RagProcedures host) {
        this.host = host;
    }

    List<Results.RefreshStep> run(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.refresh", config);
        String corpus = r.corpus();
        boolean files = FILES.read(r), deleteMissing = DELETE_MISSING.read(r);
        List<String> layers = LAYERS.read(r);
        Map<String, Object> llm = LLM.read(r);
        r.finish();
        for (String l : layers) {
            if (!ORDER.containsKey(l)) throw new RagException("rag.refresh: config key 'layers' may hold only " + ORDER.keySet() + ", got '" + l + "'");
        }
        List<BuildConfig.FileIngest> ingests;
        Map<String, Map<String, Object>> built = new LinkedHashMap<>();
        try (var tx = host.db.beginTx()) {
            Node c = LexicalGraph.requireCorpus(tx, corpus);
            ingests = BuildConfig.files(c);
            for (Map.Entry<String, LayerSpec> e : ORDER.entrySet()) {
                Node meta = tx.findNode(e.getValue().meta(), "corpus", corpus);
                if (layers.contains(e.getKey()) && meta != null && meta.hasProperty("version")) built.put(e.getKey(), BuildConfig.layer(meta));
            }
        }
        List<Results.RefreshStep> out = new ArrayList<>();
        try (var job = host.rag.jobs().start("rag.refresh", host.db.databaseName(), corpus)) {
            job.phase("refreshing", (files ? Math.max(1, ingests.size()) : 0) + ORDER.size());
            if (files && ingests.isEmpty()) {
                out.add(new Results.RefreshStep("rag.ingest.files", "skipped", Map.of("reason", "no file of this corpus was read by rag.ingest.files"), null, 0));
                job.advance(1);
            }
            for (BuildConfig.FileIngest f : files ? ingests : List.<BuildConfig.FileIngest>of()) {
                Map<String, Object> cfg = new LinkedHashMap<>(f.config());
                cfg.put("corpus", corpus);
                cfg.put("deleteMissing", deleteMissing);
                job.label("rag.ingest.files " + f.source());
                out.add(step("rag.ingest.files", () -> byStatus(host.ingestFiles(f.source(), cfg).toList())));
                job.advance(1);
            }
            for (String layer : ORDER.keySet()) {
                String procedure = layer.equals("raga") ? "raga.ingest" : layer + ".index";
                if (!built.containsKey(layer)) {
                    out.add(new Results.RefreshStep(procedure, "skipped", Map.of("reason", layers.contains(layer) ? "not built on this corpus" : "not asked for"), null, 0));
                    job.advance(1);
                    continue;
                }
                Map<String, Object> cfg = new LinkedHashMap<>(built.get(layer));
                cfg.put("corpus", corpus);
                if (llm != null) cfg.put("llm", llm);
                job.label(procedure);
                out.add(step(procedure, () -> build(layer, cfg)));
                job.advance(1);
            }
        }
        return out;
    }

    /** A layer's own build procedure, with this call's context, as if called by name; its row as a map. */
    private Map<String, Object> build(String layer, Map<String, Object> cfg) {
        return switch (layer) {
            case "agrag" -> row(with(new AgragProcedures(), p -> { p.db = host.db; p.tx = host.tx; p.log = host.log; p.guard = host.guard; p.rag = host.rag; })
                    .index(cfg).findFirst().orElseThrow());
            case "remind" -> row(with(new RemindProcedures(), p -> { p.db = host.db; p.tx = host.tx; p.log = host.log; p.guard = host.guard; p.rag = host.rag; })
                    .index(cfg).findFirst().orElseThrow());
            case "hgmem" -> row(with(new HgmemProcedures(), p -> { p.db = host.db; p.tx = host.tx; p.log = host.log; p.guard = host.guard; p.rag = host.rag; })
                    .index(cfg).findFirst().orElseThrow());
            // the agent's chunk rows are left out: its summary row says what the run did
            case "raga" -> row(with(new RagaProcedures(), p -> { p.db = host.db; p.tx = host.tx; p.log = host.log; p.guard = host.guard; p.rag = host.rag; })
                    .ingest(List.of(), cfg).reduce((a, b) -> b).orElseThrow());
            default -> throw new IllegalArgumentException(layer);
        };
    }

    private static <T> T with(T procedures, java.util.function.Consumer<T> context) {
        context.accept(procedures);
        return procedures;
    }

    private static Results.RefreshStep step(String name, java.util.function.Supplier<Map<String, Object>> work) {
        long t0 = System.nanoTime();
        try {
            return new Results.RefreshStep(name, "done", work.get(), null, (System.nanoTime() - t0) / 1_000_000);
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return new Results.RefreshStep(name, "failed", Map.of(), why, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** A procedure's row (a record) as a map of its columns, nodes and relationships left out. */
    static Map<String, Object> row(Record r) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (RecordComponent c : r.getClass().getRecordComponents()) {
            try {
                Object v = c.getAccessor().invoke(r);
                if (!(v instanceof org.neo4j.graphdb.Entity) && !(v instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof org.neo4j.graphdb.Entity)) {
                    out.put(c.getName(), v);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    /** The files step's row: how many files ended in each status, and the errors of those that failed. */
    private static Map<String, Object> byStatus(List<Results.FileResult> files) {
        Map<String, Object> counts = new TreeMap<>();
        List<String> errors = new ArrayList<>();
        for (Results.FileResult f : files) {
            counts.merge(f.status(), 1L, (a, b) -> (Long) a + (Long) b);
            if (f.error() != null) errors.add(f.documentId() + ": " + f.error());
        }
        Map<String, Object> out = new LinkedHashMap<>(counts);
        if (!errors.isEmpty()) out.put("errors", errors);
        return out;
    }
}
