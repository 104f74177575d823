package dev.graphrag.remind;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Splits a traversal's path P into the edges memorisation enhances and those it penalises (paper App. B.4; docs/remind.md#memory-and-replay): an edge
 * is confirmed when it lies on a path from a seed to a useful chunk or a useful edge. Rule ALL confirms every such
 * out-edge of a node; FIRST only the first (the reference code's behaviour, which penalises a second useful branch).
 */
public final class Confirmation {
    public enum Rule { ALL, FIRST }

    public record Split(List<Subgraph.PathEdge> confirmed, List<Subgraph.PathEdge> ineffective) {}

    private final List<Subgraph.PathEdge> path;
    private final Set<String> usefulEdges;
    private final Set<String> usefulChunks;
    private final Set<String> chunks;
    private final Rule rule;
    private final Set<Subgraph.PathEdge> confirmed = new LinkedHashSet<>();

    private Confirmation(List<Subgraph.PathEdge> path, Set<String> usefulEdges, Set<String> usefulChunks, Set<String> chunks, Rule rule) {
        this.path = path;
        this.usefulEdges = usefulEdges;
        this.usefulChunks = usefulChunks;
        this.chunks = chunks;
        this.rule = rule;
    }

    /**
     * @param chunks the ids among P's end nodes that are chunks
     */
    public static Split split(List<String> seeds, List<Subgraph.PathEdge> path, Set<String> chunks, Set<String> usefulEdges,
                              Set<String> usefulChunks, Rule rule) {
        Confirmation c = new Confirmation(path, usefulEdges, usefulChunks, chunks, rule);
        for (String s : seeds) c.lead(s, new HashSet<>());
        List<Subgraph.PathEdge> confirmed = new ArrayList<>(), ineffective = new ArrayList<>();
        for (Subgraph.PathEdge e : path) (c.confirmed.contains(e) ? confirmed : ineffective).add(e);
        return new Split(confirmed, ineffective);
    }

    private boolean lead(String u, Set<String> viewed) {
        if (viewed.contains(u)) return false;
        boolean any = false;
        for (Subgraph.PathEdge e : path) {
            if (!e.from().equals(u) || viewed.contains(e.to())) continue;
            boolean ok = chunks.contains(e.to()) ? usefulChunks.contains(e.to()) : lead(e.to(), viewed) | usefulEdges.contains(e.edge());
            if (ok && (rule == Rule.ALL || !any)) confirmed.add(e);
            any |= ok;
        }
        viewed.add(u);
        return any;
    }
}
