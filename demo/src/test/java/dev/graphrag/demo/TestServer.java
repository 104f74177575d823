package dev.graphrag.demo;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.harness.Neo4j;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One embedded Neo4j per test JVM (Bolt on a free port for the driver test, HTTP off). */
public final class TestServer {
    private static Neo4j neo4j;
    /** A shared server's policy, not the demo's: callers may name the stand-in LLMs on 127.0.0.1 and nothing else. */
    static final Map<String, String> SETTINGS = Map.of("graphrag.llm.allowedEndpoints", "http://127.0.0.1:*/v1");

    private TestServer() {}

    public static synchronized Neo4j get() {
        if (neo4j == null) {
            try {
                Path work = Files.createDirectories(Path.of("target", "neo4j-test"));
                neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, null, "127.0.0.1", 0, -1, SETTINGS));
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(neo4j::close));
        }
        return neo4j;
    }

    public static GraphDatabaseService db() {
        return get().defaultDatabaseService();
    }

    public static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return db().executeTransactionally(cypher, params, r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            while (r.hasNext()) out.add(r.next());
            return out;
        });
    }

    public static List<Map<String, Object>> rows(String cypher) {
        return rows(cypher, Map.of());
    }

    public static long count(String cypher, Map<String, Object> params) {
        return ((Number) rows(cypher, params).get(0).values().iterator().next()).longValue();
    }

    /** Node and relationship counts and a property checksum: equal before and after means nothing was written. */
    public static List<Object> fingerprint() {
        return List.of(count("MATCH (n) RETURN count(n)", Map.of()), count("MATCH ()-[r]->() RETURN count(r)", Map.of()),
                count("MATCH (n) RETURN count(keys(n))", Map.of()), rows("SHOW INDEXES YIELD name RETURN collect(name) AS n").get(0).get("n"));
    }

    /** Runs a statement that must fail with a message containing every fragment, and must leave the graph as it was. */
    public static String assertFailsCleanly(String cypher, Map<String, Object> params, String... fragments) {
        List<Object> before = fingerprint();
        QueryExecutionException e = assertThrows(QueryExecutionException.class, () -> rows(cypher, params));
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "message lacks '" + f + "': " + e.getMessage());
        assertEquals(before, fingerprint(), "a failing call changed the graph");
        return e.getMessage();
    }
}
