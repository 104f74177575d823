package dev.graphrag.oracle;

import org.neo4j.graphdb.GraphDatabaseService;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Runs the controls and the method evaluations over one ingested corpus (docs/evaluation.md). Controls: plain dense
 * and BM25 (rag.search, ranked), the evidence-gated iterative dense given exactly the oracle's information (the
 * same sub-questions and gating, top-k passages per hop, their union), and plain dense cut to another output's
 * per-question budget. Every LLM call a method makes goes to the evaluation server, and the usage the procedure
 * yields must equal what the server logged for it, call for call and step for step.
 */
public final class OracleHarness {
    /** A passage a search returned: its document id and the chunk text a reader would see. */
    public record Hit(String documentId, String text) {}

    private final GraphDatabaseService db;
    private final String corpus;
    private final List<ScoredQuestion> questions;
    private final OracleGold gold;
    private final boolean titles;
    /** Set by each {@link #gatedControl} run: the share of hops it resolved. */
    private double hopsResolved = Double.NaN;

    public OracleHarness(GraphDatabaseService db, String corpus, List<ScoredQuestion> questions, OracleGold gold) {
        this(db, corpus, questions, gold, false);
    }

    private OracleHarness(GraphDatabaseService db, String corpus, List<ScoredQuestion> questions, OracleGold gold, boolean titles) {
        this.db = db;
        this.corpus = corpus;
        this.questions = List.copyOf(questions);
        this.gold = gold;
        this.titles = titles;
    }

    /**
     * The same harness whose controls read each passage with its document's title above the text, as a method whose
     * prompts show titles (HGMem's Sources table) does: a control gets the same information as the method it is compared with.
     */
    public OracleHarness readingTitles() {
        return new OracleHarness(db, corpus, questions, gold, true);
    }

    /** rag.ingest of the corpus as the harness prescribes (one Document per passage, hashed ids, shuffled order). */
    public static long ingest(GraphDatabaseService db, String corpus, EvalCorpus docs, Map<String, Object> extraConfig) {
        return ingest(db, corpus, docs.documents(), extraConfig);
    }

    /** rag.ingest of document maps into {@code corpus}, with further config keys; the number of chunks written. */
    public static long ingest(GraphDatabaseService db, String corpus, List<Map<String, Object>> documents, Map<String, Object> extraConfig) {
        Map<String, Object> config = new HashMap<>(extraConfig);
        config.put("corpus", corpus);
        return db.executeTransactionally("CALL rag.ingest($docs, $config) YIELD chunks RETURN sum(chunks) AS n",
                Map.of("docs", documents, "config", config), r -> (Long) r.next().get("n"));
    }

    /** The documents of chunk ids, in the chunks' order, each once. */
    public static List<String> documentsOf(GraphDatabaseService db, String corpus, List<String> chunkIds) {
        Map<String, String> docOf = db.executeTransactionally("MATCH (c:Chunk {corpus: $corpus}) WHERE c.id IN $ids RETURN c.id AS id, c.documentId AS doc",
                Map.of("corpus", corpus, "ids", chunkIds), r -> {
                    Map<String, String> m = new java.util.HashMap<>();
                    r.forEachRemaining(row -> m.put((String) row.get("id"), (String) row.get("doc")));
                    return m;
                });
        return inChunkOrder(chunkIds, docOf);
    }

    /** The documents of {@code chunkIds} by {@code docOf}, in the chunks' order, each once (chunks not in the map skipped). */
    public static List<String> inChunkOrder(List<String> chunkIds, Map<String, String> docOf) {
        Set<String> out = new LinkedHashSet<>();
        for (String c : chunkIds) if (docOf.containsKey(c)) out.add(docOf.get(c));
        return new ArrayList<>(out);
    }

    public List<ScoredQuestion> questions() { return questions; }

    /**
     * The first {@code k} distinct documents rag.search ranks for a query, with the chunk text that ranked them (below
     * its document's title when the harness {@link #readingTitles reads titles} and the document has one).
     */
    public List<Hit> search(String query, int k, String mode) {
        return db.executeTransactionally("CALL rag.search($q, {corpus: $corpus, k: $n, mode: $mode}) YIELD documentId, text"
                        + " OPTIONAL MATCH (d:Document {corpus: $corpus, id: documentId}) RETURN documentId, text, CASE WHEN $titles THEN d.title END AS title",
                Map.of("q", query, "corpus", corpus, "n", (long) Math.max(2 * k, 10), "mode", mode, "titles", titles), r -> {
                    Map<String, Hit> hits = new LinkedHashMap<>();
                    while (r.hasNext() && hits.size() < k) {
                        Map<String, Object> row = r.next();
                        String text = EvidenceGate.titled((String) row.get("title"), (String) row.get("text"));
                        hits.putIfAbsent((String) row.get("documentId"), new Hit((String) row.get("documentId"), text));
                    }
                    return new ArrayList<>(hits.values());
                });
    }

    /** A ranked control: the top five documents of rag.search in {@code mode}. */
    public Scores ranked(String name, String mode, Predicate<ScoredQuestion> which) {
        Scores s = new Scores(name);
        for (ScoredQuestion q : questions) {
            if (!which.test(q)) continue;
            long t = System.nanoTime();
            List<String> ids = search(q.text(), 5, mode).stream().map(Hit::documentId).toList();
            s.add(ids, true, q.goldIds(), (System.nanoTime() - t) / 1e6);
        }
        return s;
    }

    /** The gated control's result for one question: the passages retrieved, in order, and the hops it resolved. */
    public record GatedRun(List<Hit> hits, String[] known) {}

    /**
     * Evidence-gated iterative dense: hop i's query is its sub-question with each "#k" replaced by hop k's answer
     * once a passage retrieved so far reveals it (else "it"); the top {@code perHop} documents of each hop's query,
     * their union. Questions without hops (answer-only gold) search the question itself.
     */
    public GatedRun gated(OracleGold.Question oracle, String questionText, int perHop, boolean requireSubject) {
        Map<String, Hit> seen = new LinkedHashMap<>();
        List<OracleGold.Hop> hops = oracle == null ? List.of() : oracle.hops();
        if (hops.isEmpty()) {
            for (Hit h : search(questionText, perHop, "dense")) seen.putIfAbsent(h.documentId(), h);
            return new GatedRun(new ArrayList<>(seen.values()), new String[0]);
        }
        String[] known = new String[hops.size()];
        for (OracleGold.Hop hop : hops) {
            for (Hit h : search(EvidenceGate.query(hop, known), perHop, "dense")) seen.putIfAbsent(h.documentId(), h);
            known = EvidenceGate.known(oracle, seen.values().stream().map(Hit::text).toList(), requireSubject);
        }
        return new GatedRun(new ArrayList<>(seen.values()), known);
    }

    /** The gated control as a set output; its budgets (distinct passages per question) are returned in {@code budgets}. */
    public Scores gatedControl(int perHop, Predicate<ScoredQuestion> which, Map<String, Integer> budgets) {
        return gatedControl(perHop, true, which, budgets);
    }

    /** The gated control; {@code requireSubject} false opens a hop on its answer alone (a more generous control). */
    public Scores gatedControl(int perHop, boolean requireSubject, Predicate<ScoredQuestion> which, Map<String, Integer> budgets) {
        Scores s = new Scores("gated iterative dense top-" + perHop + "/hop" + (requireSubject ? "" : ", answer-only gating"));
        long resolved = 0, total = 0;
        for (ScoredQuestion q : questions) {
            if (!which.test(q)) continue;
            long t = System.nanoTime();
            OracleGold.Question oracle = gold.find(q.text());
            GatedRun run = gated(oracle, q.text(), perHop, requireSubject);
            List<String> ids = run.hits().stream().map(Hit::documentId).toList();
            s.add(ids, false, q.goldIds(), (System.nanoTime() - t) / 1e6);
            s.answer(oracle != null && EvidenceGate.finalAnswer(oracle, run.hits().stream().map(Hit::text).toList()) != null);
            budgets.put(q.id(), new LinkedHashSet<>(ids).size());
            for (String k : run.known()) resolved += k == null ? 0 : 1;
            total += run.known().length;
        }
        hopsResolved = total == 0 ? Double.NaN : (double) resolved / total;
        return s;
    }

    /** Share of hops the last gated control run resolved. */
    public double hopsResolved() { return hopsResolved; }

    /**
     * Plain dense cut to a per-question budget (another output's distinct passages for that question), with the
     * oracle reader's answer over those passages: the same information as the output it is compared with.
     */
    public Scores denseAtBudget(String name, Map<String, Integer> budgets) {
        Scores s = new Scores(name);
        for (ScoredQuestion q : questions) {
            Integer b = budgets.get(q.id());
            if (b == null) continue;
            long t = System.nanoTime();
            List<Hit> hits = b == 0 ? List.of() : search(q.text(), b, "dense");
            s.add(hits.stream().map(Hit::documentId).toList(), false, q.goldIds(), (System.nanoTime() - t) / 1e6);
            OracleGold.Question oracle = gold.find(q.text());
            s.answer(oracle != null && EvidenceGate.finalAnswer(oracle, hits.stream().map(Hit::text).toList()) != null);
        }
        return s;
    }

    /** A mismatch between what a procedure yielded and what the evaluation server logged for the same calls. */
    public static final class UsageMismatch extends IllegalStateException {
        UsageMismatch(String message) { super(message); }
    }

    /**
     * Runs a method over the questions: registers its policies, runs its index calls, then each question, checking
     * its yielded usage against the server's log of that call. Budgets of its outputs go to {@code budgets}.
     */
    public Scores method(MethodEvaluation m, EvalLlmServer server, Predicate<ScoredQuestion> which, Map<String, Integer> budgets) {
        m.register(server, gold);
        Map<String, Object> llm = server.llmConfig();
        for (String call : m.indexCalls()) {
            server.clearLog();
            db.executeTransactionally(call, Map.of("corpus", corpus, "llm", llm), r -> { while (r.hasNext()) r.next(); return null; });
        }
        Scores s = new Scores(m.name());
        for (ScoredQuestion q : questions) {
            if (!which.test(q)) continue;
            server.clearLog();
            long t = System.nanoTime();
            MethodEvaluation.Output out = m.run(db, corpus, q.text(), llm);
            double ms = (System.nanoTime() - t) / 1e6;
            checkUsage(m.name(), q, out, server.totals());
            s.add(out.documentIds(), out.ranked(), q.goldIds(), ms);
            s.usage(out.llmCalls(), out.promptTokens(), out.completionTokens());
            OracleGold.Question oracle = gold.find(q.text());
            s.answer(oracle != null && oracle.isAnswer(out.answer()));
            budgets.put(q.id(), new LinkedHashSet<>(out.documentIds()).size());
        }
        return s;
    }

    /** The procedure's yield must equal the server's log: calls and tokens in total and per step. */
    public static void checkUsage(String method, ScoredQuestion q, MethodEvaluation.Output out, Map<String, EvalLlmServer.StepTotal> logged) {
        long calls = 0, prompt = 0, completion = 0;
        for (EvalLlmServer.StepTotal t : logged.values()) {
            calls += t.calls();
            prompt += t.promptTokens();
            completion += t.completionTokens();
        }
        List<String> wrong = new ArrayList<>();
        if (calls != out.llmCalls() || prompt != out.promptTokens() || completion != out.completionTokens()) {
            wrong.add("totals yielded " + List.of(out.llmCalls(), out.promptTokens(), out.completionTokens()) + ", logged " + List.of(calls, prompt, completion));
        }
        Set<String> steps = new LinkedHashSet<>(logged.keySet());
        if (out.tokensByStep() != null) steps.addAll(out.tokensByStep().keySet());
        for (String step : steps) {
            EvalLlmServer.StepTotal l = logged.getOrDefault(step, new EvalLlmServer.StepTotal(0, 0, 0));
            Map<String, Long> y = out.tokensByStep() == null ? Map.of() : out.tokensByStep().getOrDefault(step, Map.of());
            if (l.calls() != y.getOrDefault("calls", 0L) || l.promptTokens() != y.getOrDefault("promptTokens", 0L)
                    || l.completionTokens() != y.getOrDefault("completionTokens", 0L)) {
                wrong.add("step '" + step + "' yielded " + y + ", logged " + l);
            }
        }
        if (!wrong.isEmpty()) throw new UsageMismatch(method + " on question " + q.id() + ": " + String.join("; ", wrong));
    }
}
