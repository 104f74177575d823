package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A typed LLM output: a JSON schema (sent to the endpoint and checked here), a parser to the Java type, and a
 * semantic check the schema cannot say ("every triple's subject occurs in the text"). Both problems feed the
 * repair turn in the model's own words.
 * <pre>
 *   record Triples(List&lt;List&lt;String&gt;&gt; triples) {}
 *   StructuredOutput&lt;Triples&gt; out = StructuredOutput.of("triples", schema, Triples.class, t -&gt; t.triples().isEmpty() ? "no triples" : null);
 *   Triples t = llm.structured(cfg, request, out, false, cancelled).value();
 * </pre>
 */
public final class StructuredOutput<T> {
    /** Turns checked JSON into the value; throws IllegalArgumentException naming what does not fit. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(JsonNode json);
    }

    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final String name;
    private final Map<String, Object> schema;
    private final Parser<T> parser;
    private final Function<T, String> check;
    private final Function<String, JsonNode> textFallback;

    private StructuredOutput(String name, Map<String, Object> schema, Parser<T> parser, Function<T, String> check) {
        this(name, schema, parser, check, null);
    }

    private StructuredOutput(String name, Map<String, Object> schema, Parser<T> parser, Function<T, String> check, Function<String, JsonNode> textFallback) {
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) throw new IllegalArgumentException("output name must be 1-64 of [A-Za-z0-9_-]: " + name);
        this.name = name;
        this.schema = Map.copyOf(schema);
        this.parser = parser;
        this.check = check == null ? v -> null : check;
        this.textFallback = textFallback;
    }

    /**
     * The same output that also reads replies which are not JSON: {@code fallback} turns such text into the JSON the
     * schema describes (null when it cannot), for models that answer in a paper's delimiter records despite the prompt.
     */
    public StructuredOutput<T> withTextFallback(Function<String, JsonNode> fallback) {
        return new StructuredOutput<>(name, schema, parser, check, fallback);
    }

    /** The check the client applies to a reply, with the text fallback when there is one. */
    LlmClient.JsonCheck jsonCheck() {
        return new LlmClient.JsonCheck() {
            @Override
            public String problem(JsonNode reply) {
                return StructuredOutput.this.problem(reply);
            }

            @Override
            public JsonNode fromText(String content) {
                return textFallback == null || content == null ? null : textFallback.apply(content);
            }
        };
    }

    public static <T> StructuredOutput<T> of(String name, Map<String, Object> schema, Parser<T> parser, Function<T, String> check) {
        return new StructuredOutput<>(name, schema, parser, check);
    }

    /** Mapped onto a record or bean by Jackson (unknown keys ignored, the schema decides what is required). */
    public static <T> StructuredOutput<T> of(String name, Map<String, Object> schema, Class<T> type, Function<T, String> check) {
        return new StructuredOutput<>(name, schema, json -> {
            try {
                return JSON.treeToValue(json, type);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("it does not fit " + type.getSimpleName() + ": " + e.getOriginalMessage());
            }
        }, check);
    }

    public String name() {
        return name;
    }

    public Map<String, Object> schema() {
        return schema;
    }

    /** The OpenAI json_schema response format for this output. */
    Map<String, Object> responseFormat() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("name", name);
        f.put("schema", schema);
        return f;
    }

    /** What is wrong with a reply (schema, then type, then the semantic check), or null. */
    String problem(JsonNode json) {
        String p = JsonSchemaCheck.problem(schema, json);
        if (p != null) return p;
        try {
            return check.apply(parser.parse(json));
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    T parse(JsonNode json) {
        return parser.parse(json);
    }
}
