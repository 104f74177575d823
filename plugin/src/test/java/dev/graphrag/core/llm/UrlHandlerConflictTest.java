package dev.graphrag.core.llm;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UrlHandlerConflictTest {
    static final String COMMON = "jar:file:/neo4j/lib/hadoop-common-3.5.0.jar", FLOOR = "jar:file:/neo4j/lib/parquet-floor-1.62.jar",
            WOODSTOX = "jar:file:/neo4j/lib/woodstox-core-7.1.jar";

    /** Resources by the jar they load from: the first jar that has one wins, as on a class path. */
    static Optional<String> detect(List<String> jars, boolean apoc) {
        Map<String, List<String>> has = Map.of(
                COMMON, List.of(UrlHandlerConflict.HADOOP_FILE_SYSTEM, UrlHandlerConflict.HADOOP_COMMON_ONLY),
                FLOOR, List.of(UrlHandlerConflict.HADOOP_FILE_SYSTEM),
                WOODSTOX, List.of(UrlHandlerConflict.WOODSTOX));
        return UrlHandlerConflict.detect(r -> jars.stream().filter(j -> has.get(j).contains(r)).findFirst().orElse(null),
                p -> apoc && p.equals(UrlHandlerConflict.APOC_PROVIDER));
    }

    @Test
    void onlyApocWithHadoopCommonButNoWoodstoxIsTheConflict() {
        Optional<String> conflict = detect(List.of(COMMON, FLOOR), true);
        assertTrue(conflict.isPresent(), "the closure of org.neo4j:neo4j with APOC");
        assertTrue(conflict.get().contains("lib/hadoop-common-*.jar") && conflict.get().contains("apoc-common"), conflict.get());
        assertEquals(Optional.empty(), detect(List.of(COMMON, FLOOR), false), "hadoop without APOC's handler is never initialised by a URL");
        assertEquals(Optional.empty(), detect(List.of(FLOOR), true), "parquet-floor's stub FileSystem initialises without woodstox");
        assertEquals(Optional.empty(), detect(List.of(FLOOR, COMMON), true), "the stub loads first, so hadoop-common's FileSystem never runs");
        assertEquals(Optional.empty(), detect(List.of(), true), "APOC without hadoop: its hdfs protocol is simply off");
        assertEquals(Optional.empty(), detect(List.of(COMMON, FLOOR, WOODSTOX), true), "hadoop with its dependencies initialises");
    }

    @Test
    void aResourceComesFromItsJar() throws Exception {
        assertEquals(COMMON, UrlHandlerConflict.origin(new java.net.URL(COMMON + "!/org/apache/hadoop/fs/FileSystem.class")));
        assertEquals("file:/classes/org/apache/hadoop/fs", UrlHandlerConflict.origin(new java.net.URL("file:/classes/org/apache/hadoop/fs/FileSystem.class")));
        assertEquals(null, UrlHandlerConflict.origin(null));
    }

    @Test
    void aLinkageErrorWithoutTheConflictIsNamedAsItIs() {
        // this test JVM has no APOC handler on its class path
        assertEquals(Optional.empty(), UrlHandlerConflict.detect());
        String msg = UrlHandlerConflict.explain(new NoClassDefFoundError("com/example/Missing"));
        assertTrue(msg.contains("NoClassDefFoundError: com/example/Missing"), msg);
    }
}
