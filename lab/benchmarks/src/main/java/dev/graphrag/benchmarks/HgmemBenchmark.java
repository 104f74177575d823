package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.HgmemEvaluation;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.Scores;
import dev.graphrag.oracle.ScoredQuestion;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The HGMem oracle evaluation (docs/evaluation.md#hgmem-the-oracle-planner-and-the-passes; docs/benchmarks.md "HGMem"): MuSiQue ingested in HGMem's
 * 200/50 token windows, hgmem.index built by the rule extractor, then hgmem.answer with the oracle planner per
 * question: the full method, single-step HGMem (maxTurns 0) and the ablations (globalOnly, localOnly, no merge, no
 * update, passageRetrieval off), beside plain dense (ranked, and at each pass's final-context size) and the
 * evidence-gated iterative dense with as many chunks per subquery (chunksPerQuery). Every HGMem figure is an ORACLE
 * POLICY figure. Writes target/hgmem-results.md. Options: --limit N, --no-ablation, --set key=value.
 */
public final class HgmemBenchmark {
    static final String CORPUS = "musique-hgmem";
    static final Map<String, Object> PASS_CONFIG = new LinkedHashMap<>();

    private final GraphDatabaseService db;
    private final EvalLlmServer server;
    private final OracleGold gold;
    private final PrintStream out;
    private final StringBuilder report = new StringBuilder();

    HgmemBenchmark(GraphDatabaseService db, EvalLlmServer server, OracleGold gold, PrintStream out) {
        this.db = db;
        this.server = server;
        this.gold = gold;
        this.out = out;
    }

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path data = args.data();
        int limit = args.limit();
        boolean ablation = args.ablation();
        PASS_CONFIG.putAll(args.set());
        Path work = Files.createTempDirectory("graphrag-hgmem-bench");
        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, null, "127.0.0.1", -1, -1));
        try (EvalLlmServer server = args.server()) {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            if (args.has("--narrative")) {
                HgmemBenchmark b = new HgmemBenchmark(db, server, null, System.out);
                b.narrative(data.resolve("narrativeqa_sample"));
                Files.createDirectories(Path.of("target"));
                Files.writeString(Path.of("target", "hgmem-narrative.md"), b.report.toString());
                return;
            }
            Path dataset = data.resolve("musique/musique_train.json");
            EvalCorpus corpus = EvalCorpus.of(CorpusFiles.read(data.resolve("musique/musique_train_corpus.json")), Benchmark.SEED);
            List<ScoredQuestion> questions = ScoredQuestion.musique(dataset, corpus);
            if (questions.size() > limit) questions = questions.subList(0, limit);
            OracleGold gold = Benchmark.sanitisedGold(OracleGold.fromMusique(dataset), "musique_hgmem");
            HgmemBenchmark b = new HgmemBenchmark(db, server, gold, System.out);
            b.run(corpus, questions, ablation);
            b.say("\n## Largest prompt per step (" + args.serverLabel() + ")\n\n" + server.promptSizeReport());
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "hgmem-results.md"), b.report.toString());
        } finally {
            neo4j.close();
        }
    }

    void run(EvalCorpus corpus, List<ScoredQuestion> questions, boolean ablation) {
        long t0 = System.nanoTime();
        long chunks = OracleHarness.ingest(db, CORPUS, corpus, Map.of("chunkSize", 200L, "chunkOverlap", 50L));
        say(String.format("%s: %d passages -> %d chunks (token windows 200/50, shuffled, seed %d) in %.1f s", CORPUS, corpus.size(), chunks, Benchmark.SEED,
                (System.nanoTime() - t0) / 1e9));
        // HGMem's Sources table shows each chunk's document title, so the controls' reader gets the titles too
        OracleHarness h = new OracleHarness(db, CORPUS, questions, gold).readingTitles();
        Predicate<ScoredQuestion> every = q -> true;

        say("\n" + Benchmark.ORACLE_TITLE + ": HGMem on MuSiQue (" + questions.size() + " questions)" + (PASS_CONFIG.isEmpty() ? "" : ", config " + PASS_CONFIG) + "\n");
        say("| pass | q | passages/q (F) | F tokens/q | F set recall | F all gold | history set recall | history all gold | filter loss (points) | answered"
                + " | steps/q | steps ≤ hops+1 | local share | Avg-N_v | LLM calls/q | prompt tok/q | p50 ms |");
        say("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        long t1 = System.nanoTime();
        HgmemEvaluation full = new HgmemEvaluation("hgmem.answer (oracle planner)", PASS_CONFIG, true);
        Map<String, Integer> fullBudget = new LinkedHashMap<>();
        server.clearLog();
        Scores fullScores = h.method(full, server, every, fullBudget);
        say(String.format("(index and full pass in %.1f s)", (System.nanoTime() - t1) / 1e9));
        Map<String, Object> info = db.executeTransactionally("CALL hgmem.info({corpus: $c})", Map.of("c", CORPUS), r -> r.next());
        row("HGMem, adaptive (full)", fullScores, full, questions);
        filterAnalysis(full, questions);
        stepsAnalysis(full, questions);
        cleanProvisional();
        HgmemEvaluation single = config("single step (maxTurns 0)", Map.of("maxTurns", 0L));
        row("HGMem single step (maxTurns 0)", h.method(single, server, every, new LinkedHashMap<>()), single, questions);
        cleanProvisional();
        if (ablation) {
            for (Map.Entry<String, Map<String, Object>> a : ablations().entrySet()) {
                HgmemEvaluation e = config(a.getKey(), a.getValue());
                row("ablation: " + a.getKey(), h.method(e, server, every, new LinkedHashMap<>()), e, questions);
                cleanProvisional();
            }
        }
        say("\nControls (same questions, no LLM):\n");
        say("| control | q | R@2 | R@5 | passages/q | set recall | all gold | answered |");
        say("|---|---|---|---|---|---|---|---|");
        control(h.ranked("rag.search dense", "dense", every));
        control(h.denseAtBudget("plain dense at HGMem's |F|", fullBudget));
        int perSubquery = ((Number) PASS_CONFIG.getOrDefault("chunksPerQuery", 5L)).intValue();
        Map<String, Integer> gatedBudget = new LinkedHashMap<>();
        control(h.gatedControl(perSubquery, every, gatedBudget));
        control(h.denseAtBudget("plain dense at the gated budget", gatedBudget));
        // the control near HGMem's |F|: fewer passages per hop
        for (int perHop : List.of(2, 3)) control(h.gatedControl(perHop, every, new LinkedHashMap<>()));
        say(String.format("%nBase graph: %s entities, %s relations, %s mentions (rule extractor).", info.get("entities"), info.get("relations"), info.get("mentions")));
    }

    /**
     * --narrative: "The Gods of Mars" (one long document) in HGMem's chunks, the rule extractor's base graph, then the
     * NarrativeQA question step by step with the SCRIPTED planner (global, local, global, sufficient): per step the
     * latency (less the stand-in's time), tokens, candidate-set sizes and memory size. One question: no accuracy claim.
     */
    @SuppressWarnings("unchecked")
    void narrative(Path dir) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String book = json.readTree(dir.resolve("Long_unique_contexts.json").toFile()).get(0).get(0).asText();
        String question = json.readTree(Files.readAllLines(dir.resolve("traditional_questions_chunks100.jsonl")).get(0)).path("question").asText();
        String corpus = "gods-of-mars";
        long t0 = System.nanoTime();
        Map<String, Object> ingest = db.executeTransactionally("CALL rag.ingest([{id: 'gods-of-mars', text: $t}], {corpus: $c, chunkSize: 200, chunkOverlap: 50})"
                + " YIELD chunks RETURN chunks", Map.of("t", book, "c", corpus), r -> r.next());
        say(String.format("%d characters -> %s chunks (token windows 200/50) in %.1f s", book.length(), ingest.get("chunks"), (System.nanoTime() - t0) / 1e9));
        dev.graphrag.oracle.HgmemPolicies.registerScripted(server, List.of("2.1", "2.2", "1"),
                List.of(List.of("What did Issus do to Xodar after his defeat?"), List.of("Who are the First Born and how do they treat slaves?"), List.of()));
        long t1 = System.nanoTime();
        Map<String, Object> index = db.executeTransactionally("CALL hgmem.index({corpus: $c, llm: $llm}) YIELD entities, relations, mentions, llmCalls RETURN *",
                Map.of("c", corpus, "llm", server.llmConfig()), r -> r.next());
        say(String.format("hgmem.index (rule extractor) in %.1f s: %s", (System.nanoTime() - t1) / 1e9, index));
        say("\nSCRIPTED PLANNER (not an LLM, not an oracle): " + question + "\n");
        say("| step | mode | subqueries | candidates per subquery | entities | chunks | units | vertices | Avg-N_v | LLM calls | prompt tok | completion tok | ms excl. stand-in |");
        say("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        boolean done = false;
        String sid = "narrative";
        for (int step = 0; !done && step < 10; step++) {
            double before = server.handlerMillis();
            long t = System.nanoTime();
            Map<String, Object> r = db.executeTransactionally("CALL hgmem.evolve($s, $q, {corpus: $c, llm: $llm})",
                    Map.of("s", sid, "q", question, "c", corpus, "llm", server.llmConfig()), x -> x.next());
            double ms = (System.nanoTime() - t) / 1e6 - (server.handlerMillis() - before);
            List<Map<String, Object>> retrieval = (List<Map<String, Object>>) r.get("retrieval");
            say(String.format("| %s | %s | %d | %s | %d | %d | %s | %s | %.2f | %s | %s | %s | %.0f |", r.get("step"), r.get("mode"), ((List<?>) r.get("subqueries")).size(),
                    retrieval.stream().map(m -> m.get("mode") + " " + m.get("candidates")).toList(), ((List<?>) r.get("retrievedEntities")).size(),
                    ((List<?>) r.get("retrievedChunks")).size(), r.get("units"), r.get("vertices"), (Double) r.get("avgVerticesPerUnit"), r.get("llmCalls"),
                    r.get("promptTokens"), r.get("completionTokens"), ms));
            done = (Boolean) r.get("done");
        }
        double before = server.handlerMillis();
        long t = System.nanoTime();
        Map<String, Object> a = db.executeTransactionally("CALL hgmem.respond($s, {llm: $llm})", Map.of("s", sid, "llm", server.llmConfig()), x -> x.next());
        say(String.format("%nhgmem.respond: %d context chunks, %s context tokens, %s prompt tokens, %.0f ms excl. stand-in", ((List<?>) a.get("chunks")).size(),
                a.get("contextTokens"), a.get("promptTokens"), (System.nanoTime() - t) / 1e6 - (server.handlerMillis() - before)));
    }

    private static Map<String, Map<String, Object>> ablations() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>();
        m.put("globalOnly", Map.of("retrievalStrategy", "globalOnly"));
        m.put("localOnly", Map.of("retrievalStrategy", "localOnly"));
        m.put("no merge", Map.of("enableMerge", false));
        m.put("no update", Map.of("enableUpdate", false));
        m.put("passageRetrieval off (graph path only)", Map.of("passageRetrieval", false));
        return m;
    }

    private HgmemEvaluation config(String name, Map<String, Object> extra) {
        Map<String, Object> c = new LinkedHashMap<>(PASS_CONFIG);
        c.putAll(extra);
        return new HgmemEvaluation(name, c, false);
    }

    /** Provisional entities of one pass leave before the next, so passes see the same base graph. */
    private void cleanProvisional() {
        db.executeTransactionally("MATCH (e:HgEntity {corpus: $c}) WHERE e.provisional DETACH DELETE e", Map.of("c", CORPUS));
        db.executeTransactionally("MATCH (:HgEntity {corpus: $c})-[r:HG_RELATED]->() WHERE r.provisional DELETE r", Map.of("c", CORPUS));
    }

    private void row(String label, Scores s, HgmemEvaluation e, List<ScoredQuestion> questions) {
        List<HgmemEvaluation.Run> runs = e.runs();
        Scores history = new Scores("history");
        int i = 0, withinHops = 0;
        long steps = 0, local = 0, later = 0;
        double avgNv = 0, tokens = 0;
        for (ScoredQuestion q : questions) {
            HgmemEvaluation.Run r = runs.get(i++);
            history.add(r.historyDocuments(), false, q.goldIds(), 0);
            OracleGold.Question g = gold.find(q.text());
            int hops = g == null ? 0 : g.hops().size();
            if (r.steps() <= hops + 1) withinHops++;
            steps += r.steps();
            for (int t = 1; t < r.modes().size(); t++) {
                later++;
                if (!"global".equals(r.modes().get(t))) local++;
            }
            avgNv += r.avgVerticesPerUnit();
            tokens += r.contextTokens();
        }
        int n = runs.size();
        say(String.format("| %s | %d | %.2f | %.0f | %.3f | %.2f | %.3f | %.2f | %.1f | %.2f | %.2f | %.0f%% | %s | %.2f | %.2f | %.0f | %.1f |", label, n, s.budget(),
                tokens / n, s.setRecall(), s.allGold(), history.setRecall(), history.allGold(), 100 * (history.setRecall() - s.setRecall()), s.answerRate(),
                (double) steps / n, 100.0 * withinHops / n, later == 0 ? "–" : String.format("%.0f%%", 100.0 * local / later), avgNv / n,
                s.callsPerQuestion(), s.promptTokensPerQuestion(), s.p50()));
    }

    /** Gold passages some step retrieved that the final context left out, by whether the filter's rule could reach them. */
    private void filterAnalysis(HgmemEvaluation e, List<ScoredQuestion> questions) {
        Map<String, Integer> why = new java.util.TreeMap<>();
        Scores answeredF = new Scores("F, answered"), answeredHistory = new Scores("history, answered");
        int emptyMemory = 0, goldInEmpty = 0, goldKeptInEmpty = 0;
        int i = 0;
        for (ScoredQuestion q : questions) {
            HgmemEvaluation.Run r = e.runs().get(i++);
            OracleGold.Question g = gold.find(q.text());
            boolean resolved = g != null && g.isAnswer(r.answer());
            if (resolved) {
                answeredF.add(r.finalDocuments(), false, q.goldIds(), 0);
                answeredHistory.add(r.historyDocuments(), false, q.goldIds(), 0);
            } else if (r.units() == 0) {
                emptyMemory++;
                for (String doc : q.goldIds()) {
                    if (!r.historyDocuments().contains(doc)) continue;
                    goldInEmpty++;
                    if (r.finalDocuments().contains(doc)) goldKeptInEmpty++;
                }
            }
            r.filteredOut().forEach((doc, reason) -> {
                if (q.goldIds().contains(doc) && !r.finalDocuments().contains(doc)) why.merge(reason + (resolved ? " (answered)" : " (unanswered)"), 1, Integer::sum);
            });
        }
        say(String.format("%nFinal-context filter, full pass: gold passages retrieved but left out of F, by why the rule could have reached them"
                + " and whether the planner answered the question: %s"
                + " (inner: the chunk mentions an entity of a memory point but lost the per-point top-%d by similarity; outer: a neighbour's chunk that"
                + " lost its top-%d; unlinked: the chunk mentions no memory entity nor a neighbour of one).%n", why, 5, 5));
        say(String.format("On the %d questions the planner answered: history set recall %.3f, F's %.3f, filter loss %.1f points."
                + " Unanswered questions whose memory has no point: %d; their history holds %d gold passages, of which F (emptyMemoryChunks) keeps %d.%n",
                answeredF.questions(), answeredHistory.setRecall(), answeredF.setRecall(), 100 * (answeredHistory.setRecall() - answeredF.setRecall()),
                emptyMemory, goldInEmpty, goldKeptInEmpty));
    }

    /** The questions over hops + 1 steps, by hops and by whether the planner answered them. */
    private void stepsAnalysis(HgmemEvaluation e, List<ScoredQuestion> questions) {
        Map<String, Integer> over = new java.util.TreeMap<>();
        int i = 0;
        for (ScoredQuestion q : questions) {
            HgmemEvaluation.Run r = e.runs().get(i++);
            OracleGold.Question g = gold.find(q.text());
            int hops = g == null ? 0 : g.hops().size();
            if (r.steps() <= hops + 1) continue;
            boolean answered = g != null && g.isAnswer(r.answer());
            over.merge(hops + " hops, " + (answered ? "answered" : "unanswered") + ", " + r.steps() + " steps", 1, Integer::sum);
        }
        say(String.format("Questions over hops + 1 steps, full pass: %s%n", over));
    }

    private void control(Scores s) {
        say(String.format("| %s | %d | %s | %s | %.2f | %.3f | %.2f | %.2f |", s.name(), s.questions(), s.ranked() ? String.format("%.3f", s.recall2()) : "–",
                s.ranked() ? String.format("%.3f", s.recall5()) : "–", s.budget(), s.setRecall(), s.allGold(), s.answerRate()));
    }

    private void say(String line) {
        out.println(line);
        report.append(line).append("\n");
    }
}
