package dev.graphrag.hgmem;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StandInLlm;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The evolution loop through the shared LLM client against the stand-in: T6's call sequence as the endpoint sees it
 * (step headers), JSON input blocks that address memory points by index, usage metered per step equal to the
 * endpoint's count, and a reply that stays malformed after the repair turn failing with the step's name.
 */
@LineIndependent
class LlmPlannerTest {
    static final StandInLlm LLM = StandInLlm.start();
    static final ObjectMapper JSON = new ObjectMapper();

    @AfterAll
    static void stop() {
        LLM.close();
    }

    static LlmPlanner planner(UsageMeter usage) {
        PluginSettings s = PluginSettings.fromStrings(Map.of("graphrag.llm.endpoint", LLM.endpoint(), "graphrag.llm.model", "stand-in",
                "graphrag.llm.retryBaseMs", "5", "graphrag.llm.maxRetries", "1"), "test");
        return new LlmPlanner(new LlmClient(4, 1000, false, 100, m -> {}), LlmConfig.resolve(s, null, "test", Map.of()), usage, () -> false);
    }

    static JsonNode block(StandInLlm.Request r) throws Exception {
        String c = r.lastUserContent();
        return JSON.readTree(c.substring(c.indexOf("```json\n") + 8, c.lastIndexOf("\n```")));
    }

    @Test
    void t6ThroughTheClientWithInputBlocksAndMeteredUsage() throws Exception {
        LLM.reset();
        // E4 answers 2.2 while memory holds one point, then 1 once the merge step has seen it
        LLM.when(r -> HgmemPrompts.EVOLVE.equals(r.step()) && r.lastUserContent().contains("\"memory\":[]"))
                .replyJson(Map.of("inserted", List.of(Map.of("entities", List.of("Xodar", "Issus"), "description", "Issus degrades Xodar.")), "updated", List.of()));
        LLM.when(r -> HgmemPrompts.EVOLVE.equals(r.step())).replyJson(Map.of("inserted", List.of(), "updated",
                List.of(Map.of("index", 0, "entities", List.of("Xodar"), "description", "Issus degrades Xodar to a slave of slaves."))));
        LLM.when(r -> HgmemPrompts.PLAN.equals(r.step()) && r.lastUserContent().contains("slave of slaves")).replyJson(Map.of("judgement", "1", "concerns", List.of()));
        LLM.when(r -> HgmemPrompts.PLAN.equals(r.step())).replyJson(Map.of("judgement", "2.1", "concerns",
                List.of(Map.of("concern", "why", "memoryPointIndices", List.of(0)), Map.of("concern", "who else"))));
        LLM.when(r -> HgmemPrompts.SUBQUERIES.equals(r.step())).replyJson(Map.of("subqueries", List.of("Why was Xodar degraded?")));
        LLM.when(r -> HgmemPrompts.MERGE.equals(r.step())).replyJson(Map.of("merges", List.of()));
        UsageMeter usage = new UsageMeter();
        EvolutionTest.Graph g = new EvolutionTest.Graph(new ArrayList<>(), "XODAR", "ISSUS");
        Evolution e = new Evolution(planner(usage), g, Evolution.Settings.DEFAULTS);
        Evolution.Session s = new Evolution.Session("Why is Xodar given to Carter?", new HypergraphMemory(HypergraphMemoryTest.counter()));
        List<Evolution.StepResult> steps = EvolutionTest.runAll(e, s);

        List<String> calls = LLM.requests().stream().map(StandInLlm.Request::step).toList();
        assertEquals(List.of(HgmemPrompts.EVOLVE, HgmemPrompts.PLAN, HgmemPrompts.SUBQUERIES, HgmemPrompts.EVOLVE, HgmemPrompts.MERGE, HgmemPrompts.PLAN), calls);
        assertEquals(2, steps.size());
        assertEquals(List.of("2.1", "1"), s.judgements());
        // E5's count matched to the two concerns; the first is local on point 0, the second global
        assertEquals(List.of("Why was Xodar degraded?", "who else"), steps.get(0).nextSubqueries());
        assertEquals("mixed", steps.get(1).mode());
        assertEquals(List.of("Issus degrades Xodar to a slave of slaves."), s.memory().listing().stream().map(MemoryUnit::description).toList());
        assertEquals(List.of("XODAR", "ISSUS"), s.memory().listing().get(0).vertices(), "updateVertexPolicy keep");

        JsonNode plan = block(LLM.requests().get(1));
        assertEquals(0, plan.path("memory").get(0).path("index").asInt());
        assertEquals(List.of("XODAR", "ISSUS"), List.of(plan.path("memory").get(0).path("entities").get(0).asText(), plan.path("memory").get(0).path("entities").get(1).asText()));
        assertEquals(3, plan.path("maxConcerns").asInt());
        JsonNode e5 = block(LLM.requests().get(2));
        assertEquals("why", e5.path("concerns").get(0).path("concern").asText());
        assertEquals(0, e5.path("previousSubqueries").size(), "the question itself is not a previous subquery");
        JsonNode current = block(LLM.requests().get(3)).path("currentSubqueries");
        assertEquals(List.of("Why was Xodar degraded?", "who else"), List.of(current.get(0).asText(), current.get(1).asText()));

        assertEquals(LLM.requests().size(), usage.usage().calls(), "every request metered once");
        assertEquals(2, usage.usage().byStep().get(HgmemPrompts.PLAN).calls());
    }

    @Test
    void theAnswerCitesOnlySourcesItWasShown() {
        LLM.reset();
        LLM.when(r -> HgmemPrompts.ANSWER.equals(r.step())).replyJson(Map.of("answer", "Issus degraded him.", "citedSources", List.of("c2", "c9", "c2")));
        LlmPlanner.Answer a = planner(new UsageMeter()).answer("Why?", List.of(), List.of(), List.of(Map.of("id", "c1", "content", "x"),
                Map.of("id", "c2", "content", "Issus degrades Xodar.")), "Multiple Paragraphs");
        assertEquals("Issus degraded him.", a.text());
        assertEquals(List.of("c2"), a.citedSources(), "c9 was not in the prompt: dropped, never invented");
    }

    @Test
    void absentNamesAreAskedForAgainOnlyUntilDescribedOrOutOfAttempts() throws Exception {
        LLM.reset();
        LLM.when(r -> HgmemPrompts.DESCRIBE.equals(r.step()) && r.lastUserContent().contains("DEGRADATION")).replyJson(Map.of(
                "entities", List.of(Map.of("name", "Degradation", "type", "event", "description", "Xodar's fall.")),
                "relationships", List.of(Map.of("source", "Xodar", "target", "Degradation", "description", "Xodar suffers it.", "keywords", "fall"))));
        LLM.when(r -> HgmemPrompts.DESCRIBE.equals(r.step())).replyJson(Map.of("entities", List.of(), "relationships", List.of()));
        LlmPlanner.Described d = planner(new UsageMeter()).describeAbsent(List.of("DEGRADATION", "SLAVERY"), List.of(List.of("DEGRADATION", "XODAR")),
                List.of("event", "concept"), Evolution.Tables.EMPTY, 3);
        assertEquals(List.of("DEGRADATION"), d.entities().stream().map(HgmemPrompts.DescribedEntity::name).toList());
        assertEquals(1, d.relations().size(), "the pair matches in either order");
        assertEquals(List.of("SLAVERY"), d.undescribed());
        assertEquals(3, LLM.requests().size(), "three attempts in all");
        JsonNode second = block(LLM.requests().get(1));
        assertEquals(1, second.path("entities").size(), "later attempts ask only for what is missing");
        assertEquals("SLAVERY", second.path("entities").get(0).asText());
        assertEquals(0, second.path("pairs").size());
    }

    @Test
    void anUnusableReplyDegradesItsStepAndOnlyTheAnswerFails() {
        LLM.reset();
        LLM.always().replyJson(Map.of("merges", "not a list", "judgement", 7, "answer", List.of()));
        UsageMeter usage = new UsageMeter();
        LlmPlanner p = planner(usage);
        assertEquals(List.of(), p.merge("q", List.of()), "E3: nothing merged");
        List<String> steps = new ArrayList<>();
        for (StandInLlm.Request r : LLM.requests()) steps.add(r.step());
        assertEquals(List.of(HgmemPrompts.MERGE, HgmemPrompts.MERGE), steps, "the first reply and one repair");
        Evolution.Plan plan = p.plan("q", List.of(), "", 3, Evolution.Strategy.ADAPTIVE);
        assertEquals("1", plan.judgement(), "E4: the memory is taken as final");
        assertTrue(plan.concerns().isEmpty());
        assertEquals(new Evolution.Evolved(List.of(), List.of()), p.evolve("q", List.of(), List.of(), new Evolution.Retrieved(List.of(), List.of(), Evolution.Tables.EMPTY)));
        assertEquals(List.of(), p.subqueries("q", List.of(), List.of(new Evolution.Concern("why", List.of())), List.of(), ""));
        Usage.Step merge = usage.usage().byStep().get(HgmemPrompts.MERGE);
        assertEquals(2, merge.calls(), "both turns paid for and counted");
        assertEquals(1, merge.unusable());
        assertEquals(Map.of(LlmPlanner.NOTHING_MERGED, 1L), merge.fallbacks());
        assertEquals(Map.of(LlmPlanner.MEMORY_FINAL, 1L), usage.usage().byStep().get(HgmemPrompts.PLAN).fallbacks());
        assertEquals(Map.of(LlmPlanner.NOTHING_INSERTED, 1L), usage.usage().byStep().get(HgmemPrompts.EVOLVE).fallbacks());
        assertEquals(Map.of(LlmPlanner.CONCERNS_ASKED, 1L), usage.usage().byStep().get(HgmemPrompts.SUBQUERIES).fallbacks());
        assertEquals(List.of("why"), Evolution.matchCount(List.of(), List.of(new Evolution.Concern("why", List.of()))), "E5's fallback asks the concern");
        // E6 has no honest fallback: the error names the step, the model and what it returned
        RagException ex = assertThrows(RagException.class, () -> p.answer("q", List.of(), List.of(), List.of(), "Short"));
        assertTrue(ex.getMessage().contains(HgmemPrompts.ANSWER) && ex.getMessage().contains("model stand-in") && ex.getMessage().contains("not a list"),
                ex.getMessage());
    }
}
