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

    private final String owner;
    private final List<Condition> conditions;

    private DocumentFilter(String owner, List<Condition> conditions) {
        this.owner = owner;
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
        return out.isEmpty() ? null : new DocumentFilter(owner, out);
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
        if (ids.isEmpty()) {
            String why = whyNothingCanMatch(tx, corpus);
            if (why != null) throw new RagException(owner + ": where " + this + " matches no document of corpus '" + corpus + "': " + why);
        }
        // not Set.copyOf: its contains(null) throws, and a caller may ask about a node without a documentId
        return new Allowed(java.util.Collections.unmodifiableSet(ids), chunks);
    }

    /**
     * When no Document passes: the mistake that makes the filter unable to match any (a property no Document of the
     * corpus has, or a value of another type than every Document stores), or null when the filter could match and the
     * corpus simply holds no such Document (an empty result, not an error).
     */
    private String whyNothingCanMatch(Transaction tx, String corpus) {
        Map<String, Set<String>> types = new java.util.TreeMap<>();
        try (Result r = tx.execute("MATCH (d:Document {corpus: $c}) RETURN d", Map.of("c", corpus))) {
            while (r.hasNext()) {
                for (Map.Entry<String, Object> p : ((Node) r.next().get("d")).getAllProperties().entrySet()) {
                    Set<String> kinds = types.computeIfAbsent(p.getKey(), k -> new java.util.TreeSet<>());
                    for (Object v : values(p.getValue())) kinds.add(kind(v));
                }
            }
        }
        if (types.isEmpty()) return null; // no Document at all
        for (Condition c : conditions) {
            if (c.op().equals("$exists") || c.op().equals("$ne") || c.op().equals("$nin")) continue; // these pass where the property is absent
            String property = c.key().equals("documentId") ? "id" : c.key();
            Set<String> stored = types.get(property);
            if (stored == null) {
                List<String> keys = types.keySet().stream().filter(k -> !INTERNAL.contains(k)).map(k -> k.equals("id") ? "documentId" : k).sorted().toList();
                String near = dev.graphrag.core.config.ConfigReader.nearest(c.key(), keys);
                return "no Document has the property '" + c.key() + "'" + (near == null ? "" : " (did you mean '" + near + "'?)")
                        + "; its Documents have " + keys;
            }
            List<?> operands = c.value() instanceof List<?> l ? l : List.of(c.value());
            for (Object operand : operands) {
                String given = kind(operand);
                // a stored date or datetime compares with a string (its ISO text)
                if (!stored.contains(given) && !(given.equals("STRING") && stored.contains("TEMPORAL"))) {
                    return "'" + c.key() + "' is stored as " + String.join(" or ", stored) + " and the where compares it with the " + given + " "
                            + (operand instanceof String str ? "'" + str + "'" : String.valueOf(operand)) + "; give the value as " + stored.iterator().next();
                }
            }
        }
        return null;
    }

    /** Internal Document properties left out of the list of properties a user may filter on. */
    private static final Set<String> INTERNAL = Set.of("text", "contentHash", "sha256", "settings", "chunker", "chunkCount", "corpus", "embeddingModel");

    /** The type family of a stored or given value, as the comparisons above treat them. */
    private static String kind(Object v) {
        if (v instanceof String) return "STRING";
        if (v instanceof Number) return "NUMBER";
        if (v instanceof Boolean) return "BOOLEAN";
        if (v instanceof java.time.temporal.TemporalAccessor) return "TEMPORAL";
        return ConfigReader.typeName(v);
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
