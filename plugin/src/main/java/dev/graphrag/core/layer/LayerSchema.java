package dev.graphrag.core.layer;

import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The constraints and indexes of a layer, declared by kind rather than written out as statements. Names, labels,
 * types and properties are the method's own constants (checked here all the same, since they are spliced into the
 * statements); vector indexes take the loaded model's dimensions.
 */
public final class LayerSchema {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private final Map<String, String> statements = new LinkedHashMap<>();

    /** A uniqueness constraint on one property of a label. */
    public LayerSchema unique(String name, Label label, String property) {
        return put(name, "CREATE CONSTRAINT " + name + " IF NOT EXISTS FOR (n:" + id(label.name()) + ") REQUIRE n." + id(property) + " IS UNIQUE");
    }

    /** A uniqueness constraint on one property of a relationship type. */
    public LayerSchema unique(String name, RelationshipType type, String property) {
        return put(name, "CREATE CONSTRAINT " + name + " IF NOT EXISTS FOR ()-[r:" + id(type.name()) + "]-() REQUIRE r." + id(property) + " IS UNIQUE");
    }

    /** A range index on one property, or a composite one on several, of a label. */
    public LayerSchema index(String name, Label label, String... properties) {
        return put(name, "CREATE INDEX " + name + " IF NOT EXISTS FOR (n:" + id(label.name()) + ") ON (" + on("n", ", ", properties) + ")");
    }

    /** A range index on one property of a relationship type. */
    public LayerSchema index(String name, RelationshipType type, String property) {
        return put(name, "CREATE INDEX " + name + " IF NOT EXISTS FOR ()-[r:" + id(type.name()) + "]-() ON (r." + id(property) + ")");
    }

    /** A cosine vector index on a label's property, filtering by corpus where the server can (VectorSearch). */
    public LayerSchema vector(String name, Label label, String property, int dimensions) {
        return put(name, dev.graphrag.core.lexical.VectorIndexes.nodeIndex(name, id(label.name()), id(property), dimensions));
    }

    /** A cosine vector index on a relationship type's property. */
    public LayerSchema vector(String name, RelationshipType type, String property, int dimensions) {
        return put(name, "CREATE VECTOR INDEX " + name + " IF NOT EXISTS FOR ()-[r:" + id(type.name()) + "]-() ON (r." + id(property) + ")" + cosine(dimensions));
    }

    /** A full-text index over properties of a label. */
    public LayerSchema fulltext(String name, Label label, String... properties) {
        return put(name, "CREATE FULLTEXT INDEX " + name + " IF NOT EXISTS FOR (n:" + id(label.name()) + ") ON EACH [" + on("n", ", ", properties) + "]");
    }

    /** A full-text index over properties of a relationship type. */
    public LayerSchema fulltext(String name, RelationshipType type, String... properties) {
        return put(name, "CREATE FULLTEXT INDEX " + name + " IF NOT EXISTS FOR ()-[r:" + id(type.name()) + "]-() ON EACH [" + on("r", ", ", properties) + "]");
    }

    /** This schema's statements, then {@code more}'s. */
    LayerSchema then(LayerSchema more) {
        statements.putAll(more.statements);
        return this;
    }

    /** Schema object name to statement, in declaration order. */
    public Map<String, String> statements() {
        return Collections.unmodifiableMap(statements);
    }

    private LayerSchema put(String name, String statement) {
        statements.put(id(name), statement);
        return this;
    }

    private static String cosine(int dimensions) {
        return dev.graphrag.core.lexical.VectorIndexes.cosineOptions(dimensions);
    }

    private static String on(String variable, String separator, String... properties) {
        if (properties.length == 0) throw new IllegalArgumentException("an index needs at least one property");
        return Arrays.stream(properties).map(p -> variable + "." + id(p)).collect(Collectors.joining(separator));
    }

    static String id(String s) {
        if (!IDENTIFIER.matcher(s).matches()) throw new IllegalArgumentException("not a schema identifier: '" + s + "'");
        return s;
    }
}
