package dev.graphrag.core.text;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The passages of one prompt, for asking whether a text is already there word for word (spacing aside): what the
 * methods leave out of a prompt when a passage in it says the same thing (HGMem's descriptions, ReMind's edge texts).
 */
public final class Verbatim {
    private final List<String> passages;

    public Verbatim(Collection<String> passages) {
        this.passages = new ArrayList<>(passages.size());
        for (String p : passages) this.passages.add(spaced(p));
    }

    /** Whether one of the passages holds {@code text}, runs of whitespace counting as one space. */
    public boolean holds(String text) {
        String t = spaced(text);
        for (String p : passages) if (p.contains(t)) return true;
        return false;
    }

    /** Stripped, each run of whitespace one space. */
    public static String spaced(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s+", " ");
    }
}
