package dev.graphrag.core.llm;

import dev.graphrag.core.config.ServerSettings;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * An OpenAI-compatible embeddings endpoint ({@code POST <endpoint>/embeddings}: Ollama, vLLM, TEI, LM Studio,
 * llama.cpp's server, OpenAI), named by the server's graphrag.embedding.* settings alone. No caller can name another:
 * a corpus's vectors must all come from one model, so the LLM allow-list has no part here. It runs on the chat
 * client's transport with permits of its own ({@code graphrag.embedding.maxConcurrent}), retries with back-off,
 * timeouts, a reply cap and cancellation. Its key ({@code graphrag.embedding.apiKey}, or the variable
 * {@code graphrag.embedding.apiKeyEnv} names; where neither is set and this endpoint is {@code graphrag.llm.endpoint}
 * itself, the LLM key) is sent to this endpoint only and never appears in a message.
 */
public final class EmbeddingEndpoint {
    /** What callers' requests are named in the X-Rag-Step header and in errors. */
    public static final String STEP = "embeddings";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LlmConfig target;
    private final LlmTransport transport;
    private final int dimensions;

    EmbeddingEndpoint(LlmConfig target, LlmTransport transport, int dimensions) {
        this.target = target;
        this.transport = transport;
        this.dimensions = dimensions;
    }

    /** From the server's settings; a missing endpoint or model is an error naming the setting. */
    public static EmbeddingEndpoint of(PluginSettings s, Map<String, String> env, Consumer<String> log) {
        String endpoint = s.get(ServerSettings.EMBEDDING.endpoint()).trim();
        if (endpoint.isEmpty()) {
            throw new RagException("graphrag.embedding.provider is 'openai' but graphrag.embedding.endpoint is not set (for a local Ollama:"
                    + " http://localhost:11434/v1)");
        }
        URI uri = EndpointPolicy.parse(endpoint, ServerSettings.EMBEDDING.endpoint().name());
        String model = s.get(ServerSettings.EMBEDDING.model()).trim();
        if (model.isEmpty() || model.startsWith("classpath:")) {
            throw new RagException("graphrag.embedding.provider is 'openai': set graphrag.embedding.model to the name the endpoint serves"
                    + " (for example nomic-embed-text, BAAI/bge-m3, text-embedding-3-small)");
        }
        long dims = s.get(ServerSettings.EMBEDDING_DIMENSIONS);
        LlmConfig target = LlmConfig.serverNamed(s, ServerSettings.EMBEDDING, uri, model, env);
        LlmTransport transport = LlmTransport.of(LlmTransport.Kind.EMBEDDING, s, target, log);
        return new EmbeddingEndpoint(target, transport, (int) dims);
    }

    public String model() { return target.model(); }

    /** scheme://host:port of the endpoint: what rag.info shows. */
    public String host() { return target.host(); }

    /** How many requests may be in flight at once (graphrag.embedding.maxConcurrent). */
    public int maxConcurrent() { return transport.maxConcurrent(); }

    /** The dimensions asked of the model (the request's {@code dimensions}), or 0 for its own. */
    public int requestedDimensions() { return dimensions; }

    /** One request: the vectors of {@code texts}, in their order, as the endpoint gives them (not normalised here). */
    public float[][] embed(List<String> texts, BooleanSupplier cancelled) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", target.model());
        body.set("input", JSON.valueToTree(texts));
        body.put("encoding_format", "float");
        if (dimensions > 0) body.put("dimensions", dimensions);
        LlmTransport.Posted reply = transport.post(target, "/embeddings", STEP, body.toString(), cancelled);
        return parse(reply.body(), texts.size());
    }

    /**
     * The vectors of an OpenAI-shaped reply, by each item's {@code index}: float arrays, or base64 of little-endian
     * float32 (what a server sends when it ignores {@code encoding_format}). Anything else is an error naming what is
     * wrong, never quoting the body.
     */
    float[][] parse(String body, int expected) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw problem("answered with a body that is not JSON");
        }
        JsonNode data = root == null ? null : root.get("data");
        if (data == null || !data.isArray()) throw problem("answered without a 'data' array");
        if (data.size() != expected) throw problem("returned " + data.size() + " vectors for " + expected + " texts");
        float[][] out = new float[expected][];
        for (int i = 0; i < data.size(); i++) {
            JsonNode item = data.get(i);
            int index = item.has("index") ? item.path("index").asInt(-1) : i;
            if (index < 0 || index >= expected || out[index] != null) throw problem("returned item " + i + " with a missing or repeated index");
            float[] v = vector(item.get("embedding"), i);
            if (dimensions > 0 && v.length != dimensions) {
                throw problem("returned " + v.length + " dimensions where graphrag.embedding.dimensions asks " + dimensions
                        + " (does the model take a 'dimensions' parameter?)");
            }
            if (i > 0 && out[firstSet(out)].length != v.length) throw problem("returned vectors of different lengths in one reply");
            out[index] = v;
        }
        return out;
    }

    private static int firstSet(float[][] out) {
        for (int i = 0; i < out.length; i++) if (out[i] != null) return i;
        return 0;
    }

    private float[] vector(JsonNode e, int item) {
        if (e == null || e.isNull()) throw problem("returned item " + item + " without an 'embedding'");
        float[] v;
        if (e.isTextual()) {
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(e.asText());
            } catch (IllegalArgumentException bad) {
                throw problem("returned item " + item + " as a string that is not base64");
            }
            if (bytes.length % 4 != 0) throw problem("returned item " + item + " as base64 that is not float32");
            v = new float[bytes.length / 4];
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        } else if (e.isArray()) {
            v = new float[e.size()];
            for (int d = 0; d < v.length; d++) {
                JsonNode x = e.get(d);
                if (!x.isNumber()) throw problem("returned item " + item + " with a value that is not a number at position " + d);
                v[d] = (float) x.asDouble();
            }
        } else {
            throw problem("returned item " + item + " whose 'embedding' is neither an array nor base64");
        }
        if (v.length == 0) throw problem("returned an empty vector for item " + item);
        for (float x : v) if (!Float.isFinite(x)) throw problem("returned a vector with a value that is not finite for item " + item);
        return v;
    }

    private RagException problem(String what) {
        return new RagException("embedding endpoint " + target.host() + " (model '" + target.model() + "') " + what);
    }

    @Override
    public String toString() {
        return "EmbeddingEndpoint{" + target.host() + ", model=" + target.model() + ", apiKey=" + (target.hasApiKey() ? "***" : "none") + "}";
    }
}
