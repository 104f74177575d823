package dev.graphrag.remind;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the walk's prompts (L6-L8) show of S's path edges (docs/remind.md). */
@LineIndependent
class WalkPromptTest {
    static Map<String, Object> m(Object... kv) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) out.put((String) kv[i], kv[i + 1]);
        return out;
    }

    @Test
    void edgeTextsAChunkHoldsOrAnEarlierEdgeRepeatsAreSentOnce() {
        String sentence = "Xodar was degraded by Issus to a slave of slaves.";
        Map<String, Object> block = m("question", "Who degraded Xodar?",
                "entities", List.of(m("id", "E1", "name", "Xodar"), m("id", "E2", "name", "Issus")),
                "chunks", List.of(m("id", "C1", "text", "The First Born.  Xodar was degraded by Issus\nto a slave of slaves. Carter freed him.")),
                "edges", new ArrayList<>(List.of(m("id", "R1", "from", "A1", "to", "C1", "text", "The First Born."),
                        m("id", "R2", "from", "A1", "to", "E1", "text", ""),
                        m("id", "R3", "from", "E1", "to", "E2", "text", sentence),
                        m("id", "R4", "from", "E2", "to", "E3", "text", "Issus rules the First Born from her temple."),
                        m("id", "R5", "from", "E3", "to", "E4", "text", "Issus rules the First Born from her temple."))));
        Map<String, Object> shown = new PromptContext(null, "Who degraded Xodar?", 6000).walkView(block);
        assertEquals(List.of("R1 A1>C1", "R2 A1>E1", "R3 E1>E2", m("id", "R4", "from", "E2", "to", "E3", "text", "Issus rules the First Born from her temple."),
                "R5 E3>E4"), shown.get("edges"), "held by the chunk (spacing aside), empty, or said by an earlier edge: left out, the edge in one string");
        assertEquals(m("E1", "Xodar", "E2", "Issus"), shown.get("entities"), "entities: one map, handle to name");
    }

    @Test
    void anAnchorTitleTheChunkHoldsAndARelationAlreadyShownAreNotRepeated() {
        String shared = "Being Austrian and thus European, he won the European Voice campaigner of the year award.";
        Map<String, Object> block = m("question", "Which award did he win?",
                "anchors", List.of(m("id", "A1", "title", "Schwarzenegger is a dual Austrian/United States citizen."), m("id", "A2", "title", "Awards and honours")),
                "chunks", List.of(m("id", "C1", "text", "Schwarzenegger is a dual Austrian/United States citizen. He holds both.")),
                "edges", new ArrayList<>(List.of(m("id", "R1", "from", "E1", "to", "E2", "text", shared))),
                "candidates", List.of(m("id", "E3", "name", "European Union", "relation", shared),
                        m("id", "E4", "name", "California", "relation", "He signed the Act in California."),
                        m("id", "E5", "name", "Global Warming Solutions Act", "relation", "He signed the Act in California.")));
        Map<String, Object> shown = new PromptContext(null, "Which award did he win?", 6000).walkView(block);
        assertEquals(List.of(m("id", "A1"), m("id", "A2", "title", "Awards and honours")), shown.get("anchors"), "a title the chunk holds word for word: left out");
        assertEquals(List.of(m("id", "E3", "name", "European Union", "relation", "same as R1"),
                m("id", "E4", "name", "California", "relation", "He signed the Act in California."),
                m("id", "E5", "name", "Global Warming Solutions Act", "relation", "same as E4")), shown.get("candidates"),
                "a relation an edge or an earlier candidate already shows: by reference");
        assertEquals(java.util.Set.of("C \nSchwarzenegger is a dual Austrian/United States citizen. He holds both.", "A Awards and honours", "R " + shared),
                PromptContext.evidence(shown), "what the sufficiency judge reads: texts, not names or ids");
    }
}
