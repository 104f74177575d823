package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.QueryCosines;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.PromptFit;
import dev.graphrag.core.llm.TokenCounter;
import dev.graphrag.core.llm.UnusableReply;
import dev.graphrag.core.llm.Usage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Fact mapping (paper Eq. 7-9): a query's facts by cosine, then the LLM triple filter when the call asks for it. */
final class FactMapper {
    private final LlmClient llm;
    private final LlmConfig llmConfig;
    private final BooleanSupplier cancelled;

    /** {@code llm} and {@code llmConfig} null: no filter may be asked for. */
    FactMapper(LlmClient llm, LlmConfig llmConfig, BooleanSupplier cancelled) {
        this.llm = llm;
        this.llmConfig = llmConfig;
        this.cancelled = cancelled;
    }

    /** B1-B2: facts by cosine, then the LLM filter when asked, and what the filter cost. */
    record FactMapping(List<Integer> kept, QueryCosines similarity, Usage usage) {}

    static final String FILTER_STEP = "agrag triple filter";

    /** What the triple filter does when the model's reply is unusable (counted in tokensByStep). */
    static final String FILTER_FALLBACK = "all candidate facts kept, as with filter false";

    FactMapping map(AgragSnapshot g, String query, QueryCosines factSim, AgragQueryConfig cfg) {
        Usage tokens = Usage.NONE;
        List<Integer> raw = factSim.top(cfg.facts().factTopK());
        List<Integer> kept = raw;
        if (cfg.facts().filter() && !raw.isEmpty()) {
            if (llm == null || llmConfig == null) throw new RagException("agrag: filter needs an LLM: " + LlmConfig.HOW_TO_CONFIGURE);
            List<List<String>> candidates = new ArrayList<>();
            for (int i : raw) {
                AgragSnapshot.FactEdge f = g.fact(i);
                candidates.add(List.of(f.s(), f.p(), f.o()));
            }
            // the weakest candidates go first when the window is small: they are ranked by similarity
            PromptFit.Fitted fit = PromptFit.fit(llmConfig, FILTER_STEP, candidates.size(),
                    n -> AgragPrompts.tripleFilter(query, candidates.subList(0, n)), TokenCounter.responseFormat("json_object"));
            LlmClient.JsonReply reply;
            try {
                reply = llm.chatJson(llmConfig, ChatRequest.of(FILTER_STEP, fit.messages()),
                        j -> AgragPrompts.triples(j, "fact") == null ? "it has no \"fact\" list" : null, true, cancelled);
            } catch (UnusableReply e) {
                // as without the filter (filter: false): every candidate fact kept, the reply's cost and the fallback counted
                return new FactMapping(List.copyOf(raw), factSim, Usage.unusable(e, FILTER_FALLBACK)
                        .plus(Usage.trimmed(FILTER_STEP, fit.trimmed(), fit.trimmedTokens())));
            }
            tokens = Usage.of(FILTER_STEP, reply.response()).plus(Usage.trimmed(FILTER_STEP, fit.trimmed(), fit.trimmedTokens()));
            List<Integer> mapped = FactMatcher.map(AgragPrompts.triples(reply.json(), "fact"), candidates, FactMatcher.DEFAULT_MIN_SIMILARITY, cfg.facts().factTopK());
            kept = mapped.stream().map(raw::get).toList();
        }
        return new FactMapping(List.copyOf(kept), factSim, tokens);
    }
}
