package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A restart loses GDS projections; the warm-up extension re-creates them (and loads the snapshot) on its own. */
class AgragRestartTest {
    @Test
    void afterARestartTheProjectionComesBackWithoutAQuery(@TempDir Path tmp) throws Exception {
        Path data = tmp.resolve("data");
        Neo4j first = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(tmp.resolve("run1"), data, "127.0.0.1", -1, -1));
        try {
            GraphDatabaseService db = first.defaultDatabaseService();
            db.executeTransactionally("CALL rag.ingest($docs, {corpus: 'agrestart'})", Map.of("docs", AgragProceduresTest.DOCS), r -> r.stream().count());
            db.executeTransactionally("CALL agrag.index({corpus: 'agrestart', relations: 'cooccurrence'})", Map.of(), r -> r.stream().count());
            assertTrue(projected(db));
            // GDS's catalog is per JVM, so drop the projection as a process restart would lose it
            db.executeTransactionally("CALL gds.graph.drop('agrag_agrestart')", Map.of(), r -> r.stream().count());
            assertTrue(!projected(db));
        } finally {
            first.close();
        }
        Neo4j second = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(tmp.resolve("run2"), data, "127.0.0.1", -1, -1));
        try {
            GraphDatabaseService db = second.defaultDatabaseService();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!projected(db) && System.nanoTime() < deadline) Thread.sleep(200);
            assertTrue(projected(db), "the warm-up re-created agrag_agrestart");
            Object chunks = db.executeTransactionally("CALL agrag.info({corpus: 'agrestart'}) YIELD chunks RETURN chunks", Map.of(),
                    r -> r.next().get("chunks"));
            assertEquals(4L, chunks);
        } finally {
            second.close();
        }
    }

    static boolean projected(GraphDatabaseService db) {
        return (Boolean) db.executeTransactionally("CALL agrag.info({corpus: 'agrestart'}) YIELD projected RETURN projected", Map.of(),
                r -> r.next().get("projected"));
    }
}
