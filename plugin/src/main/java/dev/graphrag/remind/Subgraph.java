package dev.graphrag.remind;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The subgraph S a traversal collects: nodes (entities and anchors) and chunks in the order they joined, and the
 * path P, one edge per node or chunk that joined after the seeds, so P is a forest rooted at the seeds.
 */
public final class Subgraph {
    /** How an edge entered P. */
    public enum Origin { REPLAY, LLM, SEED }

    /** One path edge, in the direction it was walked, with the Eq. 2 weight it had then. */
    public record PathEdge(String edge, String from, String to, Origin origin, double weight) {}

    private final List<String> seeds;
    private final Set<String> nodes = new LinkedHashSet<>();
    private final Set<String> chunks = new LinkedHashSet<>();
    private final List<PathEdge> path = new ArrayList<>();
    private final Map<String, String> summaries = new LinkedHashMap<>();

    public Subgraph(List<String> seeds) {
        this.seeds = List.copyOf(seeds);
        nodes.addAll(seeds);
    }

    public List<String> seeds() { return seeds; }

    public List<String> nodes() { return List.copyOf(nodes); }

    public List<String> chunks() { return List.copyOf(chunks); }

    public List<PathEdge> path() { return Collections.unmodifiableList(path); }

    public Map<String, String> summaries() { return Collections.unmodifiableMap(summaries); }

    public boolean hasNode(String n) { return nodes.contains(n); }

    public boolean hasChunk(String c) { return chunks.contains(c); }

    public int size() { return nodes.size(); }

    void addNode(String node, PathEdge via) {
        if (nodes.add(node) && via != null) path.add(via);
    }

    void addChunk(String chunk, PathEdge via) {
        if (chunks.add(chunk) && via != null) path.add(via);
    }

    void summary(String chunk, String text) {
        summaries.put(chunk, text);
    }
}
