package dev.graphrag.springai;

import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A Spring AI {@link Filter.Expression} (or its text form, {@code "team == 'a' && year >= 2024"}) as the plugin's
 * {@code where} map, operator for operator: EQ {@code $eq}, NE {@code $ne}, GT/GTE/LT/LTE {@code $gt}/{@code $gte}/
 * {@code $lt}/{@code $lte}, IN/NIN {@code $in}/{@code $nin}, ISNULL/ISNOTNULL {@code $exists} false/true, AND/OR/NOT
 * {@code $and}/{@code $or}/{@code $not}, groups as their content. A shape with no where form (a key on the right, a
 * value where a key belongs) is an error naming it, never dropped: a filter left out would widen the search.
 */
public final class FilterExpressionToWhere {
    private FilterExpressionToWhere() {}

    /** The text form, parsed by Spring AI's own parser. */
    public static Map<String, Object> where(String text) {
        if (text == null || text.isBlank()) return null;
        return where(new FilterExpressionTextParser().parse(text));
    }

    public static Map<String, Object> where(Filter.Expression e) {
        if (e == null) return null;
        return switch (e.type()) {
            case AND -> Map.of("$and", List.of(operand(e.left()), operand(e.right())));
            case OR -> Map.of("$or", List.of(operand(e.left()), operand(e.right())));
            case NOT -> Map.of("$not", operand(e.left()));
            case ISNULL -> Map.of(key(e), Map.of("$exists", false));
            case ISNOTNULL -> Map.of(key(e), Map.of("$exists", true));
            case EQ -> comparison(e, "$eq");
            case NE -> comparison(e, "$ne");
            case GT -> comparison(e, "$gt");
            case GTE -> comparison(e, "$gte");
            case LT -> comparison(e, "$lt");
            case LTE -> comparison(e, "$lte");
            case IN -> comparison(e, "$in");
            case NIN -> comparison(e, "$nin");
        };
    }

    private static Map<String, Object> operand(Filter.Operand o) {
        if (o instanceof Filter.Expression e) return where(e);
        if (o instanceof Filter.Group g) return where(g.content());
        throw new IllegalArgumentException("a logical operand must be an expression or a group, got " + o);
    }

    private static String key(Filter.Expression e) {
        if (e.left() instanceof Filter.Key k) return unquote(k.key());
        throw new IllegalArgumentException("the filter " + e + " has no where form: its left side must be a metadata key");
    }

    private static Map<String, Object> comparison(Filter.Expression e, String op) {
        if (!(e.right() instanceof Filter.Value v)) {
            throw new IllegalArgumentException("the filter " + e + " has no where form: its right side must be a value");
        }
        Object value = v.value();
        if ((op.equals("$in") || op.equals("$nin")) && !(value instanceof Collection<?>)) value = List.of(value);
        if (value instanceof Collection<?> c) value = new ArrayList<>(c);
        return Map.of(key(e), Map.of(op, value));
    }

    /** The text parser keeps quotes around keys written as strings ("'country'"); the property is the bare name. */
    private static String unquote(String key) {
        if (key.length() >= 2 && (key.startsWith("'") && key.endsWith("'") || key.startsWith("\"") && key.endsWith("\""))) {
            return key.substring(1, key.length() - 1);
        }
        return key;
    }
}
