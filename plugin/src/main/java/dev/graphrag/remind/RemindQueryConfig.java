package dev.graphrag.remind;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.search.DocumentFilter;
import dev.graphrag.core.config.Key;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The config of the remind.* query procedures (docs/remind.md): each procedure reads the keys of its use and rejects
 * the rest by name. Defaults: docs/remind.md#defaults; λ and α are embedder-dependent (remind.calibrate).
 */
public record RemindQueryConfig(String corpus, int seedCount, Replaying replaying, Walking walking, int promptTokenBudget, Memorizing memorizing,
                                boolean memorize, boolean filterWithAnswer, String systemPrompt, Map<String, Object> llm, DocumentFilter where,
                                dev.graphrag.core.search.RerankConfig rerank) {
    public enum Use { SEEDS, REPLAY, TRAVERSE, MEMORIZE, ANSWER, QUERY }

    /** Which walks are memorised: every one (the paper), or only those the LLM judged sufficient. */
    public enum MemorizeWhen { ALWAYS, SUFFICIENT }

    public enum Filter { LLM, EXPLICIT }

    /** Replay of the edge memories from the seeds (paper Eq. 2): read by every call that replays (not remind.seeds, not remind.memorize). */
    public record Replaying(double alpha, double lambda, int replayMaxNodes, boolean seedAnchorAddsChunk) {
        static final Key<Double> ALPHA = Key.number("alpha", 0.1, 0, 1);
        static final Key<Double> LAMBDA = Key.number("lambda", 0.55, 0, 1);
        static final Key<Integer> REPLAY_MAX_NODES = Key.integer("replayMaxNodes", 200, 1, 100_000);
        static final Key<Boolean> SEED_ANCHOR_ADDS_CHUNK = Key.bool("seedAnchorAddsChunk", true);
        static final Replaying DEFAULTS = new Replaying(ALPHA.dflt(), LAMBDA.dflt(), REPLAY_MAX_NODES.dflt(), SEED_ANCHOR_ADDS_CHUNK.dflt());

        static Replaying read(ConfigReader r) {
            return new Replaying(ALPHA.read(r), LAMBDA.read(r), REPLAY_MAX_NODES.read(r), SEED_ANCHOR_ADDS_CHUNK.read(r));
        }
    }

    /** The LLM-guided walk (paper Algorithm 1, App. B.3): read by remind.traverse, remind.answer and remind.query; llmGuided by remind.traverse alone. */
    public record Walking(boolean llmGuided, int maxJumps, int maxIterations, int maxCandidates, int chunkSummaryThreshold, boolean showEdgeWeights,
                          int maxFormatRetries, boolean judgeEveryStep) {
        static final Key<Boolean> LLM_GUIDED = Key.bool("llmGuided", true);
        static final Key<Integer> MAX_JUMPS = Key.integer("maxJumps", 10, 0, 1000);
        /** Defaults to 3 x maxJumps (at least 3). */
        static final Key<Integer> MAX_ITERATIONS = Key.integer("maxIterations", 30, 1, 10_000);
        static final Key<Integer> MAX_CANDIDATES = Key.integer("maxCandidates", 20, 1, 1000);
        static final Key<Integer> CHUNK_SUMMARY_THRESHOLD = Key.integer("chunkSummaryThreshold", 350, 0, 1_000_000);
        static final Key<Boolean> SHOW_EDGE_WEIGHTS = Key.bool("showEdgeWeights", true);
        static final Key<Integer> MAX_FORMAT_RETRIES = Key.integer("maxFormatRetries", 3, 1, 10);
        /** true: L7 after every move, as the reference code; false: not again while S shows the judge the same texts. */
        static final Key<Boolean> JUDGE_EVERY_STEP = Key.bool("judgeEveryStep", false);
        /** No walk: remind.seeds, remind.replay and remind.memorize. */
        static final Walking NONE = new Walking(false, MAX_JUMPS.dflt(), MAX_ITERATIONS.dflt(), MAX_CANDIDATES.dflt(), CHUNK_SUMMARY_THRESHOLD.dflt(),
                SHOW_EDGE_WEIGHTS.dflt(), MAX_FORMAT_RETRIES.dflt(), JUDGE_EVERY_STEP.dflt());

        static Walking read(ConfigReader r, boolean guidedKey) {
            boolean guided = !guidedKey || LLM_GUIDED.read(r);
            int jumps = MAX_JUMPS.read(r);
            return new Walking(guided, jumps, MAX_ITERATIONS.withDefault(3 * Math.max(1, jumps)).read(r), MAX_CANDIDATES.read(r),
                    CHUNK_SUMMARY_THRESHOLD.read(r), SHOW_EDGE_WEIGHTS.read(r), MAX_FORMAT_RETRIES.read(r), JUDGE_EVERY_STEP.read(r));
        }
    }

    /** What is memorised after a walk (paper §3.2.1, App. B.4): read by remind.memorize and remind.answer. */
    public record Memorizing(Filter filter, List<String> usefulRelIds, List<String> usefulChunkIds, Confirmation.Rule confirmRule,
                             MemoryMath.Penalty penalty, boolean requireLlmSteps, MemorizeWhen memorizeWhen) {
        static final Key<Filter> FILTER = Key.choice("filter", Filter.class, Filter.LLM);
        static final Key<Confirmation.Rule> CONFIRM_RULE = Key.choice("confirmRule", Confirmation.Rule.class, Confirmation.Rule.ALL);
        static final Key<MemoryMath.Penalty> PENALTY = Key.choice("penalty", MemoryMath.Penalty.class, MemoryMath.Penalty.PAPER);
        static final Key<Boolean> REQUIRE_LLM_STEPS = Key.bool("requireLlmSteps", true);
        static final Key<List<String>> USEFUL_REL_IDS = Key.strings("usefulRelIds", List.of());
        static final Key<List<String>> USEFUL_CHUNK_IDS = Key.strings("usefulChunkIds", List.of());
        static final Key<MemorizeWhen> MEMORIZE_WHEN = Key.choice("memorizeWhen", MemorizeWhen.class, MemorizeWhen.ALWAYS);
        static final Memorizing NONE = new Memorizing(FILTER.dflt(), List.of(), List.of(), CONFIRM_RULE.dflt(), PENALTY.dflt(), REQUIRE_LLM_STEPS.dflt(),
                MEMORIZE_WHEN.dflt());

        static Memorizing read(ConfigReader r) {
            Filter filter = FILTER.read(r);
            List<String> rels = USEFUL_REL_IDS.read(r), chunks = USEFUL_CHUNK_IDS.read(r);
            if (filter == Filter.LLM && (!rels.isEmpty() || !chunks.isEmpty())) {
                throw new RagException(r.owner() + ": usefulRelIds and usefulChunkIds belong to filter 'explicit'");
            }
            return new Memorizing(filter, rels, chunks, CONFIRM_RULE.read(r), PENALTY.read(r), REQUIRE_LLM_STEPS.read(r), MEMORIZE_WHEN.read(r));
        }
    }

    static final Key<Integer> SEED_COUNT = Key.integer("seedCount", 2, 1, 100);
    static final Key<Integer> PROMPT_TOKEN_BUDGET = Key.integer("promptTokenBudget", 6000, 200, 1_000_000);
    static final Key<Boolean> MEMORIZE = Key.bool("memorize", true);
    static final Key<Boolean> FILTER_WITH_ANSWER = Key.bool("filterWithAnswer", false);

    static final Key<String> SYSTEM_PROMPT = Key.string("systemPrompt", null);

    public static RemindQueryConfig parse(Use use, Map<String, Object> config) {
        String owner = "remind." + use.name().toLowerCase(Locale.ROOT);
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        boolean walks = use == Use.TRAVERSE || use == Use.ANSWER || use == Use.QUERY;
        boolean memorizes = use == Use.MEMORIZE || use == Use.ANSWER;
        int seeds = use == Use.MEMORIZE ? SEED_COUNT.dflt() : SEED_COUNT.read(r);
        Replaying replaying = use == Use.SEEDS || use == Use.MEMORIZE ? Replaying.DEFAULTS : Replaying.read(r);
        Walking walking = walks ? Walking.read(r, use == Use.TRAVERSE) : Walking.NONE;
        int budget = walks || memorizes ? PROMPT_TOKEN_BUDGET.read(r) : PROMPT_TOKEN_BUDGET.dflt();
        Memorizing memorizing = memorizes ? Memorizing.read(r) : Memorizing.NONE;
        boolean memorize = use == Use.ANSWER ? MEMORIZE.read(r) : use == Use.MEMORIZE;
        boolean filterWithAnswer = use == Use.ANSWER && FILTER_WITH_ANSWER.read(r);
        String system = use == Use.ANSWER || use == Use.QUERY ? SYSTEM_PROMPT.read(r) : null;
        Map<String, Object> llm = use == Use.SEEDS || use == Use.REPLAY ? null : LlmConfig.KEY.read(r);
        // the walk sees no chunk (and no anchor of a chunk) outside the filter: docs/remind.md
        DocumentFilter where = use == Use.MEMORIZE ? null : DocumentFilter.parse(owner, DocumentFilter.WHERE.read(r));
        // the answer prompt's chunks (the subgraph's) ordered by the reranker, rerankTopK of them kept
        dev.graphrag.core.search.RerankConfig rerank = use == Use.ANSWER || use == Use.QUERY ? dev.graphrag.core.search.RerankConfig.readContext(r)
                : dev.graphrag.core.search.RerankConfig.OFF;
        r.finish();
        return new RemindQueryConfig(corpus, seeds, replaying, walking, budget, memorizing, memorize, filterWithAnswer, system, llm, where, rerank);
    }

    Replay.Settings replay() {
        return new Replay.Settings(replaying.alpha(), replaying.lambda(), replaying.replayMaxNodes(), replaying.seedAnchorAddsChunk());
    }

    Walk.Settings walk() {
        return new Walk.Settings(walking.maxJumps(), walking.maxIterations(), walking.maxCandidates(), walking.maxFormatRetries());
    }

    /** Whether this call needs an LLM at all. */
    public boolean needsLlm(Use use) {
        return switch (use) {
            case SEEDS, REPLAY -> false;
            case TRAVERSE -> walking.llmGuided();
            case MEMORIZE -> memorizing.filter() == Filter.LLM;
            case ANSWER, QUERY -> true;
        };
    }
}
