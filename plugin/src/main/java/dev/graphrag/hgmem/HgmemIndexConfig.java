package dev.graphrag.hgmem;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.List;
import java.util.Map;

/** hgmem.index's config (docs/hgmem/hgmem.index.md). */
public record HgmemIndexConfig(String corpus, List<String> entityTypes, int summaryMaxTokens, int extractionConcurrency, int batchSize,
                               boolean skipExtractionErrors, Map<String, Object> llm) {
    public static HgmemIndexConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.index", config);
        String corpus = r.corpus();
        List<String> types = r.strings("entityTypes", BaseGraphExtraction.DEFAULT_TYPES);
        if (types.isEmpty() || types.size() > 50) throw new RagException("hgmem.index: config key 'entityTypes' must hold 1 to 50 types, got " + types.size());
        for (String t : types) {
            if (t == null || t.isBlank() || t.length() > 64) throw new RagException("hgmem.index: each entity type must be 1-64 characters, got '" + t + "'");
        }
        int summary = r.integer("summaryMaxTokens", 2000, 50, 100_000);
        int concurrency = r.integer("extractionConcurrency", 4, 1, 64);
        int batch = r.integer("batchSize", 500, 1, 100_000);
        boolean skipErrors = dev.graphrag.core.extract.ChunkExtraction.skipsErrors(r);
        Map<String, Object> llm = r.map("llm");
        r.finish();
        return new HgmemIndexConfig(corpus, List.copyOf(types), summary, concurrency, batch, skipErrors, llm);
    }
}
