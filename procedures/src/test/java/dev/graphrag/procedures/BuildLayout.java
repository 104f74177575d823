package dev.graphrag.procedures;

import java.nio.file.Path;

/**
 * Where this build's outputs lie: each Neo4j line builds into its own directory (target for 5.26, target-neo4j-2026
 * for the calendar line; the parent pom's graphrag.build.dir), so the tests of one line never pick up the other's jar,
 * server lib/ or store files.
 */
final class BuildLayout {
    private BuildLayout() {}

    /** The build directory of {@code module} (a path relative to procedures/, the tests' working directory). */
    static Path of(String module) {
        return Path.of(module, System.getProperty("graphrag.build.dir", "target"));
    }

    /** This module's build directory. */
    static Path here() {
        return Path.of(System.getProperty("graphrag.build.dir", "target"));
    }

    /** The deployable jar's file name for this line. */
    static String pluginJarName() {
        String name = System.getProperty("graphrag.plugin.jar");
        if (name == null) throw new AssertionError("graphrag.plugin.jar is not set: run the tests through Maven (mvn -B verify)");
        return name;
    }
}
