package dev.graphrag.procedures;

import org.neo4j.procedure.TerminationGuard;

import java.util.function.BooleanSupplier;

/** The engine's cancellation hook from a procedure's TerminationGuard: true once the transaction is terminated. */
final class Termination {
    private Termination() {}

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
