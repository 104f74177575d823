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
 * name): conditions on a chunk's Document. Keys are Document properties (metadata, {@code source}, {@code contentType},
 * {@code title}, ...; {@code documentId} is the Document's id); a value is either a plain value (equality) or a map of
 * operators, as neo4j-graphrag's retrievers write them: {@code $eq $ne $in $nin $gt $gte $lt $lte $exists $startsWith
 * $contains}, where the {@code $} may be left out (in a Cypher map literal a key cannot start with it unquoted:
 * {@code {year: {gte: 2024}}}). The entries of one map must all hold; {@code $and} and {@code $or} take a list of such
 * maps, {@code $not} one map (or, on a property, a map of operators), nested as deep as {@value #MAX_DEPTH}, so that
 * LangChain4j's and Spring AI's filter trees pass through unchanged. List properties (tags) match equality and $in when
 * any element does. Evaluated in Java on each Document, never spliced into Cypher.
 */
public final class DocumentFilter {
    /** The config key every retrieval procedure reads the filter from. */
    public static final String KEY_NAME = "where";
    /** The key every retrieving procedure shares, parsed with {@link #parse}. */
    public static final dev.graphrag.core.config.Key<Object> WHERE = dev.graphrag.core.config.Key.any(KEY_NAME);
    /** How deep and/or/not may nest, and how many conditions one filter may hold: a filter, not a program. */
    public static final int MAX_DEPTH = 16;
    public static final int MAX_CONDITIONS = 256;
    private static final Pattern KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final Set<String> OPERATORS = Set.of("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists", "$startsWith", "$contains");
    private static final List<String> OPERATOR_NAMES = List.of("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "exists", "startsWith", "contains", "not");
    private static final List<String> LOGICAL = List.of("and", "or", "not");

    /** A node of the filter tree. */
    private sealed interface Expr permits Condition, All, Any, Not {}

    /** One condition: property, operator, operand. */
    private record Condition(String key, String op, Object value) implements Expr {}

    private record All(List<Expr> parts) implements Expr {}

    private record Any(List<Expr> parts) implements Expr {}

    private record Not(Expr part) implements Expr {}

    private final String owner;
    private final Expr root;

    private DocumentFilter(String owner, Expr root) {
        this.owner = owner;
        this.root = root;
    }

    /** The filter of a config map value, or null when absent or empty; errors name the owner, the part and what is wrong. */
    public static DocumentFilter parse(String owner, Object raw) {
        if (raw == null) return null;
        if (!(raw instanceof Map<?, ?> m)) throw new RagException(owner + ": where must be a MAP of Document property to value or {$operator: value}, got "
                + ConfigReader.typeName(raw));
        if (m.isEmpty()) return null;
        Parser parser = new Parser(owner);
        return new DocumentFilter(owner, parser.map(m, "", 0));
    }

    /** Reads one level of the tree; {@code path} names where it is ("" at the top, "$or[1]." inside), for errors. */
    private static final class Parser {
        final String owner;
        int conditions;

        Parser(String owner) {
            this.owner = owner;
        }

        Expr map(Map<?, ?> m, String path, int depth) {
            if (depth > MAX_DEPTH) throw new RagException(owner + ": where " + path + " nests and/or/not deeper than " + MAX_DEPTH + " levels");
            if (m.isEmpty()) throw new RagException(owner + ": where " + trim(path) + " is an empty map; give at least one condition");
            List<Expr> parts = new ArrayList<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                String logical = logicalName(key);
                if (logical != null) {
                    parts.add(logical(logical, e.getValue(), path, depth));
                    continue;
                }
                if (!KEY.matcher(key).matches()) {
                    throw new RagException(owner + ": where key '" + key + "' is not a property name (letters, digits and '_', at most 64)"
                            + (key.startsWith("$") ? " nor one of " + LOGICAL.stream().map(l -> "$" + l).toList() : ""));
                }
                parts.add(property(key, e.getValue(), path + key, depth));
            }
            return parts.size() == 1 ? parts.get(0) : new All(parts);
        }

        Expr logical(String logical, Object value, String path, int depth) {
            String here = path + "$" + logical;
            if (logical.equals("not")) {
                if (!(value instanceof Map<?, ?> inner)) {
                    throw new RagException(owner + ": where " + here + " needs a MAP (the filter it negates), got " + ConfigReader.typeName(value));
                }
                return new Not(map(inner, here + ".", depth + 1));
            }
            if (!(value instanceof List<?> list) || list.isEmpty()) {
                throw new RagException(owner + ": where " + here + " needs a non-empty LIST of filter maps, got " + ConfigReader.typeName(value));
            }
            List<Expr> parts = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof Map<?, ?> inner)) {
                    throw new RagException(owner + ": where " + here + "[" + i + "] must be a MAP (a filter), got " + ConfigReader.typeName(list.get(i)));
                }
                parts.add(map(inner, here + "[" + i + "].", depth + 1));
            }
            if (parts.size() == 1) return parts.get(0);
            return logical.equals("and") ? new All(parts) : new Any(parts);
        }

        Expr property(String key, Object value, String path, int depth) {
            if (!(value instanceof Map<?, ?> ops)) return condition(key, "$eq", value, path);
            if (ops.isEmpty()) throw new RagException(owner + ": where on '" + key + "' has no operator; use one of " + OPERATOR_NAMES);
            List<Expr> parts = new ArrayList<>();
            for (Map.Entry<?, ?> o : ops.entrySet()) {
                String given = String.valueOf(o.getKey());
                String op = given.startsWith("$") ? given : "$" + given; // Cypher map keys cannot start with $ unquoted
                if (op.equals("$not")) {
                    if (!(o.getValue() instanceof Map<?, ?> inner) || inner.isEmpty()) {
                        throw new RagException(owner + ": where " + path + ".$not needs a MAP of operators, e.g. {not: {gt: 5}}, got "
                                + ConfigReader.typeName(o.getValue()));
                    }
                    if (depth + 1 > MAX_DEPTH) throw new RagException(owner + ": where " + path + " nests and/or/not deeper than " + MAX_DEPTH + " levels");
                    parts.add(new Not(property(key, inner, path + ".$not", depth + 1)));
                    continue;
                }
                if (!OPERATORS.contains(op)) {
                    throw new RagException(owner + ": where on '" + key + "' has unknown operator '" + given + "'; use one of "
                            + OPERATOR_NAMES + " (with or without a leading $)");
                }
                parts.add(condition(key, op, o.getValue(), path));
            }
            return parts.size() == 1 ? parts.get(0) : new All(parts);
        }

        Condition condition(String key, String op, Object value, String path) {
            if (++conditions > MAX_CONDITIONS) throw new RagException(owner + ": where holds more than " + MAX_CONDITIONS + " conditions");
            return new Condition(key, op, operand(owner, path, op, value));
        }
    }

    /** The logical operator a key names ("and", "$or", ...), or null for a property. */
    private static String logicalName(String key) {
        String bare = key.startsWith("$") ? key.substring(1) : key;
        return LOGICAL.contains(bare) ? bare : null;
    }

    private static String trim(String path) {
        return path.isEmpty() ? "" : path.substring(0, path.length() - 1);
    }

    private static Object operand(String owner, String path, String op, Object v) {
        String where = owner + ": where " + path + "." + op;
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
            case "$startsWith", "$contains" -> {
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

    /** Whether a Document satisfies the filter. */
    public boolean matches(Node document) {
        return matches(key -> document.getProperty(key, null));
    }

    /** Whether a Document whose properties {@code property} reads (null when absent) satisfies the filter. */
    public boolean matches(java.util.function.Function<String, Object> property) {
        return test(root, property);
    }

    private static boolean test(Expr e, java.util.function.Function<String, Object> property) {
        // Java 17: no pattern switch
        if (e instanceof Condition c) return holds(c, property.apply(c.key().equals("documentId") ? "id" : c.key()));
        if (e instanceof All a) return a.parts().stream().allMatch(p -> test(p, property));
        if (e instanceof Any a) return a.parts().stream().anyMatch(p -> test(p, property));
        return !test(((Not) e).part(), property);
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
            case "$contains" -> values.stream().anyMatch(v -> v instanceof String s && s.contains((String) c.value()));
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
        return impossible(root, types);
    }

    /**
     * Why {@code e} can match no Document with these property types, or null when it could: a condition fails on a
     * property no Document has or on a value of another type; all of an and fails when one part does, an or when every
     * branch does; a not is never judged (its part failing everywhere makes it pass).
     */
    private static String impossible(Expr e, Map<String, Set<String>> types) {
        if (e instanceof All a) {
            for (Expr p : a.parts()) {
                String why = impossible(p, types);
                if (why != null) return why;
            }
            return null;
        }
        if (e instanceof Any a) {
            List<String> whys = new ArrayList<>();
            for (Expr p : a.parts()) {
                String why = impossible(p, types);
                if (why == null) return null;
                whys.add(why);
            }
            return "no branch of the or can match: " + String.join("; ", whys);
        }
        if (!(e instanceof Condition c)) return null;
        if (c.op().equals("$exists") || c.op().equals("$ne") || c.op().equals("$nin")) return null; // these pass where the property is absent
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
        describe(root, b, false);
        return b.toString();
    }

    private static void describe(Expr e, StringBuilder b, boolean nested) {
        if (e instanceof Condition c) {
            b.append(c.key()).append(' ').append(c.op().substring(1).toLowerCase(Locale.ROOT)).append(' ').append(c.value());
        } else if (e instanceof Not n) {
            b.append("NOT (");
            describe(n.part(), b, false);
            b.append(')');
        } else {
            List<Expr> parts = e instanceof All a ? a.parts() : ((Any) e).parts();
            if (nested) b.append('(');
            for (int i = 0; i < parts.size(); i++) {
                if (i > 0) b.append(e instanceof All ? " AND " : " OR ");
                describe(parts.get(i), b, true);
            }
            if (nested) b.append(')');
        }
    }
}
