package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RagaConstructionPolicy;
import dev.graphrag.oracle.RuleExtractor;
import dev.graphrag.oracle.ScoredQuestion;
import dev.graphrag.oracle.Scores;
import dev.graphrag.raga.EvidenceAnchor;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * RAGA's evaluation (docs/evaluation.md#raga-the-construction-agent-then-llm-free-retrieval; docs/benchmarks.md "RAGA"). Construction by the rule-based agent
 * ({@link RagaConstructionPolicy}: reads only the chunk, never a question) through raga.ingest on the stand-in LLM, in
 * both toolsets; then retrieval with no LLM at all (vector, kg, fusion; deep with the question's entities by rule):
 * R@2/R@5 on MuSiQue (graph parameters tuned on the tuning half, reported on the other) and on HotpotQA (never tuned).
 * Checks on a subset: a run with about 20% corrupted tool calls builds the clean run's graph exactly, and an ingest
 * terminated mid-way and resumed does too; every entity and relation has provenance whose quote is the chunk text at
 * its offsets. Writes target/raga-results.md. Options: --passages N (a shuffled subset, for quick runs), --subset N
 * (the fault and resume subset, default 300; 0 skips those checks), --construction-only (no retrieval tables), --no-hotpot, --hotpot-only (HotpotQA alone, with the fusion setting a MuSiQue run
 * chose given as --tuned-hops, --tuned-anchor-chunks, --tuned-semantic-filter-percent and --tuned-page-anchors; defaults 1, 3, 50
 * and 1: the choices of 2026-11-23 and 2026-11-24),
 * --data DIR (keep the store; a later run with the same DIR reuses the graphs it holds and skips their construction and
 * the fault and resume checks, so retrieval work can be repeated in minutes).
 */
public final class RagaBenchmark {
    static final Map<String, Object> INGEST = Map.of("chunker", "structural", "chunkSize", 1200L, "chunkOverlap", 120L);

    private final GraphDatabaseService db;
    private final EvalLlmServer server;
    private final PrintStream out = System.out;
    private final StringBuilder report = new StringBuilder();

    RagaBenchmark(GraphDatabaseService db, EvalLlmServer server) {
        this.db = db;
        this.server = server;
    }

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path data = args.data();
        Path work = Files.createTempDirectory("graphrag-raga-bench");
        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, args.path("--data"), "127.0.0.1", -1, -1));
        try (EvalLlmServer server = args.server()) {
            RagaBenchmark b = new RagaBenchmark(neo4j.defaultDatabaseService(), server);
            b.constructionOnly = args.has("--construction-only");
            server.on("raga.L4", r -> PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", List.of(), "summary", "none")));
            // deep mode's query analysis by rule: the question's capitalised spans (no gold, no answer)
            server.on("raga.L5", r -> PolicyReply.jsonOf(Map.of("entities", first(RuleExtractor.entities(null,
                    dev.graphrag.oracle.RemindExtractionPolicies.block(r).path("question").asText()), 5), "keywords", List.of(), "sub_questions", List.of())));
            int passages = args.option("--passages", Integer.MAX_VALUE);
            if (args.has("--hotpot-only")) {
                // what a full run's MuSiQue tuning chose, given explicitly: HotpotQA itself is never tuned
                b.tuned.put("hops", (long) args.option("--tuned-hops", 1));
                b.tuned.put("anchorChunks", (long) args.option("--tuned-anchor-chunks", 3));
                b.tuned.put("semanticFilter", args.option("--tuned-semantic-filter-percent", 50) / 100.0);
                b.tuned.put("pageAnchors", (long) args.option("--tuned-page-anchors", 1));
                b.tunedKg.put("hops", (long) args.option("--tuned-kg-hops", 2));
                b.tunedKg.put("semanticFilter", args.option("--tuned-kg-semantic-filter-percent", 25) / 100.0);
            } else {
                EvalCorpus musique = EvalCorpus.of(CorpusFiles.read(data.resolve("musique/musique_train_corpus.json")), Benchmark.SEED);
                List<ScoredQuestion> mq = ScoredQuestion.musique(data.resolve("musique/musique_train.json"), musique);
                b.musique(subset(musique, passages), mq, args.option("--subset", 300));
            }
            if (!args.has("--no-hotpot")) {
                EvalCorpus hotpot = EvalCorpus.of(CorpusFiles.read(data.resolve("hotpotqa/hotpotqa_train_corpus.json")), Benchmark.SEED);
                b.hotpot(subset(hotpot, passages), ScoredQuestion.hotpot(data.resolve("hotpotqa/hotpotqa_train.json"), hotpot));
            }
            b.say("\n## Largest prompt per step (" + args.serverLabel() + ")\n\n" + server.promptSizeReport());
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "raga-results.md"), b.report.toString());
        } finally {
            neo4j.close();
        }
    }

    static <T> List<T> first(List<T> xs, int n) {
        return xs.size() <= n ? xs : xs.subList(0, n);
    }

    static List<Map<String, Object>> subset(EvalCorpus c, int n) {
        return first(c.documents(), n);
    }

    void say(String line) {
        out.println(line);
        report.append(line).append('\n');
    }

    /** --construction-only: the construction rows (and the fault and resume checks) without the retrieval tables. */
    private boolean constructionOnly;

    /** Settings the tuning chose (MuSiQue tuning half), then used unchanged on HotpotQA. */
    private Map<String, Object> tuned = new LinkedHashMap<>();
    private Map<String, Object> tunedKg = new LinkedHashMap<>();

    void musique(List<Map<String, Object>> docs, List<ScoredQuestion> questions, int subsetSize) {
        say("## RAGA on MuSiQue (" + docs.size() + " passages, " + questions.size() + " questions)\n");
        say("Construction: the rule-based agent on the stand-in (reads only each chunk; no question, no gold). Retrieval: no LLM (deep: the"
                + " question's entities by rule). Not an oracle.\n");
        boolean reused = built("mq-raga") && built("mq-raga-batch");
        if (reused) {
            say("Graphs reused from the --data store: construction and the fault and resume checks were not run.\n");
            restamp("mq-raga");
            restamp("mq-raga-batch");
        } else {
            OracleHarness.ingest(db, "mq-raga", docs, INGEST);
            OracleHarness.ingest(db, "mq-raga-batch", docs, INGEST);
            say("| construction | chunks | tool calls/chunk | invalid/chunk | LLM calls (rounds)/chunk | prompt tok/chunk | entities | relations | provenance complete | s (of which stand-in LLM) |");
            say("|---|---|---|---|---|---|---|---|---|---|");
            build("mq-raga", new RagaConstructionPolicy(false, false), "full toolset");
            build("mq-raga-batch", new RagaConstructionPolicy(true, false), "batch toolset");
            say("");
        }
        answerCost("mq-raga", questions);
        if (!constructionOnly) {
            retrieval("mq-raga", questions, true);
            retrievalRow("batch-toolset graph, fusion (tuned)", "mq-raga-batch", questions, q -> !q.tuning(), modeConfig("fusion", tuned));
        }
        if (!reused && subsetSize > 0) faultsAndResume(first(docs, subsetSize));
    }

    void hotpot(List<Map<String, Object>> docs, List<ScoredQuestion> questions) {
        say("\n## RAGA on HotpotQA (" + docs.size() + " passages, " + questions.size() + " questions; never tuned)\n");
        if (built("hp-raga")) {
            say("Graph reused from the --data store: construction was not run.\n");
            restamp("hp-raga");
        } else {
            OracleHarness.ingest(db, "hp-raga", docs, INGEST);
            say("| construction | chunks | tool calls/chunk | invalid/chunk | LLM calls (rounds)/chunk | prompt tok/chunk | entities | relations | provenance complete | s (of which stand-in LLM) |");
            say("|---|---|---|---|---|---|---|---|---|---|");
            build("hp-raga", new RagaConstructionPolicy(false, false), "full toolset");
            say("");
        }
        retrieval("hp-raga", questions, false);
    }

    /**
     * What raga.answer sends a question (fusion with the defaults): L6 answered by a scripted reply that cites the first
     * chunk shown (no gold, no quality figure: the row is the prompt's cost). Deep mode's L5 is not used.
     */
    void answerCost(String corpus, List<ScoredQuestion> questions) {
        server.on("raga.L6", r -> {
            JsonNode chunks = dev.graphrag.oracle.RemindExtractionPolicies.block(r).path("chunks");
            List<String> cited = chunks.isEmpty() ? List.of() : List.of(chunks.get(0).path("id").asText());
            return PolicyReply.jsonOf(Map.of("answer", "scripted answer", "answer_type", "extractive", "evidence_chunk_ids", cited));
        });
        server.clearLog();
        for (ScoredQuestion q : questions) {
            Map<String, Object> cfg = new LinkedHashMap<>();
            cfg.put("corpus", corpus);
            cfg.put("llm", server.llmConfig());
            db.executeTransactionally("CALL raga.answer($q, $cfg) YIELD answer RETURN answer", Map.of("q", q.text(), "cfg", cfg), r -> r.stream().count());
        }
        EvalLlmServer.StepTotal t = server.totals().get("raga.L6");
        say(String.format("raga.answer (fusion, defaults; L6 scripted, cites the first chunk shown): %d questions, %.2f LLM calls/q, %.0f prompt tok/q%n",
                questions.size(), t.calls() / (double) questions.size(), t.promptTokens() / (double) questions.size()));
    }

    // ---- construction

    /** Whether a kept store already holds this corpus's finished construction (every chunk archived). */
    boolean built(String corpus) {
        return db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) RETURN count(c) > 0 AND all(x IN collect(c.ragaState) WHERE x = 'ARCHIVED') AS b",
                Map.of("c", corpus), r -> (Boolean) r.next().get("b"));
    }

    /**
     * raga.ingest over a finished corpus: no chunk is left to read, so no LLM call, and the run stamps the documents'
     * title keys, as it does for a graph built before they existed (docs/raga.md).
     */
    void restamp(String corpus) {
        List<Map<String, Object>> rows = ingest(corpus);
        long calls = l(rows.get(rows.size() - 1), "llmCalls");
        if (calls != 0) throw new IllegalStateException("raga.ingest over the finished corpus " + corpus + " made " + calls + " LLM calls");
    }

    /** One raga.ingest over the corpus with the policy; a table row; returns the summary row. */
    Map<String, Object> build(String corpus, RagaConstructionPolicy policy, String label) {
        server.on("raga.L3", policy);
        long t0 = System.nanoTime();
        double standIn0 = server.handlerMillis();
        List<Map<String, Object>> rows = ingest(corpus, policy.batch());
        double s = (System.nanoTime() - t0) / 1e9;
        double standIn = (server.handlerMillis() - standIn0) / 1e3;
        Map<String, Object> sum = rows.get(rows.size() - 1);
        long chunks = rows.size() - 1;
        Map<String, Object> census = db.executeTransactionally("RETURN COUNT { (:RagaEntity {corpus: $c}) } AS e, COUNT { (:RagaEntity {corpus: $c})-[:RAGA_REL]->() } AS r",
                Map.of("c", corpus), r -> r.next());
        say(String.format("| %s | %d | %.1f | %.2f | %.2f | %.0f | %s | %s | %s | %.0f (stand-in %.0f) |", label, chunks, l(sum, "toolCalls") / (double) chunks,
                l(sum, "invalidToolCalls") / (double) chunks, l(sum, "llmCalls") / (double) chunks, l(sum, "promptTokens") / (double) chunks, census.get("e"),
                census.get("r"), provenance(corpus), s, standIn));
        return sum;
    }

    List<Map<String, Object>> ingest(String corpus) {
        return ingest(corpus, false);
    }

    /** batch: the batch toolset's schemas, for the batch policy (before 2026-11-25 it was sent the full toolset's). */
    List<Map<String, Object>> ingest(String corpus, boolean batch) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("corpus", corpus);
        if (batch) cfg.put("toolset", "batch");
        cfg.put("bootstrapSchema", false);
        cfg.put("maxToolCallsPerChunk", 80L);
        cfg.put("llm", server.llmConfig());
        return db.executeTransactionally("CALL raga.ingest([], $cfg)", Map.of("cfg", cfg), r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        });
    }

    static long l(Map<String, Object> m, String k) {
        return ((Number) m.get(k)).longValue();
    }

    /**
     * Provenance completeness: every entity has a CREATE record, every live relation a record with its relId, and every
     * quote is the chunk text at its offsets (after the evidence normalisation). "100% (n/n)" or what failed.
     */
    String provenance(String corpus) {
        Map<String, Object> c = db.executeTransactionally("RETURN COUNT { (e:RagaEntity {corpus: $c}) WHERE NOT EXISTS { (e)-[:RAGA_EVIDENCED_BY]->(:RagaProvenance) } } AS e,"
                + " COUNT { (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE NOT EXISTS { (p:RagaProvenance {targetId: r.relId}) } } AS r", Map.of("c", corpus), x -> x.next());
        long[] quotes = db.executeTransactionally("MATCH (p:RagaProvenance {corpus: $c})-[:RAGA_FROM_CHUNK]->(ch:Chunk) RETURN p.quote AS q, p.start AS s, p.end AS e,"
                + " ch.text AS t", Map.of("c", corpus), r -> {
                    long all = 0, good = 0;
                    while (r.hasNext()) {
                        Map<String, Object> row = r.next();
                        String slice = ((String) row.get("t")).substring(((Number) row.get("s")).intValue(), ((Number) row.get("e")).intValue());
                        EvidenceAnchor.Result a = EvidenceAnchor.locate((String) row.get("q"), slice, 1, Integer.MAX_VALUE);
                        all++;
                        if (a.found() && a.start() == 0 && a.end() == slice.length()) good++;
                    }
                    return new long[] {all, good};
                });
        boolean complete = l(c, "e") == 0 && l(c, "r") == 0 && quotes[0] == quotes[1];
        return (complete ? "100% " : "NO: ") + String.format("(%d/%d quotes at their offsets; %d entities, %d relations without)", quotes[1], quotes[0],
                l(c, "e"), l(c, "r"));
    }

    /** What a build made, independent of ids and times: entities, relations, aliases, provenance spans, mentions. */
    List<Object> census(String corpus) {
        String prefix = corpus + ":";
        List<Object> out = new ArrayList<>();
        for (String q : List.of("MATCH (e:RagaEntity {corpus: $c}) RETURN e.name + '|' + e.entityType + '|' + e.confidence + '|' + e.mergeCount AS x ORDER BY x",
                "MATCH (h:RagaEntity {corpus: $c})-[r:RAGA_REL]->(t) RETURN h.name + '-' + r.relType + '->' + t.name + '|' + r.deleted AS x ORDER BY x",
                "MATCH (a:RagaAlias {corpus: $c})-[:RAGA_ALIAS_OF]->(e) RETURN a.key + '>' + e.name AS x ORDER BY x",
                "MATCH (p:RagaProvenance {corpus: $c}) RETURN p.op + '|' + p.tool + '|' + coalesce(p.chunkId, '') + '|' + coalesce(p.start, -1) + '|' + coalesce(p.end, -1) AS x ORDER BY x",
                "MATCH (c:Chunk {corpus: $c})-[m:RAGA_MENTIONS_ENTITY]->(e) RETURN c.documentId + '|' + c.index + '|' + e.name + '|' + m.count AS x ORDER BY x")) {
            List<String> rows = db.executeTransactionally(q, Map.of("c", corpus), r -> {
                List<String> xs = new ArrayList<>();
                r.forEachRemaining(row -> xs.add(((String) row.get("x")).replace(prefix, "")));
                return xs;
            });
            out.add(rows);
        }
        return out;
    }

    /** Fault injection and resume on a subset, each against a clean build of the same passages. */
    void faultsAndResume(List<Map<String, Object>> docs) {
        say("\n### Fault injection and resume (" + docs.size() + " passages)\n");
        for (String c : List.of("sub-clean", "sub-faulty", "sub-resume")) OracleHarness.ingest(db, c, docs, INGEST);
        server.on("raga.L3", new RagaConstructionPolicy(false, false));
        List<Map<String, Object>> cleanRows = ingest("sub-clean");
        Map<String, Object> clean = cleanRows.get(cleanRows.size() - 1);
        server.clearLog();
        server.on("raga.L3", new RagaConstructionPolicy(false, true));
        List<Map<String, Object>> faultyRows = ingest("sub-faulty");
        Map<String, Object> faulty = faultyRows.get(faultyRows.size() - 1);
        long injected = 0;
        for (EvalLlmServer.LoggedRequest r : server.log()) {
            for (var tc : r.reply().path("tool_calls")) if (tc.path("id").asText().startsWith("x")) injected++;
        }
        boolean same = census("sub-clean").equals(census("sub-faulty"));
        say(String.format("- Faults: %d corrupted calls injected among %d tool calls (%.1f%%); %d refused (invalidToolCalls, clean run: %d); graph census"
                        + " equal to the clean run's: **%s**.", injected, l(faulty, "toolCalls"), 100.0 * injected / l(faulty, "toolCalls"), l(faulty, "invalidToolCalls"),
                l(clean, "invalidToolCalls"), same ? "yes" : "NO"));
        // resume: terminate the ingest once a third of the chunks are archived, then run it again
        server.on("raga.L3", new RagaConstructionPolicy(false, false));
        long total = db.executeTransactionally("MATCH (c:Chunk {corpus: 'sub-resume'}) RETURN count(c) AS n", Map.of(), r -> (Long) r.next().get("n"));
        CompletableFuture<Throwable> run = CompletableFuture.supplyAsync(() -> {
            try {
                ingest("sub-resume");
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        long archived = 0;
        String killed = "not terminated (finished first)";
        while (!run.isDone()) {
            archived = db.executeTransactionally("MATCH (c:Chunk {corpus: 'sub-resume'}) WHERE c.ragaState = 'ARCHIVED' RETURN count(c) AS n", Map.of(), r -> (Long) r.next().get("n"));
            List<Object> ids = db.executeTransactionally("SHOW TRANSACTIONS YIELD transactionId, currentQuery WHERE currentQuery STARTS WITH 'CALL raga.ingest'"
                    + " RETURN transactionId", Map.of(), r -> {
                List<Object> xs = new ArrayList<>();
                r.forEachRemaining(row -> xs.add(row.get("transactionId")));
                return xs;
            });
            if (archived >= total / 3 && !ids.isEmpty()) {
                // consumed: a command whose result is never read is never run
                for (Object id : ids) db.executeTransactionally("TERMINATE TRANSACTION $id", Map.of("id", id), r -> r.stream().count());
                killed = "terminated after " + archived + " of " + total + " chunks were archived";
                break;
            }
            sleep(20);
        }
        Throwable t = run.join();
        String leftReading = db.executeTransactionally("MATCH (c:Chunk {corpus: 'sub-resume'}) RETURN count(CASE WHEN c.ragaState = 'READING' THEN 1 END) AS r,"
                + " count(CASE WHEN c.ragaState = 'ARCHIVED' THEN 1 END) AS a", Map.of(), r -> r.next().toString());
        List<Map<String, Object>> resumed = ingest("sub-resume");
        boolean equal = census("sub-clean").equals(census("sub-resume"));
        long dupKeys = db.executeTransactionally("MATCH (e:RagaEntity {corpus: 'sub-resume'}) WITH e.nameKey AS k, count(*) AS n WHERE n > 1 RETURN count(k) AS d",
                Map.of(), r -> (Long) r.next().get("d"));
        say(String.format("- Resume: the first ingest was %s (%s; left %s), the second read %d chunks; duplicate entity keys %d; census equal to the"
                        + " clean run's: **%s**.", killed, t == null ? "no error" : "it failed: " + firstLine(t), leftReading, resumed.size() - 1, dupKeys,
                equal ? "yes" : "NO"));
    }

    static String firstLine(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int nl = m.indexOf('\n');
        String s = nl < 0 ? m : m.substring(0, nl);
        return s.length() > 160 ? s.substring(0, 160) + "…" : s;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- retrieval

    static Map<String, Object> modeConfig(String mode, Map<String, Object> extra) {
        Map<String, Object> m = new LinkedHashMap<>(extra);
        m.put("mode", mode);
        return m;
    }

    /** The first proposed values for the graph stream, which the shipped defaults replaced (docs/raga.md#where-this-differs-from-the-first-design). */
    static final Map<String, Object> FIRST_PROPOSED_VALUES = Map.of("hops", 2L, "anchorChunks", 20L, "semanticFilter", 0.25, "pageAnchors", 0L);

    /**
     * The retrieval table of one corpus. On MuSiQue a grid over hops, anchorChunks and semanticFilter picks fusion's
     * settings on the tuning half with the stream without entity pages, then a second grid picks pageAnchors on top
     * of that choice; one over hops and semanticFilter picks kg mode's (kg mode takes no anchor chunks).
     */
    void retrieval(String corpus, List<ScoredQuestion> questions, boolean tune) {
        Predicate<ScoredQuestion> all = q -> true;
        if (tune) {
            List<Map<String, Object>> fusionGrid = new ArrayList<>();
            for (long hops : List.of(1L, 2L)) {
                for (long anchors : List.of(3L, 5L, 20L)) {
                    for (double filter : List.of(0.0, 0.25, 0.5)) {
                        fusionGrid.add(Map.of("hops", hops, "anchorChunks", anchors, "semanticFilter", filter, "pageAnchors", 0L));
                    }
                }
            }
            tuned = tune(corpus, questions, "fusion", fusionGrid, List.of("hops", "anchorChunks", "semanticFilter", "pageAnchors"));
            List<Map<String, Object>> pageGrid = new ArrayList<>();
            for (long pages : List.of(0L, 1L, 2L, 3L)) {
                Map<String, Object> cfg = new LinkedHashMap<>(tuned);
                cfg.put("pageAnchors", pages);
                pageGrid.add(cfg);
            }
            tuned = tune(corpus, questions, "fusion", pageGrid, List.of("hops", "anchorChunks", "semanticFilter", "pageAnchors"));
            say("\nChosen for fusion: " + tuned + " (decay 0.5 throughout).\n");
            List<Map<String, Object>> kgGrid = new ArrayList<>();
            for (long hops : List.of(1L, 2L)) {
                for (double filter : List.of(0.0, 0.25, 0.5)) kgGrid.add(Map.of("hops", hops, "semanticFilter", filter));
            }
            tunedKg = tune(corpus, questions, "kg", kgGrid, List.of("hops", "semanticFilter"));
            say("\nChosen for kg: " + tunedKg + ".\n");
        }
        say("| retriever | questions | R@2 | R@5 | p50 ms | p95 ms |");
        say("|---|---|---|---|---|---|");
        List<Map.Entry<String, Predicate<ScoredQuestion>>> splits = tune
                ? List.of(Map.entry("report half", (Predicate<ScoredQuestion>) q -> !q.tuning()), Map.entry("all", all))
                : List.of(Map.entry("all", all));
        for (Map.Entry<String, Predicate<ScoredQuestion>> split : splits) {
            retrievalRow("vector (dense, same embedder) · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("vector", Map.of()));
            retrievalRow("kg, defaults · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("kg", Map.of()));
            retrievalRow("kg, first proposed values · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("kg", FIRST_PROPOSED_VALUES));
            retrievalRow("kg, MuSiQue-tuned " + tunedKg + " · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("kg", tunedKg));
            retrievalRow("fusion, defaults · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("fusion", Map.of()));
            retrievalRow("fusion, defaults without entity pages (pageAnchors 0) · " + split.getKey(), corpus, questions, split.getValue(),
                    modeConfig("fusion", Map.of("pageAnchors", 0L)));
            retrievalRow("fusion, first proposed values " + FIRST_PROPOSED_VALUES + " · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("fusion", FIRST_PROPOSED_VALUES));
            retrievalRow("fusion, MuSiQue-tuned " + tuned + " · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("fusion", tuned));
            retrievalRow("deep (rule NER for L5) · " + split.getKey(), corpus, questions, split.getValue(), modeConfig("deep", Map.of("llm", server.llmConfig())));
            retrievalRow("degraded (kgTimeoutMs 0) · " + split.getKey(), corpus, questions, split.getValue(), Map.of("kgTimeoutMs", 0L));
        }
        say("");
    }

    /** A mode's grid on MuSiQue's tuning half, a table row per setting; the first setting with the best R@5. */
    Map<String, Object> tune(String corpus, List<ScoredQuestion> questions, String mode, List<Map<String, Object>> grid, List<String> keys) {
        say("Tuning " + mode + " on the MuSiQue tuning half (R@5):\n");
        say("| " + String.join(" | ", keys) + " | R@2 | R@5 |");
        say("|---".repeat(keys.size() + 2) + "|");
        Map<String, Object> chosen = null;
        double best = -1;
        for (Map<String, Object> cfg : grid) {
            Scores s = scores(corpus, questions, ScoredQuestion::tuning, modeConfig(mode, cfg));
            StringBuilder row = new StringBuilder("|");
            for (String k : keys) row.append(' ').append(cfg.get(k) instanceof Double x ? String.format("%.2f", x) : cfg.get(k)).append(" |");
            say(row + String.format(" %.1f | %.1f |", 100 * s.recall2(), 100 * s.recall5()));
            if (s.recall5() > best + 1e-9) {
                best = s.recall5();
                chosen = new LinkedHashMap<>(cfg);
            }
        }
        say("");
        return chosen;
    }

    void retrievalRow(String name, String corpus, List<ScoredQuestion> questions, Predicate<ScoredQuestion> which, Map<String, Object> cfg) {
        Scores s = scores(corpus, questions, which, cfg);
        say(String.format("| %s | %d | %.1f | %.1f | %.1f | %.1f |", name, s.questions(), 100 * s.recall2(), 100 * s.recall5(), s.p50(), Scores.percentile(msOf(s), 95)));
    }

    private final Map<Scores, List<Double>> latencies = new java.util.IdentityHashMap<>();

    private List<Double> msOf(Scores s) {
        return latencies.getOrDefault(s, List.of());
    }

    /** Top-5 distinct documents per question from raga.retrieve (topK 10 chunks), timed in process. */
    Scores scores(String corpus, List<ScoredQuestion> questions, Predicate<ScoredQuestion> which, Map<String, Object> extra) {
        Scores s = new Scores(corpus + " " + extra);
        List<Double> ms = new ArrayList<>();
        Map<String, Object> cfg = new LinkedHashMap<>(extra);
        cfg.put("corpus", corpus);
        cfg.put("topK", 10L);
        for (ScoredQuestion q : questions) {
            if (!which.test(q)) continue;
            long t0 = System.nanoTime();
            List<String> docs = db.executeTransactionally("CALL raga.retrieve($q, $cfg) YIELD docId RETURN docId", Map.of("q", q.text(), "cfg", cfg), r -> {
                LinkedHashSet<String> d = new LinkedHashSet<>();
                r.forEachRemaining(row -> d.add((String) row.get("docId")));
                return new ArrayList<>(d);
            });
            double t = (System.nanoTime() - t0) / 1e6;
            ms.add(t);
            s.add(first(docs, 5), true, q.goldIds(), t);
        }
        latencies.put(s, ms);
        return s;
    }
}
