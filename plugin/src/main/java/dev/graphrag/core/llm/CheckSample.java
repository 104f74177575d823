package dev.graphrag.core.llm;

import java.text.Normalizer;
import java.util.List;
import java.util.Locale;

/**
 * rag.llm.check's built-in sample: three cases, each three short passages that chain into one two-hop question with a
 * known answer. The names are made up, so a model can only answer from the passages; they are small enough that the
 * whole check costs a few thousand tokens a step.
 */
public final class CheckSample {
    /** One passage: an id the prompts cite, the document's title and its text. */
    public record Passage(String id, String title, String text) {}

    /**
     * One case: the passages in reading order, the question, its answer, the entities the passages name (what an
     * extraction should find), the bridge (the entity the second hop starts from) and the facts the passages state, as
     * [subject, relation, object], the chain first.
     */
    public record Case(List<Passage> passages, String question, String answer, List<String> entities, String bridge, List<List<String>> facts) {
        public String text() {
            StringBuilder b = new StringBuilder();
            for (Passage p : passages) b.append(b.isEmpty() ? "" : " ").append(p.text());
            return b.toString();
        }
    }

    public static final List<Case> CASES = List.of(
            new Case(List.of(
                    new Passage("c1", "Marta Lindqvist", "Marta Lindqvist founded the Aurora Glassworks in Turku in 1921."),
                    new Passage("c2", "Aurora Glassworks", "The Aurora Glassworks made the lenses of the Halden Lighthouse."),
                    new Passage("c3", "Halden Lighthouse", "The Halden Lighthouse stands on Kettle Island.")),
                    "On which island stands the lighthouse whose lenses were made by the glassworks Marta Lindqvist founded?", "Kettle Island",
                    List.of("Marta Lindqvist", "Aurora Glassworks", "Turku", "Halden Lighthouse", "Kettle Island"), "Aurora Glassworks",
                    List.of(List.of("Marta Lindqvist", "founded", "Aurora Glassworks"), List.of("Aurora Glassworks", "made the lenses of", "Halden Lighthouse"),
                            List.of("Halden Lighthouse", "stands on", "Kettle Island"), List.of("Aurora Glassworks", "located in", "Turku"))),
            new Case(List.of(
                    new Passage("c1", "Ilse Varga", "The composer Ilse Varga wrote the opera Winter Harbour."),
                    new Passage("c2", "Winter Harbour", "Winter Harbour premiered at the Corvin Theatre in 1908."),
                    new Passage("c3", "Corvin Theatre", "The Corvin Theatre was designed by the architect Pal Ronay.")),
                    "Who designed the theatre where the opera by Ilse Varga premiered?", "Pal Ronay",
                    List.of("Ilse Varga", "Winter Harbour", "Corvin Theatre", "Pal Ronay"), "Winter Harbour",
                    List.of(List.of("Ilse Varga", "wrote", "Winter Harbour"), List.of("Winter Harbour", "premiered at", "Corvin Theatre"),
                            List.of("Corvin Theatre", "designed by", "Pal Ronay"), List.of("Winter Harbour", "premiered in", "1908"))),
            new Case(List.of(
                    new Passage("c1", "Tomas Reyes", "Tomas Reyes captained the schooner Santa Lucia."),
                    new Passage("c2", "Santa Lucia", "The Santa Lucia was built at the shipyard of Puerto Alba."),
                    new Passage("c3", "Puerto Alba", "Puerto Alba lies at the mouth of the river Sella.")),
                    "At the mouth of which river lies the town whose shipyard built the schooner Tomas Reyes captained?", "Sella",
                    List.of("Tomas Reyes", "Santa Lucia", "Puerto Alba", "Sella"), "Santa Lucia",
                    List.of(List.of("Tomas Reyes", "captained", "Santa Lucia"), List.of("Santa Lucia", "built at", "Puerto Alba"),
                            List.of("Puerto Alba", "lies at the mouth of", "Sella"), List.of("Santa Lucia", "is a", "schooner"))));

    private CheckSample() {}

    public static Case of(int sampleCase) {
        return CASES.get(sampleCase % CASES.size());
    }

    /** Lower case, accents and punctuation gone, spaces collapsed: how names and answers are compared. */
    public static String folded(String s) {
        if (s == null) return "";
        String n = Normalizer.normalize(s, Normalizer.Form.NFD).replaceAll("\\p{M}+", "");
        return n.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", " ").trim();
    }

    /** Whether {@code name} is written in {@code text} (folded), as an extracted name must be. */
    public static boolean names(String text, String name) {
        String n = folded(name);
        return !n.isEmpty() && (" " + folded(text) + " ").contains(" " + n + " ");
    }

    /** Why {@code answer} is not the case's answer, or null when it contains it. */
    public static String wrongAnswer(Case c, String answer) {
        return names(answer, c.answer()) ? null : "answered '" + cut(answer) + "', not '" + c.answer() + "'";
    }

    /** Why a reply names something the passages do not, or null: the first such name. */
    public static String invented(Case c, List<String> names, String what) {
        for (String n : names) {
            if (n != null && !n.isBlank() && !names(c.text(), n)) return what + " '" + cut(n) + "' is not in the passages";
        }
        return null;
    }

    static String cut(String s) {
        if (s == null) return "";
        String flat = s.strip().replaceAll("\\s+", " ");
        return flat.length() <= 80 ? flat : flat.substring(0, 80) + "...";
    }
}
