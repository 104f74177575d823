package dev.graphrag.remind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The LLM-guided traversal after replay (paper Algorithm 1, App. B.3): the guide judges whether S suffices (L7) and, while it does
 * not, picks one move per step (L8): forward to a neighbour of the current node, back to a node of S, or into the
 * unvisited chunk of an anchor of S. An anchor's unvisited chunk is entered without asking (a forced step). Knows
 * nothing of Neo4j or HTTP: the guide is the LLM, or a script in tests.
 */
public record Walk(MemoryGraph graph, Replay weights, Guide guide, Settings settings) {
    public enum StopReason { SUFFICIENT, MAX_JUMPS, MAX_ITERATIONS, EXHAUSTED, LLM_FAILURE, REPLAY_ONLY }

    /** A neighbour of the current node the guide may step to, with its Eq. 2 weight. */
    public record Candidate(MemoryGraph.Edge edge, double weight) {}

    /** What the guide replied: a node of the graph (entity or anchor) or a chunk; null node when it named nothing known. */
    public record Choice(boolean chunk, String node) {}

    /** The LLM's side of the walk. */
    public interface Guide {
        /** L7: does S answer the query? */
        boolean sufficient(Subgraph s);

        /** L8: the next move from {@code current} (null after a chunk), given the candidates and corrections so far. */
        Choice next(Subgraph s, String current, List<Candidate> candidates, List<String> history, List<String> corrections);

        /** A chunk's text as S shows it (raw below the summary threshold, else an L6 summary). */
        String summary(Subgraph s, String chunk);
    }

    /** One step of the trace. move: forward, backward, forced or invalid. */
    public record TraceStep(int iteration, String current, String move, String picked, boolean llm) {
        public Map<String, Object> toMap() {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("iteration", (long) iteration);
            m.put("current", current);
            m.put("move", move);
            m.put("picked", picked);
            m.put("llm", llm);
            return m;
        }
    }

    public record Settings(int maxJumps, int maxIterations, int maxCandidates, int maxRetries) {}

    public record Outcome(Subgraph subgraph, StopReason stopReason, boolean sufficient, int jumps, int iterations, boolean memorizeAllowed,
                          List<TraceStep> trace) {}

    /** Continues from S as replay left it (seeds first); summaries of S's chunks are filled in first. */
    public Outcome run(Subgraph s) {
        for (String c : s.chunks()) s.summary(c, guide.summary(s, c));
        List<TraceStep> trace = new ArrayList<>();
        boolean enough = guide.sufficient(s);
        String cur = s.seeds().isEmpty() ? null : s.seeds().get(0);
        List<String> history = new ArrayList<>();
        if (cur != null) history.add(cur);
        int jumps = 0, iterations = 0;
        StopReason stop = enough ? StopReason.SUFFICIENT : null;
        boolean memorizeAllowed = true;
        while (!enough) {
            String nextNode;
            MemoryGraph.Edge via = null;
            boolean toChunk;
            MemoryGraph.Edge own = cur != null && graph.kind(cur) == MemoryGraph.Kind.ANCHOR ? graph.chunkOf(cur) : null;
            if (own != null && !s.hasChunk(own.other())) {
                nextNode = own.other();
                via = own;
                toChunk = true;
                trace.add(new TraceStep(iterations, cur, "forced", nextNode, false));
            } else if (exhausted(s)) {
                stop = StopReason.EXHAUSTED;
                break;
            } else {
                List<Candidate> cand = candidates(s, cur);
                List<String> corrections = new ArrayList<>();
                Choice picked = null;
                for (int attempt = 0; attempt < settings.maxRetries() && picked == null; attempt++) {
                    Choice r = guide.next(s, cur, cand, history, corrections);
                    String problem = problem(s, r, cand);
                    if (problem == null) picked = r;
                    else {
                        corrections.add(problem);
                        trace.add(new TraceStep(iterations, cur, "invalid", r == null ? null : r.node(), true));
                    }
                }
                if (picked == null) {
                    stop = StopReason.LLM_FAILURE;
                    memorizeAllowed = false;
                    break;
                }
                nextNode = picked.node();
                toChunk = picked.chunk();
                if (toChunk) via = graph.chunkOf(anchorOf(nextNode));
                else {
                    for (Candidate c : cand) if (c.edge().other().equals(nextNode)) via = c.edge();
                }
                trace.add(new TraceStep(iterations, cur, via == null ? "backward" : "forward", nextNode, true));
            }
            if (cur != null) history.add(cur);
            if (toChunk) {
                String from = anchorOf(nextNode);
                s.addChunk(nextNode, new Subgraph.PathEdge(via.id(), from, nextNode, Subgraph.Origin.LLM, weights.weight(from, null, via)));
                s.summary(nextNode, guide.summary(s, nextNode));
                jumps++;
                cur = null;
            } else if (via != null) {
                s.addNode(nextNode, new Subgraph.PathEdge(via.id(), cur, nextNode, Subgraph.Origin.LLM, weights.weight(cur, null, via)));
                jumps++;
                cur = nextNode;
            } else {
                cur = nextNode; // backward: no edge, no jump
            }
            // L7 judges S; a backward move leaves S as the last judgement saw it, so that "no" stands (not asked again)
            if (toChunk || via != null) enough = guide.sufficient(s);
            iterations++;
            if (enough) stop = StopReason.SUFFICIENT;
            else if (jumps >= settings.maxJumps()) stop = StopReason.MAX_JUMPS;
            else if (iterations >= settings.maxIterations()) stop = StopReason.MAX_ITERATIONS;
            if (stop != null) break;
        }
        return new Outcome(s, stop, enough, jumps, iterations, memorizeAllowed, trace);
    }

    /** The current node's non-chunk neighbours outside S, strongest first, at most maxCandidates (a hub cannot flood the prompt). */
    List<Candidate> candidates(Subgraph s, String cur) {
        if (cur == null) return List.of();
        List<Candidate> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        float[] eu = graph.embedding(cur);
        for (MemoryGraph.Edge e : graph.edges(cur)) {
            String x = e.other();
            if (graph.kind(x) == MemoryGraph.Kind.CHUNK || s.hasNode(x) || !seen.add(x)) continue;
            out.add(new Candidate(e, weights.weight(cur, eu, e)));
        }
        out.sort(Comparator.comparingDouble((Candidate c) -> -c.weight()).thenComparing(c -> c.edge().other()));
        return out.size() > settings.maxCandidates() ? List.copyOf(out.subList(0, settings.maxCandidates())) : out;
    }

    /** Why a reply is not a valid move (the correction the guide sees next), or null. */
    private String problem(Subgraph s, Choice r, List<Candidate> cand) {
        if (r == null || r.node() == null) return "That reply named no node of the lists. Pick a candidate, a node already collected, or an unvisited chunk of a collected anchor.";
        if (r.chunk()) {
            if (graph.kind(r.node()) != MemoryGraph.Kind.CHUNK) return "That id is not a chunk.";
            if (s.hasChunk(r.node())) return "That chunk was already visited; pick another. Visited chunks are listed under chunks.";
            String anchor = anchorOf(r.node());
            if (anchor == null || !s.hasNode(anchor)) return "That chunk is not reachable: only chunks of collected anchors can be entered.";
            return null;
        }
        for (Candidate c : cand) if (c.edge().other().equals(r.node())) return null;
        if (s.hasNode(r.node())) return null;
        return "That node is neither a candidate of the current node nor a collected node.";
    }

    private String anchorOf(String chunk) {
        for (MemoryGraph.Edge e : graph.edges(chunk)) if (graph.kind(e.other()) == MemoryGraph.Kind.ANCHOR) return e.other();
        return null;
    }

    /** Nothing left: no node of S has a neighbour outside S, and no anchor of S has an unvisited chunk. */
    private boolean exhausted(Subgraph s) {
        for (String n : s.nodes()) {
            for (MemoryGraph.Edge e : graph.edges(n)) {
                boolean chunk = graph.kind(e.other()) == MemoryGraph.Kind.CHUNK;
                if (chunk ? !s.hasChunk(e.other()) : !s.hasNode(e.other())) return false;
            }
        }
        return true;
    }
}
