package dev.graphrag.agrag;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.extract.ExtractionConfig;

import java.util.Map;

/**
 * agrag.index's config (docs/agrag.md). relations: llm or cooccurrence (the default without an LLM endpoint). The
 * entity statistics' keys are a group of their own, which agrag.extractEntities reads too.
 */
public record AgragIndexConfig(String corpus, Relations relations, Entities entities, double synonymThreshold, int maxSynonymsPerNode,
                               int exactSynonymsUpTo, int synonymProbes, int batchSize, boolean project, boolean titleLinks, int extractionConcurrency, ChunkExtraction.OnError extractionErrors,
                               Map<String, Object> llm) {
    public enum Relations { LLM, COOCCURRENCE }

    /** TF-IDF entity candidates of a chunk (paper Eq. 2-3; defaults in docs/agrag.md#pipeline-and-defaults): n-grams up to maxNgram, scored, above entityThreshold, at most maxEntitiesPerChunk. */
    public record Entities(int maxNgram, EntityStatistics.Scoring entityScoring, double entityThreshold, int maxEntitiesPerChunk) {
        static final Key<Integer> MAX_NGRAM = Key.integer("maxNgram", 3, 1, 10);
        static final Key<EntityStatistics.Scoring> ENTITY_SCORING = Key.choice("entityScoring", EntityStatistics.Scoring.class, EntityStatistics.Scoring.TFIDF);
        static final Key<Double> ENTITY_THRESHOLD = Key.number("entityThreshold", 0.1, 0, 1);
        static final Key<Integer> MAX_ENTITIES_PER_CHUNK = Key.integer("maxEntitiesPerChunk", 12, 1, 1000);

        public static Entities read(ConfigReader r) {
            return new Entities(MAX_NGRAM.read(r), ENTITY_SCORING.read(r), ENTITY_THRESHOLD.read(r), MAX_ENTITIES_PER_CHUNK.read(r));
        }
    }

    static final Key<Relations> RELATIONS = Key.choice("relations", Relations.class, Relations.COOCCURRENCE);
    static final Key<Double> SYNONYM_THRESHOLD = Key.number("synonymThreshold", 0.8, 0, 1);
    static final Key<Integer> MAX_SYNONYMS_PER_NODE = Key.integer("maxSynonymsPerNode", 100, 0, 2047);
    /** Entities up to which the synonym search compares every pair; above, it compares within nearby cells (SynonymSearch). */
    static final Key<Integer> EXACT_SYNONYMS_UP_TO = Key.integer("exactSynonymsUpTo", 200_000, 0, Integer.MAX_VALUE);
    static final Key<Integer> SYNONYM_PROBES = Key.integer("synonymProbes", 64, 1, 100_000);
    static final Key<Integer> BATCH_SIZE = ExtractionConfig.BATCH_SIZE.withDefault(1000);
    static final Key<Boolean> PROJECT = Key.bool("project", true);
    static final Key<Boolean> TITLE_LINKS = Key.bool("titleLinks", true);

    /** How the synonyms of this many entities are searched: every pair up to exactSynonymsUpTo, cells above. */
    SynonymSearch.Plan synonymPlan(int entities) {
        return entities <= exactSynonymsUpTo ? SynonymSearch.Plan.EXACT : SynonymSearch.Plan.cells(synonymProbes);
    }

    public static AgragIndexConfig parse(Map<String, Object> config, boolean llmConfigured) {
        ConfigReader r = ConfigReader.of("agrag.index", config);
        String corpus = r.corpus();
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        Relations relations = RELATIONS.withDefault(llmConfigured || llm != null ? Relations.LLM : Relations.COOCCURRENCE).read(r);
        Entities entities = Entities.read(r);
        double synonym = SYNONYM_THRESHOLD.read(r);
        int maxSynonyms = MAX_SYNONYMS_PER_NODE.read(r);
        int exactUpTo = EXACT_SYNONYMS_UP_TO.read(r);
        int probes = SYNONYM_PROBES.read(r);
        int batchSize = BATCH_SIZE.read(r);
        boolean project = PROJECT.read(r);
        boolean titleLinks = TITLE_LINKS.read(r);
        int extractionConcurrency = ExtractionConfig.EXTRACTION_CONCURRENCY.read(r);
        ChunkExtraction.OnError errors = ExtractionConfig.EXTRACTION_ERRORS.read(r);
        r.finish();
        return new AgragIndexConfig(corpus, relations, entities, synonym, maxSynonyms, exactUpTo, probes, batchSize, project, titleLinks, extractionConcurrency, errors, llm);
    }
}
