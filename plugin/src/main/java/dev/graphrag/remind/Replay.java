package dev.graphrag.remind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Memory replay (paper Eq. 2): from each seed a DFS follows edges whose Eq. 2 weight passes λ (strictly), strongest
 * first, ties by neighbour then edge id. No LLM. Edges whose memory norm cannot lift them over λ are skipped without
 * reading an embedding or a memory (docs/remind.md#memory-and-replay), so a cold graph costs one property read per incident edge.
 */
public final class Replay {
    /** Replay's knobs: α, λ, the node guard and whether a seed anchor brings its chunk in. */
    public record Settings(double alpha, double lambda, int maxNodes, boolean seedAnchorAddsChunk) {}

    private record Step(MemoryGraph.Edge edge, double weight) {}

    private final MemoryGraph graph;
    private final double[] query;
    private final Settings settings;
    private final double skipBelow;

    /** @param queryUnit the query's unit embedding */
    public Replay(MemoryGraph graph, double[] queryUnit, Settings settings) {
        this.graph = graph;
        this.query = queryUnit;
        this.settings = settings;
        this.skipBelow = MemoryMath.replayNormBound(settings.alpha(), settings.lambda());
    }

    public Subgraph run(List<String> seeds) {
        Subgraph s = new Subgraph(seeds);
        for (String seed : seeds) {
            Set<String> visited = new HashSet<>();
            visited.add(seed);
            dfs(s, seed, visited);
        }
        if (settings.seedAnchorAddsChunk()) {
            for (String seed : seeds) {
                if (graph.kind(seed) != MemoryGraph.Kind.ANCHOR) continue;
                MemoryGraph.Edge c = graph.chunkOf(seed);
                if (c != null && !s.hasChunk(c.other())) s.addChunk(c.other(), new Subgraph.PathEdge(c.id(), seed, c.other(), Subgraph.Origin.SEED, 1));
            }
        }
        return s;
    }

    private void dfs(Subgraph s, String u, Set<String> visited) {
        for (Step step : passing(u)) {
            if (s.size() >= settings.maxNodes()) return;
            String x = step.edge().other();
            if (graph.kind(x) == MemoryGraph.Kind.CHUNK) {
                if (!s.hasChunk(x)) s.addChunk(x, new Subgraph.PathEdge(step.edge().id(), u, x, Subgraph.Origin.REPLAY, step.weight()));
            } else if (visited.add(x)) {
                // an edge into a node S already holds is dropped, so P stays a forest
                if (!s.hasNode(x)) s.addNode(x, new Subgraph.PathEdge(step.edge().id(), u, x, Subgraph.Origin.REPLAY, step.weight()));
                dfs(s, x, visited);
            }
        }
    }

    /** u's edges whose weight passes λ, strongest first. */
    private List<Step> passing(String u) {
        List<Step> out = new ArrayList<>();
        float[] eu = null;
        for (MemoryGraph.Edge e : graph.edges(u)) {
            if (e.memoryNorm() <= skipBelow) continue;
            if (eu == null && !isChunkEdge(u, e)) eu = graph.embedding(u);
            double w = weight(u, eu, e);
            if (w > settings.lambda()) out.add(new Step(e, w));
        }
        out.sort(Comparator.comparingDouble((Step st) -> -st.weight()).thenComparing(st -> st.edge().other()).thenComparing(st -> st.edge().id()));
        return out;
    }

    private boolean isChunkEdge(String u, MemoryGraph.Edge e) {
        return graph.kind(e.other()) == MemoryGraph.Kind.CHUNK || graph.kind(u) == MemoryGraph.Kind.CHUNK;
    }

    /**
     * Eq. 2 for the step u→x over e ({@code eu}: u's embedding when the caller has it, else null); an anchor and its
     * chunk embed the same text, so their similarity is 1 (docs/remind.md#memory-and-replay).
     */
    double weight(String u, float[] eu, MemoryGraph.Edge e) {
        double sim = isChunkEdge(u, e) ? 1 : dot(eu != null ? eu : graph.embedding(u), graph.embedding(e.other()));
        return MemoryMath.edgeWeight(sim, graph.memory(e.id()), query, settings.alpha());
    }

    static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += (double) a[i] * b[i];
        return s;
    }
}
