package dev.graphrag.core.config;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * One config key, declared once: its name (the same as the accessor of the config record that holds it), its
 * default and how it is read, range checks included. A config record reads its keys through {@link #read} and takes
 * its defaults from {@link #dflt}, so no default is written twice. {@link #withDefault} gives the same key with
 * another default (a mode's own tuning); the range stays.
 */
public record Key<T>(String name, T dflt, BiFunction<ConfigReader, Key<T>, T> reader) {
    public static Key<Integer> integer(String name, int dflt, int min, int max) {
        return new Key<>(name, dflt, (r, k) -> r.integer(name, k.dflt(), min, max));
    }

    public static Key<Long> longInteger(String name, long dflt, long min, long max) {
        return new Key<>(name, dflt, (r, k) -> r.integer(name, k.dflt(), min, max));
    }

    /** A string key; {@code dflt} may be null (absent: none). */
    public static Key<String> string(String name, String dflt) {
        return new Key<>(name, dflt, (r, k) -> r.string(name, k.dflt()));
    }

    public static Key<Double> number(String name, double dflt, double min, double max) {
        return new Key<>(name, dflt, (r, k) -> r.number(name, k.dflt(), min, max));
    }

    public static Key<Boolean> bool(String name, boolean dflt) {
        return new Key<>(name, dflt, (r, k) -> r.bool(name, k.dflt()));
    }

    public static <E extends Enum<E>> Key<E> choice(String name, Class<E> type, E dflt) {
        return new Key<>(name, dflt, (r, k) -> r.choice(name, type, k.dflt()));
    }

    /** A list of strings; {@code dflt} may be null (absent: none). */
    public static Key<List<String>> strings(String name, List<String> dflt) {
        return new Key<>(name, dflt, (r, k) -> r.strings(name, k.dflt()));
    }

    /** A map with string keys (a group its owner reads further, like {@code llm}); null when absent. */
    public static Key<Map<String, Object>> map(String name) {
        return new Key<>(name, null, (r, k) -> r.map(name));
    }

    /** A list of maps; empty when absent. */
    public static Key<List<Map<String, Object>>> maps(String name) {
        return new Key<>(name, List.of(), (r, k) -> r.maps(name));
    }

    /** A value of more than one shape (a STRING or a MAP, say), which its owner checks; null when absent. */
    public static Key<Object> any(String name) {
        return new Key<>(name, null, (r, k) -> r.any(name));
    }

    /**
     * A whole number whose default and ceiling are server settings (read when the key is built): above the ceiling is
     * an error naming {@code ceilingSetting}; the default is clamped to it.
     */
    public static Key<Long> atMost(String name, long dflt, long min, long ceiling, String ceilingSetting) {
        return new Key<>(name, dflt, (r, k) -> r.integerAtMost(name, k.dflt(), min, ceiling, ceilingSetting));
    }

    /** {@link #atMost} with the default and the ceiling read from the server's settings {@code dflt} and {@code ceiling}. */
    public static Key<Long> atMost(String name, long min, PluginSettings s, Setting<Long> dflt, Setting<Long> ceiling) {
        return atMost(name, s.get(dflt), min, s.get(ceiling), ceiling.name());
    }

    /** The key's value in {@code r}, or its default when absent; an out-of-range or mistyped value is an error naming the key. */
    public T read(ConfigReader r) {
        return reader.apply(r, this);
    }

    public Key<T> withDefault(T other) {
        return new Key<>(name, other, reader);
    }
}
