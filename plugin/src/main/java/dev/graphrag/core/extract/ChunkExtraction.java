package dev.graphrag.core.extract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.Progress;
import dev.graphrag.core.RagException;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.llm.UnusableReply;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Per-chunk LLM extraction that survives interruption: each chunk's result is stored on its Chunk node (in a
 * property the method owns) together with the key it was made under (the model, say), committed every
 * {@code persistEvery} chunks. A re-run with the same key reuses stored results and calls the LLM only for the
 * chunks not done; another key (another model) extracts again. Up to {@code parallelism} chunks are in flight at
 * once (bounded further by the LLM client's server-wide permits). On a failure the results finished so far are
 * committed and the error names the chunk and says they are kept. What fails a run is {@link OnError}'s to say: by
 * default a chunk whose reply stays unusable after the repair turn (the model's content, {@link UnusableReply}) is
 * skipped, counted and retried by the next run, while an endpoint that fails (HTTP errors, timeouts) fails the run;
 * a model whose replies are unusable for four chunks in five fails it too ({@link #MIN_SKIPPED_TO_STOP}), since going on
 * would build an empty layer at full cost. Termination is checked before every chunk.
 */
public final class ChunkExtraction<T> {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What a failed chunk does to a build (config key {@code extractionErrors}): {@code FAIL} on any failure;
     * {@code SKIP_UNUSABLE} (the default) skips a chunk whose reply is unusable and fails on endpoint errors;
     * {@code SKIP} skips a chunk on any failure. A skipped chunk is counted and retried by the next run.
     */
    public enum OnError {
        FAIL, SKIP_UNUSABLE, SKIP;

        boolean skips(RuntimeException e) {
            return this == SKIP || (this == SKIP_UNUSABLE && e instanceof UnusableReply);
        }
    }

    /**
     * Under {@code SKIP_UNUSABLE}, the run stops once at least this many chunks were skipped and they are more than
     * four in five of the chunks tried: the model is not usable for this step (rag.llm.check says so before a build).
     * Below that the build goes on: a model that fails half the chunks still builds half a layer, and the next run
     * retries the rest.
     */
    public static final int MIN_SKIPPED_TO_STOP = 10;

    /** What a skipped chunk is counted as under its step in tokensByStep's fallbacks. */
    public static final String SKIPPED = "chunk skipped (retried next run)";

    /** A chunk to extract from. */
    public record Input(String chunkId, String text) {}

    /** One chunk's extraction: the value, its usage recorded in the meter. Methods supply it (prompt and parsing are theirs). */
    @FunctionalInterface
    public interface Extractor<T> {
        T extract(Input chunk, UsageMeter usage);
    }

    /** Where results live on the chunk: property names (identifiers owned by the method) and the encoding to a property value. */
    public record Store<T>(String resultProperty, String keyProperty, Function<T, Object> encode, Function<Object, T> decode) {
        private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

        public Store {
            if (!NAME.matcher(resultProperty).matches() || !NAME.matcher(keyProperty).matches()) {
                throw new IllegalArgumentException("store properties must be identifiers: " + resultProperty + ", " + keyProperty);
            }
        }

        /**
         * Values stored as JSON text. A stored value that no longer reads as {@code type} (written by an older release)
         * fails naming {@code namespace}'s drop, which clears the stored extractions with the layer.
         */
        public static <T> Store<T> json(String resultProperty, String keyProperty, Class<T> type, String namespace) {
            return new Store<>(resultProperty, keyProperty, v -> {
                try {
                    return JSON.writeValueAsString(v);
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException(e);
                }
            }, v -> {
                try {
                    return JSON.readValue((String) v, type);
                } catch (JsonProcessingException | ClassCastException e) {
                    String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
                    throw new RagException(namespace + ".index: a stored extraction cannot be read (" + why + "); " + namespace + ".drop and index again");
                }
            });
        }
    }

    /** What a run did: every chunk's value (reused or new), the chunks that failed (skipErrors), and what it cost. */
    public record Result<T>(Map<String, T> byChunk, List<String> failedChunks, int extracted, int reused, Usage usage) {}

    /** Settings of a run; {@code owner} prefixes errors and log lines ("agrag.index"). */
    public record Settings(String owner, String key, int parallelism, int persistEvery, OnError onError) {
        public Settings {
            if (parallelism < 1 || persistEvery < 1) throw new IllegalArgumentException("parallelism and persistEvery must be at least 1");
        }
    }

    private final GraphDatabaseService db;
    private final Store<T> store;
    private final Extractor<T> extractor;
    private final Settings settings;
    private final BooleanSupplier cancelled;
    private final Consumer<String> log;
    private Progress progress = Progress.NONE;

    /** Reports the extraction as a phase of the caller's job (chunks to extract, chunks done). */
    public ChunkExtraction<T> reportingTo(Progress p) {
        this.progress = p;
        return this;
    }

    public ChunkExtraction(GraphDatabaseService db, Store<T> store, Extractor<T> extractor, Settings settings, BooleanSupplier cancelled,
                           Consumer<String> log) {
        this.db = db;
        this.store = store;
        this.extractor = extractor;
        this.settings = settings;
        this.cancelled = cancelled;
        this.log = log;
    }

    /** An extractor asking the LLM for a typed output per chunk, under one step name. */
    public static <T> Extractor<T> structured(LlmClient llm, LlmConfig cfg, String step, Function<Input, List<Map<String, Object>>> prompt,
                                              StructuredOutput<T> output, BooleanSupplier cancelled) {
        return (chunk, usage) -> {
            LlmClient.Typed<T> t;
            try {
                t = llm.structured(cfg, ChatRequest.of(step, prompt.apply(chunk)), output, false, cancelled);
            } catch (UnusableReply e) {
                usage.unusable(e, null);
                throw e;
            }
            usage.add(step, t.response());
            return t.value();
        };
    }

    public Result<T> run(List<Input> chunks) {
        Map<String, T> out = new LinkedHashMap<>();
        List<Input> todo = new ArrayList<>();
        try (Transaction tx = db.beginTx()) {
            for (Input c : chunks) {
                Node n = tx.findNode(LexicalGraph.CHUNK, "id", c.chunkId());
                if (n != null && n.hasProperty(store.resultProperty()) && settings.key().equals(n.getProperty(store.keyProperty(), null))) {
                    out.put(c.chunkId(), store.decode().apply(n.getProperty(store.resultProperty())));
                } else {
                    todo.add(c);
                }
            }
        }
        int reused = out.size();
        progress.phase("extraction", todo.size());
        UsageMeter usage = new UsageMeter();
        List<String> failed = new ArrayList<>();
        Map<String, T> pending = new LinkedHashMap<>();
        int[] done = {0};
        ExecutorService pool = settings.parallelism() > 1 && todo.size() > 1 ? Executors.newFixedThreadPool(settings.parallelism(), r -> {
            Thread t = new Thread(r, "graphrag-extraction");
            t.setDaemon(true);
            return t;
        }) : null;
        try {
            List<Future<T>> futures = new ArrayList<>();
            if (pool != null) {
                for (Input c : todo) futures.add(pool.submit(() -> checkedExtract(c, usage)));
            }
            for (int i = 0; i < todo.size(); i++) {
                Input c = todo.get(i);
                T value;
                try {
                    value = pool == null ? checkedExtract(c, usage) : await(futures.get(i));
                } catch (RagException e) {
                    boolean stop = e.getMessage().contains("cancelled") || e.getMessage().contains("terminated") || !settings.onError().skips(e);
                    String why = null;
                    if (!stop && settings.onError() == OnError.SKIP_UNUSABLE && failed.size() + 1 >= MIN_SKIPPED_TO_STOP
                            && 5L * (failed.size() + 1) > 4L * (done[0] + failed.size() + 1)) {
                        stop = true;
                        why = "the model's replies were unusable for " + (failed.size() + 1) + " of " + (done[0] + failed.size() + 1)
                                + " chunks (rag.llm.check tells whether a model is good enough for this step; extractionErrors: 'skip' goes on regardless)";
                    }
                    if (stop) {
                        if (pool != null) pool.shutdownNow();
                        pending.putAll(finishedAfter(todo, futures, i));
                        persist(pending);
                        throw new RagException(settings.owner() + ": extraction failed for chunk " + c.chunkId() + " (the layer was not changed;"
                                + " results of the chunks done so far are kept for the next run): " + (why == null ? e.getMessage() : why + "; last: " + e.getMessage()));
                    }
                    failed.add(c.chunkId());
                    if (e instanceof UnusableReply u) usage.fallback(u.step(), SKIPPED);
                    log.accept(settings.owner() + ": chunk " + c.chunkId() + " got no extraction: " + e.getMessage());
                    continue;
                }
                out.put(c.chunkId(), value);
                pending.put(c.chunkId(), value);
                done[0]++;
                progress.advance(1);
                if (pending.size() >= settings.persistEvery()) {
                    persist(pending);
                    log.accept(settings.owner() + ": extraction " + done[0] + "/" + todo.size() + " chunks (" + reused + " reused)");
                }
            }
            persist(pending);
        } finally {
            if (pool != null) pool.shutdownNow();
        }
        return new Result<>(out, List.copyOf(failed), done[0], reused, usage.usage());
    }

    private T checkedExtract(Input c, UsageMeter usage) {
        if (cancelled.getAsBoolean()) throw new RagException(settings.owner() + ": terminated before chunk " + c.chunkId());
        return extractor.extract(c, usage);
    }

    private static <T> T await(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException("extraction interrupted (cancelled)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new RagException("extraction failed: " + e.getCause(), e.getCause());
        }
    }

    /** Results of later chunks that had already finished when one failed: paid-for work the next run reuses. */
    private static <T> Map<String, T> finishedAfter(List<Input> todo, List<Future<T>> futures, int failedIndex) {
        Map<String, T> out = new LinkedHashMap<>();
        for (int j = failedIndex + 1; j < futures.size(); j++) {
            Future<T> f = futures.get(j);
            if (!f.isDone() || f.isCancelled()) continue;
            try {
                out.put(todo.get(j).chunkId(), f.get());
            } catch (ExecutionException | InterruptedException e) {
                // that chunk failed too, or never ran: the next run extracts it
            }
        }
        return out;
    }

    /** Commits the pending results in one transaction; a chunk deleted meanwhile is skipped. */
    private void persist(Map<String, T> pending) {
        if (pending.isEmpty()) return;
        try (Transaction tx = db.beginTx()) {
            for (Map.Entry<String, T> e : pending.entrySet()) {
                Node n = tx.findNode(LexicalGraph.CHUNK, "id", e.getKey());
                if (n == null) continue;
                n.setProperty(store.resultProperty(), store.encode().apply(e.getValue()));
                n.setProperty(store.keyProperty(), settings.key());
            }
            tx.commit();
        }
        pending.clear();
    }
}
