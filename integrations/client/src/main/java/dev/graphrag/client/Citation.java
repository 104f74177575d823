package dev.graphrag.client;

import java.util.List;
import java.util.Map;

/**
 * Where a passage comes from: its Document and chunk, the 1-based pages of its file it spans (empty when the file has
 * no pages) and its heading path (null when none). {@code score} is the procedure's own score where it gives one.
 */
public record Citation(String documentId, String chunkId, List<Long> pages, String section, Double score) {
    public Citation {
        pages = pages == null ? List.of() : List.copyOf(pages);
    }

    /** A citation map as the answer procedures return them ({chunkId, documentId or docId, pages, section}). */
    static Citation of(Map<?, ?> m) {
        Object doc = m.get("documentId") != null ? m.get("documentId") : m.get("docId");
        return new Citation(doc == null ? null : doc.toString(), (String) m.get("chunkId"), Rows.longs(m.get("pages")), (String) m.get("section"), null);
    }

    /** {documentId, chunkId, pages, section} (null values kept), as the answer procedures return citations. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("documentId", documentId);
        m.put("chunkId", chunkId);
        m.put("pages", pages);
        m.put("section", section);
        return m;
    }

    /** "doc.pdf p. 3-4, 2 Installation": how an answer shows it to a reader. */
    public String label() {
        StringBuilder b = new StringBuilder(documentId == null ? chunkId : documentId);
        if (!pages.isEmpty()) {
            long first = pages.get(0), last = pages.get(pages.size() - 1);
            b.append(first == last ? " p. " + first : " pp. " + first + "-" + last);
        }
        if (section != null && !section.isBlank()) b.append(", ").append(section);
        return b.toString();
    }
}
