package dev.graphrag.core.search;

import dev.graphrag.core.config.ConfigReader;

import java.util.Map;

/** rag.search's config. {@code candidates}: how many hits each index contributes before fusion. */
public record SearchConfig(String corpus, int k, SearchMode mode, int candidates, int rrfK) {
    public static final int MAX_K = 1000;

    public static SearchConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.search", config);
        String corpus = r.corpus();
        int k = r.integer("k", 10, 1, MAX_K);
        SearchMode mode = r.choice("mode", SearchMode.class, SearchMode.HYBRID);
        int candidates = r.integer("candidates", Math.max(50, 4 * k), 1, 10_000);
        int rrfK = r.integer("rrfK", 60, 1, 10_000);
        r.finish();
        return new SearchConfig(corpus, k, mode, Math.max(candidates, k), rrfK);
    }
}
