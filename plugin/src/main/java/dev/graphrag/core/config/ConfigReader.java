package dev.graphrag.core.config;

import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Typed reading of a procedure's {@code config :: MAP}. Every getter names the key it reads;
 * {@link #finish()} then rejects any key nobody asked for, naming it and the valid ones.
 * Used by the immutable config records, never kept after parsing.
 */
public final class ConfigReader {
    public static final String DEFAULT_CORPUS = "default";
    private static final Pattern CORPUS_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    private final String owner;
    private final Map<String, Object> values;
    private final Set<String> known = new LinkedHashSet<>();

    /** Deepest nesting of lists and maps accepted in any argument (the top-level config map is depth 1). */
    public static final int MAX_NESTING_DEPTH = 32;
    /** Most values (map entries and list elements, all levels) in one argument. */
    public static final int MAX_VALUES = 1_000_000;

    private ConfigReader(String owner, Map<String, ?> values) {
        this.owner = owner;
        checkNesting(owner, "config", values);
        this.values = values == null ? Map.of() : new LinkedHashMap<>(values);
    }

    /**
     * Rejects a value nested deeper than {@link #MAX_NESTING_DEPTH} or with more than {@link #MAX_VALUES} elements,
     * before anything walks it recursively (serialising it for an LLM request, say, which would overflow the stack).
     * Iterative, so the check itself cannot overflow.
     */
    public static void checkNesting(String owner, String what, Object value) {
        java.util.ArrayDeque<Object[]> todo = new java.util.ArrayDeque<>();
        todo.push(new Object[] {value, 1});
        long seen = 0;
        while (!todo.isEmpty()) {
            Object[] e = todo.pop();
            int depth = (Integer) e[1];
            Iterable<?> children = e[0] instanceof Map<?, ?> m ? m.values() : e[0] instanceof List<?> l ? l : null;
            if (children == null) continue;
            if (depth > MAX_NESTING_DEPTH) {
                throw new RagException(owner + ": " + what + " is nested more than " + MAX_NESTING_DEPTH + " levels deep (lists and maps)");
            }
            for (Object c : children) {
                if (++seen > MAX_VALUES) throw new RagException(owner + ": " + what + " holds more than " + MAX_VALUES + " values");
                if (c instanceof Map || c instanceof List) todo.push(new Object[] {c, depth + 1});
            }
        }
    }

    public static ConfigReader of(String owner, Map<String, ?> values) {
        return new ConfigReader(owner, values);
    }

    /** The config of a procedure whose only key is {@code corpus}: the corpus name, every other key an error. */
    public static String corpusOnly(String owner, Map<String, ?> config) {
        ConfigReader r = of(owner, config);
        String corpus = r.corpus();
        r.finish();
        return corpus;
    }

    public String owner() {
        return owner;
    }

    public boolean has(String key) {
        known.add(key);
        return values.get(key) != null;
    }

    public String string(String key, String dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (!(v instanceof String s)) throw wrongType(key, "STRING", v);
        return s;
    }

    public <E extends Enum<E>> E choice(String key, Class<E> type, E dflt) {
        String s = string(key, null);
        if (s == null) return dflt;
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s)) return e;
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) names.add(e.name().toLowerCase(Locale.ROOT));
        throw new RagException(owner + ": config key '" + key + "' must be one of " + names + ", got '" + s + "'");
    }

    public long integer(String key, long dflt, long min, long max) {
        Object v = raw(key);
        long n;
        if (v == null) {
            n = dflt;
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            n = ((Number) v).longValue();
        } else if (v instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
            n = d.longValue();
        } else {
            throw wrongType(key, "INTEGER", v);
        }
        if (n < min || n > max) {
            throw new RagException(owner + ": config key '" + key + "' must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }

    /**
     * An integer whose ceiling is a server setting a caller cannot exceed; the error names the setting.
     * The default (a setting too) is clamped to the ceiling.
     */
    public long integerAtMost(String key, long dflt, long min, long ceiling, String ceilingSetting) {
        Object v = raw(key);
        if (v == null) return Math.max(min, Math.min(dflt, ceiling));
        long n = integer(key, dflt, min, Long.MAX_VALUE);
        if (n > ceiling) {
            throw new RagException(owner + ": config key '" + key + "' is " + n + ", above the server's limit of " + ceiling
                    + " (" + ceilingSetting + ", set by an administrator)");
        }
        return n;
    }

    public int integer(String key, int dflt, int min, int max) {
        return (int) integer(key, (long) dflt, min, max);
    }

    public double number(String key, double dflt, double min, double max) {
        Object v = raw(key);
        double d;
        if (v == null) d = dflt;
        else if (v instanceof Number num) d = num.doubleValue();
        else throw wrongType(key, "FLOAT", v);
        if (Double.isNaN(d) || d < min || d > max) {
            throw new RagException(owner + ": config key '" + key + "' must be between " + min + " and " + max + ", got " + d);
        }
        return d;
    }

    public boolean bool(String key, boolean dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (!(v instanceof Boolean b)) throw wrongType(key, "BOOLEAN", v);
        return b;
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> map(String key) {
        Object v = raw(key);
        if (v == null) return null;
        if (!(v instanceof Map<?, ?> m)) throw wrongType(key, "MAP", v);
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) throw wrongType(key, "MAP with STRING keys", v);
        }
        return (Map<String, Object>) m;
    }

    public List<String> strings(String key, List<String> dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (!(v instanceof List<?> list)) throw wrongType(key, "LIST<STRING>", v);
        List<String> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (!(o instanceof String s)) throw wrongType(key, "LIST<STRING>", v);
            out.add(s);
        }
        return List.copyOf(out);
    }

    /** A list of maps (tool definitions, say), or an empty list. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> maps(String key) {
        Object v = raw(key);
        if (v == null) return List.of();
        if (!(v instanceof List<?> list) || !list.stream().allMatch(x -> x instanceof Map)) throw wrongType(key, "LIST<MAP>", v);
        return (List<Map<String, Object>>) v;
    }

    /** A value of any type, checked by the caller (a STRING or a MAP, say). */
    public Object any(String key) {
        return raw(key);
    }

    /** The {@code corpus} key: a valid corpus name, "default" when absent. */
    public String corpus() {
        return checkCorpusName(string("corpus", DEFAULT_CORPUS));
    }

    /** A corpus name (it names nodes' {@code corpus} property and appears in index names and messages): 1-64 safe characters. */
    public static String checkCorpusName(String corpus) {
        if (corpus == null || !CORPUS_NAME.matcher(corpus).matches()) {
            throw new RagException("invalid corpus name '" + corpus + "': use 1-64 letters, digits, '_', '-' or '.'");
        }
        return corpus;
    }

    /** Rejects keys that no getter asked for, suggesting the nearest valid one. */
    public void finish() {
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                String near = nearest(key, known);
                throw new RagException(owner + ": unknown config key '" + key + "'" + (near == null ? "" : "; did you mean '" + near + "'?")
                        + " valid keys are " + known);
            }
        }
    }

    /** The valid key closest to a wrong one (same letters in another case, or a few edits away), or null. */
    public static String nearest(String key, Iterable<String> valid) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String v : valid) {
            int d = v.equalsIgnoreCase(key) ? 0 : editDistance(key.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = v;
            }
        }
        return best != null && bestDistance <= Math.max(2, key.length() / 3) ? best : null;
    }

    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1], cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private Object raw(String key) {
        known.add(key);
        return values.get(key);
    }

    private RagException wrongType(String key, String expected, Object got) {
        return new RagException(owner + ": config key '" + key + "' must be " + expected + ", got "
                + typeName(got));
    }

    public static String typeName(Object v) {
        if (v == null) return "NULL";
        if (v instanceof String) return "STRING";
        if (v instanceof Long || v instanceof Integer) return "INTEGER";
        if (v instanceof Double || v instanceof Float) return "FLOAT";
        if (v instanceof Boolean) return "BOOLEAN";
        if (v instanceof Map) return "MAP";
        if (v instanceof List) return "LIST";
        return v.getClass().getSimpleName();
    }
}
