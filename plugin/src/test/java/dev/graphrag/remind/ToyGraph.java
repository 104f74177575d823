package dev.graphrag.remind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A MemoryGraph held in maps, for the hand-worked cases: nodes with explicit embeddings, undirected edges with memories. */
final class ToyGraph implements MemoryGraph {
    private final Map<String, Kind> kinds = new LinkedHashMap<>();
    private final Map<String, float[]> embeddings = new HashMap<>();
    private final Map<String, List<String>> incident = new HashMap<>();
    private final Map<String, String[]> ends = new HashMap<>();
    final Map<String, double[]> memories = new HashMap<>();
    private final Map<String, String> texts = new HashMap<>();
    int embeddingReads;

    ToyGraph node(String id, Kind kind, double... embedding) {
        kinds.put(id, kind);
        float[] f = new float[embedding.length];
        for (int i = 0; i < f.length; i++) f[i] = (float) embedding[i];
        embeddings.put(id, f);
        incident.put(id, new ArrayList<>());
        return this;
    }

    ToyGraph edge(String id, String a, String b, double... memory) {
        ends.put(id, new String[] {a, b});
        incident.get(a).add(id);
        incident.get(b).add(id);
        if (memory.length > 0) memories.put(id, memory);
        texts.put(id, a + " relates to " + b);
        return this;
    }

    String edgeBetween(String a, String b) {
        for (String e : incident.get(a)) {
            String[] x = ends.get(e);
            if (x[0].equals(b) || x[1].equals(b)) return e;
        }
        throw new IllegalArgumentException(a + "-" + b);
    }

    @Override public Kind kind(String node) { return kinds.get(node); }

    @Override public List<Edge> edges(String node) {
        List<Edge> out = new ArrayList<>();
        for (String e : incident.get(node)) {
            String[] x = ends.get(e);
            double[] m = memories.get(e);
            out.add(new Edge(e, "T", x[0].equals(node) ? x[1] : x[0], m == null ? 0 : MemoryMath.norm(m)));
        }
        return out;
    }

    @Override public float[] embedding(String node) {
        embeddingReads++;
        return embeddings.get(node);
    }

    @Override public double[] memory(String edge) { return memories.get(edge); }

    @Override public String name(String node) { return node; }

    @Override public String chunkText(String chunk) { return "text of " + chunk; }
    @Override public String chunkDocumentTitle(String chunk) { return null; }

    @Override public long chunkTokens(String chunk) { return 20; }

    @Override public String edgeText(String edge) { return texts.get(edge); }
}
