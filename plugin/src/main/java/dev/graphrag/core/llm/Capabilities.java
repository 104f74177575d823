package dev.graphrag.core.llm;

/**
 * What an endpoint (and model) was seen to accept: json_schema response formats, native tool calls; null while
 * unknown. Learnt from the first request that uses the feature and kept for the server's life.
 */
public record Capabilities(Boolean jsonSchema, Boolean nativeTools) {
    public String toolCalling() {
        return nativeTools == null ? "unknown" : nativeTools ? "native" : "json-action";
    }

    public String structuredOutput() {
        return jsonSchema == null ? "unknown" : jsonSchema ? "json_schema" : "json_object";
    }
}

