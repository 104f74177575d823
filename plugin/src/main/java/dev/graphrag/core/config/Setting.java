package dev.graphrag.core.config;

import dev.graphrag.core.RagException;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One graphrag.* server setting, declared once: its name, type, default and range, and where it may be set. Every
 * setting is read from graphrag.conf and may be overridden by its environment variable ({@link #envName()}); some are
 * also the default (or the ceiling) of a per-call key, which {@link #perCall()} names. {@link PluginSettings} parses
 * raw values through {@link #parse}, so an ill-typed or out-of-range value stops the server at start with an error
 * naming the setting, never its value (the value may be a secret). docs/configuration.md's table is checked against
 * these declarations both ways.
 *
 * @param <T> String, Long, Double or Boolean
 */
public final class Setting<T> {
    /** The value types a setting may have, as docs/configuration.md names them. */
    public enum Type {
        STRING, INTEGER, NUMBER, BOOLEAN, CHOICE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How a per-call key relates to the setting: the setting is its default, or its ceiling (and its default). */
    public enum PerCall { DEFAULT, CEILING }

    private final String name;
    private final Type type;
    private final Class<T> javaType;
    private final T dflt;
    private final Number min;
    private final Number max;
    private final List<String> choices;
    private final boolean secret;
    private final String callKey;
    private final PerCall perCall;

    private Setting(String name, Type type, Class<T> javaType, T dflt, Number min, Number max, List<String> choices, boolean secret,
                    String callKey, PerCall perCall) {
        if (!name.matches("graphrag\\.[a-z]+\\.[A-Za-z.]+")) throw new IllegalArgumentException("malformed setting name " + name);
        this.name = name;
        this.type = type;
        this.javaType = javaType;
        this.dflt = Objects.requireNonNull(dflt, name);
        this.min = min;
        this.max = max;
        this.choices = List.copyOf(choices);
        this.secret = secret;
        this.callKey = callKey;
        this.perCall = perCall;
    }

    /** Free text; "" is "not set". */
    public static Setting<String> string(String name, String dflt) {
        return new Setting<>(name, Type.STRING, String.class, dflt, null, null, List.of(), false, null, null);
    }

    /** A key or other secret: never logged, returned or put in an error. */
    public static Setting<String> secret(String name) {
        return new Setting<>(name, Type.STRING, String.class, "", null, null, List.of(), true, null, null);
    }

    /** One of a fixed list of words, compared without regard to case; the value read is the word as declared. */
    public static Setting<String> choice(String name, String dflt, String... choices) {
        if (!List.of(choices).contains(dflt)) throw new IllegalArgumentException(name + ": default " + dflt + " is not a choice");
        return new Setting<>(name, Type.CHOICE, String.class, dflt, null, null, List.of(choices), false, null, null);
    }

    public static Setting<Long> integer(String name, long dflt, long min, long max) {
        if (dflt < min || dflt > max) throw new IllegalArgumentException(name + ": default outside its range");
        return new Setting<>(name, Type.INTEGER, Long.class, dflt, min, max, List.of(), false, null, null);
    }

    public static Setting<Double> number(String name, double dflt, double min, double max) {
        if (dflt < min || dflt > max) throw new IllegalArgumentException(name + ": default outside its range");
        return new Setting<>(name, Type.NUMBER, Double.class, dflt, min, max, List.of(), false, null, null);
    }

    public static Setting<Boolean> bool(String name, boolean dflt) {
        return new Setting<>(name, Type.BOOLEAN, Boolean.class, dflt, null, null, List.of(), false, null, null);
    }

    /** The same setting, as the default of the per-call key {@code key} (a dotted path inside a call's config). */
    public Setting<T> defaultOf(String key) {
        return new Setting<>(name, type, javaType, dflt, min, max, choices, secret, key, PerCall.DEFAULT);
    }

    /** The same setting, as the ceiling of the per-call key {@code key}: a call asking for more is an error naming this setting. */
    public Setting<T> ceilingOf(String key) {
        return new Setting<>(name, type, javaType, dflt, min, max, choices, secret, key, PerCall.CEILING);
    }

    public String name() { return name; }
    public Type type() { return type; }
    public T dflt() { return dflt; }
    public boolean secret() { return secret; }
    public List<String> choices() { return choices; }
    /** The per-call key this setting is the default or ceiling of; null when none. */
    public String callKey() { return callKey; }
    /** How {@link #callKey()} relates to this setting; null when there is no such key. */
    public PerCall perCall() { return perCall; }

    /** The environment variable that overrides it: dots to underscores, camel-case words split ({@code GRAPHRAG_LLM_API_KEY}). */
    public String envName() {
        return envName(name);
    }

    static String envName(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** Every variable that sets it: the documented name, and the unsplit one earlier releases read. */
    public List<String> envNames() {
        String unsplit = name.toUpperCase(Locale.ROOT).replace('.', '_');
        return unsplit.equals(envName()) ? List.of(unsplit) : List.of(envName(), unsplit);
    }

    /** The range as docs/configuration.md writes it: {@code 1..20000}, {@code >= 0}, {@code onnx, openai}, or "" (any text). */
    public String range() {
        return switch (type) {
            case STRING -> "";
            case BOOLEAN -> "true, false";
            case CHOICE -> String.join(", ", choices);
            case INTEGER -> bounds(min.longValue() == Long.MIN_VALUE ? null : min, max.longValue() == Long.MAX_VALUE ? null : max);
            case NUMBER -> bounds(Double.isInfinite(min.doubleValue()) ? null : min, Double.isInfinite(max.doubleValue()) ? null : max);
        };
    }

    private static String bounds(Number lo, Number hi) {
        if (lo != null && hi != null) return lo + ".." + hi;
        if (lo != null) return ">= " + lo;
        return hi == null ? "" : "<= " + hi;
    }

    /** The default as docs/configuration.md writes it. */
    public String dfltText() {
        return dflt instanceof String s && s.isEmpty() ? "" : String.valueOf(dflt);
    }

    /** The typed value of {@code raw} (trimmed); an ill-typed or out-of-range one is an error naming the setting, never the value. */
    public T parse(String raw, String source) {
        String v = raw.trim();
        Object out;
        switch (type) {
            case STRING -> out = v;
            case CHOICE -> {
                out = null;
                for (String c : choices) if (c.equalsIgnoreCase(v)) out = c;
                if (out == null) throw invalid(source, "one of " + String.join(", ", choices) + ", got '" + v + "'"); // a choice is never a secret
            }
            case BOOLEAN -> {
                if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) throw invalid(source, "true or false");
                out = Boolean.parseBoolean(v);
            }
            case INTEGER -> {
                long n;
                try {
                    n = Long.parseLong(v.replace("_", ""));
                } catch (NumberFormatException e) {
                    throw invalid(source, "an integer");
                }
                if (n < min.longValue() || n > max.longValue()) throw invalid(source, "an integer in " + range() + ", got " + n);
                out = n;
            }
            case NUMBER -> {
                double d;
                try {
                    d = Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    throw invalid(source, "a number");
                }
                if (!(d >= min.doubleValue() && d <= max.doubleValue())) throw invalid(source, "a number in " + range() + ", got " + d);
                out = d;
            }
            default -> throw new IllegalStateException();
        }
        return javaType.cast(out);
    }

    private RagException invalid(String source, String what) {
        return new RagException(source + ": setting '" + name + "' must be " + what);
    }

    @Override
    public String toString() {
        return name;
    }
}
