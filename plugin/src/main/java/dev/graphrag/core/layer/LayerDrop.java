package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;

import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Removes a method layer of one corpus in bounded transactions, whatever state a build left it in. Each step is a
 * statement that handles at most {@code $batch} items of corpus {@code $corpus} and returns how many it handled
 * ({@code done}) and how many nodes and relationships it deleted ({@code nodes}, {@code relationships}); it runs
 * until it handles nothing. A drop that is
 * interrupted leaves a smaller layer that the next drop finishes. Termination is checked between batches.
 */
public final class LayerDrop {
    /** One kind of thing to delete, as a batched statement. */
    public record Step(String what, String cypher) {}

    public record Counts(long nodes, long relationships) {}

    private LayerDrop() {}

    public static Counts run(GraphDatabaseService db, String owner, String corpus, List<Step> steps, int batch, BooleanSupplier cancelled) {
        long nodes = 0, rels = 0;
        for (Step s : steps) {
            while (true) {
                if (cancelled.getAsBoolean()) {
                    throw new RagException(owner + ": terminated while deleting " + s.what() + "; run it again to finish (what is deleted stays deleted)");
                }
                long[] n = db.executeTransactionally(s.cypher(), Map.of("corpus", corpus, "batch", (long) batch), r -> {
                    Map<String, Object> row = r.next();
                    return new long[] {((Number) row.get("done")).longValue(), ((Number) row.get("nodes")).longValue(),
                            ((Number) row.get("relationships")).longValue()};
                });
                nodes += n[1];
                rels += n[2];
                if (n[0] == 0) break;
            }
        }
        return new Counts(nodes, rels);
    }
}
