package dev.graphrag.procedures;

import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.llm.ChatConfig;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.LlmInfoConfig;
import dev.graphrag.core.llm.ModelCheckConfig;
import dev.graphrag.core.llm.Capabilities;
import dev.graphrag.core.llm.ChatResponse;
import dev.graphrag.core.llm.EndpointInfo;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.ModelCheck;
import dev.graphrag.agrag.AgragModelCheck;
import dev.graphrag.hgmem.HgmemModelCheck;
import dev.graphrag.raga.RagaModelCheck;
import dev.graphrag.remind.RemindModelCheck;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** rag.llm.*: direct access to the configured OpenAI-compatible LLM. */
public class LlmProcedures {
    @Context public GraphRagRuntime rag;
    @Context public TerminationGuard guard;

    /**
     * rag.llm.chat's row. content is the answer, reasoning what a reasoning model thought before it (a leading think block
     * or the server's reasoning field; null when none); toolCalls: [{id, type, function: {name, arguments}}].
     */
    public record ChatResult(String content, String reasoning, List<Map<String, Object>> toolCalls, String finishReason, long promptTokens,
                             long completionTokens, long reasoningTokens, boolean tokensEstimated, boolean cached, long ms) {}

    /**
     * rag.llm.info's row: endpoint as configured without user information or query string; toolCalling native, json-action or unknown (until a tool
     * loop or a probe used the endpoint); structuredOutput json_schema, json_object or unknown; allowedEndpoints what
     * callers may name besides the configured endpoint; contextTokens the window prompts are fitted to, serverContextTokens
     * the window the endpoint states (null when it states none) and windowSource where that came from; warning says when
     * the server's window is below contextTokens (prompts would be cut or refused); maxConcurrent the server's LLM
     * permits, the most requests in flight at once across every procedure.
     */
    public record InfoResult(String endpoint, String model, boolean reachable, String toolCalling, String structuredOutput,
                             String allowedEndpoints, long contextTokens, Long serverContextTokens, String windowSource, String warning, long maxConcurrent, long ms) {}

    @Procedure(name = "rag.llm.chat", mode = Mode.READ)
    @Description("rag.llm.chat(messages :: LIST<MAP>, config = {} :: MAP) :: (content :: STRING, reasoning :: STRING, toolCalls :: LIST<MAP>,"
            + " finishReason :: STRING, promptTokens :: INTEGER, completionTokens :: INTEGER, reasoningTokens :: INTEGER, tokensEstimated :: BOOLEAN,"
            + " cached :: BOOLEAN, ms :: INTEGER) - one chat completion; a reasoning model's thinking comes apart from its answer. Config: llm"
            + " {endpoint, model, apiKey, temperature, seed, maxTokens, contextTokens, timeoutMs}, tools, toolChoice,"
            + " responseFormat ('json_object' or {name, schema}), stop, cache. An endpoint other than the configured one must be on"
            + " graphrag.llm.allowedEndpoints and gets only an apiKey given in the same call, never the server's.")
    public Stream<ChatResult> chat(@Name("messages") List<Map<String, Object>> messages,
                                   @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ChatConfig c = ChatConfig.parse(config);
        List<Map<String, Object>> msgs = ChatRequest.checkMessages("rag.llm.chat", messages);
        LlmConfig cfg = rag.llmConfig(c.llm(), "rag.llm.chat");
        ChatResponse resp = rag.llm().chat(cfg, new ChatRequest("rag.llm.chat", msgs, c.tools(), c.toolChoice(), c.responseFormat(), c.stop()), c.cache(),
                Termination.of(guard));
        return Stream.of(new ChatResult(resp.content(), resp.reasoning(), resp.toolCalls(), resp.finishReason(), resp.promptTokens(),
                resp.completionTokens(), resp.reasoningTokens(), resp.tokensEstimated(), resp.cached(), resp.ms()));
    }

    /** The methods rag.llm.check knows, by the name its {@code methods} key takes. */
    static final Map<String, java.util.function.Supplier<List<ModelCheck.Probe>>> CHECKED = new java.util.LinkedHashMap<>();

    static {
        CHECKED.put(AgragModelCheck.METHOD, AgragModelCheck::probes);
        CHECKED.put(RemindModelCheck.METHOD, RemindModelCheck::probes);
        CHECKED.put(HgmemModelCheck.METHOD, HgmemModelCheck::probes);
        CHECKED.put(RagaModelCheck.METHOD, RagaModelCheck::probes);
    }

    @Procedure(name = "rag.llm.check", mode = Mode.READ)
    @Description("rag.llm.check(config = {} :: MAP) :: (method :: STRING, step :: STRING, trials :: INTEGER, calls :: INTEGER, firstTry :: INTEGER,"
            + " repaired :: INTEGER, unusable :: INTEGER, wrong :: INTEGER, meanMs :: FLOAT, promptTokens :: INTEGER, completionTokens :: INTEGER,"
            + " reasoningTokens :: INTEGER, problem :: STRING, verdict :: STRING, methodVerdict :: STRING, advice :: STRING) - whether a model is good enough for each method:"
            + " every structured step (and RAGA's tool-calling reading) sent with its real prompt on a tiny built-in sample, never the"
            + " database's data, each reply judged usable on the first try, after the repair turn, or not, and right or wrong (a name not in"
            + " the passage, an id not offered, a wrong answer); one row per step with the method's verdict (ok, usable with N % repairs,"
            + " weak, not usable) and the advice for it. dryRun: true sends nothing and gives the calls and prompt tokens it would spend at"
            + " most. Config: llm, methods (agrag, remind, hgmem, raga; default all), cases (1-3, default 3), dryRun.")
    public Stream<ModelCheck.StepReport> check(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ModelCheckConfig c = ModelCheckConfig.parse(config, List.copyOf(CHECKED.keySet()));
        List<ModelCheck.Probe> probes = new java.util.ArrayList<>();
        for (String m : c.methods()) probes.addAll(CHECKED.get(m).get());
        if (c.dryRun()) return ModelCheck.plan(probes, c.cases()).stream();
        LlmConfig cfg = rag.llmConfig(c.llm(), "rag.llm.check");
        return ModelCheck.run(rag.llm(), cfg, probes, c.cases(), Termination.of(guard)).stream();
    }

    @Procedure(name = "rag.llm.info", mode = Mode.READ)
    @Description("rag.llm.info(config = {} :: MAP) :: (endpoint :: STRING, model :: STRING, reachable :: BOOLEAN, toolCalling :: STRING,"
            + " structuredOutput :: STRING, allowedEndpoints :: STRING, contextTokens :: INTEGER, serverContextTokens :: INTEGER, windowSource :: STRING,"
            + " warning :: STRING, maxConcurrent :: INTEGER, ms :: INTEGER) - the configured LLM endpoint (no credentials or query string),"
            + " whether it answers GET /models, the context window it states (vLLM max_model_len, llama.cpp n_ctx, Ollama num_ctx) against"
            + " contextTokens, and whether it takes native tool calls and json_schema outputs (learnt on use, or now with"
            + " probe: true, which sends two tiny requests). Config: probe, llm"
            + " (an endpoint other than the configured one must be on graphrag.llm.allowedEndpoints and never gets the server's key).")
    public Stream<InfoResult> info(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        LlmInfoConfig c = LlmInfoConfig.parse(config);
        boolean probe = c.probe();
        LlmConfig cfg = rag.llmConfig(c.llm(), "rag.llm.info");
        long t0 = System.nanoTime();
        EndpointInfo e = rag.llm().endpointInfo(cfg, Termination.of(guard));
        Capabilities caps = probe && e.reachable() ? rag.llm().probe(cfg, Termination.of(guard)) : rag.llm().capabilities(cfg);
        String warning = e.window() != null && e.window() < cfg.contextTokens()
                ? "the endpoint's window (" + e.window() + " tokens) is below contextTokens (" + cfg.contextTokens() + "): long prompts will be cut"
                + " or refused; set graphrag.llm.contextTokens to " + e.window() + " or raise the server's window (docs/llm.md#context-windows)"
                : e.window() == null && e.windowSource() != null ? e.windowSource() : null;
        if (!e.reachable()) {
            // said first: every LLM procedure fails until the endpoint answers
            warning = "the endpoint did not answer GET " + cfg.displayEndpoint() + "/models: every LLM procedure will fail until it does; check that"
                    + " the server is running and that the endpoint is its OpenAI-compatible base URL (usually ending in /v1)"
                    + (warning == null ? "" : "; " + warning);
        }
        return Stream.of(new InfoResult(cfg.displayEndpoint(), cfg.model(), e.reachable(), caps.toolCalling(), caps.structuredOutput(), rag.endpointPolicy().describe(),
                cfg.contextTokens(), e.window(), e.window() == null ? null : e.windowSource(), warning, rag.llm().maxConcurrent(), (System.nanoTime() - t0) / 1_000_000));
    }

}
