package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.RERANKER;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reranking stage as users call it: rag.search and every method's final passage selection (agrag.answer, raga.answer,
 * remind.answer, hgmem.respond) through the server's reranker (the shared server's stand-in, graphrag.rerank.*), the
 * reranker's order and scores in the rows, and the retrieval order kept, with a note and a count, when it fails.
 */
class RerankStageTest {
    static final StandInLlm LLM = StandInLlm.start();
    static final String Q = "who founded the acme river company";

    @BeforeAll
    static void setUp() {
        rows("CALL rag.ingest($docs, {corpus: 'rerank-search', chunker: 'sentences'})", Map.of("docs", List.of(
                Map.of("id", "a", "text", "The acme river company sells boats on the river."),
                Map.of("id", "b", "text", "Who founded the acme river company? Jane Doe founded the acme river company in 1901."),
                Map.of("id", "c", "text", "A company on another river builds bridges."),
                Map.of("id", "d", "text", "Founded in 1901, the firm had three founders."),
                Map.of("id", "e", "text", "Acme is a word for the highest point."),
                Map.of("id", "f", "text", "Weather on the river was cold that year."))));
        LLM.when(r -> "agrag.answer".equals(r.step())).replyJson(Map.of("thought", "stand-in", "answer", "Jane Doe"));
        LLM.when(r -> "raga.L6".equals(r.step())).replyJson(Map.of("answer", "Warsaw", "answer_type", "extractive", "evidence_chunk_ids", List.of()));
        CypherScripts.standInRules(LLM);
    }

    @AfterAll
    static void stop() {
        LLM.close();
    }

    @BeforeEach
    void resetReranker() {
        RERANKER.reset();
    }

    static Map<String, Object> llm() {
        return Map.of("endpoint", LLM.endpoint(), "model", "stand-in");
    }

    private static List<Map<String, Object>> search(Map<String, Object> extra) {
        Map<String, Object> cfg = new java.util.HashMap<>(Map.of("corpus", "rerank-search", "k", 3L));
        cfg.putAll(extra);
        return rows("CALL rag.search($q, $cfg)", Map.of("q", Q, "cfg", cfg));
    }

    @Test
    void ragSearchKeepsTheRerankersKOfItsCandidates() {
        List<Map<String, Object>> plain = search(Map.of());
        List<Map<String, Object>> reranked = search(Map.of("rerank", true, "rerankCandidates", 5L));
        assertEquals(3, reranked.size());
        double last = Double.POSITIVE_INFINITY;
        for (int i = 0; i < reranked.size(); i++) {
            Map<String, Object> row = reranked.get(i);
            assertEquals((long) (i + 1), row.get("rank"));
            double score = (Double) row.get("rerankScore");
            assertEquals(StandInLlm.overlap(Q, (String) row.get("text")), score, 1e-9, "the reranker's own score: " + row);
            assertTrue(score <= last, "best first");
            last = score;
            assertNull(row.get("note"));
        }
        assertTrue(((String) reranked.get(0).get("text")).startsWith("Who founded the acme river company?"), "every query word: first");
        assertNull(plain.get(0).get("rerankScore"), "no rerank: no score");
        StandInLlm.Request sent = RERANKER.requests().get(0);
        assertEquals(Q, sent.body().path("query").asText());
        assertEquals(3, sent.body().path("top_n").asInt());
        assertEquals(5, sent.body().path("documents").size(), "rerankCandidates go in (of the six chunks)");
        assertEquals("Bearer rerank-key", sent.authorization());
        assertEquals("rerank", sent.step());
    }

    @Test
    void ragSearchKeepsTheRetrievalOrderWhenTheRerankerFails() {
        RERANKER.onRerank().status(503);
        List<String> plain = search(Map.of()).stream().map(r -> (String) r.get("chunkId")).toList();
        List<Map<String, Object>> out = search(Map.of("rerank", true));
        assertEquals(plain, out.stream().map(r -> (String) r.get("chunkId")).toList());
        for (Map<String, Object> row : out) {
            assertNull(row.get("rerankScore"));
            assertTrue(((String) row.get("note")).startsWith("reranker failed, retrieval order kept: rerank request 'rerank' failed after 2 attempts: HTTP 503"),
                    String.valueOf(row.get("note")));
        }
        TestServer.assertFails("CALL rag.search('x', {corpus: 'rerank-search', k: 5, rerank: true, rerankCandidates: 2})", Map.of(),
                "rerankCandidates (2) must be at least k (5)");
        TestServer.assertFails("CALL rag.search('x', {corpus: 'rerank-search', rerankCandidates: 20})", Map.of(), "rerankCandidates is set but rerank is not true");
    }

    @SuppressWarnings("unchecked")
    private static List<String> rerankedIds(Map<String, Object> row) {
        Map<String, Object> rerank = (Map<String, Object>) row.get("rerank");
        assertNotNull(rerank, "the rerank column: " + row);
        assertTrue(((String) rerank.get("reranker")).startsWith("cohere at http://127.0.0.1:"), rerank.toString());
        List<String> ids = new ArrayList<>();
        double last = Double.POSITIVE_INFINITY;
        for (Map<String, Object> c : (List<Map<String, Object>>) rerank.get("chunks")) {
            ids.add((String) c.get("chunkId"));
            double s = (Double) c.get("score");
            assertTrue(s <= last, "best first: " + rerank);
            last = s;
        }
        assertNull(rerank.get("note"));
        return ids;
    }

    @SuppressWarnings("unchecked")
    private static long rerankCalls(Map<String, Object> row) {
        return (Long) ((Map<String, Object>) ((Map<String, Object>) row.get("tokensByStep")).get("rerank")).get("calls");
    }

    @Test
    void agragAnswerReadsTheRerankersK() {
        rows("CALL agrag.index({corpus: 'rerank-search', relations: 'cooccurrence'})");
        Map<String, Object> row = rows("CALL agrag.answer($q, {corpus: 'rerank-search', k: 2, llm: $llm, rerank: true, includePathChunks: false})",
                Map.of("q", Q, "llm", llm())).get(0);
        List<String> ids = rerankedIds(row);
        assertEquals(ids, row.get("retrievedChunkIds"), "the prompt's chunks are the reranker's k");
        assertEquals(2, ids.size());
        assertEquals(TestServer.count("MATCH (c:Chunk {corpus: 'rerank-search'}) RETURN count(c) AS n", Map.of()),
                RERANKER.requests().get(0).body().path("documents").size(), "max(20, 4k) candidates asked: every chunk of this small corpus");
        assertEquals(1, rerankCalls(row));
        for (StandInLlm.Request r : LLM.requests()) {
            assertFalse(r.body().toString().contains("rerank-key") || "Bearer rerank-key".equals(r.authorization()), "the reranker's key went to the LLM");
        }
        // the reranker's failure keeps agrag's own order and answers all the same
        RERANKER.reset();
        RERANKER.onRerank().rawBody("{\"results\": \"none\"}");
        Map<String, Object> kept = rows("CALL agrag.answer($q, {corpus: 'rerank-search', k: 2, llm: $llm, rerank: true, includePathChunks: false})",
                Map.of("q", Q, "llm", llm())).get(0);
        assertEquals("Jane Doe", kept.get("answer"));
        Map<?, ?> rerank = (Map<?, ?>) kept.get("rerank");
        assertTrue(String.valueOf(rerank.get("note")).contains("without a 'results' list"), rerank.toString());
        Map<?, ?> step = (Map<?, ?>) ((Map<?, ?>) kept.get("tokensByStep")).get("rerank");
        assertEquals(Map.of("retrieval order kept", 1L), step.get("fallbacks"));
        assertEquals(rows("CALL agrag.answer($q, {corpus: 'rerank-search', k: 2, llm: $llm, includePathChunks: false})", Map.of("q", Q, "llm", llm()))
                .get(0).get("retrievedChunkIds"), kept.get("retrievedChunkIds"), "the un-reranked order");
    }

    @Test
    void ragaAnswerShowsTheRerankersTopK() {
        RagaProceduresTest.buildRetrievalGraph("rerank-raga");
        String q = "Where was Marie Curie born?";
        Map<String, Object> row = rows("CALL raga.answer($q, {corpus: 'rerank-raga', topK: 2, llm: $llm, rerank: true})", Map.of("q", q, "llm", llm())).get(0);
        List<String> ids = rerankedIds(row);
        assertEquals(ids, row.get("retrieved"));
        assertEquals("rerank-raga:e:0", ids.get(0), "every query word but 'where' is in e's sentence");
        assertEquals(1, rerankCalls(row));
    }

    @Test
    void remindAnswersFromTheRerankersTopChunks() throws Exception {
        rows("CALL rag.ingest($docs, {corpus: 'rerank-remind', chunkSize: 16, chunkOverlap: 0})", Map.of("docs", List.of(
                Map.of("id", "derrickson", "text", "Scott Derrickson is an American film director. Scott Derrickson directed Sinister."),
                Map.of("id", "hawke", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke stars in Sinister."))));
        rows("CALL remind.index({corpus: 'rerank-remind', llm: $llm})", Map.of("llm", llm()));
        String q = "Where was the star of the film directed by Scott Derrickson born?";
        int before = LLM.requests().size();
        Map<String, Object> row = rows("CALL remind.query($q, {corpus: 'rerank-remind', llm: $llm, seedCount: 8, rerank: true, rerankTopK: 1})",
                Map.of("q", q, "llm", llm())).get(0);
        List<String> ids = rerankedIds(row);
        assertEquals(1, ids.size(), "rerankTopK 1");
        StandInLlm.Request answer = LLM.requests().subList(before, LLM.requests().size()).stream().filter(r -> "remind answer".equals(r.step())).findFirst()
                .orElseThrow();
        String prompt = answer.lastUserContent();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.JsonNode block = json.readTree(json.getFactory().createParser(prompt.substring(prompt.indexOf("{\"question\""))));
        assertEquals(1, block.path("chunks").size(), "the answer prompt shows the reranker's one chunk: " + prompt);
        assertTrue(((List<?>) row.get("chunks")).size() > 1, "of a subgraph with more: " + row.get("chunks"));
        assertEquals(1, RERANKER.requests().size());
    }

    @Test
    void hgmemRespondsFromTheContextInTheRerankersOrder() {
        rows("CALL rag.ingest($docs, {corpus: 'rerank-hgmem', chunkSize: 200, chunkOverlap: 50})", Map.of("docs", List.of(
                Map.of("id", "xodar", "text", "Xodar is a Dator of the First Born. Issus degraded Xodar to a slave."),
                Map.of("id", "issus", "text", "Issus is the goddess of the First Born. Issus gave Xodar to Carter."))));
        rows("CALL hgmem.index({corpus: 'rerank-hgmem', llm: $llm})", Map.of("llm", llm()));
        List<Map<String, Object>> out = rows("CALL hgmem.answer('Why is Xodar given to Carter?', {corpus: 'rerank-hgmem', llm: $llm, rerank: true})"
                + " YIELD kind, chunks, rerank, tokensByStep RETURN *", Map.of("llm", llm()));
        Map<String, Object> answer = out.get(out.size() - 1);
        assertEquals("answer", answer.get("kind"));
        assertEquals(rerankedIds(answer), answer.get("chunks"), "E6's context, best first");
        assertFalse(((List<?>) answer.get("chunks")).isEmpty());
        assertEquals(1, rerankCalls(answer));
    }
}
