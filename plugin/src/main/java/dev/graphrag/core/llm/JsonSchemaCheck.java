package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;

/**
 * The part of JSON Schema that LLM outputs and tool arguments need, checked in plain Java: {@code type} (one or a
 * list), {@code properties}, {@code required}, {@code additionalProperties: false}, {@code items}, {@code enum},
 * {@code minItems}/{@code maxItems}, {@code minLength}, {@code minimum}/{@code maximum}. Returns what is wrong with a
 * path ("$.triples[2]: expected array, got string"), or null; the first problem only, as a repair turn wants.
 */
public final class JsonSchemaCheck {
    private JsonSchemaCheck() {}

    /** The JSON pointer ("/triples/2") of the path a problem starts with ("$.triples[2]: ..."); "" for the root. */
    public static String pointer(String problem) {
        int colon = problem.indexOf(": ");
        String path = colon < 0 ? problem : problem.substring(0, colon);
        int at = path.indexOf('$');
        if (at < 0) return "";
        path = path.substring(at + 1);
        return path.replaceAll("\\[(\\d+)]", ".$1").replace('.', '/');
    }

    public static String problem(Map<String, Object> schema, JsonNode value) {
        return problem(schema, value, "$", 0);
    }

    @SuppressWarnings("unchecked")
    private static String problem(Map<String, Object> schema, JsonNode v, String path, int depth) {
        if (schema == null || schema.isEmpty()) return null;
        if (depth > 64) return path + ": nested too deep";
        Object type = schema.get("type");
        if (type != null) {
            List<Object> types = type instanceof List<?> l ? (List<Object>) l : List.of(type);
            if (types.stream().noneMatch(t -> is(String.valueOf(t), v))) return path + ": expected " + type + ", got " + kind(v);
        }
        if (schema.get("enum") instanceof List<?> allowed) {
            boolean ok = allowed.stream().anyMatch(a -> a == null ? v.isNull() : v.isValueNode() && String.valueOf(a).equals(v.asText()));
            if (!ok) return path + ": must be one of " + allowed + ", got " + v;
        }
        if (v.isObject()) {
            Map<String, Object> props = schema.get("properties") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
            if (schema.get("required") instanceof List<?> req) {
                for (Object r : req) if (!v.has(String.valueOf(r))) return path + ": missing required key '" + r + "'";
            }
            for (var it = v.fields(); it.hasNext(); ) {
                var f = it.next();
                Object sub = props.get(f.getKey());
                if (sub == null) {
                    if (Boolean.FALSE.equals(schema.get("additionalProperties"))) {
                        return path + ": unknown key '" + f.getKey() + "'; allowed are " + props.keySet();
                    }
                    continue;
                }
                String p = problem((Map<String, Object>) sub, f.getValue(), path + "." + f.getKey(), depth + 1);
                if (p != null) return p;
            }
        }
        if (v.isArray()) {
            if (schema.get("minItems") instanceof Number n && v.size() < n.intValue()) return path + ": at least " + n + " items, got " + v.size();
            if (schema.get("maxItems") instanceof Number n && v.size() > n.intValue()) return path + ": at most " + n + " items, got " + v.size();
            if (schema.get("items") instanceof Map<?, ?> items) {
                for (int i = 0; i < v.size(); i++) {
                    String p = problem((Map<String, Object>) items, v.get(i), path + "[" + i + "]", depth + 1);
                    if (p != null) return p;
                }
            }
        }
        if (v.isTextual() && schema.get("minLength") instanceof Number n && v.asText().length() < n.intValue()) {
            return path + ": at least " + n + " characters";
        }
        if (v.isNumber()) {
            if (schema.get("minimum") instanceof Number n && v.asDouble() < n.doubleValue()) return path + ": at least " + n + ", got " + v;
            if (schema.get("maximum") instanceof Number n && v.asDouble() > n.doubleValue()) return path + ": at most " + n + ", got " + v;
        }
        return null;
    }

    private static boolean is(String type, JsonNode v) {
        return switch (type) {
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || v.isNumber() && v.asDouble() == Math.rint(v.asDouble());
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "null" -> v.isNull();
            default -> true;
        };
    }

    private static String kind(JsonNode v) {
        if (v == null || v.isMissingNode()) return "nothing";
        if (v.isObject()) return "object";
        if (v.isArray()) return "array";
        if (v.isTextual()) return "string";
        if (v.isIntegralNumber()) return "integer";
        if (v.isNumber()) return "number";
        if (v.isBoolean()) return "boolean";
        return "null";
    }
}
