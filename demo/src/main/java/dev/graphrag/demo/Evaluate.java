package dev.graphrag.demo;

import dev.graphrag.demo.evaluate.Evaluation;

/**
 * Evaluate every method with your own model (docs/evaluation.md#evaluate-with-your-own-model):
 * {@code mvn -B -q -pl demo exec:java -Ddemo.main=dev.graphrag.demo.Evaluate -Dexec.args="--help"}.
 */
public final class Evaluate {
    private Evaluate() {}

    public static void main(String[] args) {
        int status = Evaluation.run(args, System.out, System.err);
        if (status != 0) System.exit(status);
    }
}
