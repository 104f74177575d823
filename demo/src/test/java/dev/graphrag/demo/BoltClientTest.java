package dev.graphrag.demo;

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
}
