package dev.graphrag.oracle;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Evidence gating (docs/evaluation.md): an oracle reads like a perfect reader, not an omniscient one. Hop i's
 * answer counts as known only once one visible text contains both the answer (for the last hop, or an alias) and
 * the hop's subject: the answer that its "#k" names, the "X" of "X >> relation", else the longest capitalised name
 * in the sub-question, else at least half of its content words. Until then a "#k" reads "it". Pure functions.
 */
public final class EvidenceGate {
    private EvidenceGate() {}

    private static final Pattern REF = Pattern.compile("#(\\d+)");
    private static final Pattern NAME = Pattern.compile("\\p{Lu}[\\p{L}\\p{N}'.-]*(?:\\s+(?:(?:of|the|and|de|du|von|van|la|le|in|for|on|to|a|&)\\s+)*\\p{Lu}[\\p{L}\\p{N}'.-]*)*");
    private static final Set<String> QUESTION_WORDS = Set.of("what", "who", "whom", "whose", "which", "when", "where", "why", "how", "in", "the",
            "besides", "is", "are", "was", "were", "did", "does", "do");
    private static final Set<String> STOP = new HashSet<>(Arrays.asList(("a an the of in on at to for from by with and or is are was were be been "
            + "what who whom whose which when where why how did does do that this it its as into about than most many much").split(" ")));

    /** A passage as every gated reader here sees it: its document's title, when it has one, on a line above the text. */
    public static String titled(String title, String text) {
        return title == null || title.isEmpty() ? text : title + "\n" + text;
    }

    /** SQuAD-style: accents folded, lower case, punctuation to spaces, articles dropped, spaces collapsed. */
    public static String normalize(String s) {
        String t = Normalizer.normalize(s, Normalizer.Form.NFD).replaceAll("\\p{M}+", "").toLowerCase(Locale.ROOT);
        t = t.replaceAll("[^\\p{L}\\p{N}]+", " ");
        t = (" " + t + " ").replaceAll(" (a|an|the) ", " ").replaceAll(" (a|an|the) ", " ");
        return t.trim().replaceAll("\\s+", " ");
    }

    /** Whether normalised text holds the phrase as whole words. */
    public static boolean containsPhrase(String normalizedText, String phrase) {
        String p = normalize(phrase);
        return !p.isEmpty() && (" " + normalizedText + " ").contains(" " + p + " ");
    }

    /**
     * The hop answers the visible texts reveal: element i is hop i's answer once known, else null. Repeated to a
     * fixed point, since a later hop's subject is an earlier hop's answer.
     */
    public static String[] known(OracleGold.Question q, List<String> visibleTexts) {
        return known(q, visibleTexts, true);
    }

    /**
     * As {@link #known(OracleGold.Question, List)}; with {@code requireSubject} false a hop opens once any visible text
     * holds its answer (a looser gating, a more generous control).
     */
    public static String[] known(OracleGold.Question q, List<String> visibleTexts, boolean requireSubject) {
        List<String> texts = visibleTexts.stream().map(EvidenceGate::normalize).toList();
        List<OracleGold.Hop> hops = q.hops();
        String[] known = new String[hops.size()];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = 0; i < hops.size(); i++) {
                if (known[i] != null) continue;
                List<String> answers = i == hops.size() - 1 ? union(hops.get(i).answer(), q.answers()) : List.of(hops.get(i).answer());
                for (String t : texts) {
                    if (answers.stream().anyMatch(a -> containsPhrase(t, a)) && (requireSubject ? subjectIn(hops.get(i).question(), known, t) : refsKnown(hops.get(i).question(), known))) {
                        known[i] = hops.get(i).answer();
                        changed = true;
                        break;
                    }
                }
            }
        }
        return known;
    }

    /** The final answer once the last hop is known (an answer-only question: once a visible text contains it). */
    public static String finalAnswer(OracleGold.Question q, List<String> visibleTexts) {
        if (q.hops().isEmpty()) {
            for (String t : visibleTexts) {
                String n = normalize(t);
                if (q.answers().stream().anyMatch(a -> containsPhrase(n, a))) return q.answer();
            }
            return null;
        }
        String[] k = known(q, visibleTexts);
        return k[k.length - 1] == null ? null : q.answer();
    }

    /**
     * Hop i as a search query: "X >> relation" becomes "What is the relation of X?", and each "#k" becomes hop k's
     * answer when known, else "it".
     */
    public static String query(OracleGold.Hop hop, String[] known) {
        String s = hop.question().trim();
        int arrow = s.indexOf(">>");
        if (arrow >= 0) s = "What is the " + s.substring(arrow + 2).trim() + " of " + s.substring(0, arrow).trim() + "?";
        Matcher m = REF.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            int k = Integer.parseInt(m.group(1)) - 1;
            m.appendReplacement(b, Matcher.quoteReplacement(k >= 0 && k < known.length && known[k] != null ? known[k] : "it"));
        }
        m.appendTail(b);
        return b.toString().replaceAll("\\s+([?,.])", "$1");
    }

    /** A hop's subject: the known answer its #k names (null while unknown), the X of "X >> relation", else its longest name. */
    public static String subject(OracleGold.Hop hop, String[] known) {
        Matcher m = REF.matcher(hop.question());
        if (m.find()) {
            int k = Integer.parseInt(m.group(1)) - 1;
            return k >= 0 && k < known.length ? known[k] : null;
        }
        int arrow = hop.question().indexOf(">>");
        if (arrow >= 0) return hop.question().substring(0, arrow).trim();
        return longestName(hop.question());
    }

    /** Whether every hop a sub-question's "#k" names is known. */
    static boolean refsKnown(String subQuestion, String[] known) {
        Matcher m = REF.matcher(subQuestion);
        while (m.find()) {
            int k = Integer.parseInt(m.group(1)) - 1;
            if (k < 0 || k >= known.length || known[k] == null) return false;
        }
        return true;
    }

    /** Whether the normalised text names the hop's subject (see the class comment). */
    static boolean subjectIn(String subQuestion, String[] known, String normalizedText) {
        Matcher m = REF.matcher(subQuestion);
        boolean refers = false;
        while (m.find()) {
            refers = true;
            int k = Integer.parseInt(m.group(1)) - 1;
            if (k < 0 || k >= known.length || known[k] == null) return false;
            if (containsPhrase(normalizedText, known[k])) return true;
        }
        if (refers) return false;
        int arrow = subQuestion.indexOf(">>");
        if (arrow >= 0) return containsPhrase(normalizedText, subQuestion.substring(0, arrow));
        String name = longestName(subQuestion);
        if (name != null) return containsPhrase(normalizedText, name);
        List<String> words = contentWords(subQuestion);
        if (words.isEmpty()) return true;
        Set<String> present = new HashSet<>(Arrays.asList(normalizedText.split(" ")));
        return words.stream().filter(present::contains).count() * 2 >= words.size();
    }

    /** The longest capitalised name in a sentence, a leading question word not counted; null when there is none. */
    public static String longestName(String sentence) {
        Matcher m = NAME.matcher(sentence);
        String best = null;
        while (m.find()) {
            String span = m.group();
            String[] words = span.split("\\s+");
            int from = m.start() == 0 && QUESTION_WORDS.contains(words[0].toLowerCase(Locale.ROOT)) ? 1 : 0;
            String name = String.join(" ", Arrays.copyOfRange(words, from, words.length)).replaceAll("[.']+$", "");
            if (name.isBlank()) continue;
            if (best == null || name.length() > best.length()) best = name;
        }
        return best;
    }

    static List<String> contentWords(String s) {
        List<String> out = new ArrayList<>();
        for (String w : normalize(s).split(" ")) if (!w.isEmpty() && !STOP.contains(w)) out.add(w);
        return out;
    }

    private static List<String> union(String first, List<String> rest) {
        List<String> out = new ArrayList<>(List.of(first));
        for (String r : rest) if (!out.contains(r)) out.add(r);
        return out;
    }
}
