package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Removes a method layer of one corpus in bounded transactions, whatever state a build left it in. Each step is a
 * statement that handles at most {@code $batch} items of corpus {@code $corpus} and returns how many it handled
 * ({@code done}) and how many nodes and relationships it deleted ({@code nodes}, {@code relationships}); it runs
 * until it handles nothing. A drop that is interrupted leaves a smaller layer that the next drop finishes.
 * Termination is checked between batches. Labels, types and properties in the statements are the methods' own
 * constants, never a caller's string. (The zero columns are aggregates, count(..) * 0: a literal next to an
 * aggregate would group, and give no row.)
 */
public final class LayerDrop {
    static final int BATCH = 2000;

    /** One kind of thing to delete, as a batched statement. */
    public record Step(String what, String cypher, int batch) {
        /** The nodes of a layer label in the corpus, with their relationships. */
        public static Step nodes(String what, Label label) {
            return new Step(what, "MATCH (n:" + LayerSchema.id(label.name()) + " {corpus: $corpus}) WITH n LIMIT $batch\n"
                    + "WITH n, COUNT { (n)--() } AS r DETACH DELETE n\n"
                    + "RETURN count(n) AS done, count(n) AS nodes, coalesce(sum(r), 0) AS relationships", BATCH);
        }

        /** Relationships of a type that start at the corpus's nodes of {@code from} (a layer's links out of the lexical graph). */
        public static Step relationships(String what, Label from, RelationshipType type) {
            return new Step(what, "MATCH (:" + LayerSchema.id(from.name()) + " {corpus: $corpus})-[r:" + LayerSchema.id(type.name()) + "]->()"
                    + " WITH r LIMIT $batch DELETE r\nRETURN count(r) AS done, count(r) * 0 AS nodes, count(r) AS relationships", BATCH);
        }

        /** Properties a layer keeps on the corpus's nodes of another layer (stored extractions on chunks); the first one marks the node. */
        public static Step properties(String what, Label on, String... properties) {
            String n = "MATCH (x:" + LayerSchema.id(on.name()) + " {corpus: $corpus}) WHERE x." + LayerSchema.id(properties[0]) + " IS NOT NULL WITH x LIMIT $batch\n";
            return new Step(what, n + "REMOVE " + Arrays.stream(properties).map(p -> "x." + LayerSchema.id(p)).collect(Collectors.joining(", "))
                    + " RETURN count(x) AS done, count(x) * 0 AS nodes, count(x) * 0 AS relationships", BATCH);
        }

        /** The corpus's meta node of a layer, deleted last. */
        static Step meta(Label meta) {
            return new Step("meta node", "MATCH (m:" + LayerSchema.id(meta.name()) + " {corpus: $corpus}) DELETE m"
                    + " RETURN count(m) AS done, count(m) AS nodes, count(m) * 0 AS relationships", BATCH);
        }

        /** The same statement in batches of {@code size}. */
        public Step inBatchesOf(int size) {
            return new Step(what, cypher, size);
        }
    }

    /** What a drop deleted; the row of every method's drop procedure. */
    public record Dropped(long nodesDeleted, long relationshipsDeleted) {}

    private LayerDrop() {}

    public static Dropped run(GraphDatabaseService db, String owner, String corpus, List<Step> steps, BooleanSupplier cancelled) {
        long nodes = 0, rels = 0;
        for (Step s : steps) {
            while (true) {
                if (cancelled.getAsBoolean()) {
                    throw new RagException(owner + ": terminated while deleting " + s.what() + "; run it again to finish (what is deleted stays deleted)");
                }
                long[] n = db.executeTransactionally(s.cypher(), Map.of("corpus", corpus, "batch", (long) s.batch()), r -> {
                    Map<String, Object> row = r.next();
                    return new long[] {((Number) row.get("done")).longValue(), ((Number) row.get("nodes")).longValue(),
                            ((Number) row.get("relationships")).longValue()};
                });
                nodes += n[1];
                rels += n[2];
                if (n[0] == 0) break;
            }
        }
        return new Dropped(nodes, rels);
    }
}
