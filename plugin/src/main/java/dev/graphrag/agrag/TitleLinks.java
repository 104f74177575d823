package dev.graphrag.agrag;

import dev.graphrag.core.lexical.Titles;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Title links: a chunk that names another document's title links to that document, as a Wikipedia
 * paragraph links to the article it names. Multi-hop questions cross exactly such links (the bridge
 * passage is often the article about an entity the first passage names), and an LLM-free graph has no
 * other edge that says "this passage is about that name". Not in the AGRAG paper; docs/agrag.md.
 *
 * <p>Matching is on whole words, case-insensitive, leftmost-longest (a mention of "New York City" links to
 * that title only, not also to "New York"). A trailing parenthetical disambiguator is dropped from the title
 * ("Brother (Pearl Jam song)" is named as "Brother"). Titles that are only stop words or digits link
 * nothing. Knows nothing of Neo4j.
 */
public final class TitleLinks {
    /** One link: the chunk names document {@code documentId}'s title as {@code anchor} (the title's words). */
    public record Link(String documentId, String anchor) {}

    /** Titles longer than this many words are not matched (no one names a 30-word title in running text). */
    static final int MAX_TITLE_WORDS = 16;

    /** Title words -> the documents that carry that title. */
    private final Map<List<String>, List<String>> documentsByTitle = new HashMap<>();
    private int longest;

    /** @param titles documentId -> title (null or blank titles are skipped) */
    public TitleLinks(Map<String, String> titles) {
        for (Map.Entry<String, String> e : new TreeMap<>(titles).entrySet()) {
            List<String> words = titleWords(e.getValue());
            if (words.isEmpty()) continue;
            documentsByTitle.computeIfAbsent(words, k -> new ArrayList<>()).add(e.getKey());
            longest = Math.max(longest, words.size());
        }
    }

    /** The words a title is matched by; empty when it cannot be matched safely. */
    static List<String> titleWords(String title) {
        if (title == null) return List.of();
        List<String> words = words(Titles.withoutDisambiguator(title));
        if (words.isEmpty() || words.size() > MAX_TITLE_WORDS) return List.of();
        boolean meaningful = words.stream().anyMatch(w -> !EntityStatistics.isStopWord(w) && !w.chars().allMatch(Character::isDigit));
        return meaningful ? words : List.of();
    }

    /** Lower-cased runs of letters and digits. */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= text.length(); i++) {
            boolean word = i < text.length() && Character.isLetterOrDigit(text.charAt(i));
            if (word && start < 0) start = i;
            else if (!word && start >= 0) {
                out.add(text.substring(start, i).toLowerCase(Locale.ROOT));
                start = -1;
            }
        }
        return out;
    }

    /** The documents a chunk of {@code ownDocumentId} links to, in order of first mention; never its own document. */
    public List<Link> links(String ownDocumentId, String text) {
        Map<String, Link> out = new LinkedHashMap<>();
        if (documentsByTitle.isEmpty() || text == null) return List.of();
        List<String> words = words(text);
        int i = 0;
        while (i < words.size()) {
            int matched = 0;
            for (int n = Math.min(longest, words.size() - i); n >= 1; n--) {
                List<String> docs = documentsByTitle.get(words.subList(i, i + n));
                if (docs == null) continue;
                for (String d : docs) {
                    if (!d.equals(ownDocumentId)) out.putIfAbsent(d, new Link(d, String.join(" ", words.subList(i, i + n))));
                }
                matched = n;
                break;
            }
            i += Math.max(1, matched);
        }
        return List.copyOf(out.values());
    }

    /** For tests: the matchable titles' word lists. */
    Set<List<String>> titles() {
        return documentsByTitle.keySet();
    }
}
