package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.Map;

/** remind.index's config (docs/remind.md). */
public record RemindIndexConfig(String corpus, double synonymThreshold, int extractionConcurrency, int batchSize, boolean skipExtractionErrors,
                                Map<String, Object> llm) {
    public static RemindIndexConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("remind.index", config);
        String corpus = r.corpus();
        double synonym = r.number("synonymThreshold", 0.85, 0, 1);
        int concurrency = r.integer("extractionConcurrency", 4, 1, 64);
        int batch = r.integer("batchSize", 500, 1, 100_000);
        String errors = r.string("extractionErrors", "fail");
        if (!errors.equals("fail") && !errors.equals("skip")) {
            throw new RagException("remind.index: config key 'extractionErrors' must be one of [fail, skip], got '" + errors + "'");
        }
        Map<String, Object> llm = r.map("llm");
        r.finish();
        return new RemindIndexConfig(corpus, synonym, concurrency, batch, errors.equals("skip"), llm);
    }
}
