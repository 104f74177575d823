package dev.graphrag.evaluation;

import dev.graphrag.oracle.QuestionSet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds a question's gold passages among the corpus's documents: by title and text where the set gives the text
 * (MuSiQue, whose titles repeat across paragraphs), else by title when exactly one document has it. A gold passage
 * found nowhere, or only by an ambiguous title, makes the question's retrieval unscorable: it is left out of the
 * recall figures (and counted), never scored against a guess.
 */
final class GoldPassages {
    /** The document ids of a question's gold passages; complete is false when any could not be found. */
    record Resolved(Set<String> ids, boolean complete) {}

    private final Map<String, String> byTitleAndText = new HashMap<>();
    private final Map<String, List<String>> byTitle = new HashMap<>();

    /** @param documents {id, title?, text?} maps: the ingested corpus, or the database's documents */
    GoldPassages(List<Map<String, Object>> documents) {
        for (Map<String, Object> d : documents) {
            String id = (String) d.get("id"), title = (String) d.get("title"), text = (String) d.get("text");
            if (title == null) continue;
            byTitle.computeIfAbsent(title, k -> new ArrayList<>()).add(id);
            if (text != null) byTitleAndText.put(title + "\u0000" + squeeze(text), id);
        }
    }

    Resolved resolve(List<QuestionSet.Gold> gold) {
        Set<String> ids = new LinkedHashSet<>();
        boolean complete = true;
        for (QuestionSet.Gold g : gold) {
            String id = g.text() == null ? null : byTitleAndText.get(g.title() + "\u0000" + squeeze(g.text()));
            if (id == null) {
                List<String> titled = byTitle.getOrDefault(g.title(), List.of());
                id = titled.size() == 1 ? titled.get(0) : null;
            }
            if (id == null) complete = false;
            else ids.add(id);
        }
        return new Resolved(ids, complete && !gold.isEmpty());
    }

    private static String squeeze(String text) {
        return String.join(" ", text.trim().split("\\s+"));
    }
}
