package dev.graphrag.core.lexical;

import dev.graphrag.core.RagException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;
import org.neo4j.graphdb.schema.Schema;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates the plugin's named constraints and indexes when they are missing and waits for its own indexes to come
 * online. Idempotent, and it mends what an interrupted setup leaves: a uniqueness constraint is made by building its
 * index first, so a server stopped in between can keep an index with the constraint's name and no constraint (seen
 * stuck POPULATING across restarts). Such an index is dropped and the constraint created again; without that, a check
 * by name alone would take the constraint for made and the layer would never get it.
 */
public final class SchemaSetup {
    /** How long a setup waits for its indexes; a large corpus's first vector index takes minutes to populate. */
    static final Duration WAIT = Duration.ofMinutes(5);

    private SchemaSetup() {}

    /** What a name stands for in the schema now. */
    enum Found { NOTHING, CONSTRAINT, INDEX }

    /** Runs each named statement whose object is missing, mending orphan constraint indexes; returns the names created. */
    public static synchronized List<String> ensure(GraphDatabaseService db, Map<String, String> statements) {
        List<String> created = new ArrayList<>();
        for (Map.Entry<String, String> s : statements.entrySet()) {
            String name = s.getKey();
            Found found = find(db, name);
            if (found == Found.INDEX && isConstraint(s.getValue())) {
                dropIndex(db, name);
                found = Found.NOTHING;
            }
            if (found != Found.NOTHING) continue;
            try {
                db.executeTransactionally(s.getValue());
                created.add(name);
            } catch (RuntimeException e) {
                // another member (or a concurrent first call) made it first
                if (find(db, name) == Found.NOTHING) throw e;
            }
        }
        awaitOnline(db, List.copyOf(statements.keySet()), WAIT);
        return created;
    }

    static boolean isConstraint(String statement) {
        return statement.stripLeading().toUpperCase(java.util.Locale.ROOT).startsWith("CREATE CONSTRAINT");
    }

    static Found find(GraphDatabaseService db, String name) {
        try (Transaction tx = db.beginTx()) {
            for (var c : tx.schema().getConstraints()) if (c.getName().equals(name)) return Found.CONSTRAINT;
            for (var i : tx.schema().getIndexes()) if (i.getName().equals(name)) return Found.INDEX;
            return Found.NOTHING;
        }
    }

    private static void dropIndex(GraphDatabaseService db, String name) {
        try (Transaction tx = db.beginTx()) {
            tx.schema().getIndexByName(name).drop();
            tx.commit();
        }
    }

    /**
     * Waits until every index among {@code names} is online (a constraint's index carries the constraint's name). Other
     * indexes of the database are not waited for: a user's index still populating is not this setup's business. A failed
     * index or a timeout is an error that names each index not online, with its state.
     */
    static void awaitOnline(GraphDatabaseService db, List<String> names, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Map<String, String> pending = new LinkedHashMap<>();
            boolean failed = false;
            try (Transaction tx = db.beginTx()) {
                Schema schema = tx.schema();
                for (IndexDefinition index : schema.getIndexes()) {
                    if (!names.contains(index.getName())) continue;
                    Schema.IndexState state = schema.getIndexState(index);
                    if (state == Schema.IndexState.ONLINE) continue;
                    failed |= state == Schema.IndexState.FAILED;
                    pending.put(index.getName(), state == Schema.IndexState.FAILED ? "FAILED: " + schema.getIndexFailure(index)
                            : state + String.format(java.util.Locale.ROOT, " %.1f%%", schema.getIndexPopulationProgress(index).getCompletedPercentage()));
                }
            }
            if (pending.isEmpty()) return;
            if (failed || System.nanoTime() - deadline >= 0) throw new RagException(notOnline(pending, wait, failed));
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RagException("interrupted while waiting for indexes " + pending.keySet() + " to come online");
            }
        }
    }

    /** The error for indexes that did not come online: each by name with its state, and what to do. */
    static String notOnline(Map<String, String> pending, Duration wait, boolean failed) {
        StringBuilder b = new StringBuilder(failed ? "index setup failed: " : "indexes not online after " + wait.toSeconds() + " s: ");
        int i = 0;
        for (Map.Entry<String, String> e : pending.entrySet()) b.append(i++ == 0 ? "" : ", ").append(e.getKey()).append(" (").append(e.getValue()).append(')');
        b.append(failed ? "; drop the failed index (DROP INDEX name) and call again: setup creates it anew"
                : "; SHOW INDEXES shows their progress; call again once they are online (setup is idempotent)");
        return b.toString();
    }
}
