package dev.graphrag.raga;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.llm.PromptFit;
import dev.graphrag.core.llm.UsageMeter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * raga.answer (docs/raga.md#our-own-rules-where-the-paper-gives-none): retrieval, then L6 over the chunks as "[chunkId] text" blocks within maxContextChars and the
 * facts among the scored entities. Evidence is the chunks the answer cites that were in the prompt, in the answer's order;
 * when it cites none, evidence is empty and the answer is not grounded: a citation is never made up.
 */
public final class RagaAnswer {
    public record Answer(String answer, String answerType, List<Map<String, Object>> evidence, List<String> retrieved, List<Map<String, Object>> facts,
                         boolean grounded, boolean degraded, String mode, Map<String, Object> rerank) {}

    private RagaAnswer() {}

    /** What L5 does when the model's reply is unusable: no query entities, so deep mode keeps the vector hits. */
    static final String NO_ANALYSIS = "no query entities: the vector hits only";
    /** What L6 does when the model's reply is unusable: the sentence of the shown chunks closest to the question. */
    static final String EXTRACTED = "extractive answer: the shown sentence closest to the question";
    /** answerType of that answer. */
    public static final String EXTRACTED_TYPE = "extracted";

    /**
     * The answer without the model: of the sentences of the chunks the prompt showed, the one whose embedding is
     * closest to the question's, cited to its chunk; "Unanswerable" when nothing was shown.
     */
    static RagaPrompts.AnswerReply extracted(RagCall call, String query, java.util.Collection<RagaRetriever.Hit> shown) {
        List<String> sentences = new ArrayList<>();
        List<String> chunkOf = new ArrayList<>();
        for (RagaRetriever.Hit h : shown) {
            java.text.BreakIterator it = java.text.BreakIterator.getSentenceInstance(java.util.Locale.ROOT);
            it.setText(h.text());
            int start = it.first();
            for (int end = it.next(); end != java.text.BreakIterator.DONE; start = end, end = it.next()) {
                String sentence = h.text().substring(start, end).strip();
                if (sentence.length() >= 3) {
                    sentences.add(sentence);
                    chunkOf.add(h.chunkId());
                }
            }
        }
        if (sentences.isEmpty()) return new RagaPrompts.AnswerReply("Unanswerable", "unanswerable", List.of());
        float[] q = call.embeddings().embed(query);
        float[][] v = call.embeddings().embedAll(sentences, false);
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < v.length; i++) {
            double c = dev.graphrag.core.embed.EmbeddingService.cosine(q, v[i]);
            if (c > bestScore) {
                bestScore = c;
                best = i;
            }
        }
        return new RagaPrompts.AnswerReply(sentences.get(best), EXTRACTED_TYPE, List.of(chunkOf.get(best)));
    }

    /** L5 for deep mode: the query's entity strings. */
    public static Function<String, List<String>> analyser(RagCall.BoundLlm llm, UsageMeter usage, RagCall call) {
        return q -> {
            RagaPrompts.Analysis a = llm.client().askOr(llm.config(), RagaPrompts.ANALYSE, RagaPrompts.analyse(q), RagaPrompts.ANALYSE_OUT, usage,
                    call.cancelled(), NO_ANALYSIS, null);
            List<String> out = new ArrayList<>();
            if (a != null && a.entities() != null) for (String e : a.entities()) if (e != null && !e.isBlank() && out.size() < 5) out.add(e);
            return out;
        };
    }

    public static Answer answer(RagCall call, RagCall.BoundLlm llm, String query, RagaQueryConfig cfg, UsageMeter usage) {
        int k = cfg.retrieval().topK();
        RagaRetriever.Retrieval r = new RagaRetriever(call.tx(), call.embeddings(), cfg.corpus())
                .retrieve(query, cfg.retrieval().withTopK(cfg.rerank().fetch(k)), call.cancelled(), analyser(llm, usage, call));
        List<RagaRetriever.Hit> hits = r.hits();
        Map<String, Object> rerankColumn = null;
        if (cfg.rerank().enabled()) {
            dev.graphrag.core.search.Reranker.Ranked<RagaRetriever.Hit> ranked = call.reranker("raga.answer").rerank(query, hits, RagaRetriever.Hit::text, k,
                    call.cancelled());
            hits = ranked.items();
            rerankColumn = ranked.column(RagaRetriever.Hit::chunkId);
            usage.add(ranked.usage());
        }
        List<Map<String, Object>> chunks = new ArrayList<>();
        Map<String, RagaRetriever.Hit> shown = new LinkedHashMap<>();
        int budget = cfg.maxContextChars();
        for (RagaRetriever.Hit h : hits) {
            if (budget <= 0) break;
            String text = h.text().length() <= budget ? h.text() : h.text().substring(0, budget);
            budget -= text.length();
            chunks.add(Map.of("id", h.chunkId(), "text", text));
            shown.put(h.chunkId(), h);
        }
        List<Map<String, Object>> allFacts = cfg.includeFacts() ? r.facts().subList(0, Math.min(cfg.maxFacts(), r.facts().size())) : List.of();
        // a small window drops the last facts first, then the last chunks (both are ranked)
        int c = chunks.size();
        PromptFit.Fitted fit = PromptFit.fit(llm.config(), RagaPrompts.ANSWER, c + allFacts.size(),
                n -> RagaPrompts.answer(query, chunks.subList(0, Math.min(n, c)), allFacts.subList(0, Math.max(0, n - c))), RagaPrompts.ANSWER_OUT);
        usage.trimmed(RagaPrompts.ANSWER, fit.trimmed(), fit.trimmedTokens());
        List<Map<String, Object>> facts = allFacts.subList(0, Math.max(0, fit.kept() - c));
        for (Map<String, Object> dropped : chunks.subList(Math.min(fit.kept(), c), c)) shown.remove((String) dropped.get("id"));
        RagaPrompts.AnswerReply a = llm.client().askOr(llm.config(), RagaPrompts.ANSWER, fit.messages(), RagaPrompts.ANSWER_OUT, usage,
                call.cancelled(), EXTRACTED, null);
        if (a == null) a = extracted(call, query, shown.values());
        Set<String> cited = new LinkedHashSet<>();
        if (a.evidence_chunk_ids() != null) for (String id : a.evidence_chunk_ids()) if (shown.containsKey(id)) cited.add(id);
        List<Map<String, Object>> evidence = new ArrayList<>();
        for (String id : cited) {
            RagaRetriever.Hit h = shown.get(id);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("chunkId", id);
            m.put("docId", h.docId());
            m.put("startOffset", h.start());
            m.put("endOffset", h.end());
            m.put("text", h.text());
            m.putAll(dev.graphrag.core.lexical.LexicalGraph.location(h.chunk()));
            evidence.add(m);
        }
        boolean grounded = !evidence.isEmpty() && !"unanswerable".equals(a.answer_type());
        return new Answer(a.answer(), a.answer_type(), evidence, new ArrayList<>(shown.keySet()), facts, grounded, r.degraded(),
                cfg.retrieval().mode().name().toLowerCase(java.util.Locale.ROOT), rerankColumn);
    }
}
