package dev.graphrag.core;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.layer.LayerCache;
import dev.graphrag.core.layer.LayerDrop;
import dev.graphrag.core.layer.LayerSpec;
import dev.graphrag.core.lexical.Ingestor;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Everything one procedure call hands the engine, built once in the procedure class: the database (for work
 * committed in batches of its own) and the caller's transaction (for reads and work that must roll back with
 * it), the log, the caller's cancellation and where progress goes, and from the server's runtime only what a step
 * needs (the embedder, the LLM bound to the call's settings, the worker pool, the layer cache, the layer locks).
 * Engine classes take this instead of long argument lists with nulls.
 */
public final class RagCall {
    /** The LLM client and the call's resolved configuration, bound together. */
    public record BoundLlm(LlmClient client, LlmConfig config) {}

    private final GraphDatabaseService db;
    private final Transaction tx;
    private final GraphRagRuntime runtime;
    private final Consumer<String> log;
    private final BooleanSupplier cancelled;
    private final Progress progress;

    public RagCall(GraphDatabaseService db, Transaction tx, GraphRagRuntime runtime, Consumer<String> log, BooleanSupplier cancelled, Progress progress) {
        this.db = db;
        this.tx = tx;
        this.runtime = runtime;
        this.log = log;
        this.cancelled = cancelled;
        this.progress = progress;
    }

    public GraphDatabaseService db() {
        return db;
    }

    /** The caller's transaction. */
    public Transaction tx() {
        return tx;
    }

    public Consumer<String> log() {
        return log;
    }

    /** True once the caller's transaction is terminated. */
    public BooleanSupplier cancelled() {
        return cancelled;
    }

    public Progress progress() {
        return progress;
    }

    /** The server's shared worker pool (for stages that read no transaction). */
    public ExecutorService executor() {
        return runtime.executor();
    }

    /** The server's cache of method layers' in-memory state, keyed by what the graph records. */
    public LayerCache layerCache() {
        return runtime.layerCache();
    }

    public String database() {
        return db.databaseName();
    }

    public EmbeddingService embeddings() {
        return runtime.embeddings();
    }

    /** {@link #llm} when the server has an LLM or the call names one; null otherwise (the method says what is missing, if anything). */
    /** The server's reranker for a call that asked for one (an error naming the settings when there is none). */
    public dev.graphrag.core.search.Reranker reranker(String owner) {
        return runtime.reranker(owner);
    }

    public BoundLlm llmIfConfigured(Map<String, Object> perCall, String owner) {
        return runtime.llmConfigured() || perCall != null ? llm(perCall, owner) : null;
    }

    /** The server's LLM under the call's {@code llm} map (errors name the owner); for procedures that need an LLM. */
    public BoundLlm llm(Map<String, Object> perCall, String owner) {
        return new BoundLlm(runtime.llm(), runtime.llmConfig(perCall, owner));
    }

    /** The lexical graph's writer for this call; {@code embeddings} null where nothing is embedded (rag.delete). */
    public Ingestor ingestor(EmbeddingService embeddings) {
        return new Ingestor(db, embeddings, log, cancelled, progress, runtime.executor());
    }

    /**
     * A layer build as a job of rag.progress(), run while no other build or drop of the corpus's {@code layer} runs on
     * this member (it waits for one that does); {@code work} gets the call reporting into the job.
     */
    public <T> T build(String layer, String owner, String corpus, Function<RagCall, T> work) {
        try (var job = runtime.jobs().start(owner, database(), corpus)) {
            job.phase("waiting for another build", 0);
            RagCall c = reportingTo(job);
            return runtime.layerLocks().exclusive(database(), corpus, layer, owner, cancelled, log, () -> work.apply(c));
        }
    }

    /** Drops a corpus's layer ({@link LayerSpec#drop}) while no build of it runs on this member; the row of its drop procedure. */
    public LayerDrop.Dropped dropLayer(LayerSpec layer, String corpus) {
        return exclusive(layer.namespace(), layer.namespace() + ".drop", corpus, () -> {
            // a layer's in-memory state (AGRAG's snapshot) goes with it, before (no query reads a layer going away) and after
            runtime.layerCache().invalidate(database(), corpus, layer.namespace());
            LayerDrop.Dropped dropped = layer.drop(db, corpus, cancelled);
            runtime.layerCache().invalidate(database(), corpus, layer.namespace());
            return dropped;
        });
    }

    /** {@code work} while no build or drop of the corpus's {@code layer} runs on this member. */
    public <T> T exclusive(String layer, String owner, String corpus, Supplier<T> work) {
        return runtime.layerLocks().exclusive(database(), corpus, layer, owner, cancelled, log, work);
    }

    /** The same call reporting into a job of rag.progress(). */
    public RagCall reportingTo(Progress p) {
        return new RagCall(db, tx, runtime, log, cancelled, p);
    }
}
