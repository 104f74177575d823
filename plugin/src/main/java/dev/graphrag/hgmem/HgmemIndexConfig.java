package dev.graphrag.hgmem;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.extract.ExtractionConfig;

import java.util.List;
import java.util.Map;

/** hgmem.index's config (docs/hgmem/hgmem.index.md): its own keys, then the extracting build's ({@link ExtractionConfig}). */
public record HgmemIndexConfig(String corpus, List<String> entityTypes, int summaryMaxTokens, ExtractionConfig extraction, Map<String, Object> llm) {
    static final Key<List<String>> ENTITY_TYPES = Key.strings("entityTypes", BaseGraphExtraction.DEFAULT_TYPES);
    static final Key<Integer> SUMMARY_MAX_TOKENS = Key.integer("summaryMaxTokens", 2000, 50, 100_000);

    public static HgmemIndexConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.index", config);
        String corpus = r.corpus();
        List<String> types = ENTITY_TYPES.read(r);
        if (types.isEmpty() || types.size() > 50) throw new RagException("hgmem.index: config key 'entityTypes' must hold 1 to 50 types, got " + types.size());
        for (String t : types) {
            if (t == null || t.isBlank() || t.length() > 64) throw new RagException("hgmem.index: each entity type must be 1-64 characters, got '" + t + "'");
        }
        int summary = SUMMARY_MAX_TOKENS.read(r);
        ExtractionConfig extraction = ExtractionConfig.read(r);
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        r.finish();
        return new HgmemIndexConfig(corpus, List.copyOf(types), summary, extraction, llm);
    }
}
