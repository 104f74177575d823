package dev.graphrag.remind;

import dev.graphrag.core.llm.CheckSample;
import dev.graphrag.core.llm.ModelCheck;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ReMind's LLM steps as rag.llm.check tries them, with remind.index's and the walk's prompts over a hand-built
 * subgraph of the sample (the block the walk shows: entities, anchors, chunks, edges): entities and triples (wrong when
 * they name what the passages do not), the sufficiency judge (wrong when it calls the whole chain insufficient), the
 * next move (wrong when it picks an id it was not offered), the memorisation filter (ids offered, something marked)
 * and the answer.
 */
public final class RemindModelCheck {
    public static final String METHOD = "remind";

    private RemindModelCheck() {}

    public static List<ModelCheck.Probe> probes() {
        return List.of(
                ModelCheck.structured(METHOD, RemindPrompts.ENTITIES, c -> RemindPrompts.entities(CheckSample.of(c).text()), RemindPrompts.ENTITIES_OUT,
                        (c, e) -> e.entities().isEmpty() ? "no entity from passages that name four" : CheckSample.invented(CheckSample.of(c), e.entities(), "entity")),
                ModelCheck.structured(METHOD, RemindPrompts.TRIPLES, c -> RemindPrompts.triples(CheckSample.of(c).text(), CheckSample.of(c).entities()),
                        RemindPrompts.TRIPLES_OUT, (c, t) -> {
                            List<String> named = new ArrayList<>();
                            for (RemindPrompts.Triple x : t.triples()) {
                                named.add(x.subject());
                                named.add(x.object());
                            }
                            return named.isEmpty() ? "no triple" : CheckSample.invented(CheckSample.of(c), named, "a triple's entity");
                        }),
                ModelCheck.structured(METHOD, RemindPrompts.SUFFICIENT, c -> RemindPrompts.sufficiency(block(c, 3)), RemindPrompts.SUFFICIENT_OUT,
                        (c, s) -> s.sufficient() ? null : "judged the whole chain insufficient"),
                ModelCheck.structured(METHOD, RemindPrompts.NEXT, c -> RemindPrompts.next(nextBlock(c)), RemindPrompts.NEXT_OUT,
                        (c, n) -> offered(nextBlock(c)).contains(n.id()) ? null : "picked '" + n.id() + "', an id it was not offered"),
                ModelCheck.structured(METHOD, RemindPrompts.FILTER, c -> RemindPrompts.filter(block(c, 3)), RemindPrompts.FILTER_OUT, (c, f) -> {
                    Set<String> ids = offered(block(c, 3));
                    for (String id : f.edges()) if (!ids.contains(id)) return "marked '" + id + "', an id it was not offered";
                    for (String id : f.chunks()) if (!ids.contains(id)) return "marked '" + id + "', an id it was not offered";
                    return f.chunks().isEmpty() && f.edges().isEmpty() ? "marked nothing as evidence" : null;
                }),
                ModelCheck.structured(METHOD, RemindPrompts.ANSWER, c -> RemindPrompts.answer(null, block(c, 3)), RemindPrompts.ANSWER_OUT,
                        (c, a) -> CheckSample.wrongAnswer(CheckSample.of(c), a.answer())));
    }

    /** The subgraph block after the walk collected the first {@code passages} passages: an anchor, chunk and entities for each. */
    static Map<String, Object> block(int c, int passages) {
        CheckSample.Case k = CheckSample.of(c);
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("question", k.question());
        List<Map<String, Object>> entities = new ArrayList<>(), anchors = new ArrayList<>(), chunks = new ArrayList<>(), edges = new ArrayList<>();
        for (int i = 0; i < passages; i++) {
            CheckSample.Passage p = k.passages().get(i);
            anchors.add(Map.of("id", "A" + (i + 1), "title", p.title()));
            chunks.add(Map.of("id", "C" + (i + 1), "document", p.title(), "text", p.text()));
            edges.add(Map.of("id", "R" + (i + 1), "from", "A" + (i + 1), "to", "C" + (i + 1), "text", ""));
        }
        for (int i = 0; i < Math.min(passages + 1, k.facts().size()); i++) {
            entities.add(Map.of("id", "E" + (i + 1), "name", k.facts().get(i).get(0)));
        }
        b.put("entities", entities);
        b.put("anchors", anchors);
        b.put("chunks", chunks);
        b.put("edges", edges);
        return b;
    }

    /** L8 after the first passage: at the bridge entity, with the second passage's anchor and a distractor as candidates. */
    static Map<String, Object> nextBlock(int c) {
        CheckSample.Case k = CheckSample.of(c);
        Map<String, Object> b = block(c, 1);
        b.put("current", "E2");
        b.put("candidates", List.of(Map.of("id", "A2", "title", k.passages().get(1).title(), "relation", k.passages().get(1).text()),
                Map.of("id", "E9", "name", k.facts().get(3).get(2), "relation", String.join(" ", k.facts().get(3)))));
        b.put("unvisitedChunks", List.of());
        b.put("history", List.of("E1"));
        return b;
    }

    @SuppressWarnings("unchecked")
    private static Set<String> offered(Map<String, Object> block) {
        Set<String> ids = new HashSet<>();
        for (String part : List.of("entities", "anchors", "chunks", "edges", "candidates")) {
            for (Map<String, Object> m : (List<Map<String, Object>>) block.getOrDefault(part, List.of())) ids.add((String) m.get("id"));
        }
        return ids;
    }
}
