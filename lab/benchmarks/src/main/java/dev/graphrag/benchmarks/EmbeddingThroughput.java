package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;

import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.embed.EmbeddingModel;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelSpec;
import dev.graphrag.core.embed.TextTokenizer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Model tokens a second of the embedding paths the builds use, against rag.embed.batch's (EmbeddingService.embedAll, all
 * texts at once, length-sorted batches) on the same texts in the same run (docs/benchmarks.md, layer embedding
 * throughput): texts cut from the 2Wiki passages to 8, 32, 128 and 512 model tokens, and a mixed set of all four; each
 * path the builds take (parts of 256, as hgmem.index took them until 2026-11-29; the batch-independent one text a call that
 * AGRAG's and ReMind's entity vectors need under an int8 model), each the faster of two runs.
 * <p>
 * {@code EmbeddingThroughput $DATA [--texts 256]}: the server's default model (graphrag.conf and GRAPHRAG_* apply).
 */
public final class EmbeddingThroughput {
    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        int perLength = args.option("--texts", 256);
        ModelSpec spec = GraphRagRuntime.modelSpec(PluginSettings.load(null, System.getenv()));
        List<Map<String, Object>> passages = CorpusFiles.read(args.data().resolve("2wikimultihopqa/2wikimultihopqa_corpus.json"));
        try (EmbeddingModel model = EmbeddingModel.load(spec, s -> {})) {
            EmbeddingService service = new EmbeddingService(model, 0);
            TextTokenizer tokenizer = model.tokenizer();
            Random random = new Random(20261129L);
            List<String> mixed = new ArrayList<>();
            StringBuilder report = new StringBuilder(String.format("%s on %s, %d texts a length%n%n", spec.name(), model.device(), perLength));
            report.append("| texts (model tokens each) | rag.embed.batch tok/s | parts of 256 | ratio | one text a call | ratio |\n|---|---|---|---|---|---|\n");
            service.embedAll(cut(passages, tokenizer, 64, 64, random), false); // warm-up
            for (int length : List.of(8, 32, 128, 512)) {
                List<String> texts = cut(passages, tokenizer, length, length == 512 ? perLength / 4 : perLength, random);
                mixed.addAll(texts);
                report.append(row(String.valueOf(length), texts, service, tokenizer, model.spec().maxLength()));
                System.out.print(report);
            }
            if (args.has("--explore")) explore(model, tokenizer, passages, random);
            Collections.shuffle(mixed, random);
            report.append(row("mixed, shuffled", mixed, service, tokenizer, model.spec().maxLength()));
            System.out.println();
            System.out.println(report);
        }
    }

    private static String row(String label, List<String> texts, EmbeddingService service, TextTokenizer tokenizer, int maxLength) {
        long tokens = 0;
        for (String t : texts) tokens += Math.min(maxLength, tokenizer.encode(t, maxLength).length);
        double batch = seconds(() -> service.embedAll(texts, false));
        double parts = seconds(() -> {
            for (int i = 0; i < texts.size(); i += 256) service.embedAll(texts.subList(i, Math.min(texts.size(), i + 256)), false);
        });
        double each = seconds(() -> service.embedEach(texts));
        return String.format("| %s | %.0f | %.0f | %.2f | %.0f | %.2f |%n", label, tokens / batch, tokens / parts, batch / parts, tokens / each, batch / each);
    }

    /** The faster of two runs: the first run of a new text length pays for the model's buffers of that shape. */
    private static double seconds(Runnable work) {
        double best = Double.POSITIVE_INFINITY;
        for (int run = 0; run < 2; run++) {
            long t = System.nanoTime();
            work.run();
            best = Math.min(best, (System.nanoTime() - t) / 1e9);
        }
        return best;
    }

    /** n texts of about {@code length} model tokens ([CLS] and [SEP] included): whole words of seeded passages. */
    static List<String> cut(List<Map<String, Object>> passages, TextTokenizer tokenizer, int length, int n, Random random) {
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            StringBuilder text = new StringBuilder();
            while (tokenizer.encode(text.toString(), 100_000).length < length) {
                String p = (String) passages.get(random.nextInt(passages.size())).get("text");
                for (String w : p.split("\\s+")) {
                    String next = text.length() == 0 ? w : text + " " + w;
                    if (tokenizer.encode(next, 100_000).length > length) break;
                    text.setLength(0);
                    text.append(next);
                }
                if (text.length() > 0 && tokenizer.encode(text.toString(), 100_000).length >= length - 2) break;
            }
            out.add(text.toString());
        }
        return out;
    }

    /** --explore: batch shapes straight on the model, to choose how the embedder batches (tokens a second). */
    static void explore(EmbeddingModel model, TextTokenizer tokenizer, List<Map<String, Object>> passages, Random random) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        System.out.println("| tokens | batch 32 | budget 512 | budget 2048 | budget 8192 | budget 2048, threads | one a call, threads |");
        for (int length : List.of(16, 64, 128, 256, 512)) {
            List<String> texts = cut(passages, tokenizer, length, length >= 256 ? 64 : 256, random);
            int[][] ids = new int[texts.size()][];
            long tokens = 0;
            for (int i = 0; i < ids.length; i++) {
                ids[i] = tokenizer.encode(texts.get(i), model.spec().maxLength());
                tokens += ids[i].length;
            }
            StringBuilder row = new StringBuilder("| " + length);
            for (int[] shape : new int[][] {{32, 0, 1}, {0, 512, 1}, {0, 2048, 1}, {0, 8192, 1}, {0, 2048, 0}, {1, 0, 0}}) {
                List<int[][]> batches = new ArrayList<>();
                int from = 0;
                while (from < ids.length) {
                    int to = from + 1;
                    while (to < ids.length && (shape[0] > 0 ? to - from < shape[0] : (long) (to - from + 1) * ids[to].length <= shape[1])) to++;
                    batches.add(java.util.Arrays.copyOfRange(ids, from, to));
                    from = to;
                }
                boolean threads = shape[2] == 0;
                double secs = seconds(() -> {
                    if (!threads) {
                        for (int[][] b : batches) model.embedIds(b);
                        return;
                    }
                    List<java.util.concurrent.Future<?>> f = new ArrayList<>();
                    for (int[][] b : batches) f.add(pool.submit(() -> model.embedIds(b)));
                    for (java.util.concurrent.Future<?> x : f) {
                        try {
                            x.get();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                });
                row.append(String.format(" | %.0f", tokens / secs));
            }
            System.out.println(row.append(" |"));
        }
        pool.shutdown();
    }
}
