package dev.graphrag.procedures;

import java.util.Arrays;
import java.util.List;

/**
 * The JIT flags of the test JVMs (the parent pom's graphrag.test.jit), for the JVMs the tests start themselves: a
 * killable server, an evaluation run, a real Neo4j server. The suite is made of short JVMs on two cores, where the
 * optimising compiler's warm-up costs more than it saves; children that pay the same warm-up get the same flags.
 */
public final class TestJvm {
    private TestJvm() {}

    /** The flags, one element each; empty when the property is unset or blank (a run outside Maven). */
    public static List<String> jitFlags() {
        String flags = System.getProperty("graphrag.test.jit", "").strip();
        return flags.isEmpty() ? List.of() : Arrays.asList(flags.split("\\s+"));
    }
}
