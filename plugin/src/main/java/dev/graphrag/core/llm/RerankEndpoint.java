package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A cross-encoder reranking endpoint ({@code POST <endpoint>/rerank}), named by the server's graphrag.rerank.* settings
 * alone, as embeddings are: no caller can point it elsewhere. Three request shapes, one per provider: {@code cohere}, the
 * common one (Cohere, Jina, vLLM's /v1/rerank, llama.cpp's server, Infinity, LocalAI: {model, query, documents, top_n}),
 * {@code voyage} (top_k in place of top_n) and {@code tei} (Hugging Face text-embeddings-inference: {query, texts}). Replies
 * are read whichever way they come: a {@code results} or {@code data} list, or a bare list, of {index, relevance_score
 * or score}. Its key ({@code graphrag.rerank.apiKey}, or the variable {@code graphrag.rerank.apiKeyEnv} names; where neither
 * is set and this endpoint is {@code graphrag.llm.endpoint} itself, the LLM key) goes to this endpoint only and never
 * into a message.
 */
public final class RerankEndpoint {
    /** What requests are named in the X-Rag-Step header and in errors. */
    public static final String STEP = "rerank";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** graphrag.rerank.provider: which request shape the endpoint takes (none: no reranker). */
    public enum Provider { NONE, COHERE, VOYAGE, TEI }

    /** One scored document: its position in the request and the model's relevance score. */
    public record Scored(int index, double score) {}

    private final Provider provider;
    private final LlmConfig target;
    private final LlmTransport transport;
    private final int maxDocuments;
    private final int maxDocumentChars;

    RerankEndpoint(Provider provider, LlmConfig target, LlmTransport transport, int maxDocuments, int maxDocumentChars) {
        this.provider = provider;
        this.target = target;
        this.transport = transport;
        this.maxDocuments = maxDocuments;
        this.maxDocumentChars = maxDocumentChars;
    }

    public static Provider provider(PluginSettings s) {
        return Provider.valueOf(s.get(ServerSettings.RERANK_PROVIDER).toUpperCase(Locale.ROOT)); // one of the setting's declared choices
    }

    /** From the server's settings: null when the provider is none; a missing endpoint or model is an error naming the setting. */
    public static RerankEndpoint of(PluginSettings s, Map<String, String> env, Consumer<String> log) {
        Provider provider = provider(s);
        if (provider == Provider.NONE) return null;
        String endpoint = s.get(ServerSettings.RERANK.endpoint()).trim();
        if (endpoint.isEmpty()) {
            throw new RagException("graphrag.rerank.provider is '" + provider.name().toLowerCase(Locale.ROOT) + "' but graphrag.rerank.endpoint is not set"
                    + " (for a local text-embeddings-inference: http://localhost:8080; for vLLM: http://localhost:8000/v1)");
        }
        URI uri = EndpointPolicy.parse(endpoint, ServerSettings.RERANK.endpoint().name());
        String model = s.get(ServerSettings.RERANK.model()).trim();
        if (model.isEmpty() && provider != Provider.TEI) {
            throw new RagException("graphrag.rerank.provider is '" + provider.name().toLowerCase(Locale.ROOT) + "': set graphrag.rerank.model to the name"
                    + " the endpoint serves (for example BAAI/bge-reranker-v2-m3, rerank-v3.5, jina-reranker-v2-base-multilingual, rerank-2)");
        }
        long maxDocuments = s.get(ServerSettings.RERANK_MAX_DOCUMENTS); // the declarations hold the ranges
        long maxChars = s.get(ServerSettings.RERANK_MAX_DOCUMENT_CHARS);
        LlmConfig target = LlmConfig.serverNamed(s, ServerSettings.RERANK, uri, model, env);
        LlmTransport transport = LlmTransport.of(LlmTransport.Kind.RERANK, s, target, log);
        return new RerankEndpoint(provider, target, transport, (int) maxDocuments, (int) maxChars);
    }

    public Provider provider() { return provider; }

    public String model() { return target.model(); }

    /** scheme://host:port of the endpoint. */
    public String host() { return target.host(); }

    /** The most documents one request carries (graphrag.rerank.maxDocuments): longer lists go in several requests. */
    public int maxDocuments() { return maxDocuments; }

    /**
     * One request: the scores of (at most {@code topN} of) {@code documents} against {@code query}, as the server gives them;
     * documents are cut to graphrag.rerank.maxDocumentChars. A failed exchange or a malformed reply is a RagException
     * naming the problem, never quoting the documents.
     */
    public List<Scored> score(String query, List<String> documents, int topN, BooleanSupplier cancelled) {
        if (documents.size() > maxDocuments) throw new IllegalArgumentException(documents.size() + " documents in one request, the limit is " + maxDocuments);
        List<String> cut = new ArrayList<>(documents.size());
        for (String d : documents) cut.add(d.length() > maxDocumentChars ? d.substring(0, maxDocumentChars) : d);
        ObjectNode body = JSON.createObjectNode();
        if (!target.model().isEmpty()) body.put("model", target.model());
        body.put("query", query);
        switch (provider) {
            case TEI -> {
                body.set("texts", JSON.valueToTree(cut));
                body.put("truncate", true);
            }
            case VOYAGE -> {
                body.set("documents", JSON.valueToTree(cut));
                body.put("top_k", topN);
                body.put("truncation", true);
            }
            default -> {
                body.set("documents", JSON.valueToTree(cut));
                // nothing beyond the four fields every server of this shape takes (Cohere's v2 dropped some of v1's)
                body.put("top_n", topN);
            }
        }
        LlmTransport.Posted reply = transport.post(target, "/rerank", STEP, body.toString(), cancelled);
        return parse(reply.body(), documents.size());
    }

    /** The scored items of a reply, in its order; anything malformed is an error naming what is wrong. */
    List<Scored> parse(String body, int documents) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw problem("answered with a body that is not JSON");
        }
        JsonNode items = root == null ? null : root.isArray() ? root : root.has("results") ? root.get("results") : root.get("data");
        if (items == null || !items.isArray()) throw problem("answered without a 'results' list");
        if (items.size() > documents) throw problem("returned " + items.size() + " scores for " + documents + " documents");
        boolean[] seen = new boolean[documents];
        List<Scored> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            JsonNode index = item.get("index");
            if (index == null || !index.canConvertToInt() || !index.isIntegralNumber()) throw problem("returned item " + i + " without an integer 'index'");
            int at = index.asInt();
            if (at < 0 || at >= documents || seen[at]) throw problem("returned item " + i + " with an index out of range or repeated");
            seen[at] = true;
            JsonNode score = item.has("relevance_score") ? item.get("relevance_score") : item.get("score");
            if (score == null || !score.isNumber() || !Double.isFinite(score.asDouble())) {
                throw problem("returned item " + i + " without a finite 'relevance_score' or 'score'");
            }
            out.add(new Scored(at, score.asDouble()));
        }
        return out;
    }

    private RagException problem(String what) {
        return new RagException("rerank endpoint " + target.host() + (target.model().isEmpty() ? "" : " (model '" + target.model() + "')") + " " + what);
    }

    @Override
    public String toString() {
        return "RerankEndpoint{" + provider.name().toLowerCase(Locale.ROOT) + ", " + target.host() + ", model=" + target.model() + ", apiKey="
                + (target.hasApiKey() ? "***" : "none") + "}";
    }
}
