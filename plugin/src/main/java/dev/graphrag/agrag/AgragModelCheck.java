package dev.graphrag.agrag;

import dev.graphrag.core.llm.CheckSample;
import dev.graphrag.core.llm.ModelCheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * AGRAG's LLM steps as rag.llm.check tries them, with the prompts agrag.index and agrag.answer send: relation
 * extraction (wrong when a triple names what the passages do not), the triple filter (wrong when it keeps a fact it
 * was not offered, or none of the question's chain) and the answer (wrong when it is not the sample's).
 */
public final class AgragModelCheck {
    public static final String METHOD = "agrag";

    private AgragModelCheck() {}

    public static List<ModelCheck.Probe> probes() {
        return List.of(
                ModelCheck.json(METHOD, AgragIndexer.EXTRACTION_STEP, c -> AgragPrompts.relationExtraction(CheckSample.of(c).text(),
                                lower(CheckSample.of(c).entities())),
                        j -> AgragPrompts.triples(j, "triples") == null ? "it has no \"triples\" list" : null,
                        (c, j) -> {
                            List<String> named = new ArrayList<>();
                            for (List<String> t : AgragPrompts.triples(j, "triples")) {
                                named.add(t.get(0));
                                named.add(t.get(2));
                            }
                            return named.isEmpty() ? "no triple from passages that state four facts" : CheckSample.invented(CheckSample.of(c), named, "a triple's entity");
                        }),
                ModelCheck.json(METHOD, FactMapper.FILTER_STEP, c -> AgragPrompts.tripleFilter(CheckSample.of(c).question(), candidates(c)),
                        j -> AgragPrompts.triples(j, "fact") == null ? "it has no \"fact\" list" : null,
                        (c, j) -> {
                            List<List<String>> kept = AgragPrompts.triples(j, "fact"), offered = candidates(c);
                            for (List<String> k : kept) if (!offered.contains(lower(k))) return "kept " + k + ", a fact it was not offered";
                            return kept.stream().map(AgragModelCheck::lower).anyMatch(offered.subList(0, 3)::contains) ? null : "kept none of the question's facts";
                        }),
                ModelCheck.json(METHOD, "agrag.answer", c -> AgragPrompts.answer(CheckSample.of(c).question(),
                                candidates(c).stream().map(t -> String.join(" [SEP] ", t)).toList(),
                                CheckSample.of(c).passages().stream().map(CheckSample.Passage::text).toList(), List.of()),
                        j -> j.path("answer").isMissingNode() ? "it has no \"answer\"" : null,
                        (c, j) -> CheckSample.wrongAnswer(CheckSample.of(c), j.path("answer").asText())));
    }

    /** The facts offered to the filter, as agrag.index stores them (lower case), the chain first. */
    private static List<List<String>> candidates(int c) {
        return CheckSample.of(c).facts().stream().map(AgragModelCheck::lower).toList();
    }

    private static List<String> lower(List<String> xs) {
        return xs.stream().map(x -> x.toLowerCase(Locale.ROOT)).toList();
    }
}
