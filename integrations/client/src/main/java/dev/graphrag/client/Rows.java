package dev.graphrag.client;

import java.util.ArrayList;
import java.util.List;

/** Conversions of driver values the records share. */
final class Rows {
    private Rows() {}

    static List<Long> longs(Object v) {
        if (!(v instanceof List<?> l)) return List.of();
        List<Long> out = new ArrayList<>();
        for (Object o : l) if (o instanceof Number n) out.add(n.longValue());
        return out;
    }

    static long number(Object v) {
        return v instanceof Number n ? n.longValue() : 0L;
    }

    static String text(Object v) {
        return v == null ? null : v.toString();
    }
}
