package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.function.BooleanSupplier;

/**
 * What the endpoint says of itself: whether it answers, and the context window it states where it states one
 * (vLLM: {@code max_model_len} in GET /models; llama.cpp: {@code n_ctx} in GET /props; Ollama: {@code num_ctx} in
 * POST /api/show, else the model's own maximum there, which Ollama does not use unless told). {@code window} is null
 * when the endpoint states none; {@code windowSource} says where it came from.
 */
public record EndpointInfo(boolean reachable, Long window, String windowSource) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Ollama's /api/show lists a model's parameters one a line: "num_ctx 8192". */
    private static final java.util.regex.Pattern NUM_CTX = java.util.regex.Pattern.compile("(?m)^\\s*num_ctx\\s+(\\d+)");

    /** Asks the endpoint's server (vLLM, llama.cpp, Ollama) through {@code transport}; never throws for an answer it cannot read. */
    static EndpointInfo of(LlmTransport transport, LlmConfig cfg, BooleanSupplier cancelled) {
        String models = transport.get(cfg, cfg.endpoint() + "/models", null, cancelled);
        if (models == null) return new EndpointInfo(false, null, null);
        try {
            JsonNode data = JSON.readTree(models).path("data");
            for (JsonNode m : data) {
                if ((cfg.model().equals(m.path("id").asText()) || data.size() == 1) && m.path("max_model_len").isNumber()) {
                    return new EndpointInfo(true, m.path("max_model_len").asLong(), "max_model_len (GET /models)");
                }
            }
        } catch (JsonProcessingException e) {
            // not OpenAI-shaped: look elsewhere
        }
        String root = cfg.endpoint().replaceFirst("/v1/?$", "");
        String props = transport.get(cfg, root + "/props", null, cancelled);
        try {
            if (props != null) {
                JsonNode n = JSON.readTree(props).path("default_generation_settings").path("n_ctx");
                if (n.isNumber()) return new EndpointInfo(true, n.asLong(), "n_ctx (GET /props)");
            }
            String show = transport.get(cfg, root + "/api/show", JSON.createObjectNode().put("model", cfg.model()).toString(), cancelled);
            if (show != null) {
                JsonNode info = JSON.readTree(show);
                java.util.regex.Matcher numCtx = NUM_CTX.matcher(info.path("parameters").asText(""));
                if (numCtx.find()) return new EndpointInfo(true, Long.parseLong(numCtx.group(1)), "num_ctx (POST /api/show)");
                var fields = info.path("model_info").fields();
                while (fields.hasNext()) {
                    var f = fields.next();
                    if (f.getKey().endsWith(".context_length") && f.getValue().isNumber()) {
                        return new EndpointInfo(true, null, "Ollama: the model takes " + f.getValue().asLong() + " tokens, but the server's window is "
                                + "OLLAMA_CONTEXT_LENGTH (4096 by default in current releases, 2048 in older ones) unless the model sets num_ctx");
                    }
                }
            }
        } catch (JsonProcessingException e) {
            // a body that is not JSON states nothing
        }
        return new EndpointInfo(true, null, null);
    }
}
