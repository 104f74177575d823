package dev.graphrag.procedures;

import dev.graphrag.core.llm.Usage;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds a procedure's row record from what the method returned, column by column by name, so no procedure flattens
 * a usage or copies a method's record field by field. Each component of the row takes its value from the first source
 * that has it: a {@code Map} by key (values the procedure computes), a {@link Usage} for the usage columns
 * ({@code llmCalls}, {@code promptTokens}, {@code completionTokens}, {@code tokensByStep}), any other object by its
 * public no-argument method of that name (a record's accessor). A column no source has is a programming error and fails
 * on the first call (every procedure's tests build its rows).
 */
final class Rows {
    private static final Map<Class<?>, Constructor<?>> CONSTRUCTORS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Map<String, Method>> ACCESSORS = new ConcurrentHashMap<>();

    private Rows() {}

    static <R extends Record> R of(Class<R> type, Object... sources) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            values[i] = convert(type, components[i], find(type, components[i].getName(), sources));
        }
        try {
            @SuppressWarnings("unchecked") R row = (R) CONSTRUCTORS.computeIfAbsent(type, Rows::canonical).newInstance(values);
            return row;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a " + type.getSimpleName() + " row", e);
        }
    }

    /** Named column values for {@link #of}, nulls allowed (a row kind that leaves columns empty). */
    static Map<String, Object> columns(Object... keysAndValues) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }

    private static Object find(Class<?> type, String column, Object[] sources) {
        for (Object s : sources) {
            if (s instanceof Map<?, ?> m) {
                if (m.containsKey(column)) return m.get(column);
            } else if (s instanceof Usage u) {
                switch (column) {
                    case "llmCalls": return u.calls();
                    case "promptTokens": return u.promptTokens();
                    case "completionTokens": return u.completionTokens();
                    case "tokensByStep": return u.tokensByStep();
                    default: break;
                }
            } else if (s != null) {
                Method m = ACCESSORS.computeIfAbsent(s.getClass(), Rows::accessors).get(column);
                if (m != null) {
                    try {
                        return m.invoke(s);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException("cannot read " + column + " of " + s.getClass().getSimpleName(), e);
                    }
                }
            }
        }
        throw new IllegalStateException(type.getSimpleName() + ": no source has the column '" + column + "'");
    }

    /** Numbers widen to the column's type (an int count to a long column); everything else must already fit. */
    private static Object convert(Class<?> type, RecordComponent c, Object v) {
        Class<?> t = c.getType();
        if (v instanceof Number n && !t.isInstance(v)) {
            if (t == long.class || t == Long.class) return n.longValue();
            if (t == double.class || t == Double.class) return n.doubleValue();
        }
        if (v == null && t.isPrimitive() || v != null && !wrap(t).isInstance(v)) {
            throw new IllegalStateException(type.getSimpleName() + "." + c.getName() + " is " + t.getSimpleName() + ", the source gave "
                    + (v == null ? "null" : v.getClass().getSimpleName()));
        }
        return v;
    }

    private static Class<?> wrap(Class<?> t) {
        if (!t.isPrimitive()) return t;
        return t == long.class ? Long.class : t == double.class ? Double.class : t == boolean.class ? Boolean.class : t == int.class ? Integer.class : t;
    }

    private static Constructor<?> canonical(Class<?> type) {
        RecordComponent[] rc = type.getRecordComponents();
        Class<?>[] params = new Class<?>[rc.length];
        for (int i = 0; i < rc.length; i++) params[i] = rc[i].getType();
        try {
            return type.getDeclaredConstructor(params);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Method> accessors(Class<?> type) {
        Map<String, Method> out = new HashMap<>();
        for (Method m : type.getMethods()) {
            if (m.getParameterCount() != 0 || m.getDeclaringClass() == Object.class) continue;
            m.trySetAccessible(); // a method's record may be package-private; a public method of a closed module is callable as it is
            out.put(m.getName(), m);
        }
        return out;
    }
}
