package dev.graphrag.agrag;

import dev.graphrag.core.config.ConfigReader;

import java.util.Map;

/** agrag.index's config (docs/agrag.md). relations: llm or cooccurrence (the default without an LLM endpoint). */
public record AgragIndexConfig(String corpus, Relations relations, int maxNgram, EntityStatistics.Scoring scoring, double entityThreshold,
                               int maxEntitiesPerChunk, double synonymThreshold, int maxSynonymsPerNode, int batchSize, boolean project,
                               boolean titleLinks, boolean skipExtractionErrors, Map<String, Object> llm) {
    public enum Relations { LLM, COOCCURRENCE }

    public static AgragIndexConfig parse(Map<String, Object> config, boolean llmConfigured) {
        ConfigReader r = ConfigReader.of("agrag.index", config);
        String corpus = r.corpus();
        Map<String, Object> llm = r.map("llm");
        Relations relations = r.choice("relations", Relations.class, llmConfigured || llm != null ? Relations.LLM : Relations.COOCCURRENCE);
        int maxNgram = r.integer("maxNgram", 3, 1, 10);
        EntityStatistics.Scoring scoring = r.choice("entityScoring", EntityStatistics.Scoring.class, EntityStatistics.Scoring.TFIDF);
        double threshold = r.number("entityThreshold", 0.1, 0, 1);
        int maxEntities = r.integer("maxEntitiesPerChunk", 12, 1, 1000);
        double synonym = r.number("synonymThreshold", 0.8, 0, 1);
        int maxSynonyms = r.integer("maxSynonymsPerNode", 100, 0, 2047);
        int batchSize = r.integer("batchSize", 1000, 1, 100_000);
        boolean project = r.bool("project", true);
        boolean titleLinks = r.bool("titleLinks", true);
        boolean skipErrors = dev.graphrag.core.extract.ChunkExtraction.skipsErrors(r);
        r.finish();
        return new AgragIndexConfig(corpus, relations, maxNgram, scoring, threshold, maxEntities, synonym, maxSynonyms, batchSize, project, titleLinks, skipErrors, llm);
    }
}
