package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The config of the remind.* query procedures (docs/remind.md): each procedure reads the keys of its use and rejects
 * the rest by name. Defaults follow spec §2.0; λ and α are embedder-dependent (remind.calibrate).
 */
public record RemindQueryConfig(String corpus, int seedCount, double alpha, double lambda, int replayMaxNodes, boolean seedAnchorAddsChunk,
                                boolean llmGuided, int maxJumps, int maxIterations, int maxCandidates, int promptTokenBudget,
                                int chunkSummaryThreshold, boolean showEdgeWeights, int maxFormatRetries, Filter filter, List<String> usefulRelIds,
                                List<String> usefulChunkIds, Confirmation.Rule confirmRule, MemoryMath.Penalty penalty, boolean requireLlmSteps,
                                boolean memorize, MemorizeWhen memorizeWhen, boolean filterWithAnswer, String systemPrompt, Map<String, Object> llm) {
    public enum Use { SEEDS, REPLAY, TRAVERSE, MEMORIZE, ANSWER, QUERY }

    /** Which walks are memorised: every one (the paper), or only those the LLM judged sufficient. */
    public enum MemorizeWhen { ALWAYS, SUFFICIENT }

    public enum Filter { LLM, EXPLICIT }

    public static RemindQueryConfig parse(Use use, Map<String, Object> config) {
        String owner = "remind." + use.name().toLowerCase(Locale.ROOT);
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        boolean walks = use == Use.TRAVERSE || use == Use.ANSWER || use == Use.QUERY;
        boolean memorizes = use == Use.MEMORIZE || use == Use.ANSWER;
        int seeds = use == Use.MEMORIZE ? 2 : r.integer("seedCount", 2, 1, 100);
        double alpha = use == Use.SEEDS || use == Use.MEMORIZE ? 0.1 : r.number("alpha", 0.1, 0, 1);
        double lambda = use == Use.SEEDS || use == Use.MEMORIZE ? 0.55 : r.number("lambda", 0.55, 0, 1);
        int maxNodes = use == Use.SEEDS || use == Use.MEMORIZE ? 200 : r.integer("replayMaxNodes", 200, 1, 100_000);
        boolean anchorChunk = use == Use.SEEDS || use == Use.MEMORIZE || r.bool("seedAnchorAddsChunk", true);
        boolean guided = walks && (use != Use.TRAVERSE || r.bool("llmGuided", true));
        int maxJumps = walks ? r.integer("maxJumps", 10, 0, 1000) : 10;
        int maxIterations = walks ? r.integer("maxIterations", 3 * Math.max(1, maxJumps), 1, 10_000) : 30;
        int maxCandidates = walks ? r.integer("maxCandidates", 20, 1, 1000) : 20;
        int budget = walks || memorizes ? r.integer("promptTokenBudget", 6000, 200, 1_000_000) : 6000;
        int summaryThreshold = walks ? r.integer("chunkSummaryThreshold", 350, 0, 1_000_000) : 350;
        boolean weights = walks ? r.bool("showEdgeWeights", true) : true;
        int retries = walks ? r.integer("maxFormatRetries", 3, 1, 10) : 3;
        Filter filter = memorizes ? r.choice("filter", Filter.class, Filter.LLM) : Filter.LLM;
        List<String> usefulRels = memorizes ? r.strings("usefulRelIds", List.of()) : List.of();
        List<String> usefulChunks = memorizes ? r.strings("usefulChunkIds", List.of()) : List.of();
        if (filter == Filter.LLM && (!usefulRels.isEmpty() || !usefulChunks.isEmpty())) {
            throw new RagException(owner + ": usefulRelIds and usefulChunkIds belong to filter 'explicit'");
        }
        Confirmation.Rule rule = memorizes ? r.choice("confirmRule", Confirmation.Rule.class, Confirmation.Rule.ALL) : Confirmation.Rule.ALL;
        MemoryMath.Penalty penalty = memorizes ? r.choice("penalty", MemoryMath.Penalty.class, MemoryMath.Penalty.PAPER) : MemoryMath.Penalty.PAPER;
        boolean requireSteps = memorizes ? r.bool("requireLlmSteps", true) : true;
        boolean memorize = use == Use.ANSWER ? r.bool("memorize", true) : use == Use.MEMORIZE;
        MemorizeWhen when = memorizes ? r.choice("memorizeWhen", MemorizeWhen.class, MemorizeWhen.ALWAYS) : MemorizeWhen.ALWAYS;
        boolean filterWithAnswer = use == Use.ANSWER && r.bool("filterWithAnswer", false);
        String system = use == Use.ANSWER || use == Use.QUERY ? r.string("systemPrompt", null) : null;
        Map<String, Object> llm = use == Use.SEEDS || use == Use.REPLAY ? null : r.map("llm");
        r.finish();
        return new RemindQueryConfig(corpus, seeds, alpha, lambda, maxNodes, anchorChunk, guided, maxJumps, maxIterations, maxCandidates, budget,
                summaryThreshold, weights, retries, filter, usefulRels, usefulChunks, rule, penalty, requireSteps, memorize, when, filterWithAnswer, system, llm);
    }

    Replay.Settings replay() {
        return new Replay.Settings(alpha, lambda, replayMaxNodes, seedAnchorAddsChunk);
    }

    Walk.Settings walk() {
        return new Walk.Settings(maxJumps, maxIterations, maxCandidates, maxFormatRetries);
    }

    /** Whether this call needs an LLM at all. */
    public boolean needsLlm(Use use) {
        return switch (use) {
            case SEEDS, REPLAY -> false;
            case TRAVERSE -> llmGuided;
            case MEMORIZE -> filter == Filter.LLM;
            case ANSWER, QUERY -> true;
        };
    }
}
