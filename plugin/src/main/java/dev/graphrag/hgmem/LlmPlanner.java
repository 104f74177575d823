package dev.graphrag.hgmem;

import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.llm.UsageMeter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** The evolution loop's LLM side backed by the shared client: typed replies, one repair turn, every call metered by step. */
public final class LlmPlanner implements Evolution.Llm {
    private final LlmClient llm;
    private final LlmConfig cfg;
    private final UsageMeter usage;
    private final BooleanSupplier cancelled;

    public LlmPlanner(LlmClient llm, LlmConfig cfg, UsageMeter usage, BooleanSupplier cancelled) {
        this.llm = llm;
        this.cfg = cfg;
        this.usage = usage;
        this.cancelled = cancelled;
    }

    private <T> T ask(String step, List<Map<String, Object>> messages, StructuredOutput<T> out) {
        return llm.ask(cfg, step, messages, out, usage, cancelled);
    }

    @Override
    public Evolution.Evolved evolve(String query, List<MemoryUnit> listing, List<String> subqueries, Evolution.Retrieved retrieved) {
        HgmemPrompts.EvolveReply r = ask(HgmemPrompts.EVOLVE, HgmemPrompts.evolve(query, listing, subqueries, retrieved.tables()), HgmemPrompts.EVOLVE_OUT);
        List<Evolution.Insert> ins = new ArrayList<>();
        for (HgmemPrompts.Point p : r.inserted()) ins.add(new Evolution.Insert(p.entities() == null ? List.of() : p.entities(), p.description()));
        List<Evolution.Update> up = new ArrayList<>();
        for (HgmemPrompts.UpdatedPoint u : r.updated()) up.add(new Evolution.Update(u.index(), u.entities() == null ? List.of() : u.entities(), u.description()));
        return new Evolution.Evolved(ins, up);
    }

    @Override
    public List<HypergraphMemory.MergeGroup> merge(String query, List<MemoryUnit> listing) {
        List<HypergraphMemory.MergeGroup> out = new ArrayList<>();
        for (HgmemPrompts.Group g : ask(HgmemPrompts.MERGE, HgmemPrompts.merge(query, listing), HgmemPrompts.MERGE_OUT).merges()) {
            if (g.indices() != null && g.description() != null) out.add(new HypergraphMemory.MergeGroup(g.indices(), g.description()));
        }
        return out;
    }

    @Override
    public Evolution.Plan plan(String query, List<MemoryUnit> listing, String hint, int numConcerns, Evolution.Strategy strategy) {
        HgmemPrompts.PlanReply r = ask(HgmemPrompts.PLAN, HgmemPrompts.plan(query, listing, hint, numConcerns, strategy), HgmemPrompts.PLAN_OUT);
        List<Evolution.Concern> cs = new ArrayList<>();
        for (HgmemPrompts.ConcernReply c : r.concerns()) {
            cs.add(new Evolution.Concern(c.concern(), c.memoryPointIndices() == null ? List.of() : c.memoryPointIndices()));
        }
        return new Evolution.Plan(r.judgement(), cs); // read leniently by Evolution
    }

    @Override
    public List<String> subqueries(String query, List<MemoryUnit> listing, List<Evolution.Concern> concerns, List<String> previous, String hint) {
        return ask(HgmemPrompts.SUBQUERIES, HgmemPrompts.subqueries(query, listing, concerns, previous, hint), HgmemPrompts.SUBQUERIES_OUT).subqueries();
    }
}
