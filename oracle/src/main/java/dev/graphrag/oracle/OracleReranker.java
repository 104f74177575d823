package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * ORACLE POLICY: a reranker behind the common /v1/rerank shape (graphrag.rerank.provider=cohere) that scores a passage 1
 * when it belongs to a gold document of the question asked and 0 otherwise, so the stage can be measured against what
 * such a reranker allows (the gold among the candidates first, in retrieval order). It knows the questions' gold
 * documents and each chunk text's document; it honours top_n and answers best first, as servers do.
 */
public final class OracleReranker implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Map<String, Set<String>> goldByQuestion = new ConcurrentHashMap<>();
    private final Map<String, String> documentByText = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();

    private OracleReranker() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/rerank", this::rerank);
        server.start();
    }

    public static OracleReranker start() {
        try {
            return new OracleReranker();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The settings that point the plugin at this reranker. */
    public Map<String, String> settings() {
        return Map.of("graphrag.rerank.provider", "cohere", "graphrag.rerank.endpoint", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                "graphrag.rerank.model", "oracle");
    }

    public void question(String text, Set<String> goldDocumentIds) {
        goldByQuestion.put(text, goldDocumentIds);
    }

    public void chunk(String text, String documentId) {
        documentByText.put(text, documentId);
    }

    public long requests() {
        return requests.get();
    }

    private void rerank(HttpExchange ex) throws IOException {
        requests.incrementAndGet();
        JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
        Set<String> gold = goldByQuestion.getOrDefault(body.path("query").asText(), Set.of());
        List<double[]> scored = new ArrayList<>();
        JsonNode docs = body.path("documents");
        for (int i = 0; i < docs.size(); i++) scored.add(new double[] {i, gold.contains(documentByText.get(docs.get(i).asText())) ? 1 : 0});
        scored.sort((a, b) -> b[1] != a[1] ? Double.compare(b[1], a[1]) : Double.compare(a[0], b[0]));
        int top = body.path("top_n").asInt(scored.size());
        ObjectNode root = JSON.createObjectNode();
        ArrayNode results = root.putArray("results");
        for (double[] s : scored.subList(0, Math.min(top, scored.size()))) results.addObject().put("index", (int) s[0]).put("relevance_score", s[1]);
        byte[] bytes = root.toString().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
