package dev.graphrag.evaluation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A method as the evaluation command runs it: the procedure that builds its layer (once, over the ingested corpus)
 * and the procedure that answers one question, called exactly as a user would call them. What a question shows the
 * reader is the chunks the answer's prompt held, in prompt order.
 */
public enum EvaluatedMethod {
    /** The control: rag.search's top five passages (no layer, no LLM, no answer). */
    DENSE("dense", null, "rag.search") {
        @Override
        Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra) {
            Map<String, Object> config = config(corpus, null, Map.of("k", 5L, "mode", "dense"), extra);
            List<String> chunks = new ArrayList<>();
            for (Map<String, Object> row : t.rows("CALL rag.search($q, $config) YIELD chunkId RETURN chunkId", Map.of("q", question, "config", config))) {
                chunks.add((String) row.get("chunkId"));
            }
            return new Answered(chunks, null, Usage.NONE, Map.of());
        }
    },
    AGRAG("agrag", "agrag.index", "agrag.answer") {
        @Override
        Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra) {
            Map<String, Object> row = single(t.rows("CALL agrag.answer($q, $config) YIELD answer, pathChunkIds, retrievedChunkIds, usedGraph, "
                    + "llmCalls, promptTokens, completionTokens, tokensByStep RETURN *", Map.of("q", question, "config", config(corpus, llm, Map.of(), extra))));
            List<String> chunks = new ArrayList<>(strings(row.get("pathChunkIds")));
            chunks.addAll(strings(row.get("retrievedChunkIds")));
            return new Answered(chunks, (String) row.get("answer"), Usage.of(row), Map.of("usedGraph", row.get("usedGraph")));
        }
    },
    REMIND("remind", "remind.index", "remind.answer") {
        @Override
        Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra) {
            Map<String, Object> row = single(t.rows("CALL remind.answer($q, $config) YIELD answer, chunks, sufficient, stopReason, jumps, memorized, "
                    + "traversalTokens, llmCalls, promptTokens, completionTokens, tokensByStep RETURN *", Map.of("q", question, "config", config(corpus, llm, Map.of(), extra))));
            Map<String, Object> details = new LinkedHashMap<>();
            for (String k : List.of("sufficient", "stopReason", "jumps", "memorized", "traversalTokens")) details.put(k, row.get(k));
            return new Answered(strings(row.get("chunks")), (String) row.get("answer"), Usage.of(row), details);
        }

        @Override
        boolean writesMemory() { return true; }
    },
    HGMEM("hgmem", "hgmem.index", "hgmem.answer") {
        @Override
        Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra) {
            // keepSession false: each question's working memory is deleted with its answer, as a one-shot user would call it
            List<Map<String, Object>> rows = t.rows("CALL hgmem.answer($q, $config) YIELD kind, mode, units, answer, chunks, llmCalls, promptTokens, "
                    + "completionTokens, tokensByStep RETURN *", Map.of("q", question, "config", config(corpus, llm, Map.of("keepSession", false), extra)));
            Map<String, Object> last = rows.get(rows.size() - 1);
            if (!"answer".equals(last.get("kind"))) throw new IllegalStateException("hgmem.answer ended without its answer row");
            List<Object> modes = rows.stream().filter(r -> "step".equals(r.get("kind"))).map(r -> r.get("mode")).toList();
            return new Answered(strings(last.get("chunks")), (String) last.get("answer"), Usage.of(last), Map.of("steps", (long) modes.size(), "units", last.get("units")));
        }
    },
    RAGA("raga", "raga.ingest", "raga.answer") {
        @Override
        Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra) {
            Map<String, Object> row = single(t.rows("CALL raga.answer($q, $config) YIELD answer, answerType, retrieved, grounded, degraded, "
                    + "llmCalls, promptTokens, completionTokens, tokensByStep RETURN *", Map.of("q", question, "config", config(corpus, llm, Map.of(), extra))));
            return new Answered(strings(row.get("retrieved")), (String) row.get("answer"), Usage.of(row),
                    Map.of("answerType", String.valueOf(row.get("answerType")), "grounded", row.get("grounded"), "degraded", row.get("degraded")));
        }

        @Override
        Built build(Target t, String corpus, Map<String, Object> llm, Map<String, Object> extra) {
            List<Map<String, Object>> rows = t.rows("CALL raga.ingest([], $config) YIELD kind, state, stopReason, llmCalls, promptTokens, completionTokens, "
                    + "tokensByStep, entitiesCreated, relationsCreated, incomplete RETURN *", Map.of("config", config(corpus, llm, Map.of(), extra)));
            Map<String, Object> summary = rows.get(rows.size() - 1);
            long incomplete = rows.stream().filter(r -> "chunk".equals(r.get("kind")) && Boolean.TRUE.equals(r.get("incomplete"))).count();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("chunksRead", (long) rows.size() - 1);
            details.put("incompleteChunks", incomplete);
            details.put("entitiesCreated", summary.get("entitiesCreated"));
            details.put("relationsCreated", summary.get("relationsCreated"));
            details.put("state", summary.get("state"));
            details.put("stopReason", summary.get("stopReason"));
            return new Built(Usage.of(summary), details);
        }
    };

    /** What a build cost and what it reported. */
    public record Built(Usage usage, Map<String, Object> details) {}

    /** One question's outcome: the chunks shown to the reader in prompt order, the answer (null for a retrieval-only method), usage, extras. */
    public record Answered(List<String> chunkIds, String answer, Usage usage, Map<String, Object> details) {}

    /** LLM calls and tokens, in total and per step (step → calls, promptTokens, completionTokens and whatever else the step reports). */
    public record Usage(long calls, long promptTokens, long completionTokens, Map<String, Map<String, Long>> byStep) {
        static final Usage NONE = new Usage(0, 0, 0, Map.of());
        /** The prefix of a step's fallback counts in {@link #byStep} ("fallback: chunk skipped (retried next run)"). */
        static final String FALLBACK = "fallback: ";

        static Usage of(Map<String, Object> row) {
            Map<String, Map<String, Long>> steps = new LinkedHashMap<>();
            if (row.get("tokensByStep") instanceof Map<?, ?> m) {
                m.forEach((step, figures) -> {
                    Map<String, Long> f = new LinkedHashMap<>();
                    if (figures instanceof Map<?, ?> fm) fm.forEach((k, v) -> {
                        if (v instanceof Number n) f.put(k.toString(), n.longValue());
                        // what the method did instead of an unusable reply, flattened so the log and report add it up like the rest
                        if (v instanceof Map<?, ?> fallbacks) fallbacks.forEach((name, times) -> {
                            if (times instanceof Number t) f.put(FALLBACK + name, t.longValue());
                        });
                    });
                    steps.put(step.toString(), f);
                });
            }
            return new Usage(number(row.get("llmCalls")), number(row.get("promptTokens")), number(row.get("completionTokens")), steps);
        }
    }

    private final String key;
    private final String indexProcedure;
    private final String answerProcedure;

    EvaluatedMethod(String key, String indexProcedure, String answerProcedure) {
        this.key = key;
        this.indexProcedure = indexProcedure;
        this.answerProcedure = answerProcedure;
    }

    /** The name on the command line and in the report. */
    public String key() { return key; }

    /** The procedure that builds the layer, or null when the method needs none beyond rag.ingest. */
    public String indexProcedure() { return indexProcedure; }

    public String answerProcedure() { return answerProcedure; }

    /** Whether the method answers with an LLM (else it is a retrieval-only control). */
    public boolean usesLlm() { return this != DENSE; }

    /**
     * Whether answering writes memory later questions read (ReMind): such a method is asked one question at a time,
     * in the set's order, and gets a repeat pass.
     */
    boolean writesMemory() { return false; }

    abstract Answered answer(Target t, String corpus, String question, Map<String, Object> llm, Map<String, Object> extra);

    /** Builds (or brings up to date) the method's layer; a layer that is complete costs no LLM call. */
    Built build(Target t, String corpus, Map<String, Object> llm, Map<String, Object> extra) {
        Map<String, Object> row = single(t.rows("CALL " + indexProcedure + "($config)", Map.of("config", config(corpus, llm, Map.of(), extra))));
        Map<String, Object> details = new LinkedHashMap<>(row);
        for (String k : List.of("llmCalls", "promptTokens", "completionTokens", "tokensByStep")) details.remove(k);
        return new Built(Usage.of(row), details);
    }

    public static EvaluatedMethod named(String name) {
        return Arrays.stream(values()).filter(m -> m.key.equals(name)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "no method '" + name + "'; the methods are " + Arrays.stream(values()).map(EvaluatedMethod::key).toList()));
    }

    /** Every procedure the command calls, for --config's check. */
    static List<String> procedures() {
        List<String> out = new ArrayList<>();
        for (EvaluatedMethod m : values()) {
            if (m.indexProcedure != null) out.add(m.indexProcedure);
            out.add(m.answerProcedure);
        }
        return out;
    }

    /** A procedure's config: the corpus, the llm map when one is named (else the server's settings apply), fixed keys, then the user's. */
    static Map<String, Object> config(String corpus, Map<String, Object> llm, Map<String, Object> fixed, Map<String, Object> extra) {
        Map<String, Object> c = new LinkedHashMap<>(fixed);
        c.putAll(extra);
        c.put("corpus", corpus);
        if (llm != null) c.put("llm", llm);
        return c;
    }

    private static Map<String, Object> single(List<Map<String, Object>> rows) {
        if (rows.size() != 1) throw new IllegalStateException("expected one row, got " + rows.size());
        return rows.get(0);
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object list) {
        return list == null ? List.of() : ((List<Object>) list).stream().map(String::valueOf).toList();
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }
}
