package dev.graphrag.evaluation;

import dev.graphrag.evaluation.Evaluation;

/**
 * Evaluate every method with your own model (docs/evaluation.md#evaluate-with-your-own-model):
 * {@code mvn -B -q -pl evaluation exec:java -Dexec.args="--help"}.
 */
public final class Evaluate {
    private Evaluate() {}

    public static void main(String[] args) {
        int status = Evaluation.run(args, System.out, System.err);
        if (status != 0) System.exit(status);
    }
}
