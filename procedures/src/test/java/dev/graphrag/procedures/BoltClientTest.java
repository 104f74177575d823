package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.ClientException;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client's view: the official Java driver over Bolt, ingest then search. */
class BoltClientTest {
    @Test
    void ingestAndSearchOverBolt() {
        try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none());
             Session session = driver.session()) {
            List<Map<String, Object>> docs = List.of(
                    Map.of("id", "tharks", "text", "The Tharks are a horde of green Martians led by Tars Tarkas."),
                    Map.of("id", "helium", "text", "Helium is the twin city of the red Martians ruled by Tardos Mors."));
            List<Record> ingested = session.run("CALL rag.ingest($docs, {corpus: 'bolt'}) YIELD documentId, status RETURN documentId, status",
                    Values.parameters("docs", docs)).list();
            assertEquals(2, ingested.size());
            List<Record> hits = session.run("CALL rag.search($q, {corpus: 'bolt', k: 5}) YIELD rank, documentId, text, score RETURN *",
                    Values.parameters("q", "Who leads the green Martians?")).list();
            assertEquals(2, hits.size());
            assertEquals("tharks", hits.get(0).get("documentId").asString());
            assertTrue(hits.get(0).get("score").asDouble() > hits.get(1).get("score").asDouble());
            ClientException e = assertThrows(ClientException.class,
                    () -> session.run("CALL rag.search('x', {corpus: 'bolt', topK: 3})").consume());
            assertTrue(e.getMessage().contains("unknown config key 'topK'"), e.getMessage());
        }
    }

    /**
     * Nodes and relationships a procedure yields reach the client without their vectors (384 floats each), yet they
     * are the stored entities: same element ids, and Cypher still reads n.embedding from the store.
     */
    @Test
    void yieldedEntitiesLeaveTheirVectorsOutButStayTheStoredOnes() {
        try (Driver driver = GraphDatabase.driver(TestServer.get().boltURI(), AuthTokens.none());
             Session session = driver.session()) {
            List<Map<String, Object>> docs = List.of(
                    Map.of("id", "hawke", "title", "Ethan Hawke", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke starred in Sinister."),
                    Map.of("id", "sinister", "title", "Sinister", "text", "Sinister is a horror film directed by Scott Derrickson. Ethan Hawke plays a writer."));
            session.run("CALL rag.ingest($docs, {corpus: 'bolt_display'})", Values.parameters("docs", docs)).consume();
            session.run("CALL agrag.index({corpus: 'bolt_display', relations: 'cooccurrence'})").consume();
            Record r = session.run("CALL agrag.mcmi('Where was the star of Sinister born?', {corpus: 'bolt_display', filter: false}) YIELD nodes, relationships"
                    + " RETURN nodes, relationships, [n IN nodes | size(n.embedding)] AS dims,"
                    + " [n IN nodes | COUNT { MATCH (m) WHERE elementId(m) = elementId(n) AND m = n }] AS stored").single();
            List<org.neo4j.driver.types.Node> nodes = r.get("nodes").asList(v -> v.asNode());
            assertTrue(nodes.size() >= 3, "a subgraph: " + nodes.size());
            assertTrue(nodes.stream().anyMatch(n -> n.hasLabel("Chunk")) && nodes.stream().anyMatch(n -> !n.hasLabel("Chunk")), "chunks and entities");
            for (org.neo4j.driver.types.Node n : nodes) {
                assertTrue(!n.containsKey("embedding") && n.size() > 0, "no vector, other properties kept: " + n.keys());
                for (String k : n.keys()) assertTrue(!(n.get(k).asObject() instanceof List<?> l && l.size() >= 16 && l.get(0) instanceof Number), k);
            }
            assertTrue(nodes.stream().filter(n -> n.hasLabel("Chunk")).allMatch(n -> n.containsKey("text") && n.containsKey("id")));
            assertTrue(r.get("dims").asList(v -> v.asInt()).stream().filter(d -> d > 0).allMatch(d -> d == 384), "n.embedding still reads the stored vector");
            assertTrue(r.get("dims").asList(v -> v.asInt()).contains(384));
            assertTrue(r.get("stored").asList(v -> v.asInt()).stream().allMatch(c -> c == 1), "each yielded node is the stored node");
            assertTrue(!r.get("relationships").asList().isEmpty());
        }
    }
}
