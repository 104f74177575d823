package dev.graphrag.remind;

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
        boolean skipErrors = dev.graphrag.core.extract.ChunkExtraction.skipsErrors(r);
        Map<String, Object> llm = r.map("llm");
        r.finish();
        return new RemindIndexConfig(corpus, synonym, concurrency, batch, skipErrors, llm);
    }
}
