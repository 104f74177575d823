package dev.graphrag.agrag;

import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.LayerWarmer;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Warms AGRAG corpora after a restart: the snapshot into the runtime's cache, and the GDS projection when GDS is there. */
public final class AgragWarmer implements LayerWarmer {
    @Override
    public String layer() {
        return AgragSnapshots.LAYER;
    }

    @Override
    public boolean enabled(GraphRagRuntime runtime) {
        return runtime.settings().get(AgragSettings.WARM_ON_START);
    }

    @Override
    public List<String> corpora(GraphDatabaseService db) {
        return db.executeTransactionally("MATCH (m:AgMeta) WHERE m.version IS NOT NULL RETURN m.corpus AS corpus ORDER BY corpus", Map.of(), r -> {
            List<String> out = new ArrayList<>();
            while (r.hasNext()) out.add((String) r.next().get("corpus"));
            return out;
        });
    }

    @Override
    public String warm(GraphDatabaseService db, String corpus, GraphRagRuntime runtime) {
        try (Transaction tx = db.beginTx()) {
            RagCall call = new RagCall(db, tx, runtime, m -> {}, () -> false, dev.graphrag.core.Progress.NONE);
            long[] snapshot = new AgragRetriever(call, null).warm(corpus);
            AgragProjection.Projected p = AgragProjection.project(tx, corpus);
            tx.commit();
            return snapshot[0] + " nodes, " + snapshot[1] + " relationships in memory; GDS projection " + (p == null ? "none (no GDS)" : p.graphName());
        }
    }
}
