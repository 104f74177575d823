package dev.graphrag.hgmem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One HGMem session's loop (paper §3.2-3.6): retrieve for the pending subqueries, let the LLM insert
 * and update memory points (E1), merge them from step {@code mergeFromStep} on (E3), then judge sufficiency and raise
 * concerns (E4) that become the next subqueries (E5), local or global. Knows nothing of Neo4j or HTTP: the LLM and the
 * graph are the two interfaces below, a script and maps in tests.
 */
public final class Evolution {
    public enum Strategy { ADAPTIVE, LOCAL_ONLY, GLOBAL_ONLY }

    /** An E1 insert, an E1 update (by listing position), an E4 concern (positions of the listing E4 saw; empty = global). */
    public record Insert(List<String> entities, String description) {}

    public record Update(int index, List<String> entities, String description) {}

    public record Concern(String text, List<Integer> indices) {}

    public record Evolved(List<Insert> inserted, List<Update> updated) {}

    public record Plan(String judgement, List<Concern> concerns) {}

    /** The LLM's side: one method per call kind (HgmemPrompts). */
    public interface Llm {
        Evolved evolve(String query, List<MemoryUnit> listing, List<String> subqueries, Retrieved retrieved);          // E1

        List<HypergraphMemory.MergeGroup> merge(String query, List<MemoryUnit> listing);                              // E3

        Plan plan(String query, List<MemoryUnit> listing, String hint, int numConcerns, Strategy strategy);             // E4

        List<String> subqueries(String query, List<MemoryUnit> listing, List<Concern> concerns, List<String> previous, String hint); // E5
    }

    /** One subquery to retrieve for: its text, and the ids of the units it investigates (null = global exploration). */
    public record Task(String subquery, List<String> targets) {}

    /** The evidence tables E1 reads (the reference code's retrievedInfo): rows of entities, relationships and sources. */
    public record Tables(List<Map<String, Object>> entities, List<Map<String, Object>> relationships, List<Map<String, Object>> sources) {
        public static final Tables EMPTY = new Tables(List.of(), List.of(), List.of());
    }

    /** What retrieval found for a step: the entity names, the chunk ids and the tables shown to the LLM. */
    public record Retrieved(List<String> entities, List<String> chunkIds, Tables tables) {}

    /** The graph's side: retrieval for the tasks of a step, absent names (E2 and writes happen there), the E4/E5 hint. */
    public interface Graph {
        Retrieved retrieve(List<Task> tasks, HypergraphMemory memory);

        /** The names of {@code names} the base graph lacks. */
        Set<String> absent(List<String> names);

        /** Creates absent entities (policy insert: described by E2 from {@code context}; bare: nodes only), linked to their units' members. */
        void createAbsent(Set<String> names, List<MemoryUnit> units, Retrieved context, boolean describe);

        String hint(HypergraphMemory memory, String query);
    }

    public enum AbsentPolicy { INSERT, BARE, DROP }

    /** rereadSources: E1 sees every source its step retrieved, also those an earlier step showed it (false: see {@link #unread}). */
    public record Settings(int maxTurns, int numConcerns, int mergeFromStep, boolean enableUpdate, boolean enableMerge, boolean useHint,
                           Strategy strategy, HypergraphMemory.VertexPolicy vertexPolicy, AbsentPolicy absentPolicy, boolean rereadSources) {
        public static final Settings DEFAULTS = new Settings(3, 3, 1, true, true, true, Strategy.ADAPTIVE, HypergraphMemory.VertexPolicy.KEEP,
                AbsentPolicy.INSERT, false);
    }

    /** A session's state between steps (persisted on its HGSession node by the procedures). */
    public static final class Session {
        final String query;
        final HypergraphMemory memory;
        int step;
        boolean done;
        List<Task> pending;
        final List<List<String>> subqueries = new ArrayList<>();
        final Set<String> chunkIds = new LinkedHashSet<>();
        final List<String> judgements = new ArrayList<>();
        /** The step each source was last shown to E1 in, and the step each memory vertex first appeared after. */
        final Map<String, Integer> readAt = new LinkedHashMap<>(), vertexSince = new LinkedHashMap<>();

        public Session(String query, HypergraphMemory memory) {
            this.query = query;
            this.memory = memory;
            this.pending = List.of(new Task(query, null)); // step 0: global exploration with the question itself
        }

        /** A session as the graph stored it between steps. */
        static Session restore(String query, HypergraphMemory memory, int step, boolean done, List<Task> pending, List<List<String>> subqueries,
                               List<String> chunkIds, List<String> judgements, Map<String, Integer> readAt, Map<String, Integer> vertexSince) {
            Session s = new Session(query, memory);
            s.readAt.putAll(readAt);
            s.vertexSince.putAll(vertexSince);
            s.step = step;
            s.done = done;
            s.pending = List.copyOf(pending);
            s.subqueries.addAll(subqueries);
            s.chunkIds.addAll(chunkIds);
            s.judgements.addAll(judgements);
            return s;
        }

        public String query() { return query; }
        public HypergraphMemory memory() { return memory; }
        public int step() { return step; }
        public boolean done() { return done; }
        public List<Task> pending() { return List.copyOf(pending); }
        public List<List<String>> subqueries() { return List.copyOf(subqueries); }
        /** Every chunk any step retrieved, in first-retrieved order. */
        public List<String> chunkIds() { return List.copyOf(chunkIds); }
        public List<String> judgements() { return List.copyOf(judgements); }
        public Map<String, Integer> readAt() { return Map.copyOf(readAt); }
        public Map<String, Integer> vertexSince() { return Map.copyOf(vertexSince); }
    }

    /** What one step did. mode: global, local or mixed. */
    public record StepResult(int step, String mode, List<String> subqueries, Retrieved retrieved, int inserted, int updated, int merged,
                             String judgement, List<Concern> concerns, List<String> nextSubqueries, boolean done) {}

    private final Llm llm;
    private final Graph graph;
    private final Settings settings;

    public Evolution(Llm llm, Graph graph, Settings settings) {
        this.llm = llm;
        this.graph = graph;
        this.settings = settings;
    }

    /** Runs step {@code s.step()}; a done session is an error for the caller to raise. */
    public StepResult step(Session s) {
        if (s.done) throw new IllegalStateException("the session is done");
        int t = s.step;
        HypergraphMemory m = s.memory;
        List<Task> tasks = s.pending;
        List<String> subs = tasks.stream().map(Task::subquery).toList();
        Retrieved r = graph.retrieve(tasks, m);
        s.chunkIds.addAll(r.chunkIds());
        s.subqueries.add(subs);
        String mode = mode(tasks);

        // (a) insert + update (E1); subqueries shown exclude the question itself
        Retrieved read = settings.rereadSources() ? r : unread(r, s, t);
        for (Map<String, Object> src : read.tables().sources()) s.readAt.put(String.valueOf(src.get("id")), t);
        Evolved e = llm.evolve(s.query, m.listing(), subs.stream().filter(q -> !q.equals(s.query)).toList(), read);
        int updated = 0, inserted = 0;
        if (settings.enableUpdate()) {
            for (Update u : e.updated()) updated += m.update(u.index(), u.entities(), u.description(), t, settings.vertexPolicy()) ? 1 : 0;
        }
        List<MemoryUnit> touched = new ArrayList<>();
        for (Insert i : e.inserted()) {
            MemoryUnit u = m.insert(i.entities(), i.description(), t);
            if (u != null) {
                touched.add(u);
                inserted++;
            }
        }
        for (Update u : e.updated()) if (settings.enableUpdate() && u.index() >= 0 && u.index() < m.listing().size()) touched.add(m.listing().get(u.index()));
        handleAbsent(m, touched, r);

        // (b) merge (E3), not before mergeFromStep
        int merged = 0;
        if (settings.enableMerge() && t >= settings.mergeFromStep()) merged = m.merge(llm.merge(s.query, m.listing()), t).size();

        // (c) plan the next step (E4, E5), skipped at the last turn
        String judgement = null;
        List<Concern> concerns = List.of();
        List<String> next = List.of();
        if (t < settings.maxTurns()) {
            String hint = settings.useHint() ? graph.hint(m, s.query) : "";
            Strategy strategy = settings.strategy() == Strategy.LOCAL_ONLY && m.listing().isEmpty() ? Strategy.GLOBAL_ONLY : settings.strategy();
            Plan p = lenient(llm.plan(s.query, m.listing(), hint, settings.numConcerns(), strategy), m.listing().size(), settings.numConcerns());
            judgement = p.judgement();
            concerns = p.concerns();
            s.judgements.add(judgement);
            if (judgement.equals("1") || concerns.isEmpty()) {
                s.done = true;
            } else {
                next = matchCount(llm.subqueries(s.query, m.listing(), concerns, flattenAfterFirst(s.subqueries), hint), concerns);
                List<Task> pending = new ArrayList<>();
                for (int i = 0; i < concerns.size(); i++) {
                    List<Integer> idx = concerns.get(i).indices();
                    pending.add(new Task(next.get(i), idx.isEmpty() ? null : m.idsAt(idx)));
                }
                s.pending = pending;
            }
        } else {
            s.done = true;
        }
        for (String v : m.vertices()) s.vertexSince.putIfAbsent(v, t);
        s.step = t + 1;
        return new StepResult(t, mode, subs, r, inserted, updated, merged, judgement, concerns, next, s.done);
    }

    /**
     * The step's retrieval as E1 reads it: a source an earlier step already showed is left out, unless it names a
     * memory vertex that arrived at or after that showing (what it says may only now bear on the query: hop 2's
     * passage read before hop 1 gave its subject). Entities and relationships are shown as retrieved.
     */
    static Retrieved unread(Retrieved r, Session s, int step) {
        List<Map<String, Object>> kept = new ArrayList<>();
        for (Map<String, Object> src : r.tables().sources()) {
            Integer at = s.readAt.get(String.valueOf(src.get("id")));
            if (at == null || at == step || namesNewVertex(src, s.vertexSince, at)) kept.add(src);
        }
        if (kept.size() == r.tables().sources().size()) return r;
        return new Retrieved(r.entities(), r.chunkIds(), new Tables(r.tables().entities(), r.tables().relationships(), kept));
    }

    private static boolean namesNewVertex(Map<String, Object> src, Map<String, Integer> vertexSince, int readAt) {
        List<String> arrived = new ArrayList<>();
        vertexSince.forEach((v, since) -> { if (since >= readAt) arrived.add(WholeWords.folded(v)); });
        return !arrived.isEmpty() && WholeWords.namesAny(src.getOrDefault("title", "") + " " + src.getOrDefault("content", ""), arrived);
    }

    /** Earlier subqueries for E5: every step's but step 0's, which is the question itself. */
    private static List<String> flattenAfterFirst(List<List<String>> history) {
        List<String> out = new ArrayList<>();
        for (int i = 1; i < history.size(); i++) out.addAll(history.get(i));
        return out;
    }

    static String mode(List<Task> tasks) {
        boolean local = tasks.stream().anyMatch(x -> x.targets() != null), global = tasks.stream().anyMatch(x -> x.targets() == null);
        return local && global ? "mixed" : local ? "local" : "global";
    }

    /**
     * E4 read leniently (docs/hgmem.md#where-the-paper-and-the-code-differ): "1" ends the session whatever came with it; at most {@code n} concerns,
     * blank ones dropped; under "2.1" a concern with at least one valid index investigates those points (invalid
     * indices dropped) and one without goes global, so a step may be mixed; any other judgement with concerns reads
     * as "2.2", all global. No usable concern at all is taken as "1".
     */
    static Plan lenient(Plan p, int listingSize, int n) {
        String j = p.judgement() == null ? "" : p.judgement().trim();
        if (j.equals("1")) return new Plan("1", List.of());
        boolean local = j.equals("2.1");
        List<Concern> out = new ArrayList<>();
        for (Concern c : p.concerns() == null ? List.<Concern>of() : p.concerns()) {
            if (out.size() == n) break;
            if (c == null || c.text() == null || c.text().isBlank()) continue;
            List<Integer> valid = new ArrayList<>();
            if (local) {
                for (Integer i : c.indices() == null ? List.<Integer>of() : c.indices()) if (i != null && i >= 0 && i < listingSize && !valid.contains(i)) valid.add(i);
            }
            out.add(new Concern(c.text().trim(), List.copyOf(valid)));
        }
        if (out.isEmpty()) return new Plan("1", List.of());
        return new Plan(local ? "2.1" : "2.2", out);
    }

    /** E5's subqueries 1:1 with the concerns: extras dropped, a missing or blank one replaced by the concern's own text. */
    static List<String> matchCount(List<String> subqueries, List<Concern> concerns) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < concerns.size(); i++) {
            String q = subqueries != null && i < subqueries.size() ? subqueries.get(i) : null;
            out.add(q == null || q.isBlank() ? concerns.get(i).text() : q.trim());
        }
        return out;
    }

    private void handleAbsent(HypergraphMemory m, List<MemoryUnit> touched, Retrieved r) {
        List<String> names = new ArrayList<>();
        for (MemoryUnit u : touched) names.addAll(u.vertices());
        Set<String> absent = names.isEmpty() ? Set.of() : graph.absent(names);
        if (absent.isEmpty()) return;
        switch (settings.absentPolicy()) {
            case INSERT -> graph.createAbsent(absent, touched, r, true);
            case BARE -> graph.createAbsent(absent, touched, r, false);
            case DROP -> m.dropNames(absent);
        }
    }
}
