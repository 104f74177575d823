package dev.graphrag.raga;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.search.DocumentFilter;
import dev.graphrag.core.search.RerankConfig;

import java.util.List;
import java.util.Map;

/** raga.retrieve's and raga.answer's config (docs/raga/raga.retrieve.md; defaults in docs/raga.md#our-own-rules-where-the-paper-gives-none). */
/** rerank: raga.answer's reranking stage over the retrieval's best rerankCandidates, topK of them kept ({@link RerankConfig}). */
public record RagaQueryConfig(String corpus, RagaRetriever.Settings retrieval, boolean includeFacts, int maxFacts, int maxContextChars, Map<String, Object> llm,
                              RerankConfig rerank) {
    static final Key<Boolean> INCLUDE_FACTS = Key.bool("includeFacts", true);
    static final Key<Integer> MAX_FACTS = Key.integer("maxFacts", 20, 0, 1000);
    static final Key<Integer> MAX_CONTEXT_CHARS = Key.integer("maxContextChars", 12_000, 500, 1_000_000);
    /** The modes a caller may ask for (the tool-only orders vector_first and graph_first are not among them). */
    public enum QueryMode { VECTOR, KG, FUSION, DEEP }

    static final Key<QueryMode> MODE = Key.choice("mode", QueryMode.class, QueryMode.FUSION);
    // retrieval keys: their defaults are the mode's (RagaRetriever.Settings.defaults), the ranges are declared here
    static final Key<Integer> TOP_K = Key.integer("topK", 10, 1, 1000);
    static final Key<List<String>> DOC_IDS = Key.strings("docIds", null);
    static final Key<Integer> K1 = Key.integer("k1", 60, 1, 10_000);
    static final Key<Integer> RRF_K = Key.integer("rrfK", 60, 1, 10_000);
    static final Key<Double> W_VEC = Key.number("wVec", 1, 0, 100);
    static final Key<Double> W_KG = Key.number("wKg", 1, 0, 100);
    static final Key<Integer> HOPS = Key.integer("hops", 1, 0, 6);
    static final Key<Double> DECAY = Key.number("decay", 0.5, 0, 1);
    static final Key<Double> SEMANTIC_FILTER = Key.number("semanticFilter", 0.5, -1, 1);
    static final Key<Integer> ANCHOR_CHUNKS = Key.integer("anchorChunks", 3, 0, 10_000);
    static final Key<Integer> PAGE_ANCHORS = Key.integer("pageAnchors", 1, 0, 10_000);
    static final Key<Integer> ANCHOR_ENTITIES = Key.integer("anchorEntities", 10, 0, 10_000);
    static final Key<Integer> MAX_EXPANDED = Key.integer("maxExpanded", 1000, 1, 1_000_000);
    static final Key<Integer> KG_TIMEOUT_MS = Key.integer("kgTimeoutMs", 2000, 0, 600_000);
    static final Key<Integer> DEEP_HOPS = Key.integer("deepHops", 2, 0, 6);

    public static RagaQueryConfig parse(String owner, Map<String, Object> config, boolean answers) {
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        RagaRetriever.Mode mode = RagaRetriever.Mode.valueOf(MODE.read(r).name());
        RagaRetriever.Settings d = RagaRetriever.Settings.defaults(mode);
        // each mode has its own defaults, so the keys take theirs from the mode's settings
        RagaRetriever.Settings s = new RagaRetriever.Settings(mode, TOP_K.withDefault(d.topK()).read(r), K1.withDefault(d.k1()).read(r),
                RRF_K.withDefault(d.rrfK()).read(r), W_VEC.withDefault(d.wVec()).read(r), W_KG.withDefault(d.wKg()).read(r),
                HOPS.withDefault(d.hops()).read(r), DECAY.withDefault(d.decay()).read(r), SEMANTIC_FILTER.withDefault(d.semanticFilter()).read(r),
                ANCHOR_CHUNKS.withDefault(d.anchorChunks()).read(r), PAGE_ANCHORS.withDefault(d.pageAnchors()).read(r),
                ANCHOR_ENTITIES.withDefault(d.anchorEntities()).read(r), MAX_EXPANDED.withDefault(d.maxExpanded()).read(r),
                KG_TIMEOUT_MS.withDefault((int) d.kgTimeoutMs()).read(r), DEEP_HOPS.withDefault(d.deepHops()).read(r), DOC_IDS.read(r),
                DocumentFilter.parse(owner, DocumentFilter.WHERE.read(r)));
        if (s.wVec() == 0 && s.wKg() == 0) throw new RagException(owner + ": wVec and wKg cannot both be 0");
        // raga.answer's keys: raga.retrieve shows no facts and fills no context
        boolean facts = answers && INCLUDE_FACTS.read(r);
        int maxFacts = answers ? MAX_FACTS.read(r) : MAX_FACTS.dflt();
        int maxChars = answers ? MAX_CONTEXT_CHARS.read(r) : MAX_CONTEXT_CHARS.dflt();
        RerankConfig rerank = answers ? RerankConfig.read(r, s.topK()) : RerankConfig.OFF;
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        r.finish();
        return new RagaQueryConfig(corpus, s, facts, maxFacts, maxChars, llm, rerank);
    }

    public boolean needsLlm() {
        return retrieval.mode() == RagaRetriever.Mode.DEEP;
    }
}
