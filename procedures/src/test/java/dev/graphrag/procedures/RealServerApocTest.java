package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Driver;
import org.neo4j.driver.Session;
import org.neo4j.driver.exceptions.ClientException;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plugin beside APOC's jars from Maven Central (apoc-core and apoc-common), in a real server. With lib/ as the
 * org.neo4j:neo4j closure has it (hadoop-common without its dependencies) APOC's URL handler breaks every HTTP call in
 * the JVM: the plugin must say so and name the fix, at start and on the failing call. Without hadoop-common, the
 * combination docs/operations.md documents, both plugins work: RealServerTest's server runs so on the 5.26 line
 * (besideApocWithoutHadoopCommonApocAndTheLlmCallBothWork). Tagged apoc: the calendar line has no APOC to test beside.
 */
@org.junit.jupiter.api.Tag("apoc")
class RealServerApocTest {
    static final Predicate<Path> WITHOUT_HADOOP_COMMON = jar -> !jar.getFileName().toString().startsWith("hadoop-common-");

    /** apoc-core and apoc-common as Maven Central has them (server-home/ copies them). */
    static List<Path> apocJars() throws java.io.IOException {
        try (java.util.stream.Stream<Path> jars = java.nio.file.Files.list(ServerHome.APOC)) {
            List<Path> out = jars.sorted().toList();
            assertEquals(2, out.size(), "apoc-common and apoc-core in " + ServerHome.APOC + ": " + out);
            return out;
        }
    }

    @Test
    void withHadoopCommonButNotItsDependenciesTheConflictIsNamedAtStartAndOnTheCall() throws Exception {
        try (StandInLlm llm = StandInLlm.start();
             ServerHome server = ServerHome.start(jar -> true, apocJars(), List.of("dbms.security.procedures.unrestricted=apoc.*"),
                     List.of("graphrag.llm.endpoint=" + llm.endpoint(), "graphrag.llm.model=stand-in"))) {
            assertTrue(server.log().contains("this JVM cannot open HTTP connections"), "the start warns: " + server.tail());
            try (Driver driver = server.driver(); Session session = driver.session()) {
                assertTrue(session.run("RETURN apoc.version() AS v").single().get("v").asString().startsWith("5.26"), "APOC itself loads");
                ClientException e = assertThrows(ClientException.class,
                        () -> session.run("CALL rag.llm.chat([{role: 'user', content: 'hi'}])").consume());
                assertTrue(e.getMessage().contains("lib/hadoop-common-*.jar") && e.getMessage().contains("apoc-common"), e.getMessage());
            }
            assertEquals(0, llm.requests().size(), "nothing reached the endpoint");
        }
    }

}
