package dev.graphrag.hgmem;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import dev.graphrag.core.search.ChunkSearch;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;

/**
 * hgmem.evolve, hgmem.respond, hgmem.answer and hgmem.retrieve on the graph. A step runs under this member's lock on
 * the session, reads in the caller's transaction, calls the LLM with nothing written, then commits everything it
 * changed in one transaction of its own (SessionStore.commitStep). A failure inside a step writes nothing of it and
 * marks the session failed; the next hgmem.evolve (or hgmem.answer with its sessionId) resumes at that step.
 */
public final class HgmemEngine {
    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    /** What one step did (hgmem.evolve's row, and a step row of hgmem.answer). */
    public record StepRow(String sessionId, long step, String mode, List<String> subqueries, List<Map<String, Object>> retrieval, List<String> retrievedEntities,
                          List<String> retrievedChunks, long inserted, long updated, long merged, long units, long vertices, double avgVerticesPerUnit,
                          String judgement, List<Map<String, Object>> concerns, List<String> nextSubqueries, boolean done, List<String> warnings, Usage usage,
                          long ms) {}

    /** The final answer (hgmem.respond's row). */
    public record Response(String sessionId, String answer, List<String> citedChunks, List<String> chunks, long contextTokens, long units,
                           double avgVerticesPerUnit, List<Map<String, Object>> memory, Map<String, Object> rerank, Usage usage, long ms) {}

    private final RagCall call;
    private final RagCall.BoundLlm llm;
    private final EmbeddingService embeddings;
    private final Transaction tx;

    public HgmemEngine(RagCall call, RagCall.BoundLlm llm) {
        this.call = call;
        this.llm = llm;
        this.embeddings = call.embeddings();
        this.tx = call.tx();
    }

    static String checkSessionId(String owner, String id) {
        if (id == null || !SESSION_ID.matcher(id).matches()) {
            throw new RagException(owner + ": sessionId must be 1-128 characters of letters, digits and _ . : -, got " + (id == null ? "null" : "'" + id + "'"));
        }
        return id;
    }

    // ---- evolve

    public StepRow evolve(String sessionId, String query, Map<String, Object> config) {
        String owner = "hgmem.evolve";
        if (sessionId != null) checkSessionId(owner, sessionId);
        if (query != null) ChunkSearch.checkQuery(owner, query);
        Map<String, Object> call0 = config == null ? Map.of() : config;
        HgmemConfig checked = HgmemConfig.parse(HgmemConfig.Use.EVOLVE, call0); // the call's own keys, checked before anything else
        String id = sessionId != null ? sessionId : SessionStore.newId();
        Node existing = SessionStore.find(tx, id);
        String corpus = existing == null ? checked.corpus() : (String) existing.getProperty("corpus");
        return locked(owner, corpus, id, () -> {
            Prepared p = prepare(owner, id, query, call0, HgmemConfig.Use.EVOLVE);
            applyOverrides(owner, p, checked.call());
            if (checked.call().force()) p.session.done = false;
            else if (p.session.done()) {
                throw new RagException(owner + ": session '" + id + "' is done (judged sufficient, or at maxTurns); hgmem.respond answers from it,"
                        + " or force: true (with subqueries) runs another step");
            }
            return step(owner, p);
        });
    }

    /** A session loaded (or new) with its parsed config, checked against the base graph and the LLM. */
    private static final class Prepared {
        String id;
        String corpus;
        HgmemConfig cfg;
        Evolution.Session session;
        Node meta;
        /** The keys the session keeps: those it was started with, with the ones this call gave over them (whatever this use reads). */
        Map<String, Object> stored;
    }

    private Prepared prepare(String owner, String id, String query, Map<String, Object> config, HgmemConfig.Use use) {
        Prepared p = new Prepared();
        p.id = id;
        Node existing = SessionStore.find(tx, id);
        if (existing == null) {
            if (query == null) throw new RagException(owner + ": there is no session '" + id + "' yet, so query is needed to start one");
            p.cfg = HgmemConfig.parse(use, config);
            p.corpus = p.cfg.corpus();
            p.session = new Evolution.Session(query, new HypergraphMemory(SessionStore::newId));
            p.stored = p.cfg.stored();
        } else {
            SessionStore.Loaded l = SessionStore.load(tx, id);
            if (query != null && !query.equals(l.session().query())) {
                throw new RagException(owner + ": session '" + id + "' answers another question ('" + l.session().query() + "'); pass null as query, or a new sessionId");
            }
            requireSourcesUnchanged(owner, id, existing, l.session().chunkIds());
            p.corpus = l.corpus();
            p.cfg = HgmemConfig.parse(use, HgmemConfig.overSession(owner, use, l.config(), config, l.corpus()));
            p.session = l.session();
            p.stored = new java.util.LinkedHashMap<>(l.config());
            p.stored.putAll(p.cfg.stored()); // the call's keys over the session's; keys this use does not read are kept, not dropped
        }
        p.meta = HgmemLayer.SPEC.requireBuilt(tx, p.corpus, embeddings);
        if (llm == null) throw new RagException(owner + ": HGMem needs an LLM: " + LlmConfig.HOW_TO_CONFIGURE);
        return p;
    }

    /**
     * A session's memory points were written from the chunks it read; once one of them is removed or replaced
     * (docs/hgmem.md#updates-and-deletes), going on would carry its old text into every later prompt, so the session is
     * refused with the chunks named: a new session reads the corpus as it is.
     */
    private void requireSourcesUnchanged(String owner, String id, Node session, java.util.Collection<String> chunkIds) {
        if (!(session.getProperty("updatedAt", session.getProperty("createdAt", null)) instanceof java.time.ZonedDateTime since)) return;
        List<String> changed = new ArrayList<>();
        for (String c : chunkIds) {
            Node chunk = tx.findNode(dev.graphrag.core.lexical.LexicalGraph.CHUNK, "id", c);
            Relationship has = chunk == null ? null : chunk.getSingleRelationship(dev.graphrag.core.lexical.LexicalGraph.HAS_CHUNK, org.neo4j.graphdb.Direction.INCOMING);
            Object ingested = has == null ? null : has.getStartNode().getProperty("ingestedAt", null);
            if (has == null || ingested instanceof java.time.ZonedDateTime t && t.isAfter(since)) changed.add(c);
        }
        if (!changed.isEmpty()) {
            throw new RagException(owner + ": session '" + id + "' read " + changed.size() + " chunk(s) removed or replaced since its last step ("
                    + String.join(", ", changed.subList(0, Math.min(5, changed.size()))) + (changed.size() > 5 ? ", ..." : "")
                    + "): its memory may hold their old text; start a new session");
        }
    }

    /** subqueries (and targets: listing indices per subquery, null = global) replace the pending ones for manual control. */
    private void applyOverrides(String owner, Prepared p, HgmemConfig.Call call) {
        List<String> raw = call.subqueries();
        if (raw == null) {
            if (call.targets() != null) throw new RagException(owner + ": targets needs subqueries (one target entry per subquery)");
            return;
        }
        if (raw.isEmpty() || raw.size() > 20 || !raw.stream().allMatch(x -> !x.isBlank())) {
            throw new RagException(owner + ": config key 'subqueries' must be a LIST of 1 to 20 non-empty strings");
        }
        List<String> subs = raw.stream().map(x -> ChunkSearch.checkQuery(owner, x)).toList();
        List<List<Integer>> targets = HgmemConfig.targets(owner, call.targets(), subs.size());
        List<Evolution.Task> tasks = new ArrayList<>();
        int size = p.session.memory().listing().size();
        for (int i = 0; i < subs.size(); i++) {
            List<Integer> t = targets == null ? null : targets.get(i);
            if (t != null) {
                for (int idx : t) {
                    if (idx < 0 || idx >= size) throw new RagException(owner + ": targets names memory point " + idx + " but the memory has " + size + " points");
                }
            }
            tasks.add(new Evolution.Task(subs.get(i), t == null ? null : p.session.memory().idsAt(t)));
        }
        p.session.pending = tasks;
    }

    /** The documents a where filter admits, or null when the call (or its session) has none. */
    private java.util.Set<String> admitted(HgmemConfig cfg) {
        return cfg.where() == null ? null : cfg.where().allowed(tx, cfg.corpus()).documentIds();
    }

    private StepRow step(String owner, Prepared p) {
        long t0 = System.nanoTime();
        UsageMeter meter = new UsageMeter();
        LlmPlanner planner = new LlmPlanner(llm.client(), llm.config(), meter, call.cancelled());
        List<String> types = Arrays.asList((String[]) p.meta.getProperty("entityTypes", BaseGraphExtraction.DEFAULT_TYPES.toArray(String[]::new)));
        Neo4jHypergraph graph = new Neo4jHypergraph(tx, p.corpus, embeddings, p.cfg.retrieval(), types,
                (names, pairs, ts, ctx) -> planner.describeAbsent(names, pairs, ts, ctx, p.cfg.loop().absentMaxAttempts()), admitted(p.cfg));
        int t = p.session.step();
        Evolution.StepResult r;
        try {
            r = new Evolution(planner, graph, p.cfg.loop().settings()).step(p.session);
            if (call.cancelled().getAsBoolean()) throw new RagException("terminated");
        } catch (RuntimeException e) {
            String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            try (Transaction w = call.db().beginTx()) {
                SessionStore.markFailed(w, p.id, p.corpus, p.session.query(), p.stored, t, msg);
                w.commit();
            }
            throw new RagException(owner + ": step " + t + " of session '" + p.id + "' failed (" + msg + "); nothing of it was written, earlier steps"
                    + " are kept, and the session is marked failed: hgmem.evolve('" + p.id + "', null) resumes it at step " + t);
        }
        Usage u = meter.usage();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        List<Map<String, Object>> retrieval = new ArrayList<>();
        for (Neo4jHypergraph.TaskRetrieval tr : graph.lastRetrieval()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("subquery", tr.subquery());
            m.put("mode", tr.mode());
            m.put("candidates", tr.candidates());
            m.put("entities", tr.entities().stream().map(Neo4jHypergraph.Scored::id).toList());
            m.put("chunks", tr.chunks().stream().map(Neo4jHypergraph.Scored::id).toList());
            retrieval.add(m);
        }
        List<Map<String, Object>> concerns = new ArrayList<>();
        for (Evolution.Concern c : r.concerns()) concerns.add(Map.of("concern", c.text(), "memoryPointIndices", c.indices()));
        HypergraphMemory m = p.session.memory();
        StepRow row = new StepRow(p.id, t, r.mode(), r.subqueries(), retrieval, r.retrieved().entities(), r.retrieved().chunkIds(), r.inserted(), r.updated(),
                r.merged(), m.listing().size(), m.vertices().size(), m.averageVerticesPerUnit(), r.judgement(), concerns, r.nextSubqueries(), r.done(),
                m.warnings(), u, ms);
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("t", (long) t);
        props.put("mode", r.mode());
        props.put("subqueries", r.subqueries().toArray(String[]::new));
        props.put("retrieval", SessionStore.write(retrieval));
        props.put("entityNames", r.retrieved().entities().toArray(String[]::new));
        props.put("chunkIds", r.retrieved().chunkIds().toArray(String[]::new));
        if (r.judgement() != null) props.put("judgement", r.judgement());
        props.put("concerns", SessionStore.write(concerns));
        props.put("inserted", (long) r.inserted());
        props.put("updated", (long) r.updated());
        props.put("merged", (long) r.merged());
        props.put("warnings", m.warnings().toArray(String[]::new));
        props.put("llmCalls", u.calls());
        props.put("promptTokens", u.promptTokens());
        props.put("completionTokens", u.completionTokens());
        props.put("ms", ms);
        try (Transaction w = call.db().beginTx()) {
            SessionStore.commitStep(w, p.id, p.corpus, p.stored, t, p.session, graph, embeddings, new SessionStore.StepRecord(props));
            w.commit();
        }
        return row;
    }

    // ---- respond

    public Response respond(String sessionId, Map<String, Object> config) {
        String owner = "hgmem.respond";
        checkSessionId(owner, sessionId);
        Map<String, Object> cfg0 = config == null ? Map.of() : config;
        HgmemConfig.parse(HgmemConfig.Use.RESPOND, cfg0);
        Node s = SessionStore.find(tx, sessionId);
        if (s == null) throw new RagException(owner + ": no HGMem session '" + sessionId + "': hgmem.session.list() lists them");
        return locked(owner, (String) s.getProperty("corpus"), sessionId, () -> {
            Prepared p = prepare(owner, sessionId, null, cfg0, HgmemConfig.Use.RESPOND);
            return respond(owner, p);
        });
    }

    private Response respond(String owner, Prepared p) {
        long t0 = System.nanoTime();
        UsageMeter meter = new UsageMeter();
        LlmPlanner planner = new LlmPlanner(llm.client(), llm.config(), meter, call.cancelled());
        Neo4jHypergraph g = new Neo4jHypergraph(tx, p.corpus, embeddings, p.cfg.retrieval(), List.of(), null, null);
        HypergraphMemory memory = p.session.memory();
        Map<String, float[]> unitVectors = new HashMap<>(), chunkVectors = new HashMap<>();
        java.util.function.Function<String, float[]> chunkVector = c -> chunkVectors.computeIfAbsent(c, id -> {
            Node n = g.chunk(id);
            return n == null ? null : ModelIdentity.floats(n.getProperty("embedding", null));
        });
        float[][] subqueryVector = new float[1][];
        List<String> all = new ArrayList<>();
        for (List<String> step : p.session.subqueries()) for (String q : step) if (!all.contains(q)) all.add(q);
        if (all.isEmpty()) all.add(p.session.query());
        FinalContext.Sources src = new FinalContext.Sources(g::neighbourNames, g::chunksOf, new java.util.HashSet<>(p.session.chunkIds()),
                (u, c) -> similarity(unitVectors.computeIfAbsent(u.id(), k -> embeddings.embed(u.description())), chunkVector.apply(c)),
                (text, c) -> {
                    if (subqueryVector[0] == null) subqueryVector[0] = embeddings.embed(text);
                    return similarity(subqueryVector[0], chunkVector.apply(c));
                }, g.documentOrder(), g::chunkTokens);
        List<String> chunks = FinalContext.chunks(memory, src, "- " + String.join("\n- ", all), p.cfg.answering().finalContext());
        Map<String, Object> rerankColumn = null;
        if (p.cfg.answering().rerank().enabled()) {
            // the context best first by the reranker (against the question), rerankTopK kept, in place of document order
            dev.graphrag.core.search.Reranker.Ranked<String> ranked = call.reranker(owner).rerank(p.session.query(), chunks,
                    c -> (String) g.chunk(c).getProperty("text", ""), p.cfg.answering().rerank().topK(), call.cancelled());
            chunks = ranked.items();
            rerankColumn = ranked.column(c -> c);
            meter.add(ranked.usage());
        }
        List<Map<String, Object>> entities = new ArrayList<>();
        for (String v : memory.vertices()) {
            Node n = g.entity(v);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("entity", v);
            row.put("type", n == null ? "UNKNOWN" : n.getProperty("type", "UNKNOWN"));
            row.put("description", n == null ? "" : g.cut((String) n.getProperty("description", "")));
            entities.add(row);
        }
        List<Map<String, Object>> sources = new ArrayList<>();
        long tokens = 0;
        for (String c : chunks) {
            sources.add(g.source(c));
            tokens += g.chunkTokens(c);
        }
        LlmPlanner.Answer a = planner.answer(p.session.query(), memory.listing(), entities, sources, p.cfg.answering().responseType());
        Usage u = meter.usage();
        try (Transaction w = call.db().beginTx()) {
            SessionStore.storeAnswer(w, p.id, a.text(), a.citedSources(), chunks,
                    Map.of("llmCalls", u.calls(), "promptTokens", u.promptTokens(), "completionTokens", u.completionTokens()));
            w.commit();
        }
        return new Response(p.id, a.text(), a.citedSources(), chunks, tokens, memory.listing().size(), memory.averageVerticesPerUnit(), memoryRows(memory),
                rerankColumn, u, (System.nanoTime() - t0) / 1_000_000);
    }

    private static double similarity(float[] a, float[] b) {
        return a == null || b == null ? Double.NEGATIVE_INFINITY : EmbeddingService.cosine(a, b);
    }

    /** The active listing as rows {index, unitId, description, entities}. */
    public static List<Map<String, Object>> memoryRows(HypergraphMemory memory) {
        List<Map<String, Object>> out = new ArrayList<>();
        List<MemoryUnit> l = memory.listing();
        for (int i = 0; i < l.size(); i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", (long) i);
            m.put("unitId", l.get(i).id());
            m.put("description", l.get(i).description());
            m.put("entities", l.get(i).vertices());
            out.add(m);
        }
        return out;
    }

    // ---- answer: the loop, one row per step as it completes, then the answer

    /** A row of hgmem.answer: a step, or (last) the answer. */
    public record LoopRow(StepRow step, Response response) {}

    public Iterator<LoopRow> answer(String query, Map<String, Object> config) {
        String owner = "hgmem.answer";
        ChunkSearch.checkQuery(owner, query);
        Map<String, Object> cfg0 = config == null ? Map.of() : config;
        HgmemConfig first = HgmemConfig.parse(HgmemConfig.Use.ANSWER, cfg0);
        String sid = first.call().sessionId();
        String id = sid == null ? SessionStore.newId() : checkSessionId(owner, sid);
        Node existing = SessionStore.find(tx, id);
        String corpus = existing == null ? first.corpus() : (String) existing.getProperty("corpus");
        // everything a step would refuse is refused now, before the first row
        locked(owner, corpus, id, () -> prepare(owner, id, query, cfg0, HgmemConfig.Use.ANSWER));
        boolean keepSession = first.call().keepSession();
        return new Iterator<>() {
            boolean answered;
            LoopRow next;

            @Override
            public boolean hasNext() {
                if (next == null && !answered) next = advance();
                return next != null;
            }

            @Override
            public LoopRow next() {
                if (!hasNext()) throw new NoSuchElementException();
                LoopRow r = next;
                next = null;
                return r;
            }

            private LoopRow advance() {
                return locked(owner, corpus, id, () -> {
                    Prepared p = prepare(owner, id, query, cfg0, HgmemConfig.Use.ANSWER);
                    if (!p.session.done()) return new LoopRow(step(owner, p), null);
                    Response resp = respond(owner, p);
                    answered = true;
                    if (!keepSession) {
                        try (Transaction w = call.db().beginTx()) {
                            SessionStore.drop(w, id, false);
                            w.commit();
                        }
                    }
                    return new LoopRow(null, resp);
                });
            }
        };
    }

    // ---- retrieve (dry run)

    public List<Neo4jHypergraph.Scored> retrieveRows(String sessionId, String subquery, Map<String, Object> config, long[] candidates, String[] mode) {
        String owner = "hgmem.retrieve";
        ChunkSearch.checkQuery(owner, subquery);
        Map<String, Object> cfg0 = config == null ? Map.of() : config;
        HgmemConfig cfg = HgmemConfig.parse(HgmemConfig.Use.RETRIEVE, cfg0); // the call's keys, checked before the session is read
        HgmemConfig.Call own = cfg.call();
        HypergraphMemory memory;
        String corpus;
        if (sessionId == null) {
            corpus = cfg.corpus();
            memory = new HypergraphMemory(SessionStore::newId);
        } else {
            checkSessionId(owner, sessionId);
            SessionStore.Loaded l = SessionStore.load(tx, sessionId);
            cfg = HgmemConfig.parse(HgmemConfig.Use.RETRIEVE, HgmemConfig.overSession(owner, HgmemConfig.Use.RETRIEVE, l.config(), cfg0, l.corpus()));
            corpus = l.corpus();
            memory = l.session().memory();
        }
        String m = own.mode();
        List<String> targets = null;
        if ("local".equals(m)) {
            List<List<Integer>> t = HgmemConfig.targets(owner, own.targets() == null ? null : List.of(own.targets()), 1);
            if (t == null || t.get(0) == null) throw new RagException(owner + ": mode 'local' needs targets: the memory point indices to investigate");
            int size = memory.listing().size();
            for (int i : t.get(0)) if (i < 0 || i >= size) throw new RagException(owner + ": targets names memory point " + i + " but the memory has " + size + " points");
            targets = memory.idsAt(t.get(0));
        } else if (own.targets() != null) {
            throw new RagException(owner + ": targets belongs to mode 'local'");
        }
        HgmemLayer.SPEC.requireBuilt(tx, corpus, embeddings);
        Neo4jHypergraph g = new Neo4jHypergraph(tx, corpus, embeddings, cfg.retrieval(), List.of(), null, admitted(cfg));
        Neo4jHypergraph.TaskRetrieval r = g.retrieveOne(subquery, targets, memory);
        candidates[0] = r.candidates();
        mode[0] = r.mode();
        List<Neo4jHypergraph.Scored> out = new ArrayList<>(r.entities());
        out.addAll(r.relations());
        out.addAll(r.chunks());
        return out;
    }

    private <T> T locked(String owner, String corpus, String id, java.util.function.Supplier<T> work) {
        return call.exclusive("hgmem session " + id, owner, corpus, work);
    }
}
