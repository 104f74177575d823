package dev.graphrag.oracle;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A corpus as the harness ingests it (docs/evaluation.md): one Document per passage, ids that are a hash of title
 * and text (so an id says nothing of position or question), duplicates dropped, and the order shuffled with a
 * fixed seed: both data sets keep each question's passages next to each other, which neighbour links, id order
 * and ties would otherwise exploit.
 */
public final class EvalCorpus {
    private final List<Map<String, Object>> documents;
    private final Map<String, String> titleById = new LinkedHashMap<>();
    private final Map<String, String> textById = new LinkedHashMap<>();

    private EvalCorpus(List<Map<String, Object>> documents) {
        this.documents = documents;
        for (Map<String, Object> d : documents) {
            titleById.put((String) d.get("id"), (String) d.get("title"));
            textById.put((String) d.get("id"), (String) d.get("text"));
        }
    }

    /** Passages as {title, text} maps; ids are replaced by content hashes and the order is shuffled with {@code seed}. */
    public static EvalCorpus of(List<Map<String, Object>> passages, long seed) {
        Map<String, Map<String, Object>> unique = new LinkedHashMap<>();
        for (Map<String, Object> p : passages) {
            String title = p.get("title") == null ? "" : p.get("title").toString();
            String text = p.get("text").toString();
            String id = id(title, text);
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("id", id);
            if (!title.isEmpty()) d.put("title", title);
            d.put("text", text);
            unique.putIfAbsent(id, d);
        }
        List<Map<String, Object>> docs = new ArrayList<>(unique.values());
        Collections.shuffle(docs, new Random(seed));
        return new EvalCorpus(List.copyOf(docs));
    }

    /** The content-hash id of a passage: what the scorer maps gold paragraphs to. */
    public static String id(String title, String text) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(((title == null ? "" : title) + "\u0000" + text).getBytes(StandardCharsets.UTF_8));
            return "p" + HexFormat.of().formatHex(h, 0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public List<Map<String, Object>> documents() { return documents; }

    public String title(String id) { return titleById.get(id); }

    public String text(String id) { return textById.get(id); }

    public boolean contains(String id) { return textById.containsKey(id); }

    public int size() { return documents.size(); }
}
