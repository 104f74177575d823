package dev.graphrag.agrag;

import dev.graphrag.core.embed.QueryCosines;
import dev.graphrag.core.embed.VectorMatrix;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.search.VectorIndexQuery;
import dev.graphrag.core.search.VectorSearch;
import org.neo4j.graphdb.Transaction;

/**
 * A query's cosines to the snapshot's chunks and facts, from where AgragQueryConfig.Lookup says: a scan of the
 * snapshot's vectors, its k-means cells, or the vector indexes (an index not online is scanned instead).
 */
final class CosineLookup {
    private final Transaction tx;

    CosineLookup(Transaction tx) {
        this.tx = tx;
    }

    /** The chunks' cosines: scanned, or from the cells or the chunk index when the corpus is large (AgragQueryConfig.Lookup). */
    QueryCosines dense(AgragSnapshot g, float[] q, AgragQueryConfig cfg) {
        AgragQueryConfig.Lookup.Source source = cfg.lookup().source(g.chunkVectors.distinctCount());
        if (source == AgragQueryConfig.Lookup.Source.INDEX && !VectorSearch.online(tx, LexicalGraph.VECTOR_INDEX)) source = AgragQueryConfig.Lookup.Source.SCAN;
        return candidatesOrScan(g.chunkVectors, q, source, Math.max(cfg.lookup().indexCandidates(), cfg.ranking().k()), cfg.lookup().cellProbes(),
                (v, n) -> chunkRows(g, v, n));
    }

    /** Where the facts' best rows come from (AgragQueryConfig.Lookup): an index that is not online is scanned instead. */
    AgragQueryConfig.Lookup.Source factSource(AgragSnapshot g, AgragQueryConfig cfg) {
        AgragQueryConfig.Lookup.Source source = cfg.lookup().source(g.factVectors.distinctCount());
        return source == AgragQueryConfig.Lookup.Source.INDEX && !VectorSearch.online(tx, AgragGraph.FACT_INDEX) ? AgragQueryConfig.Lookup.Source.SCAN : source;
    }

    /** The facts' cosines from the source (its candidates at least factTopK). Only the index source reads the transaction. */
    QueryCosines factCosines(AgragSnapshot g, float[] q, AgragQueryConfig cfg, AgragQueryConfig.Lookup.Source source) {
        return candidatesOrScan(g.factVectors, q, source, Math.max(cfg.lookup().indexCandidates(), cfg.facts().factTopK()), cfg.lookup().cellProbes(),
                (v, n) -> factRows(g, v, n));
    }

    /**
     * A matrix's cosines: scanned; or its n best candidates re-scored, from the matrix's cells ({@code probes} nearest)
     * or from {@code indexRows} (an index's n nearest rows to a vector). Candidates that are none of the corpus's rows
     * (an index still populating) are no ranking, so that is scanned too.
     */
    static QueryCosines candidatesOrScan(VectorMatrix m, float[] q, AgragQueryConfig.Lookup.Source source, int n, int probes,
                                                 java.util.function.BiFunction<float[], Integer, int[]> indexRows) {
        java.util.function.BiFunction<float[], Integer, int[]> rows = switch (source) {
            case SCAN -> null;
            case CELLS -> (v, k) -> m.cells().nearestRows(v, k, probes);
            case INDEX -> indexRows;
        };
        if (rows == null) return QueryCosines.scan(m, q);
        int[] hits = rows.apply(q, n);
        return hits.length == 0 ? QueryCosines.scan(m, q) : QueryCosines.fromIndex(m, q, hits, rows.apply(negated(q), LOWEST_PROBES));
    }

    /** How many of the rows least like the query the index is asked for, for the cosine range's floor. */
    static final int LOWEST_PROBES = 10;

    int[] chunkRows(AgragSnapshot g, float[] q, int n) {
        return VectorIndexQuery.topInCorpus(tx, LexicalGraph.VECTOR_INDEX, q, g.corpus, n, g::chunkCount).keySet().stream()
                .mapToInt(g::chunkRow).filter(c -> c >= 0).toArray();
    }

    int[] factRows(AgragSnapshot g, float[] q, int n) {
        // the widening stops once every fact of the snapshot is found
        return VectorIndexQuery.topRelationships(tx, AgragGraph.FACT_INDEX, q, n, r -> g.factRow(r.getId()) >= 0, () -> g.factVectors.size()).keySet().stream()
                .mapToInt(r -> g.factRow(r.getId())).toArray();
    }

    static float[] negated(float[] q) {
        float[] out = new float[q.length];
        for (int i = 0; i < q.length; i++) out[i] = -q[i];
        return out;
    }
}
