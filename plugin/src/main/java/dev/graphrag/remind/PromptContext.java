package dev.graphrag.remind;

import dev.graphrag.core.text.Verbatim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The prompts' view of one traversal: short handles (E1 entities, A1 anchors, C1 chunks, R1 path edges) given on
 * first sight and kept for the traversal, so the LLM never quotes long names and its replies resolve through this map;
 * and the JSON input block of S, cut to a token budget (chunk texts shortened first, then the weakest candidates dropped).
 */
final class PromptContext {
    private final MemoryGraph graph;
    private final String question;
    private final int tokenBudget;
    /** What the block may hold in the endpoint's window (cl100k_base, margin applied): the window less the prompts' fixed part. */
    private final long windowTokens;
    private long trimmedItems, trimmedTokens;
    private final Map<String, String> handleOf = new HashMap<>();
    private final Map<String, String> nodeOf = new HashMap<>();
    private final int[] counters = new int[4];

    PromptContext(MemoryGraph graph, String question, int tokenBudget) {
        this(graph, question, tokenBudget, Long.MAX_VALUE);
    }

    PromptContext(MemoryGraph graph, String question, int tokenBudget, long windowTokens) {
        this.graph = graph;
        this.question = question;
        this.tokenBudget = tokenBudget;
        this.windowTokens = windowTokens;
    }

    /** Items shortened or left out by {@link #fit} since the last call, and their tokens; the counters restart. */
    long[] drainTrimmed() {
        long[] t = {trimmedItems, trimmedTokens};
        trimmedItems = 0;
        trimmedTokens = 0;
        return t;
    }

    String handle(String node) {
        return handleOf.computeIfAbsent(node, n -> {
            MemoryGraph.Kind k = graph.kind(n);
            int i = k.ordinal();
            String h = "EAC".charAt(i) + String.valueOf(++counters[i]);
            nodeOf.put(h, n);
            return h;
        });
    }

    String edgeHandle(String edge) {
        return handleOf.computeIfAbsent("edge:" + edge, n -> {
            String h = "R" + ++counters[3];
            nodeOf.put(h, edge);
            return h;
        });
    }

    /** The node an E, A or C handle stands for, or null. */
    String node(String handle) {
        if (handle == null || handle.trim().startsWith("R")) return null;
        return nodeOf.get(handle.trim());
    }

    /** The edge an R handle stands for, or null. */
    String edge(String handle) {
        if (handle == null || !handle.trim().startsWith("R")) return null;
        return nodeOf.get(handle.trim());
    }

    /**
     * The subgraph part every query prompt shows: entities, anchors, chunks with their texts (and their document's title
     * as {@code document}, when it has one), path edges.
     */
    Map<String, Object> block(Subgraph s) {
        return block(s, s.chunks());
    }

    /** As above, showing {@code chunks} (the subgraph's, in the reranker's order) in place of the subgraph's own. */
    Map<String, Object> block(Subgraph s, List<String> shownChunks) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("question", question);
        List<Map<String, Object>> entities = new ArrayList<>(), anchors = new ArrayList<>(), chunks = new ArrayList<>(), edges = new ArrayList<>();
        for (String n : s.nodes()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", handle(n));
            if (graph.kind(n) == MemoryGraph.Kind.ANCHOR) {
                m.put("title", graph.name(n));
                anchors.add(m);
            } else {
                m.put("name", graph.name(n));
                entities.add(m);
            }
        }
        for (String c : shownChunks) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", handle(c));
            String document = graph.chunkDocumentTitle(c);
            if (document != null) m.put("document", document);
            m.put("text", s.summaries().getOrDefault(c, graph.chunkText(c)));
            chunks.add(m);
        }
        for (Subgraph.PathEdge e : s.path()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", edgeHandle(e.edge()));
            m.put("from", handle(e.from()));
            m.put("to", handle(e.to()));
            m.put("text", graph.edgeText(e.edge()));
            edges.add(m);
        }
        b.put("entities", entities);
        b.put("anchors", anchors);
        b.put("chunks", chunks);
        b.put("edges", edges);
        return b;
    }

    /** L8's block: the subgraph, the current node, its candidates, the unvisited chunks of collected anchors, the history. */
    Map<String, Object> nextBlock(Subgraph s, String current, List<Walk.Candidate> candidates, List<String> history, boolean showWeights) {
        Map<String, Object> b = block(s);
        b.put("current", current == null ? null : handle(current));
        List<Map<String, Object>> cand = new ArrayList<>();
        for (Walk.Candidate c : candidates) {
            String x = c.edge().other();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", handle(x)); // A... an anchor (with its title), E... an entity (with its name): no type field
            m.put(graph.kind(x) == MemoryGraph.Kind.ANCHOR ? "title" : "name", graph.name(x));
            String relation = graph.edgeText(c.edge().id());
            if (relation != null && !relation.isBlank()) m.put("relation", relation);
            if (showWeights) m.put("weight", Math.round(c.weight() * 1000) / 1000.0);
            cand.add(m);
        }
        b.put("candidates", cand);
        List<Map<String, Object>> unvisited = new ArrayList<>();
        for (String n : s.nodes()) {
            if (graph.kind(n) != MemoryGraph.Kind.ANCHOR) continue;
            MemoryGraph.Edge c = graph.chunkOf(n);
            if (c != null && !s.hasChunk(c.other())) unvisited.add(Map.of("id", handle(c.other()), "anchor", handle(n)));
        }
        b.put("unvisitedChunks", unvisited);
        b.put("history", history.stream().map(this::handle).toList());
        return walkView(fit(b));
    }

    /** How a candidate's relation text refers to the edge or candidate that already shows it. */
    static final String SAME_AS = "same as ";

    /**
     * The walk's view of S (L6 summary, L7 sufficiency, L8 next node), S's texts each sent once a step:
     * <ul>
     * <li>a path edge's text is left out when it is empty, when a chunk shown in the same block holds it word for word
     * (an entity relation's text is a sentence of its passage, and an anchor's edge to its chunk carries the passage's
     * opening words) or when an earlier edge has the same text (a sentence naming three entities links them twice); an
     * edge left without text is written {@code "R1 A1>C1"};</li>
     * <li>entities are one map, handle to name;</li>
     * <li>a collected anchor's title that a shown chunk holds word for word is left out;</li>
     * <li>a candidate's relation text that a shown edge or an earlier candidate already gives is written
     * {@code "same as R4"}.</li>
     * </ul>
     * L9 and L10, which mark and cite edges by their text, read the whole block.
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> walkView(Map<String, Object> b) {
        List<String> texts = new ArrayList<>();
        for (Map<String, Object> c : (List<Map<String, Object>>) b.get("chunks")) texts.add((String) c.get("text"));
        Verbatim chunks = new Verbatim(texts);
        java.util.Set<String> said = new java.util.HashSet<>();
        Map<String, String> shownBy = new HashMap<>();
        List<Object> edges = new ArrayList<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) b.get("edges")) {
            String t = Verbatim.spaced((String) e.get("text"));
            if (t.isEmpty() || !said.add(t) || chunks.holds(t)) {
                edges.add(e.get("id") + " " + e.get("from") + ">" + e.get("to"));
            } else {
                shownBy.put(t, (String) e.get("id"));
                edges.add(e);
            }
        }
        b.put("edges", edges);
        if (b.get("entities") instanceof List<?> list) {
            Map<String, Object> names = new LinkedHashMap<>();
            for (Object o : list) names.put((String) ((Map<String, Object>) o).get("id"), ((Map<String, Object>) o).get("name"));
            b.put("entities", names);
        }
        for (Map<String, Object> a : (List<Map<String, Object>>) b.getOrDefault("anchors", List.of())) {
            if (a.get("title") instanceof String t && Verbatim.spaced(t).length() >= 20 && chunks.holds(t)) a.remove("title");
        }
        if (b.get("candidates") instanceof List<?> candidates) {
            for (Object o : candidates) {
                Map<String, Object> c = (Map<String, Object>) o;
                String t = Verbatim.spaced(String.valueOf(c.getOrDefault("relation", "")));
                if (t.isEmpty()) continue;
                String first = shownBy.putIfAbsent(t, (String) c.get("id"));
                if (first != null) c.put("relation", SAME_AS + first);
            }
        }
        return b;
    }

    /** The texts a block shows its reader: chunk texts under their document titles, anchor titles and edge texts (not entity names, not ids). */
    @SuppressWarnings("unchecked")
    static java.util.Set<String> evidence(Map<String, Object> b) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (Map<String, Object> c : (List<Map<String, Object>>) b.get("chunks")) out.add("C " + c.getOrDefault("document", "") + "\n" + c.get("text"));
        for (Map<String, Object> a : (List<Map<String, Object>>) b.getOrDefault("anchors", List.of())) if (a.get("title") instanceof String t) out.add("A " + t);
        for (Object e : (List<Object>) b.get("edges")) if (e instanceof Map<?, ?> m && m.get("text") instanceof String t && !t.isBlank()) out.add("R " + t);
        return out;
    }

    /**
     * Shortens the longest chunk texts, then drops the weakest candidates, until the block fits the token budget and the
     * window; each step is counted as a trimmed item with the tokens it saved.
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> fit(Map<String, Object> b) {
        List<Map<String, Object>> chunks = (List<Map<String, Object>>) b.get("chunks");
        long window = windowCount(b);
        while (tokens(b) > tokenBudget || window > windowTokens) {
            long before = windowTokens == Long.MAX_VALUE ? tokens(b) : window;
            Map<String, Object> longest = null;
            for (Map<String, Object> c : chunks) {
                String t = (String) c.get("text");
                if (t.length() > 200 && (longest == null || t.length() > ((String) longest.get("text")).length())) longest = c;
            }
            if (longest != null) {
                String t = (String) longest.get("text");
                longest.put("text", t.substring(0, t.length() / 2) + " [...]");
            } else {
                List<Map<String, Object>> cand = (List<Map<String, Object>>) b.get("candidates");
                if (cand == null || cand.size() <= 1) break;
                cand.remove(cand.size() - 1);
            }
            window = windowCount(b);
            trimmedItems++;
            trimmedTokens += Math.max(0, before - (windowTokens == Long.MAX_VALUE ? tokens(b) : window));
        }
        return b;
    }

    /** The block's tokens as the window counts them (cl100k_base with the margin); 0 when no window bounds it. */
    private long windowCount(Map<String, Object> block) {
        if (windowTokens == Long.MAX_VALUE) return 0;
        return dev.graphrag.core.llm.TokenCounter.withMargin(dev.graphrag.core.llm.TokenCounter.count(dev.graphrag.core.llm.Prompts.json(block)));
    }

    /** About four characters a token: the budget guards against floods, it is not an exact count. */
    static int tokens(Map<String, Object> block) {
        return dev.graphrag.core.llm.Prompts.json(block).length() / 4;
    }
}
