package dev.graphrag.raga;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.search.DocumentFilter;
import dev.graphrag.core.search.VectorIndexQuery;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * RAGA's retrieval over the graph (paper §3.6): a vector stream of chunks from the lexical layer's vector index (never a
 * scan of every chunk vector), a graph stream from BFS with decay around entity anchors through the chunks' mentions,
 * and their weighted RRF. Modes: vector, kg, fusion (default), deep (LLM-extracted entities walked hop by hop), and
 * explore_fusion's vector_first and graph_first. The graph stream runs under a deadline; when it times out or fails, the
 * vector stream alone is returned with {@code degraded} set.
 */
public final class RagaRetriever {
    public enum Mode { VECTOR, KG, FUSION, DEEP, VECTOR_FIRST, GRAPH_FIRST }

    public record Settings(Mode mode, int topK, int k1, int rrfK, double wVec, double wKg, int hops, double decay, double semanticFilter, int anchorChunks,
                           int pageAnchors, int anchorEntities, int maxExpanded, long kgTimeoutMs, int deepHops, List<String> docIds,
                           DocumentFilter where) {
        /**
         * Fusion's graph stream anchors on the top 3 vector chunks and goes 1 hop with semanticFilter 0.5, as chosen on
         * MuSiQue's tuning half (docs/benchmarks.md "RAGA"): the 20 anchor chunks first proposed make nearly every nearby entity
         * an anchor, and the stream then ranks hub chunks first. Modes that anchor on entity hits alone (kg,
         * graph_first) keep the first proposal's 2 hops and 0.25, which tied for best in kg mode's grid. The stream lists the pages
         * of the entities the best vector chunk names first (pageAnchors 1, also chosen on the tuning half; not in the paper).
         */
        public static final Settings DEFAULTS = new Settings(Mode.FUSION, 8, 100, 60, 1, 1, 1, 0.5, 0.5, 3, 1, 10, 200, 5000, 2, null, null);

        /** The defaults of a mode. */
        public static Settings defaults(Mode m) {
            Settings d = DEFAULTS.withMode(m);
            if (m != Mode.KG && m != Mode.GRAPH_FIRST) return d;
            return new Settings(m, d.topK, d.k1, d.rrfK, d.wVec, d.wKg, 2, d.decay, 0.25, d.anchorChunks, d.pageAnchors, d.anchorEntities, d.maxExpanded, d.kgTimeoutMs, d.deepHops, d.docIds, d.where);
        }

        public Settings withTopK(int k) {
            return new Settings(mode, k, k1, rrfK, wVec, wKg, hops, decay, semanticFilter, anchorChunks, pageAnchors, anchorEntities, maxExpanded, kgTimeoutMs, deepHops, docIds, where);
        }

        public Settings withMode(Mode m) {
            return new Settings(m, topK, k1, rrfK, wVec, wKg, hops, decay, semanticFilter, anchorChunks, pageAnchors, anchorEntities, maxExpanded, kgTimeoutMs, deepHops, docIds, where);
        }

        Fusion.Settings fusion() {
            return new Fusion.Settings(anchorChunks, pageAnchors, hops, decay, semanticFilter, maxExpanded, rrfK, wVec, wKg, topK);
        }
    }

    /** A ranked chunk; ranks are 1-based, 0 = not in that stream. {@code entities}: the scored entities it mentions. */
    public record Hit(String chunkId, String docId, long index, String text, double score, int vecRank, int kgRank, double vecScore, double kgScore,
                      long start, long end, Node chunk, List<Node> entities) {
        /** The chunk's mentions of the hit's entities, for Browser to draw beside them. */
        public List<Relationship> mentions() {
            Set<String> ids = new HashSet<>();
            for (Node e : entities) ids.add(e.getElementId());
            List<Relationship> out = new ArrayList<>();
            for (Relationship m : chunk.getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) if (ids.contains(m.getEndNode().getElementId())) out.add(m);
            return out;
        }
    }

    /** Hits; the anchor entities' names; facts among the scored entities; degraded with its reason. */
    public record Retrieval(List<Hit> hits, List<String> anchors, List<Map<String, Object>> facts, boolean degraded, String degradedReason) {}

    private static final class Timeout extends RuntimeException {
        Timeout() { super("the graph stream ran past kgTimeoutMs", null, false, false); }
    }

    private final Transaction tx;
    private final EmbeddingService embeddings;
    private final String corpus;
    private final Map<String, Node> chunkNodes = new HashMap<>();
    private final Map<String, Node> entityNodes = new HashMap<>();

    public RagaRetriever(Transaction tx, EmbeddingService embeddings, String corpus) {
        this.tx = tx;
        this.embeddings = embeddings;
        this.corpus = corpus;
    }

    public Retrieval retrieve(String query, Settings s, BooleanSupplier cancelled) {
        return retrieve(query, s, cancelled, null);
    }

    /** {@code extractEntities} answers deep mode's query analysis (L5); unused by the other modes. */
    public Retrieval retrieve(String query, Settings s, BooleanSupplier cancelled, Function<String, List<String>> extractEntities) {
        Retrieval r = retrieveWithin(query, resolve(s), cancelled, extractEntities);
        if (s.where() == null && s.docIds() == null) return r;
        // a fact shows entity names and its evidence chunk: one only when that chunk is inside the filter
        Set<String> docs = new HashSet<>(resolve(s).docIds());
        List<Map<String, Object>> facts = r.facts().stream()
                .filter(f -> f.get("chunkId") instanceof String id && docs.contains(LexicalGraph.documentIdOf(corpus, id))).toList();
        return new Retrieval(r.hits(), r.anchors(), facts, r.degraded(), r.degradedReason());
    }

    /** The settings with a where filter turned into the document ids it admits (within docIds, when both are given). */
    private Settings resolve(Settings s) {
        if (s.where() == null) return s;
        if (resolvedFor == s) return resolved;
        Set<String> admitted = s.where().allowed(tx, corpus).documentIds();
        List<String> ids = s.docIds() == null ? List.copyOf(new java.util.TreeSet<>(admitted))
                : s.docIds().stream().filter(admitted::contains).toList();
        resolved = new Settings(s.mode(), s.topK(), s.k1(), s.rrfK(), s.wVec(), s.wKg(), s.hops(), s.decay(), s.semanticFilter(), s.anchorChunks(),
                s.pageAnchors(), s.anchorEntities(), s.maxExpanded(), s.kgTimeoutMs(), s.deepHops(), ids, null);
        resolvedFor = s;
        return resolved;
    }

    private Settings resolvedFor, resolved;

    private Retrieval retrieveWithin(String query, Settings s, BooleanSupplier cancelled, Function<String, List<String>> extractEntities) {
        float[] q = embeddings.embed(query);
        List<Map.Entry<Fusion.Chunk, Double>> vector = vectorStream(q, s);
        if (s.mode() == Mode.VECTOR) return new Retrieval(vectorHits(vector, s), List.of(), List.of(), false, null);
        if (s.mode() == Mode.DEEP) return deep(query, q, vector, s, extractEntities);
        Map<String, Double> entityAnchors = new LinkedHashMap<>();
        List<Map.Entry<Fusion.Chunk, Double>> anchorChunks = vector;
        if (s.mode() != Mode.VECTOR_FIRST) entityAnchors.putAll(entityVectorAnchors(q, s.anchorEntities()));
        if (s.mode() == Mode.KG || s.mode() == Mode.GRAPH_FIRST) {
            anchorChunks = List.of();
            fullTextAnchors(query, s.anchorEntities()).forEach((e, v) -> entityAnchors.merge(e, v, Math::max));
        }
        LinkedHashMap<Fusion.Chunk, Double> kg;
        Map<String, Double> sigma = new HashMap<>();
        try {
            if (s.kgTimeoutMs() <= 0) throw new Timeout();
            long deadline = System.nanoTime() + s.kgTimeoutMs() * 1_000_000L;
            kg = Fusion.graphScores(anchorChunks, entityAnchors, graph(q, deadline, cancelled, sigma), s.fusion());
            // the graph reaches chunks through entities; a document filter holds for them as for the vector stream
            if (s.docIds() != null) kg.keySet().removeIf(c -> !s.docIds().contains(c.docId()));
        } catch (RuntimeException e) {
            if (cancelled.getAsBoolean()) throw e;
            String why = e instanceof Timeout ? e.getMessage() : "the graph stream failed: " + e.getMessage();
            List<Fusion.Hit> fused = Fusion.fuse(vector, new LinkedHashMap<>(), s.fusion());
            return new Retrieval(hits(fused, Map.of()), List.of(), List.of(), true, why);
        }
        List<String> anchors = new ArrayList<>();
        for (String id : sigma.keySet()) if (anchors.size() < 20) anchors.add((String) node(id).getProperty("name"));
        List<Fusion.Hit> ranked;
        if (s.mode() == Mode.KG) {
            ranked = new ArrayList<>();
            int r = 0;
            for (Map.Entry<Fusion.Chunk, Double> e : kg.entrySet()) {
                if (ranked.size() >= s.topK()) break;
                ranked.add(new Fusion.Hit(e.getKey(), e.getValue(), rankOf(vector, e.getKey()), ++r, scoreOf(vector, e.getKey()), e.getValue()));
            }
        } else if (s.mode() == Mode.GRAPH_FIRST) {
            ranked = new ArrayList<>();
            Set<Fusion.Chunk> seen = new HashSet<>();
            int r = 0;
            for (Map.Entry<Fusion.Chunk, Double> e : kg.entrySet()) {
                if (ranked.size() >= s.topK()) break;
                seen.add(e.getKey());
                ranked.add(new Fusion.Hit(e.getKey(), e.getValue(), rankOf(vector, e.getKey()), ++r, scoreOf(vector, e.getKey()), e.getValue()));
            }
            for (int i = 0; i < vector.size() && ranked.size() < s.topK(); i++) {
                Fusion.Chunk c = vector.get(i).getKey();
                if (seen.add(c)) ranked.add(new Fusion.Hit(c, vector.get(i).getValue(), i + 1, 0, vector.get(i).getValue(), 0));
            }
        } else {
            ranked = Fusion.fuse(vector, kg, s.fusion());
        }
        return new Retrieval(hits(ranked, sigma), anchors, facts(sigma, 20), false, null);
    }

    private static int rankOf(List<Map.Entry<Fusion.Chunk, Double>> vector, Fusion.Chunk c) {
        for (int i = 0; i < vector.size(); i++) if (vector.get(i).getKey().equals(c)) return i + 1;
        return 0;
    }

    private static double scoreOf(List<Map.Entry<Fusion.Chunk, Double>> vector, Fusion.Chunk c) {
        for (Map.Entry<Fusion.Chunk, Double> e : vector) if (e.getKey().equals(c)) return e.getValue();
        return 0;
    }

    // ---- streams

    /** Top k1 chunks by s_vec = 1/(1 + ||q - x||) (Eq. 3, from the cosine of unit vectors), through the vector index. */
    List<Map.Entry<Fusion.Chunk, Double>> vectorStream(float[] q, Settings s) {
        List<Map.Entry<Fusion.Chunk, Double>> out = new ArrayList<>();
        if (s.docIds() != null) {
            // a document filter: exact over those documents' chunks (few), instead of over-fetching the whole index; found
            // through their documents' key, since the chunks' corpus index would read every chunk of the corpus
            try (Result r = tx.execute("UNWIND $docs AS doc MATCH (:Document {corpus: $corpus, id: doc})-[:HAS_CHUNK]->(c:Chunk) RETURN c",
                    Map.of("corpus", corpus, "docs", List.copyOf(new java.util.LinkedHashSet<>(s.docIds()))))) {
                while (r.hasNext()) {
                    Node c = (Node) r.next().get("c");
                    Object v = c.getProperty("embedding", null);
                    if (v != null) out.add(new AbstractMap.SimpleEntry<>(chunk(c), Fusion.vectorScore(EmbeddingService.cosine(q, ModelIdentity.floats(v)))));
                }
            }
            out.sort(Comparator.comparingDouble((Map.Entry<Fusion.Chunk, Double> e) -> -e.getValue()).thenComparing(e -> e.getKey().docId())
                    .thenComparingLong(e -> e.getKey().index()));
            return out.size() > s.k1() ? new ArrayList<>(out.subList(0, s.k1())) : out;
        }
        for (Map.Entry<Node, Double> e : VectorIndexQuery.topInCorpus(tx, LexicalGraph.VECTOR_INDEX, q, corpus, s.k1(), this::countChunks).entrySet()) {
            out.add(new AbstractMap.SimpleEntry<>(chunk(e.getKey()), Fusion.vectorScore(e.getValue())));
        }
        return out;
    }

    private long countChunks() {
        try (Result r = tx.execute("MATCH (c:Chunk) RETURN count(c) AS n")) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    private Fusion.Chunk chunk(Node c) {
        String id = (String) c.getProperty("id");
        chunkNodes.put(id, c);
        return new Fusion.Chunk(id, (String) c.getProperty("documentId"), ((Number) c.getProperty("index")).longValue());
    }

    private Boolean removalsPending;

    /** Whether chunks changed since raga.ingest last removed what removed text supported: then every entity and relation shown is checked. */
    private boolean removalsPending() {
        if (removalsPending == null) removalsPending = RemovedEvidence.pending(tx, corpus);
        return removalsPending;
    }

    /** A relation retrieval may walk and show: not deleted, and while removals are pending, still quoted by a present chunk. */
    private boolean shows(Relationship r) {
        if (Boolean.TRUE.equals(r.getProperty("deleted", false))) return false;
        return !removalsPending() || RemovedEvidence.shown(tx, r);
    }

    private Node node(String elementId) {
        return entityNodes.computeIfAbsent(elementId, tx::getNodeByElementId);
    }

    Map<String, Double> entityVectorAnchors(float[] q, int n) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (n <= 0) return out;
        Map<Node, Double> top = removalsPending()
                ? VectorIndexQuery.topNodes(tx, RagaGraph.ENTITY_VECTOR_INDEX, q, n, e -> corpus.equals(e.getProperty("corpus", null)) && RemovedEvidence.supported(e), this::countEntities)
                : VectorIndexQuery.topInCorpus(tx, RagaGraph.ENTITY_VECTOR_INDEX, q, corpus, n, this::countEntities);
        for (Map.Entry<Node, Double> e : top.entrySet()) {
            entityNodes.put(e.getKey().getElementId(), e.getKey());
            out.put(e.getKey().getElementId(), Fusion.vectorScore(e.getValue()));
        }
        return out;
    }

    private long countEntities() {
        try (Result r = tx.execute("RETURN COUNT { (:RagaEntity {corpus: $c}) } AS n", Map.of("c", corpus))) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    /** kg mode's anchors: full-text entity hits, α = score / top score. */
    Map<String, Double> fullTextAnchors(String query, int n) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (n <= 0) return out;
        Map<Node, Double> ft = new KnowledgeStore(tx, embeddings, new ToolContext(corpus, null, null, ToolContext.Settings.DEFAULTS)).fullText(query, n, false);
        double max = ft.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        ft.forEach((e, v) -> {
            if (removalsPending() && !RemovedEvidence.supported(e)) return;
            entityNodes.put(e.getElementId(), e);
            out.put(e.getElementId(), v / max);
        });
        return out;
    }

    /** The graph as Fusion reads it, with a deadline; {@code sigmaOut} collects the entities scored (σ), for display and facts. */
    private Fusion.Graph graph(float[] q, long deadline, BooleanSupplier cancelled, Map<String, Double> sigmaOut) {
        Map<String, Double> sims = new HashMap<>();
        return new Fusion.Graph(chunkId -> {
            List<String> out = new ArrayList<>();
            for (Relationship r : chunkNodes.get(chunkId).getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) {
                Node e = r.getEndNode();
                entityNodes.put(e.getElementId(), e);
                out.add(e.getElementId());
            }
            return out;
        }, entityId -> {
            if (System.nanoTime() > deadline) throw new Timeout();
            if (cancelled.getAsBoolean()) throw new dev.graphrag.core.RagException("raga.retrieve cancelled");
            List<String> out = new ArrayList<>();
            for (Relationship r : node(entityId).getRelationships(RagaGraph.REL)) {
                if (!shows(r)) continue;
                Node o = r.getOtherNode(node(entityId));
                entityNodes.put(o.getElementId(), o);
                out.add(o.getElementId());
            }
            return out;
        }, entityId -> {
            sigmaOut.put(entityId, 0.0);
            List<Fusion.Chunk> out = new ArrayList<>();
            for (Relationship r : node(entityId).getRelationships(Direction.INCOMING, RagaGraph.MENTIONS)) out.add(chunk(r.getStartNode()));
            return out;
        }, entityId -> sims.computeIfAbsent(entityId, id -> {
            Object v = node(id).getProperty("embedding", null);
            return v == null ? 0 : EmbeddingService.cosine(q, ModelIdentity.floats(v));
        }), this::pages, c -> {
            Object v = chunkNodes.get(c.id()).getProperty("embedding", null);
            return v == null ? 0 : Fusion.vectorScore(EmbeddingService.cosine(q, ModelIdentity.floats(v)));
        });
    }

    /** An entity's pages: the chunks of this corpus's documents whose title key is the key of its name or of an alias. */
    private List<Fusion.Chunk> pages(String entityId) {
        List<Fusion.Chunk> out = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        Node e = node(entityId);
        keys.add(NameKey.of((String) e.getProperty("name", "")));
        for (Relationship r : e.getRelationships(Direction.INCOMING, RagaGraph.ALIAS_OF)) keys.add((String) r.getStartNode().getProperty("key", ""));
        keys.remove("");
        for (String key : keys) {
            try (var documents = tx.findNodes(LexicalGraph.DOCUMENT, "corpus", corpus, RagaGraph.TITLE_KEY, key)) {
                while (documents.hasNext()) {
                    for (Relationship r : documents.next().getRelationships(Direction.OUTGOING, LexicalGraph.HAS_CHUNK)) out.add(chunk(r.getEndNode()));
                }
            }
        }
        return out;
    }

    // ---- results

    private List<Hit> vectorHits(List<Map.Entry<Fusion.Chunk, Double>> vector, Settings s) {
        List<Fusion.Hit> out = new ArrayList<>();
        for (int i = 0; i < Math.min(s.topK(), vector.size()); i++) {
            out.add(new Fusion.Hit(vector.get(i).getKey(), vector.get(i).getValue(), i + 1, 0, vector.get(i).getValue(), 0));
        }
        return hits(out, Map.of());
    }

    private List<Hit> hits(List<Fusion.Hit> ranked, Map<String, Double> sigma) {
        List<Hit> out = new ArrayList<>();
        for (Fusion.Hit h : ranked) {
            Node c = chunkNodes.get(h.chunk().id());
            List<Node> ents = new ArrayList<>();
            if (!sigma.isEmpty()) {
                for (Relationship r : c.getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) {
                    if (sigma.containsKey(r.getEndNode().getElementId())) ents.add(r.getEndNode());
                }
            }
            out.add(new Hit(h.chunk().id(), h.chunk().docId(), h.chunk().index(), (String) c.getProperty("text"), h.score(), h.vecRank(), h.kgRank(),
                    h.vecScore(), h.kgScore(), ((Number) c.getProperty("start", 0L)).longValue(), ((Number) c.getProperty("end", 0L)).longValue(), c, ents));
        }
        return out;
    }

    /** Up to max non-deleted relations among the scored entities, as {head, type, tail, chunkId}. */
    List<Map<String, Object>> facts(Map<String, Double> sigma, int max) {
        List<Map<String, Object>> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String id : sigma.keySet()) {
            for (Relationship r : node(id).getRelationships(Direction.OUTGOING, RagaGraph.REL)) {
                if (out.size() >= max) return out;
                if (!shows(r) || !sigma.containsKey(r.getEndNode().getElementId())) continue;
                if (!seen.add(r.getElementId())) continue;
                // the chunks of its quotes that are still there (a chunk id a replaced text took over cites none of them)
                String[] chunks = removalsPending() ? RemovedEvidence.liveEvidence(tx, r).toArray(new String[0])
                        : (String[]) r.getProperty("evidenceChunkIds", new String[0]);
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("head", r.getStartNode().getProperty("name"));
                f.put("type", r.getProperty("relType"));
                f.put("tail", r.getEndNode().getProperty("name"));
                f.put("chunkId", chunks.length == 0 ? null : chunks[0]);
                out.add(f);
            }
        }
        return out;
    }

    // ---- deep

    /**
     * Deep mode (our own design; the paper gives none): seeds from the query's entities (alias key, else the top full-text hit
     * sharing at least half of its tokens); per hop, the unseen chunks mentioning the frontier, by s_vec; the next frontier
     * is the 5 neighbours (relations and co-mentions) most similar to the query. Then vector candidates fill topK.
     */
    private Retrieval deep(String query, float[] q, List<Map.Entry<Fusion.Chunk, Double>> vector, Settings s, Function<String, List<String>> extract) {
        List<String> names = extract == null ? List.of() : extract.apply(query);
        KnowledgeStore store = new KnowledgeStore(tx, embeddings, new ToolContext(corpus, null, null, ToolContext.Settings.DEFAULTS));
        Set<Node> frontier = new LinkedHashSet<>();
        for (String n : names) {
            Node e = store.resolve(n);
            if (e == null) {
                Map<Node, Double> ft = store.fullText(n, 1, false);
                if (!ft.isEmpty() && overlap(n, (String) ft.keySet().iterator().next().getProperty("name")) >= 0.5) e = ft.keySet().iterator().next();
            }
            if (e != null) frontier.add(e);
        }
        if (frontier.isEmpty()) {
            Retrieval v = new Retrieval(vectorHits(vector, s), List.of(), List.of(), false, null);
            return v;
        }
        List<String> anchors = frontier.stream().map(e -> (String) e.getProperty("name")).toList();
        Map<String, Double> sigma = new LinkedHashMap<>();
        List<Fusion.Hit> nav = new ArrayList<>();
        Set<String> seenChunks = new HashSet<>();
        Set<String> seenEntities = new HashSet<>();
        for (int hop = 0; hop <= s.deepHops() && !frontier.isEmpty() && nav.size() < s.topK(); hop++) {
            List<Map.Entry<Node, Double>> found = new ArrayList<>();
            Set<Node> next = new LinkedHashSet<>();
            for (Node e : frontier) {
                seenEntities.add(e.getElementId());
                entityNodes.put(e.getElementId(), e);
                sigma.put(e.getElementId(), 1.0);
                for (Relationship r : e.getRelationships(Direction.INCOMING, RagaGraph.MENTIONS)) {
                    Node c = r.getStartNode();
                    if (s.docIds() != null && !s.docIds().contains((String) c.getProperty("documentId"))) continue;
                    if (seenChunks.add((String) c.getProperty("id"))) {
                        Object v = c.getProperty("embedding", null);
                        found.add(new AbstractMap.SimpleEntry<>(c, v == null ? 0 : Fusion.vectorScore(EmbeddingService.cosine(q, ModelIdentity.floats(v)))));
                    }
                }
                for (Relationship r : e.getRelationships(RagaGraph.REL)) {
                    if (shows(r)) next.add(r.getOtherNode(e));
                }
            }
            found.sort(Comparator.comparingDouble((Map.Entry<Node, Double> x) -> -x.getValue()));
            for (Map.Entry<Node, Double> f : found) {
                if (nav.size() >= s.topK()) break;
                Fusion.Chunk c = chunk(f.getKey());
                nav.add(new Fusion.Hit(c, f.getValue(), rankOf(vector, c), nav.size() + 1, scoreOf(vector, c), f.getValue()));
                for (Relationship r : f.getKey().getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) next.add(r.getEndNode());
            }
            next.removeIf(n -> seenEntities.contains(n.getElementId()));
            List<Node> ordered = new ArrayList<>(next);
            ordered.sort(Comparator.comparingDouble((Node n) -> {
                Object v = n.getProperty("embedding", null);
                return v == null ? 1 : -EmbeddingService.cosine(q, ModelIdentity.floats(v));
            }));
            frontier = new LinkedHashSet<>(ordered.subList(0, Math.min(5, ordered.size())));
        }
        for (int i = 0; i < vector.size() && nav.size() < s.topK(); i++) {
            Fusion.Chunk c = vector.get(i).getKey();
            if (seenChunks.add(c.id())) nav.add(new Fusion.Hit(c, vector.get(i).getValue(), i + 1, 0, vector.get(i).getValue(), 0));
        }
        return new Retrieval(hits(nav, sigma), anchors, facts(sigma, 20), false, null);
    }

    /** Share of the query string's tokens found in the name. */
    static double overlap(String query, String name) {
        Set<String> a = new HashSet<>(List.of(NameKey.of(query).split(" ")));
        Set<String> b = new HashSet<>(List.of(NameKey.of(name).toLowerCase(Locale.ROOT).split(" ")));
        if (a.isEmpty()) return 0;
        long hit = a.stream().filter(b::contains).count();
        return (double) hit / a.size();
    }
}
