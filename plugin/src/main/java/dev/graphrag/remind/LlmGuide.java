package dev.graphrag.remind;

import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.llm.UsageMeter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** The walk's guide backed by the LLM: L6 summaries, L7 sufficiency, L8 next node; every call metered by step. */
final class LlmGuide implements Walk.Guide {
    private final LlmClient llm;
    private final LlmConfig cfg;
    private final UsageMeter usage;
    private final BooleanSupplier cancelled;
    private final MemoryGraph graph;
    private final PromptContext prompts;
    private final int summaryThreshold;
    private final boolean showWeights;
    private final boolean judgeEveryStep;
    /** The texts of S the judge last answered "not sufficient" to (null: none yet, or it said yes). */
    private java.util.Set<String> judgedInsufficient;

    LlmGuide(LlmClient llm, LlmConfig cfg, UsageMeter usage, BooleanSupplier cancelled, MemoryGraph graph, PromptContext prompts,
             int summaryThreshold, boolean showWeights, boolean judgeEveryStep) {
        this.llm = llm;
        this.cfg = cfg;
        this.usage = usage;
        this.cancelled = cancelled;
        this.graph = graph;
        this.prompts = prompts;
        this.summaryThreshold = summaryThreshold;
        this.showWeights = showWeights;
        this.judgeEveryStep = judgeEveryStep;
    }

    <T> T ask(String step, List<Map<String, Object>> messages, StructuredOutput<T> out) {
        long[] trimmed = prompts.drainTrimmed(); // what fitting this step's block left out
        usage.trimmed(step, trimmed[0], trimmed[1]);
        return llm.ask(cfg, step, messages, out, usage, cancelled);
    }

    /** {@link #ask}, or {@code otherwise} when the reply is unusable after the repair turn, the fallback counted under the step. */
    <T> T askOr(String step, List<Map<String, Object>> messages, StructuredOutput<T> out, String fallback, T otherwise) {
        long[] trimmed = prompts.drainTrimmed();
        usage.trimmed(step, trimmed[0], trimmed[1]);
        return llm.askOr(cfg, step, messages, out, usage, cancelled, fallback, otherwise);
    }

    /** What each walk step does with a reply the model could not make usable (docs/llm.md "When the model gets it wrong"). */
    static final String NOT_JUDGED = "taken as not sufficient (the walk goes on, bounded by maxJumps)";
    static final String NO_MOVE = "counted as an invalid move (after maxRetries the walk stops with the path so far)";
    static final String UNSUMMARISED = "chunk shown unsummarised";

    /**
     * L7. Unless {@code judgeEveryStep}, a move that shows the judge no text it has not already answered "no" to (an
     * entity reached by an edge whose sentence S already holds, or by one without text) keeps that "no" without a call:
     * the judge checks the question's pieces against the chunk texts, titles and edge texts, and those did not change.
     */
    @Override
    public boolean sufficient(Subgraph s) {
        Map<String, Object> block = prompts.walkView(prompts.fit(prompts.block(s)));
        java.util.Set<String> evidence = PromptContext.evidence(block);
        if (!judgeEveryStep && evidence.equals(judgedInsufficient)) {
            prompts.drainTrimmed(); // nothing was sent
            return false;
        }
        RemindPrompts.Sufficiency judged = askOr(RemindPrompts.SUFFICIENT, RemindPrompts.sufficiency(block), RemindPrompts.SUFFICIENT_OUT, NOT_JUDGED, null);
        if (judged == null) return false; // not remembered as a "no": the next move asks again
        boolean enough = judged.sufficient();
        judgedInsufficient = enough ? null : evidence;
        return enough;
    }

    @Override
    public Walk.Choice next(Subgraph s, String current, List<Walk.Candidate> candidates, List<String> history, List<String> corrections) {
        List<Map<String, Object>> messages = new ArrayList<>(RemindPrompts.next(prompts.nextBlock(s, current, candidates, history, showWeights)));
        for (String c : corrections) messages.add(Map.of("role", "user", "content", c));
        RemindPrompts.NextNode r = askOr(RemindPrompts.NEXT, messages, RemindPrompts.NEXT_OUT, NO_MOVE, null);
        if (r == null) return new Walk.Choice(false, null);
        String node = prompts.node(r.id());
        if (node == null) return new Walk.Choice(false, null);
        return new Walk.Choice(graph.kind(node) == MemoryGraph.Kind.CHUNK, node);
    }

    @Override
    public String summary(Subgraph s, String chunk) {
        String text = graph.chunkText(chunk);
        if (graph.chunkTokens(chunk) < summaryThreshold) return text;
        Map<String, Object> block = prompts.walkView(prompts.fit(prompts.block(s)));
        Map<String, Object> newChunk = new java.util.LinkedHashMap<>();
        newChunk.put("id", prompts.handle(chunk));
        String document = graph.chunkDocumentTitle(chunk);
        if (document != null) newChunk.put("document", document);
        newChunk.put("text", text);
        block.put("newChunk", newChunk);
        RemindPrompts.Summary r = askOr(RemindPrompts.SUMMARY, RemindPrompts.summary(block), RemindPrompts.SUMMARY_OUT, UNSUMMARISED, null);
        return r == null ? text : r.summary();
    }
}
