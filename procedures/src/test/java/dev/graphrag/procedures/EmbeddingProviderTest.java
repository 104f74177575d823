package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.harness.Neo4j;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server whose graphrag.conf sets graphrag.embedding.provider=openai, as an administrator with an Ollama or TEI
 * for embeddings sets it up: its own server (the shared one embeds in process), its vectors from the stand-in's
 * /v1/embeddings (a bag-of-words vector per text, 64 dimensions).
 */
class EmbeddingProviderTest {
    static final String KEY = "sk-embed-SECRET-4242";
    static final StandInLlm EMBEDDINGS = StandInLlm.start();
    static Neo4j neo4j;

    @BeforeAll
    static void start(@TempDir Path dir) {
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, "127.0.0.1", -1, -1, Map.of(
                "graphrag.embedding.provider", "openai", "graphrag.embedding.endpoint", EMBEDDINGS.endpoint(),
                "graphrag.embedding.model", "stand-in-embed", "graphrag.embedding.apiKey", KEY,
                "graphrag.embedding.maxRetries", "0", "graphrag.embedding.batchSize", "4")));
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) neo4j.close();
        EMBEDDINGS.close();
    }

    @BeforeEach
    void noFaults() {
        EMBEDDINGS.reset();
    }

    static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return neo4j.defaultDatabaseService().executeTransactionally(cypher, params, r -> r.stream().toList());
    }

    static long count(String cypher, Map<String, Object> params) {
        return ((Number) rows(cypher, params).get(0).values().iterator().next()).longValue();
    }

    static final List<Map<String, Object>> DOCS = List.of(
            Map.of("id", "carter", "title", "John Carter", "text", "John Carter fought beside Tars Tarkas on Barsoom. John Carter later married Dejah Thoris, the princess of Helium."),
            Map.of("id", "helium", "title", "Helium (Barsoom)", "text", "Helium is a city on Barsoom. Dejah Thoris is the granddaughter of Tardos Mors, the jeddak of Helium."),
            Map.of("id", "tharks", "title", "Tars Tarkas", "text", "Tars Tarkas is the jeddak of the Tharks. The Tharks are green Martians who live on Barsoom."),
            Map.of("id", "xodar", "title", "Xodar", "text", "Xodar is a dator of the First Born. Issus gave Xodar to John Carter as a slave after Carter defeated Xodar."));

    @Test
    void ingestSearchAndAgragRunOnTheEndpointsVectors() {
        rows("CALL rag.ingest($docs, {corpus: 'remote'})", Map.of("docs", DOCS));
        Map<String, Object> info = rows("CALL rag.info()", Map.of()).get(0);
        assertEquals("stand-in-embed", info.get("model"));
        assertEquals(64L, info.get("dimensions"));
        assertEquals("remote " + EMBEDDINGS.endpoint().replace("/v1", ""), info.get("device"));
        assertFalse(info.toString().contains(KEY));
        assertEquals(0, count("MATCH (c:Chunk {corpus: 'remote'}) WHERE size(c.embedding) <> 64 RETURN count(c)", Map.of()));
        assertEquals("stand-in-embed", rows("MATCH (c:RagCorpus {name: 'remote'}) RETURN c.embeddingModel AS m", Map.of()).get(0).get("m"));
        assertEquals(64L, count("SHOW VECTOR INDEXES YIELD name, options WHERE name = 'rag_chunk_embedding'"
                + " RETURN options.indexConfig['vector.dimensions'] AS d", Map.of()));
        List<StandInLlm.Request> sent = EMBEDDINGS.requests().stream().filter(r -> r.path().equals("/v1/embeddings")).toList();
        assertFalse(sent.isEmpty());
        for (StandInLlm.Request r : sent) {
            assertEquals("Bearer " + KEY, r.authorization());
            assertEquals("stand-in-embed", r.body().path("model").asText());
            assertTrue(r.body().path("input").size() <= 4, "graphrag.embedding.batchSize texts a request at most");
        }

        // the stand-in's vectors share coordinates where texts share words: the Xodar passage is the nearest
        List<Map<String, Object>> hits = rows("CALL rag.search('Who gave Xodar to John Carter as a slave?', {corpus: 'remote', mode: 'dense', k: 2})"
                + " YIELD documentId RETURN documentId", Map.of());
        assertEquals("xodar", hits.get(0).get("documentId"));

        // a method's layer embeds entity names and facts through the same endpoint
        Map<String, Object> stats = rows("CALL agrag.index({corpus: 'remote', relations: 'cooccurrence'})", Map.of()).get(0);
        assertEquals(0L, stats.get("llmCalls"));
        assertEquals(0, count("MATCH (:AgEntity {corpus: 'remote'})-[r:AG_REL]->() WHERE size(r.embedding) <> 64 RETURN count(r)", Map.of()));
        List<Map<String, Object>> found = rows("CALL agrag.retrieve('Who gave Xodar to John Carter as a slave?', {corpus: 'remote', k: 2})"
                + " YIELD chunkId RETURN chunkId", Map.of());
        assertTrue(found.stream().anyMatch(r -> ((String) r.get("chunkId")).startsWith("remote:xodar:")), found.toString());
    }

    @Test
    void anEndpointThatFailsMidIngestLeavesWholeDocumentsAndARerunFinishesWithoutDuplicates() {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            docs.add(Map.of("id", "d" + i, "text", ("Document " + i + " tells of the city number " + i + " on Barsoom and its jeddak. ").repeat(3)));
        }
        Map<String, Object> cfg = Map.of("corpus", "resume", "batchSize", 6L);
        // the batch that holds document 14 fails, as an endpoint that goes down would
        EMBEDDINGS.onEmbeddings(r -> r.body().path("input").toString().contains("Document 14 ")).status(503);
        QueryExecutionException e = assertThrows(QueryExecutionException.class,
                () -> rows("CALL rag.ingest($docs, $cfg)", Map.of("docs", docs, "cfg", cfg)));
        assertTrue(e.getMessage().contains("embedding request 'embeddings' failed") && e.getMessage().contains("HTTP 503"), e.getMessage());
        assertFalse(e.getMessage().contains(KEY));
        Matcher m = Pattern.compile("(\\d+) of 24 documents are committed \\(a rerun skips them\\)").matcher(e.getMessage());
        assertTrue(m.find(), e.getMessage());
        long committed = Long.parseLong(m.group(1));
        assertTrue(committed > 0 && committed < 24, "some batches were written before the failure: " + committed);
        assertEquals(committed, count("MATCH (d:Document {corpus: 'resume'}) RETURN count(d)", Map.of()));
        // every committed document is whole: its chunks, each with a vector
        assertEquals(0, count("MATCH (d:Document {corpus: 'resume'}) WHERE COUNT { (d)-[:HAS_CHUNK]->(:Chunk) } <> d.chunkCount RETURN count(d)", Map.of()));
        assertEquals(0, count("MATCH (c:Chunk {corpus: 'resume'}) WHERE c.embedding IS NULL RETURN count(c)", Map.of()));

        EMBEDDINGS.reset(); // the endpoint is back
        List<Map<String, Object>> rerun = rows("CALL rag.ingest($docs, $cfg) YIELD documentId, status RETURN documentId, status",
                Map.of("docs", docs, "cfg", cfg));
        assertEquals(committed, rerun.stream().filter(r -> r.get("status").equals("unchanged")).count());
        assertEquals(24 - committed, rerun.stream().filter(r -> r.get("status").equals("created")).count());
        assertEquals(24, count("MATCH (d:Document {corpus: 'resume'}) RETURN count(d)", Map.of()));
        assertEquals(count("MATCH (d:Document {corpus: 'resume'}) RETURN sum(d.chunkCount)", Map.of()),
                count("MATCH (c:Chunk {corpus: 'resume'}) RETURN count(DISTINCT c.id)", Map.of()));
        assertEquals(count("MATCH (c:Chunk {corpus: 'resume'}) RETURN count(c)", Map.of()),
                count("MATCH (c:Chunk {corpus: 'resume'}) RETURN count(DISTINCT c.id)", Map.of()));
    }
}
