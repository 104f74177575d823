package dev.graphrag.core.layer;

import dev.graphrag.core.Progress;
import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Write work of a layer build, committed every {@code size} operations (an entity, a fact, a chunk's edges) in a
 * transaction of its own, so a large build never holds one huge transaction. Termination is checked before each
 * commit: nothing more is written once the caller is terminated, and what a build wrote stays for its resume.
 */
public final class BatchWriter {
    private final GraphDatabaseService db;
    private final int size;
    private final BooleanSupplier cancelled;
    private final Progress progress;
    private final String owner;
    private final List<Consumer<Transaction>> ops = new ArrayList<>();

    public BatchWriter(GraphDatabaseService db, int size, BooleanSupplier cancelled, Progress progress, String owner) {
        this.db = db;
        this.size = Math.max(1, size);
        this.cancelled = cancelled;
        this.progress = progress;
        this.owner = owner;
    }

    public void run(Consumer<Transaction> op) {
        ops.add(op);
        if (ops.size() >= size) commit();
    }

    public void commit() {
        if (ops.isEmpty()) return;
        if (cancelled.getAsBoolean()) throw new RagException(owner + ": terminated while writing; run it again to finish");
        try (Transaction tx = db.beginTx()) {
            for (var op : ops) op.accept(tx);
            tx.commit();
        }
        progress.advance(ops.size());
        ops.clear();
    }
}
