package dev.graphrag.core.search;

import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Top-n nodes of one corpus from a cosine vector index that several corpora share. An index that filters by corpus
 * (calendar Neo4j lines, {@link VectorSearch}) answers in one SEARCH; otherwise the index is asked for n, and for
 * four times more each round while other corpora's nodes crowd the answer, until n are found, the index has no more
 * to give, or every node that could belong was found ({@code total}: how many nodes of the corpus the index holds at
 * most, asked for only when a second round is needed). A corpus count must never stop the widening by the size of a
 * fetch: other corpora's nodes take most of a fetch when the corpus is small beside them.
 */
public final class VectorIndexQuery {
    private VectorIndexQuery() {}

    /** Node to cosine, best first. */
    public static Map<Node, Double> topInCorpus(Transaction tx, String index, float[] qv, String corpus, int n, LongSupplier total) {
        Map<Node, Double> out = new LinkedHashMap<>();
        if (VectorSearch.filtersByCorpus(tx, index)) {
            // the index filters by corpus itself: one lookup, n of this corpus (VectorSearch)
            try (Result r = tx.execute(VectorSearch.searchQuery(index), Map.of("v", qv, "corpus", corpus, "n", (long) n))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    out.put((Node) row.get("node"), 2 * ((Number) row.get("score")).doubleValue() - 1);
                }
            }
            return out;
        }
        return widening(tx, "CALL db.index.vector.queryNodes($index, $n, $v) YIELD node AS hit, score RETURN hit, score", index, qv, n,
                (Node node) -> corpus.equals(node.getProperty(VectorSearch.CORPUS, null)), total);
    }

    /** Top-n nodes that {@code belongs} accepts (a metadata filter's chunks, say), widened as {@link #topInCorpus} is. */
    public static Map<Node, Double> topNodes(Transaction tx, String index, float[] qv, int n, Predicate<Node> belongs, LongSupplier total) {
        return widening(tx, "CALL db.index.vector.queryNodes($index, $n, $v) YIELD node AS hit, score RETURN hit, score", index, qv, n,
                belongs, total);
    }

    /**
     * Top-n relationships that {@code belongs} accepts from a relationship vector index that several corpora share,
     * relationship to cosine, best first; widened as {@link #topInCorpus} is on a server without filtered indexes.
     */
    public static Map<Relationship, Double> topRelationships(Transaction tx, String index, float[] qv, int n, Predicate<Relationship> belongs,
                                                             LongSupplier total) {
        return widening(tx, "CALL db.index.vector.queryRelationships($index, $n, $v) YIELD relationship AS hit, score RETURN hit, score",
                index, qv, n, belongs, total);
    }

    /** Asks for n hits, then four times more each round while others crowd the answer, until n belong or the index has no more. */
    private static <T> Map<T, Double> widening(Transaction tx, String call, String index, float[] qv, int n, Predicate<T> belongs, LongSupplier total) {
        Map<T, Double> out = new LinkedHashMap<>();
        long max = -1;
        for (int fetch = n; ; fetch *= 4) {
            out.clear();
            int seen = 0;
            try (Result r = tx.execute(call, Map.of("index", index, "n", fetch, "v", qv))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    seen++;
                    @SuppressWarnings("unchecked") T hit = (T) row.get("hit");
                    if (belongs.test(hit) && out.size() < n) {
                        out.put(hit, 2 * ((Number) row.get("score")).doubleValue() - 1); // (1 + cos) / 2 -> cos
                    }
                }
            }
            if (out.size() >= n || seen < fetch) return out;
            if (max < 0) max = total.getAsLong();
            if (out.size() >= max) return out;
        }
    }
}
