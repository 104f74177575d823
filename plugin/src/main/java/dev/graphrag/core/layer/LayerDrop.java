package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;

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
    public record Step(String what, String cypher) {
        /**
         * The nodes of a layer label in the corpus, with their relationships. The label is the method's own constant,
         * never a caller's string, so it is safe in the statement text.
         */
        public static Step nodes(String what, Label label) {
            return new Step(what, "MATCH (n:" + label.name() + " {corpus: $corpus}) WITH n LIMIT $batch\n"
                    + "WITH n, COUNT { (n)--() } AS r DETACH DELETE n\n"
                    + "RETURN count(n) AS done, count(n) AS nodes, coalesce(sum(r), 0) AS relationships");
        }
    }

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
