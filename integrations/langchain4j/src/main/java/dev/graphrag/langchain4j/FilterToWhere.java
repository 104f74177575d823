package dev.graphrag.langchain4j;

import dev.langchain4j.store.embedding.filter.Filter;
import dev.langchain4j.store.embedding.filter.comparison.ContainsString;
import dev.langchain4j.store.embedding.filter.comparison.IsEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThan;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsIn;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThan;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsNotEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsNotIn;
import dev.langchain4j.store.embedding.filter.logical.And;
import dev.langchain4j.store.embedding.filter.logical.Not;
import dev.langchain4j.store.embedding.filter.logical.Or;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A LangChain4j {@link Filter} as the plugin's {@code where} map, operator for operator: IsEqualTo as {@code $eq},
 * IsNotEqualTo {@code $ne}, IsGreaterThan(OrEqualTo) {@code $gt}/{@code $gte}, IsLessThan(OrEqualTo)
 * {@code $lt}/{@code $lte}, IsIn/IsNotIn {@code $in}/{@code $nin}, ContainsString {@code $contains}, And/Or/Not
 * {@code $and}/{@code $or}/{@code $not}. Metadata keys are Document properties ({@code documentId} is the Document's
 * id). A Filter of any other class is an error naming it, never dropped: a filter left out would widen the search.
 */
public final class FilterToWhere {
    private FilterToWhere() {}

    public static Map<String, Object> where(Filter filter) {
        if (filter == null) return null;
        if (filter instanceof And a) return Map.of("$and", List.of(where(a.left()), where(a.right())));
        if (filter instanceof Or o) return Map.of("$or", List.of(where(o.left()), where(o.right())));
        if (filter instanceof Not n) return Map.of("$not", where(n.expression()));
        if (filter instanceof IsEqualTo f) return condition(f.key(), "$eq", f.comparisonValue());
        if (filter instanceof IsNotEqualTo f) return condition(f.key(), "$ne", f.comparisonValue());
        if (filter instanceof IsGreaterThan f) return condition(f.key(), "$gt", f.comparisonValue());
        if (filter instanceof IsGreaterThanOrEqualTo f) return condition(f.key(), "$gte", f.comparisonValue());
        if (filter instanceof IsLessThan f) return condition(f.key(), "$lt", f.comparisonValue());
        if (filter instanceof IsLessThanOrEqualTo f) return condition(f.key(), "$lte", f.comparisonValue());
        if (filter instanceof IsIn f) return condition(f.key(), "$in", values(f.comparisonValues()));
        if (filter instanceof IsNotIn f) return condition(f.key(), "$nin", values(f.comparisonValues()));
        if (filter instanceof ContainsString f) return condition(f.key(), "$contains", f.comparisonValue());
        throw new IllegalArgumentException("the filter " + filter.getClass().getName() + " (" + filter + ") has no where form; use LangChain4j's"
                + " comparison (IsEqualTo ... IsNotIn, ContainsString) and logical (And, Or, Not) filters");
    }

    private static Map<String, Object> condition(String key, String op, Object value) {
        return Map.of(key, Map.of(op, value(value)));
    }

    private static List<Object> values(Collection<?> values) {
        List<Object> out = new ArrayList<>();
        for (Object v : values) out.add(value(v));
        return out;
    }

    /** UUIDs compare as their text, as LangChain4j's own stores keep them. */
    private static Object value(Object v) {
        return v instanceof UUID u ? u.toString() : v;
    }
}
