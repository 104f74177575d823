package dev.graphrag.core.llm;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client against replies and windows as real servers give them, through the real HTTP client: reasoning in the
 * content or a separate field, JSON in prose, tool-call shapes, a server that cuts prompts (Ollama) or refuses them
 * (vLLM), and prompts that cannot fit the configured window.
 */
@LineIndependent
class LlmRealRepliesTest {
    @RegisterExtension
    static final StandInLlm LLM = StandInLlm.start();
    final List<String> log = new ArrayList<>();

    LlmClient client() {
        return new LlmClient(4, 1000, false, 10, log::add);
    }

    static LlmConfig cfg(Map<String, Object> perCall) {
        return LlmConfig.resolve(LLM.settings(Map.of("graphrag.llm.timeoutMs", "2000")), perCall, "test", Map.of());
    }

    static List<Map<String, Object>> ask(String text) {
        return List.of(Map.of("role", "user", "content", text));
    }

    record Verdict(boolean sufficient) {}

    static final StructuredOutput<Verdict> VERDICT = StructuredOutput.of("verdict",
            Map.of("type", "object", "required", List.of("sufficient"), "properties", Map.of("sufficient", Map.of("type", "boolean"))), Verdict.class, null);

    @Test
    void aReasoningModelsReplyIsReadAndItsReasoningCountedNotRepaired() {
        LLM.always().reply("<think>\nThe passage names both hops.\n</think>\n\n{\"sufficient\": true}");
        UsageMeter usage = new UsageMeter();
        assertTrue(client().ask(cfg(null), "judge", ask("enough?"), VERDICT, usage, () -> false).sufficient());
        Usage.Step s = usage.usage().byStep().get("judge");
        assertEquals(1, s.calls());
        assertEquals(0, s.repairs(), "a think block is how such models answer, not a mistake");
        assertEquals(TokenCounter.count("\nThe passage names both hops.\n"), s.reasoningTokens());
    }

    @Test
    void aSeparateReasoningFieldIsNeverTheAnswer() {
        LLM.always().reply("{\"sufficient\": false}");
        LLM.shape((body, request) -> {
            ((com.fasterxml.jackson.databind.node.ObjectNode) body.path("choices").path(0).path("message")).put("reasoning_content", "{\"sufficient\": true}");
            body.with("usage").putObject("completion_tokens_details").put("reasoning_tokens", 42);
            return body;
        });
        UsageMeter usage = new UsageMeter();
        assertEquals(false, client().ask(cfg(null), "judge", ask("enough?"), VERDICT, usage, () -> false).sufficient());
        assertEquals(42, usage.usage().byStep().get("judge").reasoningTokens(), "the server's own reasoning count");
    }

    @Test
    void chattyJsonIsRepairedLocallyAndCounted() {
        LLM.always().reply("Sure! Here is the JSON:\n```json\n{\"sufficient\": true,}\n```\nLet me know!");
        UsageMeter usage = new UsageMeter();
        assertTrue(client().ask(cfg(null), "judge", ask("enough?"), VERDICT, usage, () -> false).sufficient());
        assertEquals(1, LLM.requests().size(), "no repair turn was needed");
        assertEquals(1, usage.usage().byStep().get("judge").repairs());
    }

    @Test
    void twoObjectsGetTheRepairTurnThenAnErrorNamingTheStep() {
        LLM.always().reply("Either {\"sufficient\": true} or {\"sufficient\": false}.");
        RagException e = assertThrows(RagException.class, () -> client().ask(cfg(null), "judge", ask("enough?"), VERDICT, new UsageMeter(), () -> false));
        assertTrue(e.getMessage().contains("'judge'") && e.getMessage().contains("2 candidate JSON values"), e.getMessage());
        assertEquals(2, LLM.requests().size());
    }

    @Test
    void anEmptyReplyWithFinishStopAndAnArrayWhereAnObjectIsExpectedAreRefused() {
        LLM.always().reply("");
        RagException empty = assertThrows(RagException.class, () -> client().ask(cfg(null), "judge", ask("x"), VERDICT, new UsageMeter(), () -> false));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
        LLM.reset();
        LLM.always().reply("[{\"sufficient\": true}]");
        RagException array = assertThrows(RagException.class, () -> client().ask(cfg(null), "judge", ask("x"), VERDICT, new UsageMeter(), () -> false));
        assertTrue(array.getMessage().contains("object"), array.getMessage());
    }

    @Test
    void aReplyCutWhileReasoningFailsAtOnceWithAdvice() {
        LLM.always().reply("<think>First I will consider").finishReason("length");
        RagException e = assertThrows(RagException.class, () -> client().ask(cfg(null), "judge", ask("x"), VERDICT, new UsageMeter(), () -> false));
        assertTrue(e.getMessage().contains("raise maxTokens"), e.getMessage());
        assertEquals(1, LLM.requests().size(), "no repair turn: it would be cut the same way");
    }

    @Test
    void aServerThatCutThePromptIsCaughtNamingBothCountsAndTheFix() {
        LLM.always().reply("{\"sufficient\": true}");
        LLM.window(300);
        String passage = "The Thark horde rode across the dead sea bottom towards the city of Zodanga at dawn. ".repeat(40);
        RagException e = assertThrows(RagException.class, () -> client().ask(cfg(null), "judge", ask(passage + " Enough?"), VERDICT, new UsageMeter(), () -> false));
        assertTrue(e instanceof PromptCutException, e.toString());
        assertTrue(e.getMessage().contains("read only 300 prompt tokens") && e.getMessage().contains("OLLAMA_CONTEXT_LENGTH")
                && e.getMessage().contains("--max-model-len") && e.getMessage().contains("graphrag.llm.contextTokens"), e.getMessage());
    }

    @Test
    void aPromptThatCannotFitFailsBeforeAnyRequestAndOptionalMaterialIsTrimmedByRank() {
        LLM.always().reply("{\"sufficient\": true}");
        String passage = "The Thark horde rode across the dead sea bottom towards the city of Zodanga at dawn. ".repeat(40);
        LlmConfig small = cfg(Map.of("contextTokens", 1024L, "maxTokens", 256L));
        RagException e = assertThrows(RagException.class, () -> client().ask(small, "judge", ask(passage.repeat(2)), VERDICT, new UsageMeter(), () -> false));
        assertTrue(e instanceof PromptFit.PromptTooLargeException, e.toString());
        assertTrue(e.getMessage().contains("'judge'") && e.getMessage().contains("contextTokens=1024") && e.getMessage().contains("graphrag.llm.contextTokens"),
                e.getMessage());
        assertEquals(0, LLM.requests().size(), "nothing was sent");
        // ranked passages: the window keeps the best ones and reports what it left out
        List<String> passages = new ArrayList<>();
        for (int i = 0; i < 12; i++) passages.add("[P" + i + "] " + passage.substring(0, 400));
        UsageMeter usage = new UsageMeter();
        List<Map<String, Object>> fitted = PromptFit.fit(small, "judge", passages.size(),
                n -> ask("Passages:\n" + String.join("\n", passages.subList(0, n)) + "\nEnough?"), PromptFit.overhead(VERDICT), usage);
        client().ask(small, "judge", fitted, VERDICT, usage, () -> false);
        Usage.Step s = usage.usage().byStep().get("judge");
        assertTrue(s.trimmed() > 0 && s.trimmed() < 12 && s.trimmedTokens() > 0, s.toString());
        String sent = LLM.requests().get(0).lastUserContent();
        assertTrue(sent.contains("[P0]") && !sent.contains("[P11]"), "the best kept, the weakest left out");
        assertTrue(TokenCounter.withMargin(TokenCounter.promptAsRead(ChatRequest.of("judge", ask(sent)))) <= small.promptBudget());
    }

    @Test
    void aServerThatRefusesALongPromptGetsTheWindowAdvice() {
        LLM.always().status(400).rawBody("{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.\"}");
        RagException e = assertThrows(RagException.class, () -> client().chat(cfg(null), ChatRequest.of("s", ask("x")), false, () -> false));
        assertTrue(e.getMessage().contains("context window") && e.getMessage().contains("graphrag.llm.contextTokens"), e.getMessage());
    }

    static final Map<String, Object> Q = Map.of("type", "object", "required", List.of("q"), "properties", Map.of("q", Map.of("type", "string")));

    @Test
    void toolCallShapesOfRealServersAllReachTheHandler() {
        List<String> seen = new ArrayList<>();
        ToolLoop.Tool search = new ToolLoop.Tool("search", "Finds passages.", Q, a -> {
            seen.add(a.path("q").asText());
            return Map.of("hits", List.of("p1"));
        });
        // Ollama: arguments as an object; older llama.cpp: no id, two calls in one reply; a Hermes block left in the content
        LLM.when(r -> r.body().path("messages").size() == 1).toolCalls(Map.of("type", "function", "function", Map.of("name", "search", "arguments", Map.of("q", "a"))),
                Map.of("function", Map.of("name", "search", "arguments", "{\"q\": \"b\"}")));
        LLM.when(r -> r.body().path("messages").size() == 4).reply("<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"c\"}}\n</tool_call>");
        LLM.always().reply("<think>done</think>All found.");
        ToolLoop.Outcome o = new ToolLoop(client(), cfg(null), "agent", List.of(search), new ToolLoop.Budget(6, 10, 1_000_000), () -> false)
                .run(ask("find"), ToolLoop.Mode.NATIVE);
        assertEquals(List.of("a", "b", "c"), seen);
        assertEquals("All found.", o.content());
        assertEquals(1, o.usage().byStep().get("agent").repairs(), "the call left in the content");
        JsonNode second = LLM.requests().get(1).body().path("messages");
        assertTrue(!second.get(2).path("tool_call_id").asText().equals(second.get(3).path("tool_call_id").asText()), "ids made unique: " + second);
    }

    @Test
    void jsonActionsAreFoundAfterReasoningAndInProse() {
        List<String> seen = new ArrayList<>();
        ToolLoop.Tool search = new ToolLoop.Tool("search", "Finds passages.", Q, a -> {
            seen.add(a.path("q").asText());
            return Map.of("hits", List.of());
        });
        LLM.when(r -> r.lastUserContent().equals("find")).reply("<think>I should search.</think>\nI will search: ```json\n{\"action\": \"search\", \"arguments\": {\"q\": \"x\"}}\n```");
        LLM.always().reply("Done! {\"action\": \"final\", \"content\": \"nothing\"}");
        ToolLoop.Outcome o = new ToolLoop(client(), cfg(null), "agent", List.of(search), new ToolLoop.Budget(6, 10, 1_000_000), () -> false)
                .run(ask("find"), ToolLoop.Mode.JSON);
        assertEquals(List.of("x"), seen);
        assertEquals("nothing", o.content());
        assertEquals(0, o.invalidCalls());
        assertEquals(2, o.usage().byStep().get("agent").repairs());
        String kept = LLM.requests().get(1).body().path("messages").get(2).path("content").asText();
        assertEquals("{\"action\":\"search\",\"arguments\":{\"q\":\"x\"}}", kept, "only the action stays in the transcript");
    }

    @Test
    void aGrowingTranscriptIsCompactedOldestResultFirst() {
        String big = "The Thark horde rode across the dead sea bottom towards the city of Zodanga at dawn. ".repeat(30);
        ToolLoop.Tool read = new ToolLoop.Tool("search", "Reads a passage.", Q, a -> Map.of("text", big));
        for (int size = 3; size <= 9; size += 2) {
            int below = size; // a new question each round: the same call thrice would stop the loop as a rut
            LLM.when(r -> r.body().path("messages").size() < below).toolCalls(StandInLlm.toolCall("c", "search", "{\"q\": \"x" + below + "\"}"));
        }
        LLM.always().reply("finished");
        LlmConfig small = cfg(Map.of("contextTokens", 2048L, "maxTokens", 256L));
        ToolLoop.Outcome o = new ToolLoop(client(), small, "agent", List.of(read), new ToolLoop.Budget(10, 10, 1_000_000), () -> false)
                .run(ask("read four passages"), ToolLoop.Mode.NATIVE);
        assertEquals("finished", o.content());
        Usage.Step s = o.usage().byStep().get("agent");
        assertTrue(s.trimmed() > 0 && s.trimmedTokens() > 0, s.toString());
        for (StandInLlm.Request r : LLM.requests()) {
            ChatRequest sent = new ChatRequest("agent", com.fasterxml.jackson.databind.json.JsonMapper.builder().build().convertValue(r.body().path("messages"),
                    new com.fasterxml.jackson.core.type.TypeReference<List<Map<String, Object>>>() {}), List.of(), null, null, null);
            assertTrue(TokenCounter.withMargin(TokenCounter.messages(sent.messages())) <= small.promptBudget(), "every request fits the window");
        }
        JsonNode last = LLM.requests().get(LLM.requests().size() - 1).body().path("messages");
        assertTrue(last.get(2).path("content").asText().contains("left out to fit the context window"), "the oldest result was compacted");
        assertTrue(last.get(last.size() - 1).path("content").asText().contains("Thark"), "the newest result is whole");
    }

    /**
     * What every round re-sends is kept to what the model needs: schemas without the keywords only the local check uses
     * (calls are still checked against them), a tool's result in full for the round after its call and as the tool's
     * digest from then on (never a refused call's error), and no prose beside earlier calls.
     */
    @Test
    void resultsAreDigestedAfterTheRoundThatReadThemAndSchemasLeaveOutCheckOnlyKeywords() {
        Map<String, Object> strict = Map.of("type", "object", "required", List.of("q"), "additionalProperties", false,
                "properties", Map.of("q", Map.of("type", "string", "minLength", 1)));
        List<String> seen = new ArrayList<>();
        ToolLoop.Tool search = new ToolLoop.Tool("search", "Finds passages.", strict, a -> {
            seen.add(a.path("q").asText());
            return Map.of("hits", List.of(Map.of("name", "Thark", "snippet", "The Thark horde rode across the dead sea bottom.")));
        }).digestedBy(r -> Map.of("hits", List.of(r.path("hits").get(0).path("name").asText())));
        LLM.when(r -> r.body().path("messages").size() == 1).reply("Let me search first.").toolCalls(StandInLlm.toolCall("c1", "search", "{\"q\": \"a\"}"));
        LLM.when(r -> r.body().path("messages").size() == 3).toolCalls(StandInLlm.toolCall("c2", "search", "{\"q\": \"\"}"),
                StandInLlm.toolCall("c3", "search", "{\"q\": \"b\"}"));
        LLM.always().reply("done");
        ToolLoop.Outcome o = new ToolLoop(client(), cfg(null), "agent", List.of(search), new ToolLoop.Budget(6, 10, 1_000_000), () -> false)
                .run(ask("find"), ToolLoop.Mode.NATIVE);
        assertEquals("done", o.content());
        assertEquals(List.of("a", "b"), seen, "the empty query was refused by the full schema's minLength");
        assertEquals(1, o.invalidCalls());
        JsonNode params = LLM.requests().get(0).body().path("tools").get(0).path("function").path("parameters");
        assertTrue(!params.has("additionalProperties") && !params.path("properties").path("q").has("minLength"), "sent: " + params);
        JsonNode second = LLM.requests().get(1).body().path("messages"), third = LLM.requests().get(2).body().path("messages");
        assertEquals("", second.get(1).path("content").asText(), "the prose beside the call is not sent again");
        assertTrue(second.get(2).path("content").asText().contains("dead sea bottom"), "the round after the call reads the result in full");
        assertEquals("{\"hits\":[\"Thark\"]}", third.get(2).path("content").asText(), "a round later it reads the digest");
        assertTrue(third.get(4).path("content").asText().contains("error"), "a refusal is never digested: " + third.get(4));
        assertTrue(third.get(5).path("content").asText().contains("dead sea bottom"), "the newest result is whole");
    }
}
