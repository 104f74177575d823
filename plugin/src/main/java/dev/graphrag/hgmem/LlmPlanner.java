package dev.graphrag.hgmem;

import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.PromptFit;
import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.llm.UsageMeter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The evolution loop's LLM side backed by the shared client: typed replies, one repair turn, every call metered by
 * step. A reply still unusable after the repair turn degrades the step it belongs to, never the session: E1 inserts
 * nothing, E2 leaves the names undescribed, E3 merges nothing, E4 takes the memory as final (the answer uses what it
 * holds), E5 asks the concerns themselves; each counted under its step. Only E6, the answer, has no honest fallback.
 */
public record LlmPlanner(LlmClient llm, LlmConfig cfg, UsageMeter usage, BooleanSupplier cancelled) implements Evolution.Llm {
    static final String NOTHING_INSERTED = "nothing inserted or updated this step";
    static final String NOTHING_MERGED = "nothing merged this step";
    static final String MEMORY_FINAL = "memory taken as final; the answer uses what it holds";
    static final String CONCERNS_ASKED = "the concerns asked as subqueries";
    static final String UNDESCRIBED = "absent names left undescribed (absentEntityPolicy applies)";

    private <T> T ask(String step, List<Map<String, Object>> messages, StructuredOutput<T> out) {
        return llm.ask(cfg, step, messages, out, usage, cancelled);
    }

    private <T> T askOr(String step, List<Map<String, Object>> messages, StructuredOutput<T> out, String fallback) {
        return llm.askOr(cfg, step, messages, out, usage, cancelled, fallback, null);
    }

    @Override
    public Evolution.Evolved evolve(String query, List<MemoryUnit> listing, List<String> subqueries, Evolution.Retrieved retrieved) {
        List<Map<String, Object>> messages = fitTables(HgmemPrompts.EVOLVE, retrieved.tables(), t -> HgmemPrompts.evolve(query, listing, subqueries, t),
                HgmemPrompts.EVOLVE_OUT);
        HgmemPrompts.EvolveReply r = askOr(HgmemPrompts.EVOLVE, messages, HgmemPrompts.EVOLVE_OUT, NOTHING_INSERTED);
        if (r == null) return new Evolution.Evolved(List.of(), List.of());
        List<Evolution.Insert> ins = new ArrayList<>();
        for (HgmemPrompts.Point p : r.inserted()) ins.add(new Evolution.Insert(p.entities() == null ? List.of() : p.entities(), p.description()));
        List<Evolution.Update> up = new ArrayList<>();
        for (HgmemPrompts.UpdatedPoint u : r.updated()) up.add(new Evolution.Update(u.index(), u.entities() == null ? List.of() : u.entities(), u.description()));
        return new Evolution.Evolved(ins, up);
    }

    @Override
    public List<HypergraphMemory.MergeGroup> merge(String query, List<MemoryUnit> listing) {
        List<HypergraphMemory.MergeGroup> out = new ArrayList<>();
        HgmemPrompts.MergeReply reply = askOr(HgmemPrompts.MERGE, HgmemPrompts.merge(query, listing), HgmemPrompts.MERGE_OUT, NOTHING_MERGED);
        if (reply == null) return out;
        for (HgmemPrompts.Group g : reply.merges()) {
            if (g.indices() != null && g.description() != null) out.add(new HypergraphMemory.MergeGroup(g.indices(), g.description()));
        }
        return out;
    }

    @Override
    public Evolution.Plan plan(String query, List<MemoryUnit> listing, String hint, int numConcerns, Evolution.Strategy strategy) {
        HgmemPrompts.PlanReply r = askOr(HgmemPrompts.PLAN, HgmemPrompts.plan(query, listing, hint, numConcerns, strategy), HgmemPrompts.PLAN_OUT, MEMORY_FINAL);
        if (r == null) return new Evolution.Plan("1", List.of());
        List<Evolution.Concern> cs = new ArrayList<>();
        for (HgmemPrompts.ConcernReply c : r.concerns()) {
            cs.add(new Evolution.Concern(c.concern(), c.memoryPointIndices() == null ? List.of() : c.memoryPointIndices()));
        }
        return new Evolution.Plan(r.judgement(), cs); // read leniently by Evolution
    }

    @Override
    public List<String> subqueries(String query, List<MemoryUnit> listing, List<Evolution.Concern> concerns, List<String> previous, String hint) {
        HgmemPrompts.SubqueriesReply r = askOr(HgmemPrompts.SUBQUERIES, HgmemPrompts.subqueries(query, listing, concerns, previous, hint),
                HgmemPrompts.SUBQUERIES_OUT, CONCERNS_ASKED);
        return r == null ? List.of() : r.subqueries(); // Evolution.matchCount asks each concern's own text where a subquery is missing
    }

    /** E6: the answer, citing only sources that were in the prompt (a citation to anything else is dropped, never invented). */
    public record Answer(String text, List<String> citedSources) {}

    public Answer answer(String query, List<MemoryUnit> listing, List<Map<String, Object>> entities, List<Map<String, Object>> sources, String responseType) {
        // a small window drops the last sources first, then the last entities
        int e = entities.size();
        PromptFit.Fitted fit = PromptFit.fit(cfg, HgmemPrompts.ANSWER, e + sources.size(), n -> HgmemPrompts.answer(query, listing,
                entities.subList(0, Math.min(n, e)), sources.subList(0, Math.max(0, n - e)), responseType), HgmemPrompts.ANSWER_OUT);
        usage.trimmed(HgmemPrompts.ANSWER, fit.trimmed(), fit.trimmedTokens());
        HgmemPrompts.AnswerReply r = ask(HgmemPrompts.ANSWER, fit.messages(), HgmemPrompts.ANSWER_OUT);
        Set<String> shown = new HashSet<>();
        for (Map<String, Object> src : sources.subList(0, Math.max(0, fit.kept() - e))) shown.add(String.valueOf(src.get("id")));
        List<String> cited = new ArrayList<>();
        for (String c : r.citedSources() == null ? List.<String>of() : r.citedSources()) if (shown.contains(c) && !cited.contains(c)) cited.add(c);
        return new Answer(r.answer(), cited);
    }

    /** What E2 made of absent names: described entities and relations, and the names still undescribed after every attempt. */
    public record Described(List<HgmemPrompts.DescribedEntity> entities, List<HgmemPrompts.DescribedRelation> relations, List<String> undescribed) {}

    /**
     * E2 (paper footnote 2): describe the absent names and their pairs from the context, asking again only for what is still
     * missing, at most {@code maxAttempts} calls in all; names never described are returned for bare creation.
     */
    public Described describeAbsent(List<String> names, List<List<String>> pairs, List<String> entityTypes, Evolution.Tables context, int maxAttempts) {
        Map<String, HgmemPrompts.DescribedEntity> got = new LinkedHashMap<>();
        Map<String, HgmemPrompts.DescribedRelation> rels = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>(names);
        List<List<String>> missingPairs = new ArrayList<>(pairs);
        for (int attempt = 0; attempt < maxAttempts && !(missing.isEmpty() && missingPairs.isEmpty()); attempt++) {
            List<String> names0 = List.copyOf(missing);
            List<List<String>> pairs0 = List.copyOf(missingPairs);
            HgmemPrompts.DescribeReply r = askOr(HgmemPrompts.DESCRIBE, fitTables(HgmemPrompts.DESCRIBE, context,
                    t -> HgmemPrompts.describe(names0, pairs0, entityTypes, t), HgmemPrompts.DESCRIBE_OUT), HgmemPrompts.DESCRIBE_OUT, UNDESCRIBED);
            if (r == null) break;
            for (HgmemPrompts.DescribedEntity e : r.entities()) {
                List<String> n = HypergraphMemory.resolve(Collections.singletonList(e.name()));
                if (!n.isEmpty() && missing.contains(n.get(0))) got.putIfAbsent(n.get(0), new HgmemPrompts.DescribedEntity(n.get(0), e.type(), e.description()));
            }
            for (HgmemPrompts.DescribedRelation d : r.relationships()) {
                List<String> pair = HypergraphMemory.resolve(Arrays.asList(d.source(), d.target()));
                for (List<String> p : missingPairs) {
                    if (pair.size() == 2 && Set.copyOf(p).equals(Set.copyOf(pair))) rels.putIfAbsent(key(p), d);
                }
            }
            missing.removeIf(got::containsKey);
            missingPairs.removeIf(p -> rels.containsKey(key(p)));
        }
        return new Described(List.copyOf(got.values()), List.copyOf(rels.values()), List.copyOf(missing));
    }

    /**
     * E1's and E2's prompt within the window: in a small one the retrieved rows go from the end, the last sources first,
     * then relationships, then entities; what was left out is recorded under the step.
     */
    private List<Map<String, Object>> fitTables(String step, Evolution.Tables t, java.util.function.Function<Evolution.Tables, List<Map<String, Object>>> render,
                                                StructuredOutput<?> out) {
        List<Map<String, Object>> rows = new ArrayList<>(t.entities());
        rows.addAll(t.relationships());
        rows.addAll(t.sources());
        int e = t.entities().size(), rl = t.relationships().size();
        return PromptFit.fit(cfg, step, rows.size(), n -> render.apply(new Evolution.Tables(rows.subList(0, Math.min(n, e)),
                rows.subList(Math.min(n, e), Math.min(n, e + rl)), rows.subList(Math.min(n, e + rl), n))), PromptFit.overhead(out), usage);
    }

    private static String key(List<String> pair) {
        return pair.get(0).compareTo(pair.get(1)) < 0 ? pair.get(0) + "\u0000" + pair.get(1) : pair.get(1) + "\u0000" + pair.get(0);
    }
}
