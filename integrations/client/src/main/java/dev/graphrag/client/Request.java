package dev.graphrag.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a retrieval or answer call is asked with: the corpus, how many chunks (null: the procedure's default), the
 * {@code where} filter on Documents (null: none; and/or/not as docs/rag/rag.search.md describes) and any other key of
 * the procedure's config map (mode, llm, rerank, ...), passed on as given. Immutable: each wither returns a new one.
 */
public record Request(String corpus, Integer k, Map<String, Object> where, Map<String, Object> config) {
    public Request {
        Objects.requireNonNull(corpus, "corpus");
        if (k != null && k < 1) throw new IllegalArgumentException("k must be at least 1, got " + k);
        where = where == null || where.isEmpty() ? null : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(where));
        config = config == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(config));
        for (String reserved : new String[] {"corpus", "where"}) {
            if (config.containsKey(reserved)) throw new IllegalArgumentException("give " + reserved + " with its own wither, not in config");
        }
    }

    public static Request corpus(String corpus) {
        return new Request(corpus, null, null, null);
    }

    public Request k(int k) {
        return new Request(corpus, k, where, config);
    }

    public Request where(Map<String, Object> where) {
        return new Request(corpus, k, where, config);
    }

    /** Another key of the procedure's config, e.g. {@code with("mode", "hybrid")} or {@code with("llm", Map.of(...))}. */
    public Request with(String key, Object value) {
        Map<String, Object> c = new LinkedHashMap<>(config);
        c.put(key, value);
        return new Request(corpus, k, where, c);
    }

    /** The config map the procedure gets; {@code kKey} names its k (null: k is applied by the client). */
    Map<String, Object> toConfig(String kKey) {
        Map<String, Object> c = new LinkedHashMap<>(config);
        c.put("corpus", corpus);
        if (where != null) c.put("where", where);
        if (k != null && kKey != null) c.putIfAbsent(kKey, k.longValue());
        return c;
    }
}
