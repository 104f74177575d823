package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.EvidenceGate;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.RemindEvaluation;
import dev.graphrag.oracle.Scores;
import dev.graphrag.oracle.ScoredQuestion;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The ReMindRAG oracle evaluation (docs/evaluation.md#remindrag-the-oracle-walker-and-the-passes; docs/benchmarks.md "ReMindRAG"): MuSiQue ingested
 * with the sentence chunker, remind.index built by the rule extractor, then the passes on one shared graph with the
 * oracle walker: F fresh (remind.query, no memory), P5 interference (memorise the tuning half twice, run the report
 * half read-only), P1 cold (memorising), P3 template and hand-written paraphrases and P4 hop-1 sub-questions
 * (read-only, so each sees the memory exactly as the memorising passes left it), P2 the same questions a second and
 * a third time, replay alone after each memorising pass, and the penalty ablation. Controls in the same run: plain
 * dense (ranked and at each pass's budget), the evidence-gated iterative dense, and the reachability ceiling.
 * Every figure is an ORACLE POLICY figure. Writes target/remind-results.md.
 */
public final class RemindBenchmark {
    static final String CORPUS = "musique-remind";
    static final String RM_TYPES = "RM_RELATION|RM_MENTIONED_IN|RM_NEXT|RM_HAS_CHUNK";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** --set key=value (repeatable): config keys every walk gets, for a variant on the tuning half (e.g. maxJumps=20). */
    static final Map<String, Object> PASS_CONFIG = new LinkedHashMap<>();

    private final GraphDatabaseService db;
    private final EvalLlmServer server;
    private final OracleGold gold;
    private final PrintStream out;
    private final StringBuilder report = new StringBuilder();
    /** One JSON line per walk (pass, question, stop reason, usage, documents, gold) in target/remind-walks.jsonl. */
    private PrintStream walkLog;

    RemindBenchmark(GraphDatabaseService db, EvalLlmServer server, OracleGold gold, PrintStream out) {
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
        int traces = args.option("--trace", 0);
        PrintStream out = System.out;
        Path work = Files.createTempDirectory("graphrag-remind-bench");
        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, null, "127.0.0.1", -1, -1));
        try (EvalLlmServer server = args.server()) {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            Path dataset = data.resolve("musique/musique_train.json");
            EvalCorpus corpus = EvalCorpus.of(CorpusFiles.read(data.resolve("musique/musique_train_corpus.json")), Benchmark.SEED);
            List<ScoredQuestion> questions = ScoredQuestion.musique(dataset, corpus);
            if (questions.size() > limit) questions = questions.subList(0, limit);
            List<OracleGold.Question> base = OracleGold.fromMusique(dataset);
            Map<String, String> hand = RemindParaphrases.handParaphrases();
            List<OracleGold.Question> all = new ArrayList<>(base);
            for (OracleGold.Question q : base) {
                all.add(new OracleGold.Question(q.id() + "#tp", RemindParaphrases.templateParaphrase(q), q.answer(), q.aliases(), q.hops()));
                if (hand.containsKey(q.id())) all.add(new OracleGold.Question(q.id() + "#hw", hand.get(q.id()), q.answer(), q.aliases(), q.hops()));
                OracleGold.Hop h = q.hops().get(0);
                all.add(new OracleGold.Question(q.id() + "#hop1", EvidenceGate.query(h, new String[0]), h.answer(), List.of(), List.of(h)));
            }
            OracleGold gold = Benchmark.sanitisedGold(all, "musique_remind");
            RemindBenchmark b = new RemindBenchmark(db, server, gold, out);
            Files.createDirectories(Path.of("target"));
            b.walkLog = new PrintStream(Files.newOutputStream(Path.of("target", "remind-walks.jsonl")), true, java.nio.charset.StandardCharsets.UTF_8);
            if (traces > 0) {
                b.build(corpus);
                b.traces(questions.subList(0, Math.min(traces, questions.size())));
                return;
            }
            if (args.has("--p1-only")) {
                b.build(corpus);
                b.p1Only(questions);
            } else {
                b.run(corpus, questions, ScoredQuestion.musiqueHop1(dataset, corpus), ablation);
            }
            b.say("\n## Largest prompt per step (" + args.serverLabel() + ")\n\n" + server.promptSizeReport());
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "remind-results.md"), b.report.toString());
        } finally {
            neo4j.close();
        }
    }

    void run(EvalCorpus corpus, List<ScoredQuestion> questions, List<ScoredQuestion> hop1, boolean ablation) {
        build(corpus);
        runPasses(questions, hop1, ablation);
    }

    /** --p1-only: a tuning variant's cold pass (memorising) on each half, beside the gated control and dense at its budget. */
    void p1Only(List<ScoredQuestion> questions) {
        OracleHarness h = new OracleHarness(db, CORPUS, questions, gold).readingTitles();
        table("P1 only, config " + PASS_CONFIG);
        Map<String, Predicate<ScoredQuestion>> halves = new LinkedHashMap<>();
        halves.put("tuning half", ScoredQuestion::tuning);
        halves.put("report half", q -> !q.tuning());
        for (Map.Entry<String, Predicate<ScoredQuestion>> half : halves.entrySet()) {
            RemindEvaluation p1 = walker("P1", true, Map.of());
            pass(h, p1, half.getValue(), "P1 cold, " + half.getKey());
            List<ScoredQuestion> qs = questions.stream().filter(half.getValue()).toList();
            row("plain dense at that budget", new OracleHarness(db, CORPUS, qs, gold).readingTitles().denseAtBudget("dense", budgets(qs, p1.walked())), List.of());
            Map<String, Integer> gatedBudget = new LinkedHashMap<>();
            row("gated iterative dense top-2/hop", h.gatedControl(2, half.getValue(), gatedBudget), List.of());
            reset();
        }
    }

    /** --trace N: each walk of the first N questions, step by step with node names, for error analysis of the walker. */
    @SuppressWarnings("unchecked")
    void traces(List<ScoredQuestion> questions) {
        for (ScoredQuestion q : questions) {
            OracleGold.Question g = gold.find(q.text());
            out.println("\n" + q.text() + "\n  hops: " + g.hops() + "\n  gold: " + q.goldIds());
            Map<String, Object> row = db.executeTransactionally("CALL remind.query($q, {corpus: $c, llm: $llm}) YIELD trace, chunks, stopReason, llmCalls, promptTokens "
                    + "RETURN trace, chunks, stopReason, llmCalls, promptTokens", Map.of("q", q.text(), "c", CORPUS, "llm", server.llmConfig()), r -> r.next());
            for (Map<String, Object> step : (List<Map<String, Object>>) row.get("trace")) {
                out.println("  " + step.get("iteration") + " " + step.get("move") + " " + label(step.get("current")) + " -> " + label(step.get("picked")));
            }
            out.println("  chunks " + OracleHarness.documentsOf(db, CORPUS, (List<String>) row.get("chunks")) + " stop " + row.get("stopReason")
                    + " calls " + row.get("llmCalls") + " prompt " + row.get("promptTokens"));
        }
    }

    private String label(Object elementId) {
        if (elementId == null) return "-";
        return db.executeTransactionally("MATCH (n) WHERE elementId(n) = $id RETURN labels(n)[0] + ':' + coalesce(n.name, n.title, n.documentId, n.id) AS l",
                Map.of("id", elementId), r -> r.hasNext() ? (String) r.next().get("l") : "?");
    }

    void build(EvalCorpus corpus) {
        long t0 = System.nanoTime();
        long chunks = OracleHarness.ingest(db, CORPUS, corpus, Map.of("chunker", "sentences"));
        say(String.format("%s: %d passages -> %d chunks (sentence chunker, shuffled, seed %d) in %.1f s", CORPUS, corpus.size(), chunks, Benchmark.SEED,
                (System.nanoTime() - t0) / 1e9));
        RemindEvaluation policies = walker("index", false, Map.of());
        policies.register(server, gold);
        server.clearLog();
        long t1 = System.nanoTime();
        Map<String, Object> index = db.executeTransactionally("CALL remind.index({corpus: $c, llm: $llm})", Map.of("c", CORPUS, "llm", server.llmConfig()), r -> r.next());
        say(String.format("remind.index (rule extractor) in %.1f s: %s", (System.nanoTime() - t1) / 1e9, index));
    }

    void runPasses(List<ScoredQuestion> questions, List<ScoredQuestion> hop1, boolean ablation) {

        OracleHarness h = new OracleHarness(db, CORPUS, questions, gold).readingTitles();
        Predicate<ScoredQuestion> every = q -> true, tuning = ScoredQuestion::tuning, reportHalf = q -> !q.tuning();
        table("Controls (" + questions.size() + " questions)");
        row("plain dense top-5", h.ranked("rag.search dense", "dense", every), List.of());
        Map<String, Integer> gatedBudget = new LinkedHashMap<>();
        Scores gated = h.gatedControl(2, every, gatedBudget);
        row("gated iterative dense top-2/hop", gated, List.of());
        row("plain dense at the gated budget", h.denseAtBudget("dense", gatedBudget), List.of());
        double[] reach = reachability(questions);
        say(String.format("%nReachability ceiling (BFS over the ReMind layer from the walks' seeds, seedCount %s, <= 10 jumps): %.3f of gold passages; all gold reachable for %.0f%% of questions",
                seedConfig().getOrDefault("seedCount", 2L), reach[0], 100 * reach[1]));

        // F: fresh graph, read-only: the reference for P5 and the cold cost without any memory
        table("F fresh graph, remind.query (no memory)");
        RemindEvaluation fresh = walker("fresh", false, Map.of());
        Scores freshAll = pass(h, fresh, every, "F fresh, all");
        Map<String, List<String>> freshReplay = new LinkedHashMap<>();
        Scores freshReplayScores = replay(questions, every, freshReplay, null);
        rowReplay("replay alone, fresh graph", freshReplayScores);

        // P5: memorise the tuning half twice, run the report half read-only; compare with F on the same half
        table("P5 interference: memorise the tuning half twice (remind.answer), then the report half read-only");
        RemindEvaluation memTuning = walker("P5 memorise", true, Map.of());
        pass(h, memTuning, tuning, "P5 memorise tuning half, pass 1");
        pass(h, memTuning, tuning, "P5 memorise tuning half, pass 2");
        RemindEvaluation heldOut = walker("P5 held-out", false, Map.of());
        Scores heldScores = pass(h, heldOut, reportHalf, "P5 report half after the tuning half's memory");
        Scores freshReport = passOf(h, fresh, reportHalf, "F fresh, report half (same walks as above)");
        Map<String, List<String>> heldReplay = new LinkedHashMap<>();
        replay(questions, reportHalf, heldReplay, null);
        long falseReplays = falseReplays(questions, freshReplay, heldReplay);
        say(String.format("P5: held-out prompt tokens/q %.0f vs fresh %.0f (%+.1f%%); set recall %.3f vs %.3f (%+.1f points); questions whose replay picked up a non-gold passage the fresh graph did not: %d",
                heldScores.promptTokensPerQuestion(), freshReport.promptTokensPerQuestion(),
                100 * (heldScores.promptTokensPerQuestion() / freshReport.promptTokensPerQuestion() - 1), heldScores.setRecall(), freshReport.setRecall(),
                100 * (heldScores.setRecall() - freshReport.setRecall()), falseReplays));
        reset();

        // P1 cold with memorisation, then what one memorised pass gives paraphrases, sub-questions and replay alone
        table("P1 cold (remind.answer, memorising) and what one pass gives");
        RemindEvaluation p1 = walker("P1", true, Map.of());
        Scores cold = pass(h, p1, every, "P1 cold");
        Map<String, Integer> p1Budget = budgets(questions, p1.walked());
        Scores denseAtP1 = h.denseAtBudget("dense", p1Budget);
        row("plain dense at the P1 budget", denseAtP1, List.of());
        Scores replay1 = replay(questions, every, new LinkedHashMap<>(), "replay alone after P1");
        List<ScoredQuestion> tp = RemindParaphrases.paraphrased(gold, questions, "#tp");
        List<ScoredQuestion> hw = RemindParaphrases.paraphrased(gold, questions, "#hw");
        RemindEvaluation tp1 = walker("P3 template", false, Map.of()), hw1 = walker("P3 hand", false, Map.of());
        Scores tpAfter1 = pass(new OracleHarness(db, CORPUS, tp, gold).readingTitles(), tp1, every, "P3 template paraphrases after 1 pass");
        Scores hwAfter1 = pass(new OracleHarness(db, CORPUS, hw, gold).readingTitles(), hw1, every, "P3 hand-written paraphrases after 1 pass");
        say(String.format("Path Jaccard P1 vs paraphrase after 1 pass: template %.3f, hand-written %.3f",
                RemindParaphrases.jaccard(p1.walked(), questions, tp1.walked(), tp), RemindParaphrases.jaccard(p1.walked(), questions, hw1.walked(), hw)));
        Scores hop1After = pass(new OracleHarness(db, CORPUS, hop1, gold).readingTitles(), walker("P4", false, Map.of()), every,
                "P4 hop-1 sub-questions after 1 pass");

        // P2: the same questions again, twice
        table("P2 the same questions again (remind.answer)");
        RemindEvaluation p2 = walker("P2", true, Map.of());
        Scores same1 = pass(h, p2, every, "P2 same questions, 2nd time");
        Scores replay2 = replay(questions, every, new LinkedHashMap<>(), "replay alone after 2 passes");
        RemindEvaluation tp2 = walker("P3 template 2", false, Map.of()), hw2 = walker("P3 hand 2", false, Map.of());
        Scores tpAfter2 = pass(new OracleHarness(db, CORPUS, tp, gold).readingTitles(), tp2, every, "P3 template paraphrases after 2 passes");
        Scores hwAfter2 = pass(new OracleHarness(db, CORPUS, hw, gold).readingTitles(), hw2, every, "P3 hand-written paraphrases after 2 passes");
        RemindEvaluation p3 = walker("P2b", true, Map.of());
        Scores same2 = pass(h, p3, every, "P2 same questions, 3rd time");
        paraphraseBySuccess(questions, p1.walked(), tp, tp1.walked(), "template paraphrases after 1 pass");
        paraphraseBySuccess(questions, p1.walked(), tp, tp2.walked(), "template paraphrases after 2 passes");
        repeatBySuccess(p1.walked(), p2.walked(), "P2 2nd time");
        repeatBySuccess(p1.walked(), p3.walked(), "P2 3rd time");
        say(String.format("Walk latency p50 (wall less the stand-in's own time): P1 cold %.1f ms, P2 2nd time %.1f ms, P2 3rd time %.1f ms",
                p50(p1.walked()), p50(p2.walked()), p50(p3.walked())));

        if (ablation) {
            reset();
            table("Ablation: penalty 'none' (the reference code's behaviour) instead of 'paper'");
            RemindEvaluation n1 = walker("none 1", true, Map.of("penalty", "none"));
            Scores none1 = pass(h, n1, every, "P1 cold, penalty none");
            Scores none2 = pass(h, walker("none 2", true, Map.of("penalty", "none")), every, "P2 2nd time, penalty none");
            Scores noneTp = pass(new OracleHarness(db, CORPUS, tp, gold).readingTitles(), walker("none tp", false, Map.of()), every,
                    "P3 template paraphrases after 2 passes, penalty none");
            say(String.format("penalty none vs paper: P2 prompt tok/q %.0f vs %.0f, template paraphrase %.0f vs %.0f, P1 set recall %.3f vs %.3f",
                    none2.promptTokensPerQuestion(), same1.promptTokensPerQuestion(), noneTp.promptTokensPerQuestion(), tpAfter2.promptTokensPerQuestion(),
                    none1.setRecall(), cold.setRecall()));
            reset();
            table("Ablation: memorizeWhen 'sufficient' (memorise only walks judged sufficient) instead of 'always'");
            RemindEvaluation s1 = walker("sufficient 1", true, Map.of("memorizeWhen", "sufficient"));
            Scores onlyCold = pass(h, s1, every, "P1 cold, memorizeWhen sufficient");
            RemindEvaluation s2 = walker("sufficient 2", true, Map.of("memorizeWhen", "sufficient"));
            Scores onlySame = pass(h, s2, every, "P2 2nd time, memorizeWhen sufficient");
            repeatBySuccess(s1.walked(), s2.walked(), "P2 2nd time, memorizeWhen sufficient");
            say(String.format("memorizeWhen sufficient vs always: P2 prompt tok/q %.0f (%.0f%% of its P1) vs %.0f (%.0f%%); P2 set recall %.3f vs %.3f",
                    onlySame.promptTokensPerQuestion(), 100 * onlySame.promptTokensPerQuestion() / onlyCold.promptTokensPerQuestion(),
                    same1.promptTokensPerQuestion(), 100 * same1.promptTokensPerQuestion() / cold.promptTokensPerQuestion(), onlySame.setRecall(), same1.setRecall()));
        }

        // the targets of §3.2, each with its figures
        say("\n" + Benchmark.ORACLE_TITLE + ": targets (docs/evaluation.md#remindrag-the-oracle-walker-and-the-passes), config " + PASS_CONFIG + "\n");
        say("| target | figures | |");
        say("|---|---|---|");
        target("P1 set recall >= plain dense at the same budget + 10 points", cold.setRecall(), denseAtP1.setRecall() + 0.10,
                String.format("%.3f vs %.3f", cold.setRecall(), denseAtP1.setRecall()));
        target("P1 set recall within 5 points of the gated control", cold.setRecall(), gated.setRecall() - 0.05,
                String.format("%.3f vs %.3f (budgets %.2f vs %.2f passages/q)", cold.setRecall(), gated.setRecall(), cold.budget(), gated.budget()));
        target("P1 recall >= 90% of the reachability ceiling", cold.setRecall(), 0.9 * reach[0], String.format("%.3f vs ceiling %.3f", cold.setRecall(), reach[0]));
        target("P2 prompt tokens <= 50% of P1", 0.5 * cold.promptTokensPerQuestion(), same1.promptTokensPerQuestion(),
                String.format("%.0f vs %.0f (%.0f%%)", same1.promptTokensPerQuestion(), cold.promptTokensPerQuestion(), 100 * same1.promptTokensPerQuestion() / cold.promptTokensPerQuestion()));
        target("P2 recall >= P1 - 1 point", same1.setRecall(), cold.setRecall() - 0.01, String.format("%.3f vs %.3f", same1.setRecall(), cold.setRecall()));
        target("replay-only recall >= P1 recall - 2 points", replay1.setRecall(), cold.setRecall() - 0.02,
                String.format("%.3f after 1 pass (%.3f after 2) vs %.3f", replay1.setRecall(), replay2.setRecall(), cold.setRecall()));
        target("template paraphrases <= 70% of P1 tokens after 1 pass", 0.7 * cold.promptTokensPerQuestion(), tpAfter1.promptTokensPerQuestion(),
                String.format("%.0f%%", 100 * tpAfter1.promptTokensPerQuestion() / cold.promptTokensPerQuestion()));
        target("template paraphrases <= 50% of P1 tokens after 2 passes", 0.5 * cold.promptTokensPerQuestion(), tpAfter2.promptTokensPerQuestion(),
                String.format("%.0f%%", 100 * tpAfter2.promptTokensPerQuestion() / cold.promptTokensPerQuestion()));
        target("P5 held-out tokens within +5% of a fresh graph", 1.05 * freshReport.promptTokensPerQuestion(), heldScores.promptTokensPerQuestion(),
                String.format("%.0f vs %.0f", heldScores.promptTokensPerQuestion(), freshReport.promptTokensPerQuestion()));
        target("remind.replay p50 under 20 ms", 20, replay1.p50(), String.format("%.1f ms after 1 pass, %.1f ms after 2", replay1.p50(), replay2.p50()));
        target("P5 held-out recall within -2 points of a fresh graph", heldScores.setRecall(), freshReport.setRecall() - 0.02,
                String.format("%.3f vs %.3f", heldScores.setRecall(), freshReport.setRecall()));
        say(String.format("Reported without a target: hand-written paraphrases %.0f%% of P1 tokens after 1 pass, %.0f%% after 2; recall %.3f / %.3f; hop-1 sub-questions after 1 pass: %.0f prompt tok/q, set recall %.3f; same 3rd time %.0f tok/q",
                100 * hwAfter1.promptTokensPerQuestion() / cold.promptTokensPerQuestion(), 100 * hwAfter2.promptTokensPerQuestion() / cold.promptTokensPerQuestion(),
                hwAfter1.setRecall(), hwAfter2.setRecall(), hop1After.promptTokensPerQuestion(), hop1After.setRecall(), same2.promptTokensPerQuestion()));
    }

    /** A pass's evaluation with --config's keys and its own. */
    private static RemindEvaluation walker(String name, boolean memorize, Map<String, Object> own) {
        Map<String, Object> config = new LinkedHashMap<>(PASS_CONFIG);
        config.putAll(own);
        return new RemindEvaluation(name, memorize, config);
    }

    private void say(String line) {
        out.println(line);
        report.append(line).append("\n");
    }

    private void table(String title) {
        say("\n" + Benchmark.ORACLE_TITLE + ": " + title + (PASS_CONFIG.isEmpty() ? "" : ", config " + PASS_CONFIG) + "\n");
        say("| pass | q | R@2 | R@5 | passages/q | set recall | all gold | answered | LLM calls/q | prompt tok/q | traversal tok/q | completion tok/q | jumps/q | stop reasons | p50 ms excl. stand-in |");
        say("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    }

    private void row(String label, Scores s, List<RemindEvaluation.Walked> w) {
        double trav = w.stream().mapToLong(RemindEvaluation.Walked::traversalTokens).average().orElse(Double.NaN);
        double jumps = w.stream().mapToLong(RemindEvaluation.Walked::jumps).average().orElse(Double.NaN);
        say(String.format("| %s | %d | %s | %s | %.2f | %.3f | %.2f | %.2f | %.2f | %.0f | %s | %.0f | %s | %s | %s |", label, s.questions(),
                s.ranked() ? String.format("%.3f", s.recall2()) : "–", s.ranked() ? String.format("%.3f", s.recall5()) : "–", s.budget(), s.setRecall(),
                s.allGold(), s.answerRate(), s.callsPerQuestion(), s.promptTokensPerQuestion(), w.isEmpty() ? "–" : String.format("%.0f", trav),
                s.completionTokensPerQuestion(), w.isEmpty() ? "–" : String.format("%.1f", jumps), w.isEmpty() ? "–" : RemindEvaluation.stopReasons(w).toString(),
                w.isEmpty() ? String.format("%.1f", s.p50()) : String.format("%.1f", p50(w))));
    }

    private void rowReplay(String label, Scores s) {
        say(String.format("| %s | %d | – | – | %.2f | %.3f | %.2f | – | 0 | 0 | 0 | 0 | 0 | – | %.1f |", label, s.questions(), s.budget(), s.setRecall(),
                s.allGold(), s.p50()));
    }

    /** One pass of a method over the questions {@code which} selects, as a table row; its walks are those of this pass. */
    private Scores pass(OracleHarness h, RemindEvaluation m, Predicate<ScoredQuestion> which, String label) {
        int before = m.walked().size();
        Scores s = h.method(m, server, which, new LinkedHashMap<>());
        List<RemindEvaluation.Walked> walks = m.walked().subList(before, m.walked().size());
        row(label, s, walks);
        if (walkLog != null) {
            List<ScoredQuestion> qs = h.questions().stream().filter(which).toList();
            for (int i = 0; i < walks.size(); i++) {
                RemindEvaluation.Walked w = walks.get(i);
                walkLog.println(JSON.createObjectNode().put("pass", label).put("id", qs.get(i).id()).put("question", w.question())
                        .put("stopReason", w.stopReason()).put("jumps", w.jumps()).put("llmCalls", w.llmCalls()).put("promptTokens", w.promptTokens())
                        .put("answer", w.answer()).<com.fasterxml.jackson.databind.node.ObjectNode>set("documents", JSON.valueToTree(w.documentIds()))
                        .set("gold", JSON.valueToTree(qs.get(i).goldIds())));
            }
        }
        return s;
    }

    /** As {@link #repeatBySuccess}, for paraphrases (matched to their original by id). */
    private void paraphraseBySuccess(List<ScoredQuestion> questions, List<RemindEvaluation.Walked> first, List<ScoredQuestion> para,
                                     List<RemindEvaluation.Walked> paraWalks, String label) {
        Map<String, Integer> at = new LinkedHashMap<>();
        for (int i = 0; i < questions.size(); i++) at.put(questions.get(i).id(), i);
        List<RemindEvaluation.Walked> matched = new ArrayList<>();
        for (ScoredQuestion p : para) matched.add(first.get(at.get(p.id().substring(0, p.id().indexOf('#')))));
        repeatBySuccess(matched, paraWalks, label);
    }

    /** P1 against a later pass of the same questions, split by whether the P1 walk was judged sufficient (its paths confirmed). */
    private void repeatBySuccess(List<RemindEvaluation.Walked> first, List<RemindEvaluation.Walked> again, String label) {
        double[] tok = new double[4];
        int[] n = new int[2];
        for (int i = 0; i < first.size(); i++) {
            int k = "SUFFICIENT".equals(first.get(i).stopReason()) ? 0 : 1;
            n[k]++;
            tok[2 * k] += first.get(i).promptTokens();
            tok[2 * k + 1] += again.get(i).promptTokens();
        }
        say(String.format("%s: on the %d questions whose P1 walk was judged sufficient, prompt tok/q %.0f -> %.0f (%.0f%%); on the other %d, %.0f -> %.0f (%.0f%%)",
                label, n[0], tok[0] / n[0], tok[1] / n[0], 100 * tok[1] / tok[0], n[1], tok[2] / n[1], tok[3] / n[1], 100 * tok[3] / tok[2]));
    }

    /** A row re-scored from walks already run (F on the report half): the same walks, selected. */
    private Scores passOf(OracleHarness h, RemindEvaluation fresh, Predicate<ScoredQuestion> which, String label) {
        Scores s = new Scores(label);
        List<RemindEvaluation.Walked> picked = new ArrayList<>();
        List<ScoredQuestion> qs = h.questions();
        for (int i = 0; i < qs.size(); i++) {
            if (!which.test(qs.get(i))) continue;
            RemindEvaluation.Walked w = fresh.walked().get(i);
            picked.add(w);
            s.add(w.documentIds(), true, qs.get(i).goldIds(), w.millisWithoutStandIn());
            s.usage(w.llmCalls(), w.promptTokens(), w.completionTokens());
            OracleGold.Question g = gold.find(qs.get(i).text());
            s.answer(g != null && g.isAnswer(w.answer()));
        }
        row(label, s, picked);
        return s;
    }

    /** remind.replay over the questions: set recall of what memory alone returns (no LLM); each question's replayed documents go to {@code docs} by id. */
    @SuppressWarnings("unchecked")
    private Scores replay(List<ScoredQuestion> questions, Predicate<ScoredQuestion> which, Map<String, List<String>> docs, String label) {
        Scores s = new Scores(label == null ? "replay" : label);
        long replayed = 0, goldReplayed = 0;
        for (ScoredQuestion q : questions) {
            if (!which.test(q)) continue;
            long t = System.nanoTime();
            List<String> chunkIds = db.executeTransactionally("CALL remind.replay($q, $config) YIELD chunks RETURN chunks",
                    Map.of("q", q.text(), "config", replayConfig()), r -> (List<String>) r.next().get("chunks"));
            double ms = (System.nanoTime() - t) / 1e6;
            List<String> d = OracleHarness.documentsOf(db, CORPUS, chunkIds);
            docs.put(q.id(), d);
            s.add(d, false, q.goldIds(), ms);
            replayed += d.size();
            goldReplayed += d.stream().filter(q.goldIds()::contains).count();
        }
        if (label != null) {
            rowReplay(label, s);
            say(String.format("%s: replay precision %.3f (gold share of the %d passages replayed), p50 %.1f ms", label,
                    replayed == 0 ? 0 : (double) goldReplayed / replayed, replayed, s.p50()));
        }
        return s;
    }

    /** Held-out questions whose replay returned a non-gold passage that replay on the fresh graph did not. */
    private static long falseReplays(List<ScoredQuestion> questions, Map<String, List<String>> fresh, Map<String, List<String>> after) {
        long n = 0;
        for (ScoredQuestion q : questions) {
            if (!after.containsKey(q.id())) continue;
            Set<String> extra = new HashSet<>(after.get(q.id()));
            extra.removeAll(fresh.get(q.id()));
            extra.removeAll(q.goldIds());
            if (!extra.isEmpty()) n++;
        }
        return n;
    }

    /**
     * The share of gold passages whose chunk lies within 10 jumps of remind's seeds for the question over the ReMind
     * layer (BFS, no LLM), and the share of questions with every gold passage that close: what any walker could reach.
     */
    private double[] reachability(List<ScoredQuestion> questions) {
        double share = 0, all = 0;
        for (ScoredQuestion q : questions) {
            long reached = db.executeTransactionally("""
                    CALL remind.seeds($q, $config) YIELD node
                    WITH collect(node) AS seeds
                    MATCH (c:Chunk {corpus: $c}) WHERE c.documentId IN $gold
                    WITH seeds, c.documentId AS doc, c
                    UNWIND seeds AS s
                    OPTIONAL MATCH p = shortestPath((s)-[:%s*..10]-(c))
                    WITH doc, min(length(p)) AS d
                    RETURN count(CASE WHEN d IS NOT NULL THEN doc END) AS n""".formatted(RM_TYPES),
                    Map.of("q", q.text(), "c", CORPUS, "config", seedConfig(), "gold", List.copyOf(q.goldIds())), r -> (Long) r.next().get("n"));
            share += (double) reached / q.goldIds().size();
            all += reached == q.goldIds().size() ? 1 : 0;
        }
        return new double[] {share / questions.size(), all / questions.size()};
    }

    /** remind.replay's config: the corpus and the replay keys of --set, so replay alone sees the walks' seeds and weights. */
    private static Map<String, Object> replayConfig() {
        Map<String, Object> c = new LinkedHashMap<>(Map.of("corpus", CORPUS));
        for (String k : List.of("seedCount", "alpha", "lambda", "replayMaxNodes", "seedAnchorAddsChunk")) if (PASS_CONFIG.containsKey(k)) c.put(k, PASS_CONFIG.get(k));
        return c;
    }

    private static Map<String, Object> seedConfig() {
        Map<String, Object> c = new LinkedHashMap<>(Map.of("corpus", CORPUS));
        if (PASS_CONFIG.containsKey("seedCount")) c.put("seedCount", PASS_CONFIG.get("seedCount"));
        return c;
    }

    private void reset() {
        long n = db.executeTransactionally("CALL remind.memory.reset({corpus: $c}) YIELD relationshipsReset RETURN relationshipsReset",
                Map.of("c", CORPUS), r -> (Long) r.next().get("relationshipsReset"));
        say("remind.memory.reset: " + n + " relationships back to no memory");
    }

    private void target(String what, double value, double bound, String figures) {
        say(String.format("| %s | %s | %s |", what, figures, value >= bound ? "met" : "NOT met"));
    }

    private static Map<String, Integer> budgets(List<ScoredQuestion> questions, List<RemindEvaluation.Walked> walks) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < questions.size(); i++) out.put(questions.get(i).id(), new LinkedHashSet<>(walks.get(i).documentIds()).size());
        return out;
    }

    private static double p50(List<RemindEvaluation.Walked> w) {
        return Scores.percentile(w.stream().map(RemindEvaluation.Walked::millisWithoutStandIn).toList(), 50);
    }
}
