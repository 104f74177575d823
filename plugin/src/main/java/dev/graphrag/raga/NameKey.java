package dev.graphrag.raga;

import java.text.Normalizer;
import java.util.Locale;

/**
 * The alias key of a name (docs/raga.md#our-own-rules-where-the-paper-gives-none): NFKC, lower case, curly quotes straightened, dashes folded to '-', whitespace
 * collapsed, trimmed, edge punctuation stripped. Two names with one key are one entity; the alias registry maps each
 * key to at most one entity.
 */
public final class NameKey {
    private static final String EDGE = "\"'`()[]{}.,;:";

    private NameKey() {}

    public static String of(String name) {
        if (name == null) return "";
        String s = Normalizer.normalize(name, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT)
                .replace('\u2018', '\'').replace('\u2019', '\'').replace('\u201c', '"').replace('\u201d', '"')
                .replaceAll("[\u2010\u2011\u2013\u2014]", "-")
                .replaceAll("\\s+", " ").trim();
        int from = 0, to = s.length();
        while (from < to && EDGE.indexOf(s.charAt(from)) >= 0) from++;
        while (to > from && EDGE.indexOf(s.charAt(to - 1)) >= 0) to--;
        return s.substring(from, to).trim();
    }
}
