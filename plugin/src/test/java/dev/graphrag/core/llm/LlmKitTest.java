package dev.graphrag.core.llm;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.graphrag.core.llm.StandInLlm.hasToolResult;
import static dev.graphrag.core.llm.StandInLlm.lastUserContains;
import static dev.graphrag.core.llm.StandInLlm.toolCall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The core LLM kit against the stand-in server: usage by step, typed outputs with a repair turn, the tool loop in both modes. */
@LineIndependent
class LlmKitTest {
    @RegisterExtension
    static final StandInLlm LLM = StandInLlm.start();
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> searched = new CopyOnWriteArrayList<>();

    static PluginSettings settings() {
        return LLM.settings(Map.of("graphrag.llm.maxRetries", "0"));
    }

    LlmClient client() {
        return LlmClient.of(settings(), log::add);
    }

    static LlmConfig cfg() {
        return LlmConfig.resolve(settings(), null, "test", Map.of());
    }

    static final Map<String, Object> QUERY_SCHEMA = Map.of("type", "object", "required", List.of("q"), "additionalProperties", false,
            "properties", Map.of("q", Map.of("type", "string", "minLength", 1)));

    ToolLoop.Tool search() {
        return new ToolLoop.Tool("search", "Finds passages about a topic.", QUERY_SCHEMA, args -> {
            searched.add(args.path("q").asText());
            if (args.path("q").asText().equals("forbidden")) throw new RagException("that topic is off limits");
            return Map.of("ok", true, "passages", List.of("Issus rules the First Born."));
        });
    }

    static List<Map<String, Object>> ask(String q) {
        return List.of(Map.of("role", "user", "content", q));
    }

    @Test
    void usageAddsUpByStepAndMatchesTheServersLog() {
        LLM.always().reply("fine");
        LlmClient c = client();
        UsageMeter meter = new UsageMeter();
        for (String step : List.of("plan", "plan", "answer")) meter.add(step, c.chat(cfg(), ChatRequest.of(step, ask("x " + step)), false, () -> false));
        Usage u = meter.usage();
        assertEquals(3, u.calls());
        assertEquals(2, u.byStep().get("plan").calls());
        List<StandInLlm.Request> seen = LLM.requests();
        assertEquals(List.of("plan", "plan", "answer"), seen.stream().map(StandInLlm.Request::step).toList());
        // the stand-in counts prompt tokens as its own function of the messages it received: the sums must agree
        long serverPrompt = seen.stream().mapToLong(StandInLlm::promptTokens).sum();
        assertEquals(serverPrompt, u.promptTokens());
        @SuppressWarnings("unchecked")
        Map<String, Object> plan = (Map<String, Object>) u.tokensByStep().get("plan");
        assertEquals(2L, plan.get("calls"));
    }

    record Verdict(boolean sufficient, List<String> missing) {}

    static final Map<String, Object> VERDICT_SCHEMA = Map.of("type", "object", "required", List.of("sufficient", "missing"),
            "properties", Map.of("sufficient", Map.of("type", "boolean"), "missing", Map.of("type", "array", "items", Map.of("type", "string"))));

    @Test
    void typedOutputsAreCheckedRepairedOnceAndSentAsJsonSchema() {
        LLM.when(r -> r.lastUserContent().startsWith("Your reply could not be used")).replyJson(Map.of("sufficient", false, "missing", List.of("who")));
        LLM.always().replyJson(Map.of("sufficient", "maybe"));
        StructuredOutput<Verdict> out = StructuredOutput.of("verdict", VERDICT_SCHEMA, Verdict.class,
                v -> !v.sufficient() && v.missing().isEmpty() ? "say what is missing when it is not sufficient" : null);
        LlmClient.Typed<Verdict> t = client().structured(cfg(), ChatRequest.of("judge", ask("enough?")), out, false, () -> false);
        assertEquals(new Verdict(false, List.of("who")), t.value());
        assertEquals(2, t.response().calls(), "one repair turn");
        JsonNode format = LLM.requests().get(0).body().path("response_format");
        assertEquals("json_schema", format.path("type").asText());
        assertEquals("verdict", format.path("json_schema").path("name").asText());
        assertTrue(LLM.requests().get(1).lastUserContent().contains("$: missing required key 'missing'"), LLM.requests().get(1).lastUserContent());

        LLM.reset();
        LLM.always().replyJson(Map.of("sufficient", false, "missing", List.of()));
        RagException e = assertThrows(RagException.class, () -> client().structured(cfg(), ChatRequest.of("judge", ask("enough?")), out, false, () -> false));
        assertTrue(e.getMessage().contains("'judge'") && e.getMessage().contains("say what is missing"), e.getMessage());
    }

    @Test
    void anEndpointWithoutJsonSchemaGetsJsonObjectFromThenOn() {
        LLM.when(r -> "json_schema".equals(r.body().path("response_format").path("type").asText()))
                .status(400).rawBody("{\"error\": {\"message\": \"response_format json_schema is not supported\"}}");
        LLM.always().replyJson(Map.of("sufficient", true, "missing", List.of()));
        LlmClient c = client();
        StructuredOutput<Verdict> out = StructuredOutput.of("verdict", VERDICT_SCHEMA, Verdict.class, null);
        assertTrue(c.structured(cfg(), ChatRequest.of("judge", ask("a")), out, false, () -> false).value().sufficient());
        assertEquals("json_object", c.capabilities(cfg()).structuredOutput());
        c.structured(cfg(), ChatRequest.of("judge", ask("b")), out, false, () -> false);
        assertEquals(List.of("json_schema", "json_object", "json_object"),
                LLM.requests().stream().map(r -> r.body().path("response_format").path("type").asText()).toList());
    }

    @Test
    void nativeToolCallsRunTheToolsAndEndWithTheAnswer() {
        LLM.when(hasToolResult("c2")).reply("Issus rules the First Born.");
        LLM.when(hasToolResult("c1")).toolCalls(toolCall("c2", "search", "{\"q\": 5}"), toolCall("c3", "search", "{\"q\": \"forbidden\"}"));
        LLM.always().toolCalls(toolCall("c1", "search", "{\"q\": \"Issus\"}"));
        LlmClient c = client();
        ToolLoop.Outcome o = new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(5, 10, 100_000), () -> false)
                .run(ask("Who rules the First Born?"), ToolLoop.Mode.AUTO);
        assertEquals("final", o.stopReason());
        assertEquals(ToolLoop.Mode.NATIVE, o.mode());
        assertEquals("Issus rules the First Born.", o.content());
        assertEquals(3, o.calls().size());
        assertTrue(o.calls().get(0).ok());
        assertFalse(o.calls().get(1).ok(), "q must be a string: the handler never ran");
        assertTrue(o.calls().get(1).result().contains("$.q: expected string"), o.calls().get(1).result());
        assertFalse(o.calls().get(2).ok(), "the handler refused");
        assertTrue(o.calls().get(2).result().contains("off limits"));
        assertEquals(2, o.invalidCalls());
        assertEquals(List.of("Issus", "forbidden"), searched);
        assertEquals(3, o.usage().calls());
        assertEquals("native", c.capabilities(cfg()).toolCalling());
        assertEquals("search", LLM.requests().get(0).body().path("tools").get(0).path("function").path("name").asText());
    }

    @Test
    void endpointsWithoutToolCallingGetJsonActionsDetectedOnce() {
        LLM.when(r -> r.body().has("tools")).status(400).rawBody("{\"error\": {\"message\": \"registry/qwen:0.5b does not support tools\"}}");
        LLM.when(lastUserContains("Result of search")).replyJson(Map.of("action", "final", "content", "Issus."));
        LLM.when(lastUserContains("not one JSON object")).replyJson(Map.of("action", "search", "arguments", Map.of("q", "Issus")));
        LLM.always().reply("I think I should search");
        LlmClient c = client();
        ToolLoop loop = new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(6, 10, 100_000), () -> false);
        ToolLoop.Outcome o = loop.run(ask("Who rules?"), ToolLoop.Mode.AUTO);
        assertEquals("final", o.stopReason());
        assertEquals(ToolLoop.Mode.JSON, o.mode());
        assertEquals("Issus.", o.content());
        assertEquals(1, o.invalidCalls(), "the prose reply was one invalid turn");
        assertEquals(List.of("Issus"), searched);
        assertEquals("json-action", c.capabilities(cfg()).toolCalling());
        JsonNode second = LLM.requests().get(1).body();
        assertFalse(second.has("tools"));
        assertTrue(second.path("messages").get(0).path("content").asText().contains("- search: Finds passages"));
        int before = LLM.requests().size();
        loop.run(ask("Who rules?"), ToolLoop.Mode.AUTO);
        assertFalse(LLM.requests().get(before).body().has("tools"), "the endpoint's mode is remembered");
    }

    @Test
    void refusalsAreWordedByTheCallerAndAControlToolEndsTheRun() {
        LLM.when(hasToolResult("c2")).toolCalls(toolCall("c3", "done", "{\"summary\": \"read\"}"), toolCall("c4", "search", "{\"q\": \"never\"}"));
        LLM.when(hasToolResult("c1")).toolCalls(toolCall("c2", "lookup", "{}"));
        LLM.always().toolCalls(toolCall("c1", "search", "{\"q\": \"forbidden\"}"));
        ToolLoop.Tool refusing = new ToolLoop.Tool("search", "Finds passages.", QUERY_SCHEMA, args -> {
            searched.add(args.path("q").asText());
            return new ToolLoop.Refused(new java.util.TreeMap<>(Map.of("ok", false, "code", "OFF_LIMITS")));
        });
        ToolLoop.Tool done = new ToolLoop.Tool("done", "Ends the task.", Map.of("type", "object"), args -> new ToolLoop.Finished(new java.util.TreeMap<>(Map.of("status", "complete",
                "summary", args.path("summary").asText()))));
        List<ToolLoop.Refusal> seen = new ArrayList<>();
        ToolLoop.Outcome o = new ToolLoop(client(), cfg(), "agent", List.of(refusing, done), new ToolLoop.Budget(5, 10, 100_000), () -> false)
                .refusalsAs(r -> {
                    seen.add(r);
                    return new java.util.TreeMap<>(Map.of("ok", false, "code", r.kind().name()));
                }).run(ask("go"), ToolLoop.Mode.NATIVE);
        assertEquals("final", o.stopReason());
        assertEquals("{\"status\":\"complete\",\"summary\":\"read\"}", o.content(), "the control tool's body is the outcome");
        assertEquals(List.of("forbidden"), searched, "the call after the control tool never ran");
        assertEquals(3, o.calls().size());
        assertEquals(2, o.invalidCalls(), "a Refused body and an unknown tool both count as invalid");
        assertEquals("{\"code\":\"OFF_LIMITS\",\"ok\":false}", o.calls().get(0).result());
        assertEquals(List.of(ToolLoop.RefusalKind.UNKNOWN_TOOL), seen.stream().map(ToolLoop.Refusal::kind).toList());
        assertEquals("{\"code\":\"UNKNOWN_TOOL\",\"ok\":false}", o.calls().get(1).result());
        assertEquals("/triples/2", JsonSchemaCheck.pointer("$.triples[2]: expected array, got string"));
        assertEquals("", JsonSchemaCheck.pointer("$: missing required key 'q'"));
    }

    @Test
    void budgetsStopTheLoopWithAReason() {
        LLM.always().toolCalls(toolCall("c", "search", "{\"q\": \"again\"}"));
        LlmClient c = client();
        assertEquals("maxToolCalls", new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(10, 2, 1_000_000), () -> false)
                .run(ask("loop"), ToolLoop.Mode.NATIVE).stopReason());
        ToolLoop.Outcome rounds = new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(2, 100, 1_000_000), () -> false)
                .run(ask("loop"), ToolLoop.Mode.NATIVE);
        assertEquals("maxRounds", rounds.stopReason());
        assertEquals(2, rounds.usage().calls());
        // the same call a third time: a model in a rut stops before maxRounds, the call not run again
        ToolLoop.Outcome rut = new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(10, 100, 1_000_000), () -> false)
                .run(ask("loop"), ToolLoop.Mode.NATIVE);
        assertEquals("repeatedCall", rut.stopReason());
        assertEquals(ToolLoop.MAX_SAME_CALL - 1, rut.calls().size());
        assertEquals("maxTokens", new ToolLoop(c, cfg(), "agent", List.of(search()), new ToolLoop.Budget(100, 100, 10), () -> false)
                .run(ask("loop"), ToolLoop.Mode.NATIVE).stopReason());
        RagException e = assertThrows(RagException.class, () -> new ToolLoop(c, cfg(), "agent", List.of(search()),
                new ToolLoop.Budget(10, 10, 1_000_000), () -> true).run(ask("loop"), ToolLoop.Mode.NATIVE));
        assertTrue(e.getMessage().contains("cancelled"));
        List<ToolLoop.Tool> twice = new ArrayList<>(List.of(search(), search()));
        assertThrows(IllegalArgumentException.class, () -> new ToolLoop(c, cfg(), "agent", twice, new ToolLoop.Budget(1, 1, 1), () -> false));
    }

    @Test
    void schemaChecks() {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        Map<String, Object> schema = Map.of("type", "object", "required", List.of("triples"), "properties", Map.of("triples",
                Map.of("type", "array", "maxItems", 2, "items", Map.of("type", "array", "minItems", 3, "maxItems", 3, "items", Map.of("type", "string")))));
        assertEquals(null, JsonSchemaCheck.problem(schema, json.valueToTree(Map.of("triples", List.of(List.of("a", "b", "c"))))));
        assertEquals("$.triples[0]: at least 3 items, got 2", JsonSchemaCheck.problem(schema, json.valueToTree(Map.of("triples", List.of(List.of("a", "b"))))));
        assertEquals("$.triples[0][1]: expected string, got integer",
                JsonSchemaCheck.problem(schema, json.valueToTree(Map.of("triples", List.of(List.of("a", 1, "c"))))));
        assertEquals("$: expected object, got array", JsonSchemaCheck.problem(schema, json.valueToTree(List.of())));
        assertEquals("$.q: must be one of [a, b], got \"c\"",
                JsonSchemaCheck.problem(Map.of("properties", Map.of("q", Map.of("enum", List.of("a", "b")))), json.valueToTree(Map.of("q", "c"))));
    }
}
