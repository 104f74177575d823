package dev.graphrag.raga;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.search.DocumentFilter;
import dev.graphrag.core.search.RerankConfig;

import java.util.Locale;
import java.util.Map;

/** raga.retrieve's and raga.answer's config (docs/raga/retrieve.md; defaults from spec §5). */
/** rerank: raga.answer's reranking stage over the retrieval's best rerankCandidates, topK of them kept ({@link RerankConfig}). */
public record RagaQueryConfig(String corpus, RagaRetriever.Settings retrieval, boolean includeFacts, int maxFacts, int maxContextChars, Map<String, Object> llm,
                              RerankConfig rerank) {
    static final Key<Boolean> INCLUDE_FACTS = Key.bool("includeFacts", true);
    static final Key<Integer> MAX_FACTS = Key.integer("maxFacts", 20, 0, 1000);
    static final Key<Integer> MAX_CONTEXT_CHARS = Key.integer("maxContextChars", 12_000, 500, 1_000_000);

    public static RagaQueryConfig parse(String owner, Map<String, Object> config, boolean answers) {
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        String m = r.string("mode", "fusion").toLowerCase(Locale.ROOT);
        RagaRetriever.Mode mode = switch (m) {
            case "vector" -> RagaRetriever.Mode.VECTOR;
            case "kg" -> RagaRetriever.Mode.KG;
            case "fusion" -> RagaRetriever.Mode.FUSION;
            case "deep" -> RagaRetriever.Mode.DEEP;
            default -> throw new RagException(owner + ": config key 'mode' must be one of [vector, kg, fusion, deep], got '" + m + "'");
        };
        RagaRetriever.Settings d = RagaRetriever.Settings.defaults(mode);
        RagaRetriever.Settings s = new RagaRetriever.Settings(mode, r.integer("topK", d.topK(), 1, 1000), r.integer("k1", d.k1(), 1, 10_000),
                r.integer("rrfK", d.rrfK(), 1, 10_000), r.number("wVec", d.wVec(), 0, 100), r.number("wKg", d.wKg(), 0, 100), r.integer("hops", d.hops(), 0, 6),
                r.number("decay", d.decay(), 0, 1), r.number("semanticFilter", d.semanticFilter(), -1, 1), r.integer("anchorChunks", d.anchorChunks(), 0, 10_000),
                r.integer("pageAnchors", d.pageAnchors(), 0, 10_000),
                r.integer("anchorEntities", d.anchorEntities(), 0, 10_000), r.integer("maxExpanded", d.maxExpanded(), 1, 1_000_000),
                r.integer("kgTimeoutMs", d.kgTimeoutMs(), 0, 600_000L), r.integer("deepHops", d.deepHops(), 0, 6), r.strings("docIds", null),
                DocumentFilter.parse(owner, r.any(DocumentFilter.KEY_NAME)));
        if (s.wVec() == 0 && s.wKg() == 0) throw new RagException(owner + ": wVec and wKg cannot both be 0");
        // raga.answer's keys: raga.retrieve shows no facts and fills no context
        boolean facts = answers && INCLUDE_FACTS.read(r);
        int maxFacts = answers ? MAX_FACTS.read(r) : MAX_FACTS.dflt();
        int maxChars = answers ? MAX_CONTEXT_CHARS.read(r) : MAX_CONTEXT_CHARS.dflt();
        RerankConfig rerank = answers ? RerankConfig.read(r, s.topK()) : RerankConfig.OFF;
        Map<String, Object> llm = r.map("llm");
        r.finish();
        return new RagaQueryConfig(corpus, s, facts, maxFacts, maxChars, llm, rerank);
    }

    public boolean needsLlm() {
        return retrieval.mode() == RagaRetriever.Mode.DEEP;
    }
}
