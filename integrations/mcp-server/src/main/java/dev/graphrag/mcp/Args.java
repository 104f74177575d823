package dev.graphrag.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** A tool call's arguments, read against its schema: unknown names and wrong types are errors naming the argument. */
final class Args {
    private final String tool;
    private final Map<String, Object> values;

    @SuppressWarnings("unchecked")
    Args(String tool, Map<String, Object> values, Map<String, Object> schema) {
        this.tool = tool;
        this.values = values == null ? Map.of() : values;
        Set<String> known = ((Map<String, Object>) schema.get("properties")).keySet();
        Set<String> unknown = new TreeSet<>(this.values.keySet());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) throw new IllegalArgumentException(tool + ": unknown argument(s) " + unknown + "; it takes " + new TreeSet<>(known));
        for (Object r : (List<?>) schema.get("required")) {
            if (this.values.get(r) == null) throw new IllegalArgumentException(tool + ": the argument '" + r + "' is required");
        }
    }

    Object raw(String name) {
        return values.get(name);
    }

    String text(String name) {
        Object v = values.get(name);
        if (!(v instanceof String s) || s.isBlank()) throw new IllegalArgumentException(tool + ": " + name + " must be a non-empty string");
        return s;
    }

    String optionalText(String name, String fallback) {
        return values.get(name) == null ? fallback : text(name);
    }

    Long integer(String name, long min, long max) {
        Object v = values.get(name);
        if (v == null) return null;
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            throw new IllegalArgumentException(tool + ": " + name + " must be an integer, got " + v);
        }
        if (n.longValue() < min || n.longValue() > max) throw new IllegalArgumentException(tool + ": " + name + " must be from " + min + " to " + max + ", got " + v);
        return n.longValue();
    }

    boolean bool(String name, boolean fallback) {
        Object v = values.get(name);
        if (v == null) return fallback;
        if (!(v instanceof Boolean b)) throw new IllegalArgumentException(tool + ": " + name + " must be true or false, got " + v);
        return b;
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> map(String name) {
        Object v = values.get(name);
        if (v == null) return null;
        if (!(v instanceof Map<?, ?>)) throw new IllegalArgumentException(tool + ": " + name + " must be an object, got " + v);
        return (Map<String, Object>) v;
    }

    List<String> texts(String name) {
        Object v = values.get(name);
        if (v == null) return null;
        if (!(v instanceof List<?> l)) throw new IllegalArgumentException(tool + ": " + name + " must be a list of strings, got " + v);
        List<String> out = new ArrayList<>();
        for (Object o : l) {
            if (!(o instanceof String s)) throw new IllegalArgumentException(tool + ": " + name + " must be a list of strings, got " + v);
            out.add(s);
        }
        return out;
    }
}
