package dev.graphrag.core.llm;

import dev.graphrag.agrag.AgragModelCheck;
import dev.graphrag.hgmem.HgmemModelCheck;
import dev.graphrag.raga.RagaModelCheck;
import dev.graphrag.remind.RemindModelCheck;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rag.llm.check's judgement as plain Java: trials to step verdicts, steps to the method's, the dry run's sums, the sample's checks. */
class ModelCheckTest {
    /** A probe whose trials are given: no endpoint. */
    static ModelCheck.Probe scripted(String method, String step, List<ModelCheck.Trial> trials) {
        return new ModelCheck.Probe() {
            public String method() { return method; }

            public String step() { return step; }

            public ModelCheck.Trial run(LlmClient llm, LlmConfig cfg, int sampleCase, BooleanSupplier cancelled) { return trials.get(sampleCase); }

            public long promptTokens(int sampleCase) { return 100; }

            public int maxCallsPerTry() { return 2; }
        };
    }

    static ModelCheck.Trial ok() { return new ModelCheck.Trial(true, false, null, null, 1, 100, 10, 0, 5); }

    static ModelCheck.Trial repaired() { return new ModelCheck.Trial(true, true, null, null, 2, 200, 20, 0, 9); }

    static ModelCheck.Trial unusable() { return new ModelCheck.Trial(false, false, "it is not valid JSON", null, 2, 200, 20, 0, 9); }

    static ModelCheck.Trial wrong() { return new ModelCheck.Trial(true, false, null, "answered 'Paris', not 'Kettle Island'", 1, 100, 10, 0, 5); }

    static ModelCheck.Trial thinking() { return new ModelCheck.Trial(true, false, null, null, 1, 100, 40, 30, 5); }

    static List<ModelCheck.StepReport> run(ModelCheck.Probe... probes) {
        return ModelCheck.run(null, null, List.of(probes), 3, () -> false);
    }

    @Test
    void stepVerdictsFollowTheTrialsAndTheMethodTakesItsWorstStep() {
        List<ModelCheck.StepReport> r = run(scripted("a", "s1", List.of(ok(), ok(), ok())), scripted("a", "s2", List.of(ok(), repaired(), ok())),
                scripted("b", "s1", List.of(ok(), unusable(), ok())), scripted("b", "s2", List.of(wrong(), unusable(), ok())),
                scripted("c", "s1", List.of(thinking(), thinking(), thinking())));
        assertEquals(List.of("ok", "usable with 33 % repairs", "weak: 33 % unusable, 0 % wrong", "not usable: 33 % unusable, 33 % wrong", "ok"),
                r.stream().map(ModelCheck.StepReport::verdict).toList());
        assertEquals("usable with 17 % repairs", r.get(0).methodVerdict(), "one repaired trial of six");
        assertEquals(r.get(0).methodVerdict(), r.get(1).methodVerdict(), "each of a method's rows carries its verdict");
        assertEquals("not usable: s2 33 % unusable, 33 % wrong (answered 'Paris', not 'Kettle Island')", r.get(3).methodVerdict());
        assertEquals(ModelCheck.ADVICE.get("not usable"), r.get(2).advice());
        assertEquals("ok; a reasoning model: 30 thinking tokens a call", r.get(4).methodVerdict());
        ModelCheck.StepReport s = r.get(1);
        assertEquals(List.of(3L, 4L, 2L, 1L, 0L, 0L, 400L), List.of(s.trials(), s.calls(), s.firstTry(), s.repaired(), s.unusable(), s.wrong(), s.promptTokens()));
    }

    @Test
    void theDryRunSumsWhatTheCheckWouldSendAtMost() {
        List<ModelCheck.Probe> all = new ArrayList<>();
        all.addAll(AgragModelCheck.probes());
        all.addAll(RemindModelCheck.probes());
        all.addAll(HgmemModelCheck.probes());
        all.addAll(RagaModelCheck.probes());
        List<ModelCheck.StepReport> plan = ModelCheck.plan(all, 3);
        assertEquals(18, plan.size());
        long calls = plan.stream().mapToLong(ModelCheck.StepReport::calls).sum(), tokens = plan.stream().mapToLong(ModelCheck.StepReport::promptTokens).sum();
        System.out.println("rag.llm.check dry run, all methods, 3 cases: at most " + calls + " calls, " + tokens + " prompt tokens");
        assertEquals(3 * (2 * 17 + RagaModelCheck.READ_BUDGET.maxRounds()), calls, "17 structured steps of two turns, RAGA's reading of eight rounds");
        assertTrue(plan.stream().allMatch(p -> p.promptTokens() > 0 && p.firstTry() == 0 && "dry run".equals(p.verdict())));
    }

    @Test
    void theSampleJudgesNamesAndAnswersAsAModelWouldBeRead() {
        CheckSample.Case c = CheckSample.of(0);
        assertNull(CheckSample.wrongAnswer(c, "It stands on Kettle Island."));
        assertNull(CheckSample.wrongAnswer(c, "kettle  island"));
        assertEquals("answered 'Halden', not 'Kettle Island'", CheckSample.wrongAnswer(c, "Halden"));
        assertNull(CheckSample.invented(c, List.of("Marta Lindqvist", "AURORA GLASSWORKS"), "entity"));
        assertEquals("entity 'Zorvath Quellington' is not in the passages", CheckSample.invented(c, List.of("Turku", "Zorvath Quellington"), "entity"));
        assertTrue(CheckSample.names("The Halden Lighthouse stands", "halden lighthouse"));
        assertTrue(!CheckSample.names("Haldenberg", "Halden"), "whole words only");
        for (CheckSample.Case k : CheckSample.CASES) {
            assertNull(CheckSample.invented(k, k.entities(), "entity"), "every sample entity is in its passages");
            assertTrue(CheckSample.names(k.text(), k.answer()) && CheckSample.names(k.question(), k.entities().get(0)), k.question());
            for (List<String> f : k.facts()) assertNull(CheckSample.invented(k, List.of(f.get(0), f.get(2)), "fact"), f.toString());
        }
    }
}
