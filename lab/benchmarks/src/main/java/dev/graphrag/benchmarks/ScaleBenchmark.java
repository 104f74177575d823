package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.Scores;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * How the LLM-free platform's cost grows with the corpus (issue 34, docs/benchmarks.md#scaling): the 2Wiki corpus at
 * 1x, 4x, ... its size ({@link ScaledCorpus}), each in a server and store of its own, one after the other in one run. Per size: rag.ingest
 * against the raw throughput of the same model on a sample of the same chunk texts, agrag.index (LLM-free), the
 * store's growth on disk, the heap the size keeps after GC (its embedding cache entries, AGRAG's snapshot and GDS
 * projection, the search caches), and p50/p95 of rag.search (dense,
 * bm25, hybrid), agrag.mcmi and agrag.retrieve (mcmi, ppr) over the same 200 questions; then each figure's growth
 * exponent between sizes, log(ratio of figures) / log(ratio of chunks).
 * <p>
 * {@code DATA --sizes 1,4 [--data DIR] [--llm-layers [--layers "remind.index;raga.ingest"] [--llm-minutes N]]}:
 * with --data each size's store is DIR/x{m}, and a size already built there is only timed. --llm-layers also builds
 * remind, hgmem and raga on the stand-in LLM and times the retrieval of each layer built over the whole corpus
 * ({@link ScaleLlmLayers}; hours at 4x, resumable across runs with --data): --layers builds only those layers, and
 * --llm-minutes starts no raga.ingest batch after that many minutes of the run.
 */
public final class ScaleBenchmark {
    static final long SEED = 20261126L;
    static final int RAW_SAMPLE = 2000;
    static final List<String> CALLS = List.of(
            "rag.search dense", "CALL rag.search($q, {corpus: $corpus, k: 5, mode: 'dense'}) YIELD chunkId RETURN chunkId",
            "rag.search bm25", "CALL rag.search($q, {corpus: $corpus, k: 5, mode: 'bm25'}) YIELD chunkId RETURN chunkId",
            "rag.search hybrid", "CALL rag.search($q, {corpus: $corpus, k: 5, mode: 'hybrid'}) YIELD chunkId RETURN chunkId",
            // Neo4j's own vector index alone, as rag.search dense asks it (its 50 candidates), with the query embedding cached
            "db.index.vector.queryNodes (50)", "CALL db.index.vector.queryNodes('rag_chunk_embedding', 50, rag.embed($q)) YIELD node RETURN count(node) AS n",
            "agrag.mcmi", "CALL agrag.mcmi($q, {corpus: $corpus}) YIELD nodeCount RETURN nodeCount",
            "agrag.retrieve mcmi", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5}) YIELD chunkId RETURN chunkId",
            "agrag.retrieve ppr", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr'}) YIELD chunkId RETURN chunkId",
            // the baselines, timed in the same run: every chunk and fact scanned (the default below indexFrom), the index
            // asked at every size, and the sweeps over the whole graph that the push replaced as the default
            "agrag.mcmi (scans)", "CALL agrag.mcmi($q, {corpus: $corpus, indexFrom: 2147483647}) YIELD nodeCount RETURN nodeCount",
            "agrag.mcmi (index)", "CALL agrag.mcmi($q, {corpus: $corpus, indexFrom: 0}) YIELD nodeCount RETURN nodeCount",
            "agrag.retrieve ppr (scans)", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr', indexFrom: 2147483647}) YIELD chunkId RETURN chunkId",
            "agrag.retrieve ppr (index)", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr', indexFrom: 0}) YIELD chunkId RETURN chunkId",
            // candidates from the snapshot's own k-means cells at every size (VectorCells, made by the first such call)
            "agrag.mcmi (cells, 8 probes)", "CALL agrag.mcmi($q, {corpus: $corpus, cellsFrom: 0, cellProbes: 8}) YIELD nodeCount RETURN nodeCount",
            "agrag.retrieve ppr (cells, 8 probes)", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr', cellsFrom: 0, cellProbes: 8}) YIELD chunkId RETURN chunkId",
            "agrag.mcmi (cells, 32 probes)", "CALL agrag.mcmi($q, {corpus: $corpus, cellsFrom: 0, cellProbes: 32}) YIELD nodeCount RETURN nodeCount",
            "agrag.retrieve ppr (cells, 32 probes)", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr', cellsFrom: 0, cellProbes: 32}) YIELD chunkId RETURN chunkId",
            "agrag.mcmi (native PPR)", "CALL agrag.mcmi($q, {corpus: $corpus, pprEngine: 'native'}) YIELD nodeCount RETURN nodeCount",
            "agrag.retrieve ppr (native PPR)", "CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: 'ppr', pprEngine: 'native'}) YIELD chunkId RETURN chunkId");
    /** The calls that read only the lexical graph: timed, and their heap measured, before any AGRAG snapshot exists. */
    static final int RAG_CALLS = 4;

    /** One size's figures. */
    record Size(int copies, long chunks, Double ingestS, Double ingestRate, Double rawRate, Double indexS, Long storeBytes, long heapBytes,
                Heap heap, double snapshotLoadS, Map<String, double[]> latency, Map<String, ScaleLlmLayers.Build> llmLayers) {
        Size(int copies, long chunks, Double ingestS, Double ingestRate, Double rawRate, Double indexS, Long storeBytes, long heapBytes, Heap heap,
             double snapshotLoadS, Map<String, double[]> latency) {
            this(copies, chunks, ingestS, ingestRate, rawRate, indexS, storeBytes, heapBytes, heap, snapshotLoadS, latency, null);
        }
    }

    /**
     * Used heap after GC that each part adds, in the order they are loaded: rag (the query embedding cache and what
     * rag.search keeps), the AGRAG snapshot (agrag's queries), and the GDS projection (agrag.project). ReMind, HGMem
     * and RAGA keep nothing in memory between calls (docs/operations.md), so they have no row of their own.
     */
    record Heap(long rag, long agragSnapshot, long gdsProjection) {}

    /** --calls "name;name": the calls timed (all when absent), e.g. a new path and its baseline on stores already built. */
    static java.util.Set<String> only;

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        if (args.string("--calls", null) != null) {
            only = new java.util.LinkedHashSet<>();
            for (String c : args.string("--calls", null).split(";")) only.add(c.trim());
            for (String c : only) if (!CALLS.contains(c) && !ScaleLlmLayers.CALLS.contains(c)) throw new IllegalArgumentException("--calls: no call named '" + c + "'");
        }
        List<Integer> sizes = new ArrayList<>();
        for (String s : args.string("--sizes", "1,4").split(",")) sizes.add(Integer.parseInt(s.trim()));
        Path data = args.data();
        List<Map<String, Object>> base = CorpusFiles.read(data.resolve("2wikimultihopqa/2wikimultihopqa_corpus.json"));
        List<String> questions = questions(data);
        Path work = Files.createTempDirectory("graphrag-scale");
        Path stores = args.path("--data") != null ? args.path("--data") : work.resolve("stores");
        PrintStream out = System.out;
        StringBuilder report = new StringBuilder();
        List<Size> results = new ArrayList<>();
        StringBuilder agreement = new StringBuilder("| size | agrag.retrieve mode | share of the scan's top 5 the cells return, 8 probes | 32 probes | the indexes return |\n|---|---|---|---|---|\n");
        // --llm-layers: the stand-in LLM for remind, hgmem and raga, one for the whole run
        dev.graphrag.oracle.EvalLlmServer llm = args.has("--llm-layers") ? ScaleLlmLayers.server() : null;
        java.util.Set<String> layers = new java.util.LinkedHashSet<>(ScaleLlmLayers.LAYERS);
        if (args.string("--layers", null) != null) {
            layers.clear();
            for (String l : args.string("--layers", null).split(";")) layers.add(l.trim());
            for (String l : layers) if (!ScaleLlmLayers.LAYERS.contains(l)) throw new IllegalArgumentException("--layers: no layer named '" + l + "'; the layers are " + ScaleLlmLayers.LAYERS);
        }
        long llmUntil = args.has("--llm-minutes") ? System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(args.option("--llm-minutes", 0)) : Long.MAX_VALUE;
        // each size in a server and store of its own, as a user's database holds one corpus: a size sharing the vector
        // index with another (whose passages its copy 0 repeats) would time the corpus filter's over-fetching instead
        for (int m : sizes) {
            Path store = stores.resolve("x" + m);
            // no warm-up: the first AGRAG query loads the snapshot, so its time and its heap are this size's own figures
            Neo4j neo4j = open(Files.createDirectories(work.resolve("x" + m)), store);
            try {
                Size size = size(neo4j.defaultDatabaseService(), store, base, m, questions, out);
                if (args.has("--agreement")) agreement.append(agreement(neo4j.defaultDatabaseService(), "scale-x" + m, m, questions, out));
                if (llm != null) size = llmLayers(neo4j.defaultDatabaseService(), store, size, questions, llm, layers, llmUntil, out);
                results.add(size);
            } finally {
                neo4j.close();
            }
        }
        if (llm != null) llm.close();
        report.append(table(results)).append('\n').append(exponents(results));
        if (llm != null) report.append('\n').append(llmTable(results));
        if (args.has("--agreement")) report.append('\n').append(agreement);
        out.println();
        out.println(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "scale-results.md"), report.toString());
    }

    /** The timed questions: MuSiQue's and HotpotQA's (the scaled corpora have none of their own). */
    static List<String> questions(Path data) throws IOException {
        List<String> questions = new ArrayList<>();
        for (OracleGold.Question q : OracleGold.fromMusique(data.resolve("musique/musique_train.json"))) questions.add(q.question());
        for (OracleGold.Question q : OracleGold.fromHotpot(data.resolve("hotpotqa/hotpotqa_train.json"))) questions.add(q.question());
        return questions;
    }

    /** A size's server on its store, without warming AGRAG on start, so the first query's load is that size's own figure. */
    static Neo4j open(Path workDir, Path store) {
        Map<String, String> settings = new java.util.HashMap<>(EmbeddedNeo4j.SINGLE_USER);
        settings.put(dev.graphrag.agrag.AgragSettings.WARM_ON_START.name(), "false");
        return EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(workDir, store, "127.0.0.1", -1, -1, settings));
    }

    static Size size(GraphDatabaseService db, Path store, List<Map<String, Object>> base, int copies, List<String> questions, PrintStream out) throws IOException {
        String corpus = "scale-x" + copies;
        // the heap this size's layer keeps: used heap after GC before anything of it exists, and after its snapshot, its
        // projection and two rounds of queries have loaded every cache (a size reused from --data counts from start-up)
        long heapBefore = usedAfterGc();
        String state = db.executeTransactionally("OPTIONAL MATCH (m:AgMeta {corpus: $c}) RETURN CASE WHEN m IS NULL THEN null ELSE coalesce(m.state, $ready) END AS s",
                Map.of("c", corpus, "ready", dev.graphrag.core.layer.LayerState.READY), r -> (String) r.next().get("s"));
        boolean built = dev.graphrag.core.layer.LayerState.READY.equals(state);
        if (state != null && !built) {
            // a build that was stopped (the store keeps the layer marked building): agrag.index resumes it; its time is the
            // resumed part only, so it is printed and not put in the table
            long t = System.nanoTime();
            db.executeTransactionally("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus), r -> { while (r.hasNext()) r.next(); return null; });
            out.printf(Locale.ROOT, "%s: agrag.index resumed a stopped build in %.1f s (not a whole build's time)%n", corpus, (System.nanoTime() - t) / 1e9);
            built = true;
        }
        Double ingestS = null, ingestRate = null, rawRate = null, indexS = null;
        Long storeBytes = null;
        long chunks;
        if (!built) {
            long before = bytes(store);
            List<Map<String, Object>> docs = ScaledCorpus.of(base, copies, SEED);
            long t0 = System.nanoTime();
            chunks = Benchmark.ingest(db, corpus, docs);
            ingestS = (System.nanoTime() - t0) / 1e9;
            ingestRate = chunks / ingestS;
            rawRate = rawRate(db, corpus);
            long t1 = System.nanoTime();
            db.executeTransactionally("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus), r -> { while (r.hasNext()) r.next(); return null; });
            indexS = (System.nanoTime() - t1) / 1e9;
            storeBytes = bytes(store) - before;
            out.printf(Locale.ROOT, "%s: %d chunks; rag.ingest %.1f s = %.1f chunks/s (raw embedding %.1f chunks/s, ingest/raw %.0f%%); agrag.index %.1f s; store +%.0f MB%n",
                    corpus, chunks, ingestS, ingestRate, rawRate, 100 * ingestRate / rawRate, indexS, storeBytes / 1e6);
        } else {
            chunks = db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) RETURN count(c) AS n", Map.of("c", corpus), r -> (Long) r.next().get("n"));
            out.printf("%s: reusing the store's layer (%d chunks); timing queries only%n", corpus, chunks);
        }
        Map<String, double[]> latency = new LinkedHashMap<>();
        time(db, corpus, questions, 0, RAG_CALLS, latency);
        long afterRag = usedAfterGc();
        // the first AGRAG query loads the corpus's snapshot: what a member pays once per corpus version
        long load = System.nanoTime();
        db.executeTransactionally(CALLS.get(2 * RAG_CALLS + 1), Map.of("q", questions.get(0), "corpus", corpus), r -> { while (r.hasNext()) r.next(); return null; });
        double snapshotLoadS = (System.nanoTime() - load) / 1e9;
        if (only == null || only.stream().anyMatch(c -> c.startsWith("agrag.mcmi (cells"))) {
            // the first call that asks for cells makes them (chunk and fact matrices): once per member and snapshot
            long made = System.nanoTime();
            int cellsCall = CALLS.indexOf("agrag.mcmi (cells, 8 probes)");
            db.executeTransactionally(CALLS.get(cellsCall + 1), Map.of("q", questions.get(0), "corpus", corpus), r -> { while (r.hasNext()) r.next(); return null; });
            out.printf(Locale.ROOT, "%s: the first cells query (it makes the chunk and fact cells) took %.1f s%n", corpus, (System.nanoTime() - made) / 1e9);
        }
        time(db, corpus, questions, RAG_CALLS, CALLS.size() / 2, latency);
        long afterAgrag = usedAfterGc();
        db.executeTransactionally("CALL agrag.project({corpus: $c})", Map.of("c", corpus), r -> { while (r.hasNext()) r.next(); return null; });
        long afterProjection = usedAfterGc();
        Heap parts = new Heap(afterRag - heapBefore, afterAgrag - afterRag, afterProjection - afterAgrag);
        long heap = afterProjection - heapBefore;
        out.printf(Locale.ROOT, "%s: snapshot load %.1f s; heap after GC +%.0f MB (%s); p50/p95 ms %s%n", corpus, snapshotLoadS, heap / 1e6, parts,
                format(latency));
        return new Size(copies, chunks, ingestS, ingestRate, rawRate, indexS, storeBytes, heap, parts, snapshotLoadS, latency);
    }

    /**
     * How far the candidate paths stray from the scan where no gold exists (the scaled corpora have no questions of
     * their own): per mode, the share of the scan's top 5 chunks that the cells (cellsFrom 0; 8 and 32 probes) and the indexes (indexFrom 0)
     * return, averaged over the questions.
     */
    static String agreement(GraphDatabaseService db, String corpus, int copies, List<String> questions, PrintStream out) {
        StringBuilder b = new StringBuilder();
        for (String mode : List.of("mcmi", "ppr")) {
            double cells = 0, cells32 = 0, index = 0;
            for (String q : questions) {
                Set<Object> scan = new java.util.HashSet<>(top5(db, corpus, q, mode, ""));
                cells += overlap(scan, top5(db, corpus, q, mode, ", cellsFrom: 0, cellProbes: 8"));
                cells32 += overlap(scan, top5(db, corpus, q, mode, ", cellsFrom: 0, cellProbes: 32"));
                index += overlap(scan, top5(db, corpus, q, mode, ", indexFrom: 0"));
            }
            int n = questions.size();
            String row = String.format(Locale.ROOT, "| %dx | %s | %.3f | %.3f | %.3f |%n", copies, mode, cells / n, cells32 / n, index / n);
            out.print(row);
            b.append(row);
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> top5(GraphDatabaseService db, String corpus, String q, String mode, String lookup) {
        return db.executeTransactionally("CALL agrag.retrieve($q, {corpus: $corpus, k: 5, mode: $mode" + lookup + "}) YIELD chunkId RETURN collect(chunkId) AS ids",
                Map.of("q", q, "corpus", corpus, "mode", mode), r -> (List<Object>) r.next().get("ids"));
    }

    private static double overlap(Set<Object> scan, List<Object> other) {
        return scan.isEmpty() ? 1 : other.stream().filter(scan::contains).count() / (double) scan.size();
    }

    /** The LLM layers of a size: built on the stand-in where the store lacks them, then the retrieval calls of each whole layer timed. */
    static Size llmLayers(GraphDatabaseService db, Path store, Size size, List<String> questions, dev.graphrag.oracle.EvalLlmServer llm,
                          java.util.Set<String> layers, long untilNanos, PrintStream out) throws IOException {
        String corpus = "scale-x" + size.copies();
        Map<String, ScaleLlmLayers.Build> builds = ScaleLlmLayers.build(db, store, corpus, llm, out, layers, untilNanos);
        Map<String, double[]> latency = new LinkedHashMap<>(size.latency());
        for (int c = 0; c < ScaleLlmLayers.CALLS.size() / 2; c++) {
            String layer = ScaleLlmLayers.layerOf(ScaleLlmLayers.CALLS.get(2 * c));
            // a layer built over part of the corpus so far is not timed: its figures would be another corpus's
            if (ScaleLlmLayers.complete(builds.get(layer), size.chunks())) time(db, corpus, questions, ScaleLlmLayers.CALLS, c, c + 1, latency);
            else out.printf("%s: %s covers %d of %d chunks so far; %s not timed%n", corpus, layer, builds.get(layer).chunks(), size.chunks(), ScaleLlmLayers.CALLS.get(2 * c));
        }
        return new Size(size.copies(), size.chunks(), size.ingestS(), size.ingestRate(), size.rawRate(), size.indexS(), size.storeBytes(), size.heapBytes(),
                size.heap(), size.snapshotLoadS(), latency, builds);
    }

    static String llmTable(List<Size> sizes) {
        Map<Integer, Map<String, ScaleLlmLayers.Build>> bySize = new LinkedHashMap<>();
        Map<Integer, Long> chunks = new LinkedHashMap<>();
        for (Size s : sizes) {
            if (s.llmLayers() == null) continue;
            bySize.put(s.copies(), s.llmLayers());
            chunks.put(s.copies(), s.chunks());
        }
        return ScaleLlmLayers.table(bySize, chunks);
    }

    static void time(GraphDatabaseService db, String corpus, List<String> questions, int from, int to, Map<String, double[]> latency) {
        time(db, corpus, questions, CALLS, from, to, latency);
    }

    /**
     * Calls [from, to) of calls (name, query pairs), each over every question twice: round 1 warms the JIT and the caches, round 2 is the
     * steady state a running server sees and gives the p50/p95.
     */
    static void time(GraphDatabaseService db, String corpus, List<String> questions, List<String> calls, int from, int to, Map<String, double[]> latency) {
        for (int round = 1; round <= 2; round++) {
            for (int c = from; c < to; c++) {
                if (only != null && !only.contains(calls.get(2 * c))) continue;
                List<Double> ms = new ArrayList<>();
                for (String q : questions) {
                    long s = System.nanoTime();
                    db.executeTransactionally(calls.get(2 * c + 1), Map.of("q", q, "corpus", corpus), r -> { while (r.hasNext()) r.next(); return null; });
                    ms.add((System.nanoTime() - s) / 1e6);
                }
                if (round == 2) latency.put(calls.get(2 * c), new double[] {Scores.percentile(ms, 50), Scores.percentile(ms, 95)});
            }
        }
    }

    /** The server's model on a seeded sample of the corpus's chunk texts, nothing else: the baseline ingest is held to. */
    static double rawRate(GraphDatabaseService db, String corpus) {
        List<String> texts = db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) RETURN c.text AS t", Map.of("c", corpus), r -> {
            List<String> l = new ArrayList<>();
            while (r.hasNext()) l.add((String) r.next().get("t"));
            return l;
        });
        Collections.shuffle(texts, new Random(SEED));
        List<String> sample = texts.subList(0, Math.min(RAW_SAMPLE, texts.size()));
        return sample.size() / Benchmark.rawEmbedding(Benchmark.serverModelSpec(db), sample).seconds();
    }

    static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    static long bytes(Path dir) throws IOException {
        if (!Files.exists(dir)) return 0;
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static String table(List<Size> sizes) {
        StringBuilder b = new StringBuilder("| size | chunks | rag.ingest chunks/s | raw chunks/s | ingest/raw | agrag.index s | store MB "
                + "| heap MB after GC: all | rag | AGRAG snapshot | GDS projection | snapshot load s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Size s : sizes) {
            b.append(String.format(Locale.ROOT, "| %dx | %d | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f |%n", s.copies(), s.chunks(), f1(s.ingestRate()),
                    f1(s.rawRate()), s.ingestRate() == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * s.ingestRate() / s.rawRate()), f1(s.indexS()),
                    s.storeBytes() == null ? "-" : String.format(Locale.ROOT, "%.0f", s.storeBytes() / 1e6), s.heapBytes() / 1e6, s.heap().rag() / 1e6,
                    s.heap().agragSnapshot() / 1e6, s.heap().gdsProjection() / 1e6, s.snapshotLoadS()));
        }
        // latency with a row per call and a column per size, so the table stays readable however many calls are timed
        b.append("\n| p50 / p95 ms |");
        for (Size s : sizes) b.append(String.format(Locale.ROOT, " %dx (%d chunks) |", s.copies(), s.chunks()));
        b.append("\n|---|").append("---|".repeat(sizes.size())).append('\n');
        for (String call : sizes.get(0).latency().keySet()) {
            b.append("| ").append(call).append(" |");
            for (Size s : sizes) {
                double[] v = s.latency().get(call);
                b.append(v == null ? " - |" : String.format(Locale.ROOT, " %.1f / %.1f |", v[0], v[1]));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * Growth exponents, log(figure ratio) / log(chunk ratio), between consecutive sizes and from the first to the
     * last; 1 is linear. A row per figure, a column per pair of sizes.
     */
    static String exponents(List<Size> sizes) {
        List<int[]> pairs = new ArrayList<>();
        for (int i = 1; i < sizes.size(); i++) pairs.add(new int[] {i - 1, i});
        if (sizes.size() > 2) pairs.add(new int[] {0, sizes.size() - 1});
        StringBuilder b = new StringBuilder("| exponent |");
        for (int[] p : pairs) b.append(String.format(Locale.ROOT, " %dx to %dx |", sizes.get(p[0]).copies(), sizes.get(p[1]).copies()));
        b.append("\n|---|").append("---|".repeat(pairs.size())).append('\n');
        Map<String, java.util.function.ToDoubleFunction<Size>> figures = new LinkedHashMap<>();
        figures.put("agrag.index time", s -> s.indexS() == null ? Double.NaN : s.indexS());
        figures.put("heap, all", s -> s.heapBytes());
        figures.put("heap, AGRAG snapshot", s -> s.heap().agragSnapshot());
        // an LLM layer's whole build: its seconds per chunk times the corpus's chunks (builds may span runs); none until
        // the layer covers the corpus, since a build's later chunks may cost more than its first ones
        for (String layer : sizes.stream().anyMatch(s -> s.llmLayers() != null) ? ScaleLlmLayers.LAYERS : List.<String>of()) {
            figures.put(layer + " build time", s -> s.llmLayers() == null || !ScaleLlmLayers.complete(s.llmLayers().get(layer), s.chunks()) ? Double.NaN
                    : s.llmLayers().get(layer).perChunk(s.llmLayers().get(layer).seconds()) * s.chunks());
        }
        for (String call : sizes.get(0).latency().keySet()) figures.put(call + " p50", s -> s.latency().containsKey(call) ? s.latency().get(call)[0] : Double.NaN);
        figures.forEach((name, f) -> {
            b.append("| ").append(name).append(" |");
            for (int[] p : pairs) {
                Size a = sizes.get(p[0]), z = sizes.get(p[1]);
                double e = Math.log(f.applyAsDouble(z) / f.applyAsDouble(a)) / Math.log((double) z.chunks() / a.chunks());
                b.append(Double.isNaN(e) ? " - |" : String.format(Locale.ROOT, " %.2f |", e));
            }
            b.append('\n');
        });
        return b.toString();
    }

    private static String f1(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String format(Map<String, double[]> latency) {
        StringBuilder b = new StringBuilder();
        latency.forEach((k, v) -> b.append(String.format(Locale.ROOT, "%s %.1f/%.1f; ", k, v[0], v[1])));
        return b.toString();
    }
}
