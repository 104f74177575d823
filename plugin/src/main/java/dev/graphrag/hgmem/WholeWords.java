package dev.graphrag.hgmem;

import java.util.Collection;

/**
 * Whether a text names a name, as whole words with accents, case, punctuation and articles aside: how E2 picks the
 * table rows that name its targets, and how E1 decides that a source read before names a vertex memory gained since.
 */
final class WholeWords {
    private WholeWords() {}

    /** Accents folded, lower case, punctuation to spaces, articles dropped, spaces collapsed. */
    static String folded(String s) {
        String t = java.text.Normalizer.normalize(s, java.text.Normalizer.Form.NFD).replaceAll("\\p{M}+", "").toLowerCase(java.util.Locale.ROOT);
        t = (" " + t.replaceAll("[^\\p{L}\\p{N}]+", " ") + " ").replaceAll(" (a|an|the)(?= )", " ");
        return t.trim().replaceAll("\\s+", " ");
    }

    /** Whether {@code text} names one of {@code foldedNames} (each already {@link #folded}, blanks skipped). */
    static boolean namesAny(String text, Collection<String> foldedNames) {
        String padded = " " + folded(text) + " ";
        for (String k : foldedNames) if (!k.isBlank() && padded.contains(" " + k + " ")) return true;
        return false;
    }
}
