package dev.graphrag.core.config;

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

    /** The key's value in {@code r}, or its default when absent; an out-of-range or mistyped value is an error naming the key. */
    public T read(ConfigReader r) {
        return reader.apply(r, this);
    }

    public Key<T> withDefault(T other) {
        return new Key<>(name, other, reader);
    }
}
