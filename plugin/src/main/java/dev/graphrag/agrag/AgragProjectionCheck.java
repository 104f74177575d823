package dev.graphrag.agrag;

import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/** Whether GDS can serve this corpus's PPR in the caller's transaction. */
final class AgragProjectionCheck {
    private AgragProjectionCheck() {}

    static boolean usable(Transaction tx, String corpus) {
        try (Result r = tx.execute("SHOW PROCEDURES YIELD name WHERE name = 'gds.pageRank.stream' RETURN count(*) AS n")) {
            if (((Number) r.next().get("n")).longValue() == 0) return false;
        }
        return AgragProjection.exists(tx, corpus);
    }
}
