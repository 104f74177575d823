package dev.graphrag.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A corpus m times the size of a real one, for the scaling benchmark (docs/benchmarks.md#scaling). Copy 0 is the
 * corpus itself. Copy c renames every entity word, a capitalised word that occurs in some title (function words
 * such as "The" or "Of" excepted), by a bijection of the entity vocabulary shuffled with seed + c, in titles and texts
 * alike.
 * <p>
 * What it preserves: real words, sentences and passage lengths; each copy's entity statistics and links (a passage
 * that names another's title still names it, since one copy renames consistently); the chunk count scales with m
 * (within the token-length differences of the names swapped). What it does not: new facts or new wording. The copies are parallel worlds that differ only in names, so
 * a query meets m near-isomorphic neighbourhoods; its vector neighbours are denser than in a real corpus m times the
 * size, and BM25's document frequencies of non-name words grow m-fold.
 */
public final class ScaledCorpus {
    private static final Pattern WORD = Pattern.compile("\\p{Lu}[\\p{L}\\p{N}'-]*");
    private static final Set<String> FUNCTION_WORDS = Set.of("The", "A", "An", "Of", "In", "On", "And", "For", "To", "At", "By", "From", "With",
            "De", "La", "Le", "Los", "Las", "El", "Der", "Die", "Das", "Von", "Van", "Du", "Des", "II", "I");

    private ScaledCorpus() {}

    /** {@code copies} copies of {@code base} ({title, text} maps); ids "x{c}:{n}" so every copy's documents are distinct. */
    public static List<Map<String, Object>> of(List<Map<String, Object>> base, int copies, long seed) {
        if (copies < 1) throw new IllegalArgumentException("copies must be at least 1, got " + copies);
        List<String> vocabulary = vocabulary(base);
        List<Map<String, Object>> out = new ArrayList<>(base.size() * copies);
        for (int c = 0; c < copies; c++) {
            Map<String, String> rename = c == 0 ? Map.of() : bijection(vocabulary, seed + c);
            for (int n = 0; n < base.size(); n++) {
                Map<String, Object> d = base.get(n);
                Map<String, Object> copy = new LinkedHashMap<>();
                copy.put("id", "x" + c + ":" + n);
                if (d.get("title") != null) copy.put("title", rename((String) d.get("title"), rename));
                copy.put("text", rename((String) d.get("text"), rename));
                out.add(copy);
            }
        }
        return out;
    }

    /** The entity words: capitalised words of titles, minus function words, in first-seen order. */
    static List<String> vocabulary(List<Map<String, Object>> base) {
        Set<String> words = new LinkedHashSet<>();
        for (Map<String, Object> d : base) {
            if (d.get("title") == null) continue;
            Matcher m = WORD.matcher((String) d.get("title"));
            while (m.find()) if (!FUNCTION_WORDS.contains(m.group())) words.add(m.group());
        }
        return new ArrayList<>(words);
    }

    static Map<String, String> bijection(List<String> vocabulary, long seed) {
        List<String> shuffled = new ArrayList<>(vocabulary);
        Collections.shuffle(shuffled, new Random(seed));
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < vocabulary.size(); i++) m.put(vocabulary.get(i), shuffled.get(i));
        return m;
    }

    static String rename(String text, Map<String, String> rename) {
        if (rename.isEmpty() || text == null) return text;
        Matcher m = WORD.matcher(text);
        StringBuilder b = new StringBuilder(text.length());
        while (m.find()) m.appendReplacement(b, Matcher.quoteReplacement(rename.getOrDefault(m.group(), m.group())));
        m.appendTail(b);
        return b.toString();
    }
}
