package dev.graphrag.hgmem;

import dev.graphrag.core.llm.CheckSample;
import dev.graphrag.core.llm.ModelCheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HGMem's LLM steps as rag.llm.check tries them, with hgmem.index's and the evolution loop's prompts over the sample:
 * X1 extraction (wrong when it names what the passages do not), E1 evolve (wrong when it keeps nothing of passages
 * that answer the question), E4 plan and E5 subqueries (their replies must read), and E6 the answer.
 */
public final class HgmemModelCheck {
    public static final String METHOD = "hgmem";

    private HgmemModelCheck() {}

    public static List<ModelCheck.Probe> probes() {
        return List.of(
                ModelCheck.structured(METHOD, BaseGraphExtraction.EXTRACT, c -> BaseGraphExtraction.extract(CheckSample.of(c).text(),
                                CheckSample.of(c).passages().get(0).title(), BaseGraphExtraction.DEFAULT_TYPES), BaseGraphExtraction.EXTRACT_OUT,
                        (c, x) -> {
                            List<String> named = new ArrayList<>();
                            if (x.entities() != null) for (BaseGraphExtraction.Entity e : x.entities()) named.add(e.name());
                            return named.isEmpty() ? "no entity from passages that name four" : CheckSample.invented(CheckSample.of(c), named, "entity");
                        }),
                ModelCheck.structured(METHOD, HgmemPrompts.EVOLVE, c -> HgmemPrompts.evolve(CheckSample.of(c).question(), List.of(), List.of(), tables(c)),
                        HgmemPrompts.EVOLVE_OUT, (c, e) -> e.inserted().isEmpty() && e.updated().isEmpty() ? "kept nothing of passages that answer the question" : null),
                ModelCheck.structured(METHOD, HgmemPrompts.PLAN, c -> HgmemPrompts.plan(CheckSample.of(c).question(), halfMemory(c).listing(), "", 3,
                        Evolution.Strategy.ADAPTIVE), HgmemPrompts.PLAN_OUT, (c, p) -> null),
                ModelCheck.structured(METHOD, HgmemPrompts.SUBQUERIES, c -> HgmemPrompts.subqueries(CheckSample.of(c).question(), halfMemory(c).listing(),
                                List.of(new Evolution.Concern("what " + CheckSample.of(c).facts().get(1).get(2) + " is connected to", List.of())), List.of(), ""),
                        HgmemPrompts.SUBQUERIES_OUT, (c, s) -> s.subqueries() == null || s.subqueries().isEmpty() ? "asked no subquery for one concern" : null),
                ModelCheck.structured(METHOD, HgmemPrompts.ANSWER, c -> HgmemPrompts.answer(CheckSample.of(c).question(), List.of(), List.of(), sources(c),
                        HgmemConfig.Answering.RESPONSE_TYPE), HgmemPrompts.ANSWER_OUT, (c, a) -> {
                    String wrong = CheckSample.wrongAnswer(CheckSample.of(c), a.answer());
                    if (wrong != null) return wrong;
                    List<String> ids = sources(c).stream().map(s -> (String) s.get("id")).toList();
                    for (String cited : a.citedSources() == null ? List.<String>of() : a.citedSources()) {
                        if (!ids.contains(cited)) return "cited '" + cited + "', a source it was not shown";
                    }
                    return null;
                }));
    }

    private static List<Map<String, Object>> sources(int c) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (CheckSample.Passage p : CheckSample.of(c).passages()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", p.id());
            m.put("title", p.title());
            m.put("content", p.text());
            out.add(m);
        }
        return out;
    }

    private static Evolution.Tables tables(int c) {
        List<Map<String, Object>> entities = new ArrayList<>();
        for (String e : CheckSample.of(c).entities()) entities.add(Map.of("name", e.toUpperCase(java.util.Locale.ROOT)));
        return new Evolution.Tables(entities, List.of(), sources(c));
    }

    /** A memory holding the first hop only: the plan should ask for more. */
    private static HypergraphMemory halfMemory(int c) {
        AtomicInteger n = new AtomicInteger();
        HypergraphMemory m = new HypergraphMemory(() -> "check" + n.getAndIncrement());
        List<String> first = CheckSample.of(c).facts().get(0);
        m.insert(List.of(first.get(0).toUpperCase(java.util.Locale.ROOT), first.get(2).toUpperCase(java.util.Locale.ROOT)), String.join(" ", first) + ".", 0);
        return m;
    }
}
