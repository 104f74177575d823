package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.llm.RerankEndpoint;
import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reranking stage against the stand-in reranker: order, top_n, ties, batching, the three request shapes, keys, fallback. */
class RerankerTest {
    @RegisterExtension
    static final StandInLlm SERVER = StandInLlm.start();

    private static final String QUERY = "who founded the acme river company";
    private static final List<String> PASSAGES = List.of(
            "a passage about weather",                       // 0: no query word
            "the acme company sells river boats",            // 1: acme, company, river, the
            "founded acme: the river company founder",       // 2: every word but "who"
            "the company",                                   // 3
            "acme river",                                    // 4
            "founded in 1901",                               // 5
            "nothing at all",                                // 6
            "who founded the acme river company, and when"); // 7: every word

    private static Reranker reranker(Map<String, String> extra) {
        Map<String, String> s = new HashMap<>(Map.of("graphrag.rerank.provider", "cohere", "graphrag.rerank.endpoint", SERVER.endpoint(),
                "graphrag.rerank.model", "bge-reranker-v2-m3", "graphrag.rerank.retryBaseMs", "5"));
        s.putAll(extra);
        return new Reranker(RerankEndpoint.of(SERVER.settings(s), Map.of(), m -> {}));
    }

    private static List<Integer> order(Reranker.Ranked<Integer> r) {
        return r.items();
    }

    private static Reranker.Ranked<Integer> rerank(Reranker reranker, int k) {
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < PASSAGES.size(); i++) candidates.add(i);
        return reranker.rerank(QUERY, candidates, PASSAGES::get, k, () -> false);
    }

    @Test
    void ordersByTheRerankersScoreAndKeepsK() {
        Reranker.Ranked<Integer> r = rerank(reranker(Map.of()), 3);
        assertEquals(List.of(7, 2, 1), order(r));
        assertEquals(1.0, r.score(0), 1e-9);
        assertEquals(5.0 / 6, r.score(1), 1e-9);
        assertNull(r.note());
        assertEquals(1, r.usage().byStep().get("rerank").calls(), "one request, under its own step");
        assertEquals(0, r.usage().calls(), "reranker requests are not LLM calls");
        StandInLlm.Request req = SERVER.requests().get(0);
        assertEquals("/v1/rerank", req.path());
        assertEquals(3, req.body().path("top_n").asInt(), "each request asks only for k");
        assertEquals("bge-reranker-v2-m3", req.body().path("model").asText());
        assertEquals(8, req.body().path("documents").size());
        assertEquals("rerank", req.step());
    }

    @Test
    void equalScoresKeepTheRetrievalOrder() {
        SERVER.rerankScores((q, d) -> d.contains("acme") ? 1 : 0);
        Reranker.Ranked<Integer> r = rerank(reranker(Map.of()), 5);
        // 1, 2, 4 and 7 hold "acme" and tie: retrieval order; then the rest, tied at 0, in retrieval order
        assertEquals(List.of(1, 2, 4, 7, 0), order(r));
    }

    @Test
    void batchesPastTheServersLimitAndStillFindTheOverallBest() {
        SERVER.rerankLimit(3);
        Reranker.Ranked<Integer> refused = rerank(reranker(Map.of()), 2);
        assertTrue(refused.fellBack(), "8 documents in one request are refused by a server that takes 3");
        assertTrue(refused.note().contains("413"), refused.note());
        SERVER.reset();
        SERVER.rerankLimit(3);
        Reranker.Ranked<Integer> r = rerank(reranker(Map.of("graphrag.rerank.maxDocuments", "3")), 2);
        assertEquals(List.of(7, 2), order(r), "the best sits in the last batch of three");
        List<StandInLlm.Request> sent = SERVER.requests();
        assertEquals(3, sent.size());
        assertEquals(List.of(3, 3, 2), sent.stream().map(x -> x.body().path("documents").size()).toList());
        assertEquals(List.of(2, 2, 2), sent.stream().map(x -> x.body().path("top_n").asInt()).toList());
        assertEquals(3, r.usage().byStep().get("rerank").calls());
    }

    @Test
    void readsTeiAndVoyageShapes() {
        Reranker tei = reranker(Map.of("graphrag.rerank.provider", "tei", "graphrag.rerank.endpoint", SERVER.endpoint().replace("/v1", ""),
                "graphrag.rerank.model", ""));
        assertEquals(List.of(7, 2, 1), order(rerank(tei, 3)));
        StandInLlm.Request req = SERVER.requests().get(0);
        assertEquals("/rerank", req.path());
        assertEquals(8, req.body().path("texts").size());
        assertFalse(req.body().has("documents"));
        assertFalse(req.body().has("model"), "TEI serves one model and needs no name");
        SERVER.reset();
        Reranker voyage = reranker(Map.of("graphrag.rerank.provider", "voyage"));
        assertEquals(List.of(7, 2, 1), order(rerank(voyage, 3)));
        assertEquals(3, SERVER.requests().get(0).body().path("top_k").asInt());
    }

    @Test
    void fallsBackToTheRetrievalOrderWhenTheRerankerFails() {
        SERVER.onRerank().status(503);
        Reranker.Ranked<Integer> failed = rerank(reranker(Map.of()), 3);
        assertEquals(List.of(0, 1, 2), order(failed));
        assertNull(failed.score(0));
        assertTrue(failed.note().startsWith("reranker failed, retrieval order kept: "), failed.note());
        assertEquals(1L, failed.usage().byStep().get("rerank").fallbacks().get(Reranker.KEPT_ORDER));
        assertEquals(2, SERVER.requests().size(), "a 5xx is retried once (graphrag.rerank.maxRetries)");

        SERVER.reset();
        SERVER.onRerank().rawBody("{\"results\": [{\"index\": 9, \"relevance_score\": 0.5}]}");
        Reranker.Ranked<Integer> outOfRange = rerank(reranker(Map.of()), 3);
        assertTrue(outOfRange.note().contains("index out of range"), outOfRange.note());

        SERVER.reset();
        SERVER.onRerank().rawBody("<html>gateway</html>");
        assertTrue(rerank(reranker(Map.of()), 3).note().contains("not JSON"));

        SERVER.reset();
        SERVER.onRerank().rawBody("{\"results\": [{\"index\": 0, \"relevance_score\": \"high\"}]}");
        assertTrue(rerank(reranker(Map.of()), 3).note().contains("finite"));

        SERVER.reset();
        SERVER.onRerank().delay(1_000);
        Reranker.Ranked<Integer> slow = rerank(reranker(Map.of("graphrag.rerank.timeoutMs", "100", "graphrag.rerank.maxRetries", "0")), 3);
        assertEquals(List.of(0, 1, 2), order(slow));
        assertTrue(slow.note().contains("timeoutMs=100"), slow.note());
    }

    @Test
    void aServerThatHonoursTopNStillFillsK() {
        // the stand-in honours top_n; with batches of 4 and k 3 each returns 3 of 4, and the 6 scored fill k
        Reranker.Ranked<Integer> r = rerank(reranker(Map.of("graphrag.rerank.maxDocuments", "4")), 3);
        assertEquals(List.of(7, 2, 1), order(r));
        for (int i = 0; i < 3; i++) assertNotNull(r.score(i));
    }

    @Test
    void theKeyGoesToTheRerankEndpointOnly() {
        // its own key, to its own endpoint; the LLM key stays with the LLM endpoint
        rerank(reranker(Map.of("graphrag.rerank.apiKey", "rk-secret", "graphrag.llm.apiKey", "llm-secret",
                "graphrag.llm.endpoint", "http://127.0.0.1:9/v1")), 3);
        assertEquals("Bearer rk-secret", SERVER.requests().get(0).authorization());
        SERVER.reset();
        // no rerank key, another endpoint than the LLM's: no key at all
        rerank(reranker(Map.of("graphrag.llm.apiKey", "llm-secret", "graphrag.llm.endpoint", "http://127.0.0.1:9/v1")), 3);
        assertNull(SERVER.requests().get(0).authorization());
        SERVER.reset();
        // no rerank key and the very endpoint the LLM key belongs to: that key
        rerank(reranker(Map.of("graphrag.llm.apiKey", "llm-secret")), 3);
        assertEquals("Bearer llm-secret", SERVER.requests().get(0).authorization());
        // and no key is in the stage's description or an error
        SERVER.reset();
        SERVER.onRerank().status(401);
        Reranker.Ranked<Integer> refused = rerank(reranker(Map.of("graphrag.rerank.apiKey", "rk-secret")), 3);
        assertFalse(refused.note().contains("rk-secret"));
        assertTrue(refused.note().contains("check the API key"), refused.note());
        assertEquals(1, SERVER.requests().size(), "a 4xx is not retried");
    }

    @Test
    void settingsAndConfigErrorsNameTheProblem() {
        assertNull(RerankEndpoint.of(PluginSettings.defaults(), Map.of(), m -> {}), "none: no reranker");
        RagException noEndpoint = assertThrows(RagException.class, () -> RerankEndpoint.of(
                PluginSettings.fromStrings(Map.of("graphrag.rerank.provider", "cohere"), "test"), Map.of(), m -> {}));
        assertTrue(noEndpoint.getMessage().contains("graphrag.rerank.endpoint is not set"), noEndpoint.getMessage());
        RagException noModel = assertThrows(RagException.class, () -> RerankEndpoint.of(PluginSettings.fromStrings(
                Map.of("graphrag.rerank.provider", "cohere", "graphrag.rerank.endpoint", "http://localhost:8000/v1"), "test"), Map.of(), m -> {}));
        assertTrue(noModel.getMessage().contains("graphrag.rerank.model"), noModel.getMessage());
        RagException badProvider = assertThrows(RagException.class, () -> RerankEndpoint.of(
                PluginSettings.fromStrings(Map.of("graphrag.rerank.provider", "jina-ai"), "test"), Map.of(), m -> {}));
        assertTrue(badProvider.getMessage().contains("none, cohere, voyage, tei"), badProvider.getMessage());

        assertEquals(RerankConfig.OFF, RerankConfig.read(ConfigReader.of("t", Map.of()), 10));
        assertEquals(new RerankConfig(true, 40, 10), RerankConfig.read(ConfigReader.of("t", Map.of("rerank", true)), 10));
        assertEquals(new RerankConfig(true, 20, 3), RerankConfig.read(ConfigReader.of("t", Map.of("rerank", true)), 3));
        RagException fewer = assertThrows(RagException.class, () -> RerankConfig.read(ConfigReader.of("t", Map.of("rerank", true, "rerankCandidates", 5L)), 10));
        assertTrue(fewer.getMessage().contains("at least k"), fewer.getMessage());
        RagException idle = assertThrows(RagException.class, () -> RerankConfig.read(ConfigReader.of("t", Map.of("rerankCandidates", 50L)), 10));
        assertTrue(idle.getMessage().contains("rerank is not true"), idle.getMessage());
        assertEquals(new RerankConfig(true, Integer.MAX_VALUE, Integer.MAX_VALUE), RerankConfig.readContext(ConfigReader.of("t", Map.of("rerank", true))));
        assertEquals(new RerankConfig(true, Integer.MAX_VALUE, 4), RerankConfig.readContext(ConfigReader.of("t", Map.of("rerank", true, "rerankTopK", 4L))));
        assertThrows(RagException.class, () -> RerankConfig.readContext(ConfigReader.of("t", Map.of("rerankTopK", 4L))));
    }
}
