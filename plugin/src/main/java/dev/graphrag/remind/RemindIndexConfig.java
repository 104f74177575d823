package dev.graphrag.remind;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.extract.ExtractionConfig;

import java.util.Map;

/** remind.index's config (docs/remind.md): the synonym threshold, then the extracting build's keys ({@link ExtractionConfig}). */
public record RemindIndexConfig(String corpus, double synonymThreshold, ExtractionConfig extraction, Map<String, Object> llm) {
    static final Key<Double> SYNONYM_THRESHOLD = Key.number("synonymThreshold", 0.85, 0, 1);

    public static RemindIndexConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("remind.index", config);
        String corpus = r.corpus();
        double synonym = SYNONYM_THRESHOLD.read(r);
        ExtractionConfig extraction = ExtractionConfig.read(r);
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        r.finish();
        return new RemindIndexConfig(corpus, synonym, extraction, llm);
    }
}
