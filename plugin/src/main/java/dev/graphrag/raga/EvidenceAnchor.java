package dev.graphrag.raga;

import java.text.Normalizer;
import java.util.Locale;

/**
 * Evidence-anchored verification (paper §1, §3.3.4; docs/raga.md#our-own-rules-where-the-paper-gives-none): a quote must occur in its chunk, verbatim or after normalisation
 * (NFKC, quotes and dashes folded, whitespace runs to one space, lower case), and its span is returned as 0-based
 * UTF-16 offsets into the chunk text, end exclusive; a repeated quote anchors at its first occurrence.
 */
public final class EvidenceAnchor {
    public enum Problem { EVIDENCE_TOO_SHORT, EVIDENCE_TOO_LONG, EVIDENCE_NOT_FOUND }

    /** A span [start, end) of the chunk text, or the problem. */
    public record Result(int start, int end, Problem problem) {
        public boolean found() { return problem == null; }
    }

    private EvidenceAnchor() {}

    public static Result locate(String quote, String text, int minChars, int maxChars) {
        String q = quote == null ? "" : quote.trim();
        if (q.length() < minChars) return new Result(-1, -1, Problem.EVIDENCE_TOO_SHORT);
        if (q.length() > maxChars) return new Result(-1, -1, Problem.EVIDENCE_TOO_LONG);
        int i = text.indexOf(q);
        if (i >= 0) return new Result(i, i + q.length(), null);
        Normalised nt = normalise(text);
        String nq = normalise(q).text;
        int j = nt.text.indexOf(nq);
        if (j < 0 || nq.isEmpty()) return new Result(-1, -1, Problem.EVIDENCE_NOT_FOUND);
        return new Result(nt.map[j], nt.map[j + nq.length() - 1] + 1, null);
    }

    /** Normalised text with, per normalised char, the index of the original char it came from. */
    private record Normalised(String text, int[] map) {}

    private static Normalised normalise(String s) {
        StringBuilder out = new StringBuilder();
        int[] map = new int[s.length() * 4 + 4];
        boolean space = false;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int len = Character.charCount(cp);
            String piece = Normalizer.normalize(new String(Character.toChars(cp)), Normalizer.Form.NFKC).toLowerCase(Locale.ROOT)
                    .replace('\u2018', '\'').replace('\u2019', '\'').replace('\u201c', '"').replace('\u201d', '"')
                    .replaceAll("[\u2010\u2011\u2013\u2014]", "-");
            for (int k = 0; k < piece.length(); k++) {
                char c = piece.charAt(k);
                if (Character.isWhitespace(c)) {
                    if (space || out.length() == 0) continue;
                    space = true;
                    c = ' ';
                } else {
                    space = false;
                }
                if (out.length() >= map.length) map = java.util.Arrays.copyOf(map, map.length * 2);
                map[out.length()] = i;
                out.append(c);
            }
            i += len;
        }
        // a trailing space maps past nothing the quote can end on
        String t = out.toString();
        if (t.endsWith(" ")) t = t.substring(0, t.length() - 1);
        return new Normalised(t, map);
    }
}
