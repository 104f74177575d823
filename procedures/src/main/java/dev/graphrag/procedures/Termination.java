package dev.graphrag.procedures;

import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.Progress;
import dev.graphrag.core.RagCall;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.TerminationGuard;

import java.util.function.BooleanSupplier;

/**
 * The engine's cancellation hook from a procedure's TerminationGuard (true once the transaction is terminated), and
 * the per-call context built from a procedure's injected fields.
 */
final class Termination {
    private Termination() {}

    /** The engine's view of one procedure call. */
    static RagCall call(GraphDatabaseService db, Transaction tx, GraphRagRuntime rag, Log log, TerminationGuard guard) {
        return new RagCall(db, tx, rag, log::info, of(guard), Progress.NONE);
    }

    static BooleanSupplier of(TerminationGuard guard) {
        return () -> {
            try {
                guard.check();
                return false;
            } catch (RuntimeException e) {
                return true;
            }
        };
    }
}
