package dev.graphrag.core.search;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code where} key of retrieval procedures (not {@code filter}, which AGRAG's and ReMind's LLM filters already
 * name): conditions on a chunk's Document, all of which must hold. Keys
 * are Document properties (metadata, {@code source}, {@code contentType}, {@code title}, ...; {@code documentId} is
 * the Document's id); a value is either a plain value (equality) or a map of operators, as neo4j-graphrag's
 * retrievers write them: {@code $eq $ne $in $nin $gt $gte $lt $lte $exists $startsWith}, where the {@code $} may be
 * left out (in a Cypher map literal a key cannot start with it unquoted: {@code {year: {gte: 2024}}}). List properties (tags)
 * match equality and $in when any element does. Evaluated in Java on each Document, never spliced into Cypher.
 */
public final class DocumentFilter {
    /** The config key every retrieval procedure reads the filter from. */
    public static final String KEY_NAME = "where";
    /** The key every retrieving procedure shares, parsed with {@link #parse}. */
    public static final dev.graphrag.core.config.Key<Object> WHERE = dev.graphrag.core.config.Key.any(KEY_NAME);
    private static final Pattern KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final Set<String> OPERATORS = Set.of("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists", "$startsWith");
    private static final List<String> OPERATOR_NAMES = List.of("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "exists", "startsWith");

    /** One condition: property, operator, operand. */
    private record Condition(String key, String op, Object value) {}

    private final List<Condition> conditions;

    private DocumentFilter(List<Condition> conditions) {
        this.conditions = List.copyOf(conditions);
    }

    /** The filter of a config map value, or null when absent or empty; errors name the owner, the key and what is wrong. */
    public static DocumentFilter parse(String owner, Object raw) {
        if (raw == null) return null;
        if (!(raw instanceof Map<?, ?> m)) throw new RagException(owner + ": where must be a MAP of Document property to value or {$operator: value}, got "
                + ConfigReader.typeName(raw));
        List<Condition> out = new ArrayList<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!KEY.matcher(key).matches()) {
                throw new RagException(owner + ": where key '" + key + "' is not a property name (letters, digits and '_', at most 64)");
            }
            if (e.getValue() instanceof Map<?, ?> ops) {
                if (ops.isEmpty()) throw new RagException(owner + ": where on '" + key + "' has no operator; use one of " + OPERATOR_NAMES);
                for (Map.Entry<?, ?> o : ops.entrySet()) {
                    String given = String.valueOf(o.getKey());
                    String op = given.startsWith("$") ? given : "$" + given; // Cypher map keys cannot start with $ unquoted
                    if (!OPERATORS.contains(op)) {
                        throw new RagException(owner + ": where on '" + key + "' has unknown operator '" + given + "'; use one of "
                                + OPERATOR_NAMES + " (with or without a leading $)");
                    }
                    out.add(new Condition(key, op, operand(owner, key, op, o.getValue())));
                }
            } else {
                out.add(new Condition(key, "$eq", operand(owner, key, "$eq", e.getValue())));
            }
        }
        return out.isEmpty() ? null : new DocumentFilter(out);
    }

    private static Object operand(String owner, String key, String op, Object v) {
        String where = owner + ": where " + key + "." + op;
        switch (op) {
            case "$in", "$nin" -> {
                if (!(v instanceof List<?> list) || list.isEmpty() || !list.stream().allMatch(DocumentFilter::scalar)) {
                    throw new RagException(where + " needs a non-empty LIST of strings, numbers or booleans, got " + ConfigReader.typeName(v));
                }
                return list;
            }
            case "$exists" -> {
                if (!(v instanceof Boolean)) throw new RagException(where + " needs true or false, got " + ConfigReader.typeName(v));
                return v;
            }
            case "$startsWith" -> {
                if (!(v instanceof String)) throw new RagException(where + " needs a STRING, got " + ConfigReader.typeName(v));
                return v;
            }
            case "$gt", "$gte", "$lt", "$lte" -> {
                if (!(v instanceof Number) && !(v instanceof String)) {
                    throw new RagException(where + " needs a number or a string (dates as ISO-8601 strings compare in order), got " + ConfigReader.typeName(v));
                }
                return v;
            }
            default -> {
                if (!scalar(v)) throw new RagException(where + " needs a string, number or boolean, got " + ConfigReader.typeName(v));
                return v;
            }
        }
    }

    private static boolean scalar(Object v) {
        return v instanceof String || v instanceof Number || v instanceof Boolean;
    }

    /** Whether a Document satisfies every condition. */
    public boolean matches(Node document) {
        return matches(key -> document.getProperty(key, null));
    }

    /** Whether a Document whose properties {@code property} reads (null when absent) satisfies every condition. */
    public boolean matches(java.util.function.Function<String, Object> property) {
        for (Condition c : conditions) {
            if (!holds(c, property.apply(c.key().equals("documentId") ? "id" : c.key()))) return false;
        }
        return true;
    }

    private static boolean holds(Condition c, Object actual) {
        List<Object> values = values(actual);
        return switch (c.op()) {
            case "$exists" -> (Boolean) c.value() == (actual != null);
            case "$eq" -> values.stream().anyMatch(v -> same(v, c.value()));
            case "$ne" -> values.stream().noneMatch(v -> same(v, c.value()));
            case "$in" -> values.stream().anyMatch(v -> ((List<?>) c.value()).stream().anyMatch(x -> same(v, x)));
            case "$nin" -> values.stream().noneMatch(v -> ((List<?>) c.value()).stream().anyMatch(x -> same(v, x)));
            case "$startsWith" -> values.stream().anyMatch(v -> v instanceof String s && s.startsWith((String) c.value()));
            default -> values.stream().anyMatch(v -> {
                Integer cmp = compare(v, c.value());
                if (cmp == null) return false;
                return switch (c.op()) {
                    case "$gt" -> cmp > 0;
                    case "$gte" -> cmp >= 0;
                    case "$lt" -> cmp < 0;
                    default -> cmp <= 0;
                };
            });
        };
    }

    private static List<Object> values(Object actual) {
        if (actual == null) return List.of();
        if (actual.getClass().isArray()) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(actual); i++) out.add(java.lang.reflect.Array.get(actual, i));
            return out;
        }
        return List.of(actual);
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) return Double.compare(x.doubleValue(), y.doubleValue()) == 0;
        return a.equals(b) || a instanceof java.time.temporal.TemporalAccessor && a.toString().equals(b);
    }

    private static Integer compare(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) return Double.compare(x.doubleValue(), y.doubleValue());
        if (b instanceof String s) {
            String left = a instanceof String l ? l : a instanceof java.time.temporal.TemporalAccessor ? a.toString() : null;
            return left == null ? null : left.compareTo(s);
        }
        return null;
    }

    /** The ids of the corpus's Documents that pass, and how many chunks they hold. */
    public record Allowed(Set<String> documentIds, long chunks) {
        public boolean admits(Node chunk) {
            return documentIds.contains((String) chunk.getProperty("documentId", null));
        }
    }

    public Allowed allowed(Transaction tx, String corpus) {
        Set<String> ids = new HashSet<>();
        long chunks = 0;
        try (Result r = tx.execute("MATCH (d:Document {corpus: $c}) RETURN d", Map.of("c", corpus))) {
            while (r.hasNext()) {
                Node d = (Node) r.next().get("d");
                if (matches(d)) {
                    ids.add((String) d.getProperty("id"));
                    chunks += ((Number) d.getProperty("chunkCount", 0L)).longValue();
                }
            }
        }
        // not Set.copyOf: its contains(null) throws, and a caller may ask about a node without a documentId
        return new Allowed(java.util.Collections.unmodifiableSet(ids), chunks);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Condition c : conditions) {
            if (b.length() > 0) b.append(" AND ");
            b.append(c.key()).append(' ').append(c.op().substring(1).toLowerCase(Locale.ROOT)).append(' ').append(c.value());
        }
        return b.toString();
    }
}
