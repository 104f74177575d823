package dev.graphrag.remind;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import dev.graphrag.core.search.VectorIndexQuery;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.NotFoundException;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The remind.* query side on the caller's transaction: seeds from the vector index, memory replay, the LLM walk,
 * memorisation (L9 filter, confirm/penalise split, Eq. 1 under write locks) and the answer (L10). Reads nothing
 * cached across calls: memories change with every memorisation, on any cluster member.
 */
public final class RemindEngine {
    public record Seed(Node node, double score) {}

    /** A traversal: what it collected, why it stopped, what it cost, and the hand-off remind.memorize takes back. */
    public record Traversal(List<Seed> seeds, Walk.Outcome outcome, Usage usage, Map<String, Object> handoff, long ms) {}

    public record Memorized(boolean written, long enhanced, long penalized, long unchanged, List<Relationship> enhancedRels,
                            List<Relationship> penalizedRels, Usage usage) {
        static final Memorized NOTHING = new Memorized(false, 0, 0, 0, List.of(), List.of(), Usage.NONE);
    }

    public record Answer(String answer, List<String> citedChunks, Traversal traversal, Memorized memorized, Map<String, Object> rerank, Usage usage, long ms) {}

    private final RagCall call;
    private final Transaction tx;
    private final RagCall.BoundLlm llm;

    /** {@code llm}: null for calls that need none (seeds, replay, an unguided traversal, an explicit memorisation). */
    public RemindEngine(RagCall call, RagCall.BoundLlm llm) {
        this.call = call;
        this.tx = call.tx();
        this.llm = llm;
    }

    double[] queryUnit(String query) {
        return MemoryMath.unit(MemoryMath.toDouble(call.embeddings().embed(query)));
    }

    public List<Seed> seeds(String owner, String query, RemindQueryConfig cfg) {
        checkQuery(owner, query);
        RemindLayer.SPEC.requireBuilt(tx, cfg.corpus(), call.embeddings());
        float[] qv = call.embeddings().embed(query);
        java.util.function.LongSupplier keys = () -> {
            try (var r = tx.execute("RETURN COUNT { (:RmKey {corpus: $c}) } AS n", Map.of("c", cfg.corpus()))) {
                return ((Number) r.next().get("n")).longValue();
            }
        };
        Map<Node, Double> top;
        Neo4jMemoryGraph view = graph(cfg);
        if (!view.hidesNodes()) {
            top = VectorIndexQuery.topInCorpus(tx, RemindGraph.KEY_INDEX, qv, cfg.corpus(), cfg.seedCount(), keys);
        } else {
            // seeds too come from what the walk may see: inside the where filter, and nothing only removed text supports
            top = VectorIndexQuery.topNodes(tx, RemindGraph.KEY_INDEX, qv, cfg.seedCount(),
                    n -> cfg.corpus().equals(n.getProperty("corpus", null)) && !view.hidden(n), keys);
        }
        if (top.isEmpty()) throw new RagException(owner + ": the ReMind layer of corpus '" + cfg.corpus() + "' has no entities or anchors (graph empty)");
        List<Seed> out = new ArrayList<>();
        top.forEach((n, s) -> out.add(new Seed(n, s)));
        return out;
    }

    /** The layer as the walk sees it: without what removed text alone supports, and without chunks and anchors outside the call's where filter. */
    private Neo4jMemoryGraph graph(RemindQueryConfig cfg) {
        if (filteredFor != cfg) {
            filtered = cfg.where() == null ? null : cfg.where().allowed(tx, cfg.corpus()).documentIds();
            Node meta = RemindLayer.SPEC.requireBuilt(tx, cfg.corpus(), call.embeddings());
            chunksChanged = RemindLayer.SPEC.chunksChangedSinceBuild(tx, cfg.corpus(), meta);
            filteredFor = cfg;
        }
        return new Neo4jMemoryGraph(tx, filtered, chunksChanged);
    }

    private RemindQueryConfig filteredFor;
    private java.util.Set<String> filtered;
    private boolean chunksChanged;

    /** Replay alone: no LLM, nothing written. */
    public Traversal replay(String query, RemindQueryConfig cfg) {
        long t0 = System.nanoTime();
        List<Seed> seeds = seeds("remind.replay", query, cfg);
        Neo4jMemoryGraph graph = graph(cfg);
        Subgraph s = new Replay(graph, queryUnit(query), cfg.replay()).run(seeds.stream().map(x -> x.node().getElementId()).toList());
        Walk.Outcome o = new Walk.Outcome(s, Walk.StopReason.REPLAY_ONLY, false, 0, 0, false, List.of());
        return new Traversal(seeds, o, Usage.NONE, handoff(cfg.corpus(), o), (System.nanoTime() - t0) / 1_000_000);
    }

    public Traversal traverse(String owner, String query, RemindQueryConfig cfg) {
        Neo4jMemoryGraph graph = graph(cfg);
        return traverse(owner, query, cfg, graph, prompts(graph, query, cfg));
    }

    private Traversal traverse(String owner, String query, RemindQueryConfig cfg, Neo4jMemoryGraph graph, PromptContext prompts) {
        long t0 = System.nanoTime();
        List<Seed> seeds = seeds(owner, query, cfg);
        Replay replay = new Replay(graph, queryUnit(query), cfg.replay());
        Subgraph s = replay.run(seeds.stream().map(x -> x.node().getElementId()).toList());
        UsageMeter usage = new UsageMeter();
        Walk.Outcome o;
        if (!cfg.walking().llmGuided()) {
            o = new Walk.Outcome(s, Walk.StopReason.REPLAY_ONLY, false, 0, 0, false, List.of());
        } else {
            requireLlm(owner);
            LlmGuide guide = new LlmGuide(llm.client(), llm.config(), usage, call.cancelled(), graph, prompts, cfg.walking().chunkSummaryThreshold(),
                    cfg.walking().showEdgeWeights(), cfg.walking().judgeEveryStep());
            o = new Walk(graph, replay, guide, cfg.walk()).run(s);
        }
        return new Traversal(seeds, o, usage.usage(), handoff(cfg.corpus(), o), (System.nanoTime() - t0) / 1_000_000);
    }

    /** remind.answer / remind.query: traverse, answer from S (L10), and memorise unless {@code write} is false or memorize:false. */
    public Answer answer(String owner, String query, RemindQueryConfig cfg, boolean write) {
        long t0 = System.nanoTime();
        requireLlm(owner);
        Neo4jMemoryGraph graph = graph(cfg);
        PromptContext prompts = prompts(graph, query, cfg);
        Traversal t = traverse(owner, query, cfg, graph, prompts);
        UsageMeter usage = new UsageMeter();
        usage.add(t.usage());
        LlmGuide ask = new LlmGuide(llm.client(), llm.config(), usage, call.cancelled(), graph, prompts, cfg.walking().chunkSummaryThreshold(),
                    cfg.walking().showEdgeWeights(), cfg.walking().judgeEveryStep());
        Subgraph s = t.outcome().subgraph();
        boolean memorize = write && cfg.memorize() && mayMemorize(t.outcome().memorizeAllowed(), t.outcome().jumps(), t.outcome().sufficient(), cfg);
        double[] q = memorize ? queryUnit(query) : null;
        Memorized m = Memorized.NOTHING;
        // the answer prompt's chunks: the subgraph's, or with rerank the reranker's order of them (rerankTopK kept)
        List<String> shown = s.chunks();
        Map<String, Object> rerankColumn = null;
        if (cfg.rerank().enabled()) {
            dev.graphrag.core.search.Reranker.Ranked<String> ranked = call.reranker(owner).rerank(query, shown,
                    c -> s.summaries().getOrDefault(c, graph.chunkText(c)), cfg.rerank().topK(), call.cancelled());
            shown = ranked.items();
            rerankColumn = ranked.column(graph::name);
            usage.add(ranked.usage());
        }
        RemindPrompts.Answer a;
        if (memorize && !cfg.filterWithAnswer()) {
            m = memorize(graph, prompts, ask, s, q, cfg, null);
            a = answerStep(ask, prompts, s, shown, cfg);
        } else {
            a = answerStep(ask, prompts, s, shown, cfg);
            if (memorize) m = memorize(graph, prompts, ask, s, q, cfg, a.answer());
        }
        List<String> cited = new ArrayList<>();
        for (String h : a.citedChunks() == null ? List.<String>of() : a.citedChunks()) {
            String c = prompts.node(h);
            if (c != null && shown.contains(c) && !cited.contains(graph.name(c))) cited.add(graph.name(c));
        }
        return new Answer(a.answer(), cited, t, m, rerankColumn, usage.usage(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** What memorisation does when the filter's reply is unusable (counted in tokensByStep). */
    static final String NOT_MEMORISED = "nothing memorised for this question";

    private RemindPrompts.Answer answerStep(LlmGuide ask, PromptContext prompts, Subgraph s, List<String> shownChunks, RemindQueryConfig cfg) {
        return ask.ask(RemindPrompts.ANSWER, RemindPrompts.answer(cfg.systemPrompt(), prompts.fit(prompts.block(s, shownChunks))), RemindPrompts.ANSWER_OUT);
    }

    /**
     * The walk's prompt context: ReMind's own block budget, and with an LLM the endpoint's window less the prompts' fixed
     * part, so no query prompt outgrows the window however large the subgraph.
     */
    private PromptContext prompts(MemoryGraph graph, String query, RemindQueryConfig cfg) {
        if (llm == null) return new PromptContext(graph, query, cfg.promptTokenBudget());
        long window = Math.max(1, llm.config().promptBudget() - dev.graphrag.core.llm.TokenCounter.withMargin(RemindPrompts.fixedTokens(cfg.systemPrompt())));
        return new PromptContext(graph, query, cfg.promptTokenBudget(), window);
    }

    static boolean mayMemorize(boolean allowed, int jumps, boolean sufficient, RemindQueryConfig cfg) {
        return allowed && (jumps > 0 || !cfg.memorizing().requireLlmSteps()) && (sufficient || cfg.memorizing().memorizeWhen() == RemindQueryConfig.MemorizeWhen.ALWAYS);
    }

    /** remind.memorize: a traversal handed back by a client, validated, then the same memorisation as remind.answer's. */
    public Memorized memorize(String query, Object traversal, RemindQueryConfig cfg) {
        checkQuery("remind.memorize", query);
        RemindLayer.SPEC.requireBuilt(tx, cfg.corpus(), call.embeddings());
        Neo4jMemoryGraph graph = graph(cfg);
        Handoff h = Handoff.read(tx, cfg.corpus(), traversal);
        // a traversal made before a chunk was removed or changed must not show its text to the filter, nor memorise on it
        for (String seed : h.subgraph().seeds()) {
            if (graph.hidden(tx.getNodeByElementId(seed))) throw new RagException("remind.memorize: traversal seed " + seed + " came from text removed or changed since; traverse again");
        }
        for (Subgraph.PathEdge e : h.subgraph().path()) {
            if (!graph.shows(tx.getRelationshipByElementId(e.edge()))) throw new RagException("remind.memorize: traversal edge " + e.edge() + " came from text removed or changed since; traverse again");
        }
        if (!mayMemorize(h.memorizeAllowed(), h.jumps(), h.sufficient(), cfg)) return Memorized.NOTHING;
        if (cfg.memorizing().filter() == RemindQueryConfig.Filter.LLM) requireLlm("remind.memorize");
        PromptContext prompts = prompts(graph, query, cfg);
        UsageMeter usage = new UsageMeter();
        LlmGuide ask = llm == null ? null : new LlmGuide(llm.client(), llm.config(), usage, call.cancelled(), graph, prompts, Integer.MAX_VALUE, false, true);
        Memorized m = memorize(graph, prompts, ask, h.subgraph(), queryUnit(query), cfg, null);
        return new Memorized(m.written(), m.enhanced(), m.penalized(), m.unchanged(), m.enhancedRels(), m.penalizedRels(), usage.usage());
    }

    private Memorized memorize(Neo4jMemoryGraph graph, PromptContext prompts, LlmGuide ask, Subgraph s, double[] q, RemindQueryConfig cfg, String answer) {
        if (s.path().isEmpty()) return Memorized.NOTHING;
        Set<String> usefulEdges = new HashSet<>(), usefulChunks = new HashSet<>();
        if (cfg.memorizing().filter() == RemindQueryConfig.Filter.EXPLICIT) {
            usefulEdges.addAll(cfg.memorizing().usefulRelIds());
            Set<String> ids = new HashSet<>(cfg.memorizing().usefulChunkIds());
            for (String c : s.chunks()) if (ids.contains(graph.name(c))) usefulChunks.add(c);
        } else {
            Map<String, Object> block = prompts.fit(prompts.block(s));
            if (answer != null) block.put("answer", answer);
            // an unusable filter reply confirms nothing: no edge is enhanced or penalised on a guess
            RemindPrompts.Filter f = ask.askOr(RemindPrompts.FILTER, RemindPrompts.filter(block), RemindPrompts.FILTER_OUT, NOT_MEMORISED, null);
            if (f == null) return Memorized.NOTHING;
            for (String h : f.edges()) if (prompts.edge(h) != null) usefulEdges.add(prompts.edge(h));
            for (String h : f.chunks()) {
                String c = prompts.node(h);
                if (c != null && s.hasChunk(c)) usefulChunks.add(c);
            }
        }
        Set<String> chunks = new HashSet<>(s.chunks());
        Confirmation.Split split = Confirmation.split(s.seeds(), s.path(), chunks, usefulEdges, usefulChunks, cfg.memorizing().confirmRule());
        Map<String, MemoryWriter.Op> ops = new LinkedHashMap<>();
        for (Subgraph.PathEdge e : split.confirmed()) ops.put(e.edge(), MemoryWriter.Op.ENHANCE);
        for (Subgraph.PathEdge e : split.ineffective()) ops.putIfAbsent(e.edge(), MemoryWriter.Op.PENALIZE);
        // no LLM call from here on: locks are held until the caller's transaction ends
        MemoryWriter.Counts c = MemoryWriter.apply(tx, ops, q, cfg.memorizing().penalty());
        List<Relationship> enhanced = split.confirmed().stream().map(e -> tx.getRelationshipByElementId(e.edge())).toList();
        List<Relationship> penalized = split.ineffective().stream().map(e -> tx.getRelationshipByElementId(e.edge())).toList();
        return new Memorized(true, c.enhanced(), c.penalized(), c.unchanged(), enhanced, penalized, Usage.NONE);
    }

    private void requireLlm(String owner) {
        if (llm == null) throw new RagException(owner + ": " + LlmConfig.HOW_TO_CONFIGURE);
    }

    static void checkQuery(String owner, String query) {
        if (query == null || query.isBlank()) throw new RagException(owner + ": query must be a non-empty string");
        if (query.length() > 10_000) throw new RagException(owner + ": query has " + query.length() + " characters, at most 10000");
    }

    /** The traversal as remind.memorize takes it back: element ids only, so it survives a round trip through any driver. */
    static Map<String, Object> handoff(String corpus, Walk.Outcome o) {
        Subgraph s = o.subgraph();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("corpus", corpus);
        m.put("seeds", s.seeds());
        List<Map<String, Object>> path = new ArrayList<>();
        for (Subgraph.PathEdge e : s.path()) {
            path.add(Map.of("relId", e.edge(), "from", e.from(), "to", e.to(), "origin", e.origin().name().toLowerCase(java.util.Locale.ROOT)));
        }
        m.put("path", path);
        m.put("summaries", new LinkedHashMap<>(s.summaries()));
        m.put("jumps", (long) o.jumps());
        m.put("memorizeAllowed", o.memorizeAllowed());
        m.put("sufficient", o.sufficient());
        return m;
    }

    /** A hand-off read back and checked: it must describe a forest of this corpus's ReMind edges rooted at its seeds (docs/remind.md#memory-and-replay). */
    record Handoff(Subgraph subgraph, int jumps, boolean memorizeAllowed, boolean sufficient) {
        static final int MAX_PATH = 10_000;
        // the keys of the map remind.traverse yields as its traversal column (docs/remind/remind.traverse.md)
        static final Key<String> CORPUS = Key.string("corpus", null);
        static final Key<List<String>> SEEDS = Key.strings("seeds", List.of());
        static final Key<List<Map<String, Object>>> PATH = Key.maps("path");
        static final Key<Map<String, Object>> SUMMARIES = Key.map("summaries");
        static final Key<Long> JUMPS = Key.longInteger("jumps", 0L, 0L, Integer.MAX_VALUE);
        static final Key<Boolean> MEMORIZE_ALLOWED = Key.bool("memorizeAllowed", false);
        static final Key<Boolean> SUFFICIENT = Key.bool("sufficient", false);

        static Handoff read(Transaction tx, String corpus, Object raw) {
            String owner = "remind.memorize";
            if (!(raw instanceof Map<?, ?> rawMap)) throw new RagException(owner + ": traversal must be the MAP remind.traverse yields, got " + ConfigReader.typeName(raw));
            @SuppressWarnings("unchecked") Map<String, Object> map = (Map<String, Object>) rawMap;
            ConfigReader.checkNesting(owner, "traversal", map);
            ConfigReader r = ConfigReader.of(owner + ": traversal", map);
            String c = CORPUS.read(r);
            if (!corpus.equals(c)) throw new RagException(owner + ": the traversal belongs to corpus '" + c + "', not '" + corpus + "'");
            List<String> seeds = SEEDS.read(r);
            List<Map<String, Object>> path = PATH.read(r);
            Map<String, Object> summaries = SUMMARIES.read(r);
            long jumps = JUMPS.read(r);
            boolean allowed = MEMORIZE_ALLOWED.read(r);
            boolean sufficient = SUFFICIENT.read(r);
            r.finish();
            if (seeds.isEmpty() || seeds.size() > 100) throw new RagException(owner + ": traversal.seeds must hold 1 to 100 node ids");
            if (path.size() > MAX_PATH) throw new RagException(owner + ": traversal.path has " + path.size() + " edges, at most " + MAX_PATH);
            Set<String> reached = new LinkedHashSet<>();
            for (int i = 0; i < seeds.size(); i++) {
                Node n = node(tx, seeds.get(i), owner + ": traversal.seeds[" + i + "]");
                if (!(n.hasLabel(RemindGraph.ENTITY) || n.hasLabel(RemindGraph.ANCHOR)) || !corpus.equals(n.getProperty("corpus", null))) {
                    throw new RagException(owner + ": traversal.seeds[" + i + "] is not an entity or anchor of corpus '" + corpus + "'");
                }
                if (!reached.add(seeds.get(i))) throw new RagException(owner + ": traversal.seeds[" + i + "] repeats a seed");
            }
            Subgraph s = new Subgraph(seeds);
            for (int i = 0; i < path.size(); i++) {
                String where = owner + ": traversal.path[" + i + "]";
                Map<String, Object> e = path.get(i);
                Object relId = e.get("relId"), from = e.get("from"), to = e.get("to");
                if (!(relId instanceof String rid) || !(from instanceof String f) || !(to instanceof String t)) {
                    throw new RagException(where + " must be a map {relId, from, to, origin} of STRING ids");
                }
                Relationship rel;
                try {
                    rel = tx.getRelationshipByElementId(rid);
                } catch (NotFoundException | IllegalArgumentException ex) {
                    throw new RagException(where + ": relationship " + rid + " does not exist");
                }
                if (!RemindGraph.MEMORY_TYPE_NAMES.contains(rel.getType().name())) {
                    throw new RagException(where + ": relationship " + rid + " is a " + rel.getType().name() + ", not a ReMind edge");
                }
                String a = rel.getStartNode().getElementId(), b = rel.getEndNode().getElementId();
                if (!(a.equals(f) && b.equals(t) || a.equals(t) && b.equals(f))) throw new RagException(where + ": relationship " + rid + " does not join " + f + " and " + t);
                if (!corpus.equals(rel.getStartNode().getProperty("corpus", null))) throw new RagException(where + ": relationship " + rid + " is not of corpus '" + corpus + "'");
                if (!reached.contains(f)) throw new RagException(where + ": starts at " + f + ", which is neither a seed nor reached by an earlier edge (not a forest rooted at the seeds)");
                if (!reached.add(t)) throw new RagException(where + ": enters " + t + " a second time (not a forest)");
                Node target = tx.getNodeByElementId(t);
                Subgraph.Origin origin = "replay".equals(e.get("origin")) ? Subgraph.Origin.REPLAY : "seed".equals(e.get("origin")) ? Subgraph.Origin.SEED : Subgraph.Origin.LLM;
                Subgraph.PathEdge pe = new Subgraph.PathEdge(rid, f, t, origin, 0);
                if (target.hasLabel(dev.graphrag.core.lexical.LexicalGraph.CHUNK)) {
                    s.addChunk(t, pe);
                    Object sum = summaries == null ? null : summaries.get(t);
                    if (sum instanceof String text) s.summary(t, text);
                } else {
                    s.addNode(t, pe);
                }
            }
            return new Handoff(s, (int) jumps, allowed, sufficient);
        }

        private static Node node(Transaction tx, String id, String where) {
            try {
                return tx.getNodeByElementId(id);
            } catch (NotFoundException | IllegalArgumentException e) {
                throw new RagException(where + ": node " + id + " does not exist");
            }
        }
    }
}
