package dev.graphrag.oracle;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The index-time stand-in ("extractor", never "oracle"): answers extraction prompts from the chunk text in the
 * prompt alone, by fixed rules, with no access to questions or gold (an index shaped by the test questions would
 * be a leak). Entities: the passage title and the maximal capitalised spans; relations: entity pairs that occur in
 * one sentence, the words between them as the predicate and the sentence as evidence.
 */
public final class RuleExtractor {
    private RuleExtractor() {}

    public record Relation(String subject, String predicate, String object, String sentence) {}

    private static final Pattern CAPITALISED = Pattern.compile("\\p{Lu}[\\p{L}\\p{N}'-]*(?:\\s+(?:(?:of|the|de|du|von|van|la|le)\\s+)*\\p{Lu}[\\p{L}\\p{N}'-]*)*");
    private static final Set<String> NOT_NAMES = Set.of("The", "A", "An", "It", "He", "She", "They", "This", "That", "These", "Those", "In", "On",
            "At", "His", "Her", "Its", "Their", "After", "Before", "During", "When", "While", "As", "For", "From", "By", "With", "But", "And", "Or");

    /** The title (when given) then each capitalised span of the text, first occurrence order, without sentence-initial function words. */
    public static List<String> entities(String title, String text) {
        Set<String> out = new LinkedHashSet<>();
        if (title != null && !title.isBlank()) out.add(title.trim());
        Matcher m = CAPITALISED.matcher(text);
        while (m.find()) {
            String span = m.group().trim();
            if (NOT_NAMES.contains(span)) continue;
            String[] words = span.split("\\s+");
            if (words.length > 1 && NOT_NAMES.contains(words[0])) span = span.substring(words[0].length()).trim();
            if (span.length() > 1) out.add(span);
        }
        return new ArrayList<>(out);
    }

    public static List<String> sentences(String text) {
        List<String> out = new ArrayList<>();
        BreakIterator it = BreakIterator.getSentenceInstance(Locale.ROOT);
        it.setText(text);
        for (int s = it.first(), e = it.next(); e != BreakIterator.DONE; s = e, e = it.next()) {
            String sentence = text.substring(s, e).trim();
            if (!sentence.isEmpty()) out.add(sentence);
        }
        return out;
    }

    /**
     * Pairs of the given entities that occur in one sentence (case-insensitive), in order of appearance; the
     * predicate is the text between them (up to six words), "related to" when they are adjacent or far apart.
     */
    public static List<Relation> relations(String text, List<String> entities) {
        Set<Relation> out = new LinkedHashSet<>();
        for (String sentence : sentences(text)) {
            String lower = sentence.toLowerCase(Locale.ROOT);
            List<int[]> found = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (String e : entities) {
                int at = lower.indexOf(e.toLowerCase(Locale.ROOT));
                if (at >= 0 && !e.isBlank()) {
                    found.add(new int[] {at, at + e.length()});
                    names.add(e);
                }
            }
            for (int i = 0; i < names.size(); i++) {
                for (int j = 0; j < names.size(); j++) {
                    int[] a = found.get(i), b = found.get(j);
                    if (i == j || a[0] >= b[0] || a[1] > b[0]) continue;
                    String between = sentence.substring(a[1], b[0]).replaceAll("[^\\p{L}\\p{N}\\s-]", " ").trim().replaceAll("\\s+", " ");
                    int words = between.isEmpty() ? 0 : between.split(" ").length;
                    String predicate = words == 0 || words > 6 ? "related to" : between.toLowerCase(Locale.ROOT);
                    out.add(new Relation(names.get(i), predicate, names.get(j), sentence));
                }
            }
        }
        return new ArrayList<>(out);
    }
}
