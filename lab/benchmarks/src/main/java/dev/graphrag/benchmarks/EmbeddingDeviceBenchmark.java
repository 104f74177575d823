package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;

import dev.graphrag.core.embed.Device;
import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.core.embed.Pooling;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CUDA path of the embedding service against its CPU path, in one run on one machine (docs/benchmarks.md,
 * "Embedding on a GPU"). For each model: load it with {@code device=cpu} and with {@code device=cuda}, embed
 * the corpus's passages through {@link EmbeddingService#embedAll} (length-sorted batches, as rag.ingest does)
 * at each batch size, twice after a warm-up, and compare the two devices' vectors (cosine per text).
 *
 * <pre>
 * java ... dev.graphrag.benchmarks.EmbeddingDeviceBenchmark CORPUS.json [--limit N] [--batch 32,128]
 *      [--model default | --model name,onnxFile,tokenizerFile,cls|mean,maxLength]...   (default: the bundled model)
 *      [--short-only]   (only the short-text comparison, which also runs where CUDA is missing)
 * </pre>
 * Then, per model and device, the corpus's titles (short, like entity names) through {@link EmbeddingService#embedEach}
 * against one model call per text.
 * With the CPU build, or without a usable GPU, the CUDA load fails and the command says why and exits 2.
 */
public final class EmbeddingDeviceBenchmark {
    private EmbeddingDeviceBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) throw new IllegalArgumentException("usage: EmbeddingDeviceBenchmark CORPUS.json [--limit N] [--batch 32,128] [--model ...]");
        Path corpus = Path.of(args[0]);
        int limit = Integer.MAX_VALUE;
        List<Integer> batches = List.of(32, 128);
        List<ModelSpec> models = new ArrayList<>();
        boolean shortOnly = false;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--limit" -> limit = Integer.parseInt(args[++i]);
                case "--batch" -> batches = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--model" -> models.add(parseModel(args[++i]));
                case "--short-only" -> shortOnly = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (models.isEmpty()) models.add(ModelSpec.defaults());
        List<String> texts = new ArrayList<>();
        java.util.Set<String> titles = new java.util.LinkedHashSet<>();
        for (Map<String, Object> doc : CorpusFiles.read(corpus)) {
            if (texts.size() >= limit) break;
            String text = (String) doc.get("text");
            if (text != null && !text.isBlank()) texts.add(text);
            if (doc.get("title") instanceof String t && !t.isBlank()) titles.add(t);
        }
        System.out.printf(Locale.ROOT, "%d passages from %s; %d cores%n", texts.size(), corpus, Runtime.getRuntime().availableProcessors());
        for (ModelSpec spec : models) {
            if (!shortOnly) {
                try {
                    run(spec, texts, batches);
                } catch (dev.graphrag.core.RagException e) {
                    System.out.println(e.getMessage());
                    System.exit(2);
                }
            }
            for (Device device : List.of(Device.CPU, Device.CUDA)) shortTexts(spec.withDevice(device), new ArrayList<>(titles));
        }
    }

    /**
     * Short texts (the corpus's titles stand in for entity names): {@link EmbeddingService#embedEach}, which batches
     * texts of one token length when the model is batch-invariant, against one model call per text.
     */
    private static void shortTexts(ModelSpec spec, List<String> names) {
        try (EmbeddingModel model = EmbeddingModel.load(spec, s -> {})) {
            EmbeddingService service = new EmbeddingService(model, 0);
            service.embedEach(names.subList(0, Math.min(names.size(), 256)));
            long t0 = System.nanoTime();
            float[][] each = service.embedEach(names);
            long eachMs = (System.nanoTime() - t0) / 1_000_000;
            long t1 = System.nanoTime();
            double maxDiff = 0;
            for (int i = 0; i < names.size(); i++) {
                float[] alone = model.embedIds(new int[][] {model.tokenizer().encode(names.get(i), spec.maxLength())})[0];
                for (int d = 0; d < alone.length; d++) maxDiff = Math.max(maxDiff, Math.abs(alone[d] - each[i][d]));
            }
            long aloneMs = (System.nanoTime() - t1) / 1_000_000;
            System.out.printf(Locale.ROOT, "short texts %s on %s: %d titles | embedEach %d ms (%s) | one call per text %d ms | ratio %.1fx | "
                            + "max |difference| %.2e%n", spec.name(), model.device(), names.size(), eachMs,
                    model.batchInvariant() ? "batch-invariant: equal-length batches" : "not batch-invariant: one call per text",
                    aloneMs, (double) aloneMs / Math.max(1, eachMs), maxDiff);
        } catch (RuntimeException e) {
            System.out.println("short texts " + spec.name() + " on " + spec.device() + ": " + e.getMessage());
        }
    }

    static ModelSpec parseModel(String arg) {
        if (arg.equals("default")) return ModelSpec.defaults();
        String[] p = arg.split(",");
        if (p.length != 5) throw new IllegalArgumentException("--model wants name,onnxFile,tokenizerFile,cls|mean,maxLength; got " + arg);
        return new ModelSpec(p[0], p[1], p[2], Pooling.valueOf(p[3].toUpperCase(Locale.ROOT)), Integer.parseInt(p[4]), true,
                Device.AUTO, 0, 32);
    }

    private static void run(ModelSpec base, List<String> texts, List<Integer> batches) {
        long tokens = 0;
        try (EmbeddingModel probe = EmbeddingModel.load(base.withDevice(Device.CPU), s -> {})) {
            for (String t : texts) tokens += probe.tokenizer().encode(t, base.maxLength()).length;
        }
        System.out.printf(Locale.ROOT, "%nmodel %s: %d texts, %d tokens (mean %.0f)%n", base.name(), texts.size(), tokens,
                (double) tokens / texts.size());
        for (int batch : batches) {
            ModelSpec spec = withBatch(base, batch);
            Timed cpu = timed(spec.withDevice(Device.CPU), texts);
            Timed cuda = timed(spec.withDevice(Device.CUDA), texts);
            double minCos = 1, sumCos = 0;
            for (int i = 0; i < texts.size(); i++) {
                double c = EmbeddingService.cosine(cpu.vectors[i], cuda.vectors[i]);
                minCos = Math.min(minCos, c);
                sumCos += c;
            }
            System.out.printf(Locale.ROOT, "batch %4d | cpu %8.1f texts/s (%s ms) | cuda %8.1f texts/s (%s ms) | cuda/cpu %5.1fx | "
                            + "cosine(cpu,cuda) mean %.6f min %.6f | load cpu %d ms, cuda %d ms%n",
                    batch, cpu.textsPerSecond(texts.size()), cpu.runs(), cuda.textsPerSecond(texts.size()), cuda.runs(),
                    cuda.textsPerSecond(texts.size()) / cpu.textsPerSecond(texts.size()), sumCos / texts.size(), minCos,
                    cpu.loadMs, cuda.loadMs);
        }
    }

    private static ModelSpec withBatch(ModelSpec s, int batch) {
        return new ModelSpec(s.name(), s.model(), s.tokenizer(), s.pooling(), s.maxLength(), s.normalize(), s.device(), s.threads(), batch);
    }

    /** Load, one warm-up pass over a slice (allocator, kernel selection), then two timed passes over all texts. */
    private static Timed timed(ModelSpec spec, List<String> texts) {
        long t0 = System.nanoTime();
        try (EmbeddingModel model = EmbeddingModel.load(spec, line -> System.out.println("  " + line))) {
            long loadMs = (System.nanoTime() - t0) / 1_000_000;
            if (!model.device().equals(spec.device().name().toLowerCase(Locale.ROOT))) {
                throw new IllegalStateException("asked for " + spec.device() + " but the model runs on " + model.device());
            }
            EmbeddingService service = new EmbeddingService(model, 0);
            service.embedAll(texts.subList(0, Math.min(texts.size(), 4 * spec.batchSize())), false);
            float[][] vectors = null;
            long[] ms = new long[2];
            for (int r = 0; r < ms.length; r++) {
                long s = System.nanoTime();
                vectors = service.embedAll(texts, false);
                ms[r] = (System.nanoTime() - s) / 1_000_000;
            }
            return new Timed(vectors, ms, loadMs);
        }
    }

    private record Timed(float[][] vectors, long[] ms, long loadMs) {
        double textsPerSecond(int n) { return n * 1000.0 / Math.min(ms[0], ms[1]); }
        String runs() { return ms[0] + "/" + ms[1]; }
    }
}
