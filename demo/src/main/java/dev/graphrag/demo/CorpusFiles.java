package dev.graphrag.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads a corpus into rag.ingest's document maps: a JSON list of {id?, title?, text} (the MuSiQue/2Wiki
 * passage format), a JSON object title -> [sentences] (HotpotQA), JSON Lines, or a folder of .txt/.md files.
 */
public final class CorpusFiles {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CorpusFiles() {}

    public static List<Map<String, Object>> read(Path path) throws IOException {
        return uniqueIds(readRaw(path));
    }

    /** Corpora repeat titles; ids must be unique per corpus, so repeats get "#2", "#3", ... */
    static List<Map<String, Object>> uniqueIds(List<Map<String, Object>> docs) {
        Map<String, Integer> seen = new java.util.HashMap<>();
        for (Map<String, Object> d : docs) {
            String id = (String) d.get("id");
            int n = seen.merge(id, 1, Integer::sum);
            if (n > 1) d.put("id", id + "#" + n);
        }
        return docs;
    }

    /**
     * The files of a folder corpus that {@link #read} leaves out (every format but .txt and .md), relative to it, so the
     * demo can name them: rag.ingest.files reads those formats from the import directory.
     */
    public static List<String> unread(Path path) throws IOException {
        if (!Files.isDirectory(path)) return List.of();
        try (Stream<Path> files = Files.walk(path)) {
            return files.filter(Files::isRegularFile).filter(f -> !plainText(f.getFileName().toString())).sorted()
                    .map(f -> path.relativize(f).toString()).toList();
        }
    }

    private static boolean plainText(String name) {
        return name.endsWith(".txt") || name.endsWith(".md");
    }

    private static List<Map<String, Object>> readRaw(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            List<Map<String, Object>> docs = new ArrayList<>();
            try (Stream<Path> files = Files.walk(path)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    String n = f.getFileName().toString();
                    if (plainText(n)) {
                        String text = Files.readString(f, StandardCharsets.UTF_8);
                        if (!text.isBlank()) docs.add(doc(path.relativize(f).toString(), n, text));
                    }
                }
            }
            return docs;
        }
        if (path.toString().endsWith(".jsonl")) {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) docs.add(fromNode(JSON.readTree(line), docs.size()));
            }
            return docs;
        }
        try (InputStream in = Files.newInputStream(path)) {
            return fromJson(JSON.readTree(in));
        }
    }

    public static List<Map<String, Object>> fromJson(JsonNode root) {
        return uniqueIds(fromJsonRaw(root));
    }

    private static List<Map<String, Object>> fromJsonRaw(JsonNode root) {
        List<Map<String, Object>> docs = new ArrayList<>();
        if (root.isArray()) {
            for (JsonNode n : root) docs.add(fromNode(n, docs.size()));
        } else if (root.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                StringBuilder text = new StringBuilder();
                for (JsonNode s : e.getValue()) text.append(s.asText());
                docs.add(doc(e.getKey(), e.getKey(), text.toString().trim()));
            }
        } else {
            throw new IllegalArgumentException("a corpus file must hold a JSON list or object");
        }
        return docs;
    }

    private static Map<String, Object> fromNode(JsonNode n, int position) {
        String title = n.path("title").asText(null);
        String text = n.hasNonNull("text") ? n.get("text").asText() : n.path("paragraph_text").asText("");
        String id = n.hasNonNull("id") ? n.get("id").asText() : title != null ? title : "doc-" + position;
        return doc(id, title, text);
    }

    private static Map<String, Object> doc(String id, String title, String text) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        if (title != null) m.put("title", title);
        m.put("text", text);
        return m;
    }
}
