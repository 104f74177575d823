package dev.graphrag.evaluation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;
import dev.graphrag.oracle.AnswerScore;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.QuestionSet;
import dev.graphrag.oracle.Scores;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The evaluation command (docs/evaluation.md#evaluate-with-your-own-model): ingests the corpus, builds each method's
 * layer once, asks every question through each method's answer procedure exactly as a user calls it, scores what
 * came back, and writes the per-question log (the checkpoint a resumed run reads), results.md and results.json.
 * Only the question text reaches a procedure: answers, aliases and gold passages are read by the scorer alone.
 */
public final class Evaluation {
    /** The corpus order's shuffle (fixed, so a kept store matches every later run; --seed picks questions). */
    static final long CORPUS_SEED = 20261123L;
    /** Consecutive failed questions after which the run stops (an endpoint that is down fails every question). */
    static final int FAILURE_BREAKER = 10;
    private static final int INGEST_BATCH = 200;

    private final EvaluateOptions o;
    private final PrintStream out, err;

    private Evaluation(EvaluateOptions o, PrintStream out, PrintStream err) {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    /** Runs the command; the exit status (0 done, 1 the run failed, 2 the command line is wrong). */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        EvaluateOptions o;
        try {
            o = EvaluateOptions.parse(argv);
        } catch (EvaluateOptions.HelpRequested h) {
            out.print(EvaluateOptions.USAGE);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("evaluate: " + e.getMessage());
            return 2;
        }
        try {
            new Evaluation(o, out, err).execute();
            return 0;
        } catch (IllegalArgumentException | IllegalStateException | IOException | java.io.UncheckedIOException e) {
            err.println("evaluate: " + e.getMessage());
            return 1;
        }
    }

    private void execute() throws IOException {
        List<QuestionSet.Question> all = QuestionSet.read(o.questions());
        List<QuestionSet.Question> questions = select(all);
        if (o.estimate()) questions = questions.subList(0, Math.min(o.estimateQuestions(), questions.size()));
        Path dir = o.estimate() ? o.out().resolve("estimate") : o.out();
        if (o.estimate()) deleteLog(dir);
        Files.createDirectories(dir);
        String corpus = o.estimate() ? o.corpusName() + "-estimate" : o.corpusName();
        try (EvalLlmServer oracle = o.llm() == EvaluateOptions.Llm.ORACLE ? EvalLlmServer.start() : null;
             Target target = openTarget();
             QuestionLog log = new QuestionLog(dir.resolve("results.jsonl"))) {
            if (log.skippedLines() > 0) err.println("evaluate: " + log.skippedLines() + " cut line(s) in the log were skipped (a kill mid-write); those questions are asked again");
            Map<String, Object> llm = llmMap(oracle, questions, dir);
            LlmFacts facts = llmFacts(target, llm);
            List<Map<String, Object>> docs = corpusDocuments(target, corpus, questions);
            Map<String, Object> heading = heading(target, facts, questions.size(), corpus, docs);
            checkResume(log, heading);
            log.append(withType(QuestionLog.RUN, heading, Map.of("startedAt", Instant.now().toString())));
            if (o.corpusSource() != null) ingest(target, corpus, docs, log);
            long chunks = ((Number) target.rows("MATCH (c:Chunk {corpus: $c}) RETURN count(c) AS n", Map.of("c", corpus)).get(0).get("n")).longValue();
            Corpus c = new Corpus(chunks, docs.size(), new GoldPassages(docs), docs.stream().map(d -> (String) d.get("id")).toList());
            heading.put("chunks", c.chunks());
            int concurrency = Math.min(o.concurrency(), facts.maxConcurrent());
            if (concurrency < o.concurrency()) err.printf("evaluate: --concurrency %d is above the server's LLM permits (graphrag.llm.maxConcurrent %d); using %d%n",
                    o.concurrency(), facts.maxConcurrent(), concurrency);
            Map<String, List<String>> plan = new LinkedHashMap<>();
            for (EvaluatedMethod m : o.methods()) {
                build(target, m, corpus, llm, log);
                for (String pass : passes(m)) {
                    plan.put(m.key() + "/" + pass, questions.stream().map(QuestionSet.Question::id).toList());
                    ask(target, m, pass, corpus, llm, questions, c.gold(), log, m.writesMemory() ? 1 : concurrency);
                }
            }
            EvaluationReport report = EvaluationReport.of(heading, log, plan, c.chunks());
            report.write(dir);
            out.println(report.markdown());
            if (o.estimate()) {
                Estimate estimate = Estimate.of(report, c, fullSize(all), o);
                Files.writeString(dir.resolve("estimate.md"), estimate.markdown());
                out.println(estimate.markdown());
                dropSample(target, corpus, c);
            }
            out.println("results: " + dir.resolve("results.md") + ", " + dir.resolve("results.json") + "; per question: " + log.file());
        }
    }

    // ---- questions, LLM, target

    private List<QuestionSet.Question> select(List<QuestionSet.Question> all) {
        List<QuestionSet.Question> qs = new ArrayList<>(all);
        if (o.seed() != null) Collections.shuffle(qs, new Random(o.seed()));
        Set<String> ids = new java.util.HashSet<>();
        for (QuestionSet.Question q : qs) if (!ids.add(q.id())) throw new IllegalArgumentException(o.questions() + ": the question id '" + q.id() + "' appears twice");
        return List.copyOf(qs.subList(0, Math.min(o.limit(), qs.size())));
    }

    /** The full run's size, for --estimate's projection: questions after --limit, documents of the corpus source. */
    private FullSize fullSize(List<QuestionSet.Question> all) throws IOException {
        List<QuestionSet.Question> selected = select(all);
        return new FullSize(selected.size(), o.corpusSource() == null ? -1 : documents(selected).size());
    }

    record FullSize(int questions, int documents) {}

    private Target openTarget() throws IOException {
        if (o.bolt() != null) return Target.bolt(o.bolt(), o.user(), o.passwordEnv(), o.database());
        Files.createDirectories(o.data());
        Path work = Files.createDirectories(o.out().resolve("server"));
        err.println("evaluate: starting the embedded Neo4j (store " + o.data() + ")");
        return Target.embedded(EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, o.data(), "127.0.0.1", -1, -1)), "embedded Neo4j 5.26, store " + o.data());
    }

    /** The llm map every procedure gets (null: the server's configured LLM); for --oracle, the stand-in with its policies. */
    private Map<String, Object> llmMap(EvalLlmServer oracle, List<QuestionSet.Question> questions, Path dir) throws IOException {
        return switch (o.llm()) {
            case SERVER -> null;
            case ORACLE -> {
                // the policies see sanitised gold only, written and read back through OracleGold's field check
                Path file = dir.resolve("oracle-gold.json");
                OracleGold.build(oracleQuestions(questions), file);
                OraclePolicies.register(oracle, OracleGold.load(file), o.methods());
                if (o.weakModel() != null) oracle.weakModel(dev.graphrag.oracle.WeakModel.parse(o.weakModel()));
                if (o.latency() != null) oracle.latency(dev.graphrag.oracle.Latency.parse(o.latency()));
                yield oracle.llmConfig();
            }
            case ENDPOINT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("endpoint", o.endpoint());
                m.put("model", o.model());
                if (o.apiKeyEnv() != null) {
                    String key = System.getenv(o.apiKeyEnv());
                    if (key == null || key.isBlank()) throw new IllegalArgumentException("--api-key-env " + o.apiKeyEnv() + ": that environment variable is not set");
                    m.put("apiKey", key);
                }
                if (o.contextTokens() != null) m.put("contextTokens", (long) o.contextTokens());
                yield m;
            }
        };
    }

    /** MuSiQue carries its decomposition (the oracle's hops); other sets are answer-only, as in the benchmarks. */
    private List<OracleGold.Question> oracleQuestions(List<QuestionSet.Question> questions) throws IOException {
        Map<String, OracleGold.Question> musique = new HashMap<>();
        if (!o.questions().toString().endsWith(".jsonl") && isMusique(o.questions())) {
            for (OracleGold.Question q : OracleGold.fromMusique(o.questions())) musique.put(q.id(), q);
        }
        List<OracleGold.Question> out = new ArrayList<>();
        for (QuestionSet.Question q : questions) {
            OracleGold.Question m = musique.get(q.id());
            out.add(m != null ? m : new OracleGold.Question(q.id(), q.text(), q.answers().get(0), q.answers().subList(1, q.answers().size()), List.of()));
        }
        return out;
    }

    private static boolean isMusique(Path file) throws IOException {
        JsonNode first = new com.fasterxml.jackson.databind.ObjectMapper().readTree(file.toFile()).path(0);
        return first.has("question_decomposition");
    }

    /** What rag.llm.info says of the LLM: the label rows carry and the server's permits. */
    record LlmFacts(String label, int maxConcurrent) {}

    private LlmFacts llmFacts(Target t, Map<String, Object> llm) {
        boolean needsLlm = o.methods().stream().anyMatch(EvaluatedMethod::usesLlm);
        Map<String, Object> config = llm == null ? Map.of() : Map.of("llm", llm);
        Map<String, Object> info;
        try {
            info = t.rows("CALL rag.llm.info($config) YIELD endpoint, model, reachable, maxConcurrent RETURN *", Map.of("config", config)).get(0);
        } catch (RuntimeException e) {
            if (!needsLlm) return new LlmFacts("none (retrieval only)", Integer.MAX_VALUE);
            throw new IllegalArgumentException("the LLM cannot be used: " + Failure.of(e).message());
        }
        if (needsLlm && !Boolean.TRUE.equals(info.get("reachable"))) {
            throw new IllegalArgumentException("the LLM at " + info.get("endpoint") + " did not answer GET /models: is the server running, and is the URL its /v1 base?");
        }
        String label = o.llm() == EvaluateOptions.Llm.ORACLE ? "ORACLE POLICY (scripted stand-in, not a model)"
                : info.get("model") + " at " + info.get("endpoint");
        return new LlmFacts(label, (int) Math.max(1, ((Number) info.get("maxConcurrent")).longValue()));
    }

    private Map<String, Object> heading(Target t, LlmFacts facts, int questionCount, String corpus, List<Map<String, Object>> docs) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("model", facts.label());
        h.put("oracle", o.llm() == EvaluateOptions.Llm.ORACLE);
        h.put("weakModel", o.weakModel());
        h.put("latency", o.latency() == null ? null : dev.graphrag.oracle.Latency.parse(o.latency()).toString());
        h.put("questions", o.questions().toString());
        h.put("questionCount", questionCount);
        h.put("seed", o.seed());
        h.put("corpus", corpus + (o.corpusSource() == null ? " (in the database)" : " from " + o.corpusSource()));
        h.put("corpusDigest", docs.size() + " documents, " + digest(docs));
        h.put("database", t.describe());
        h.put("methods", o.methods().stream().map(EvaluatedMethod::key).toList());
        h.put("config", o.config());
        return h;
    }

    /** A log written for another model, question set or corpus is not resumed: its rows would mix two runs. */
    private static void checkResume(QuestionLog log, Map<String, Object> heading) {
        JsonNode first = log.firstRun();
        if (first == null) return;
        for (String k : List.of("model", "questions", "corpus", "corpusDigest")) {
            if (!first.path(k).asText().equals(String.valueOf(heading.get(k)))) {
                throw new IllegalArgumentException(log.file() + " holds a run with " + k + " '" + first.path(k).asText() + "', not '" + heading.get(k)
                        + "': give another --out, or remove that folder to start again (with --corpus questions, --limit and --seed choose the corpus too)");
            }
        }
        JsonNode config = new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(heading.get("config"));
        if (!first.path("config").equals(config)) {
            throw new IllegalArgumentException(log.file() + " holds a run with --config " + first.path("config") + ", not " + config + ": give another --out");
        }
    }

    // ---- corpus

    record Corpus(long chunks, int documents, GoldPassages gold, List<String> documentIds) {}

    /** The documents the run uses: from --corpus (content-hash ids, a fixed shuffle), else the database's corpus. */
    private List<Map<String, Object>> corpusDocuments(Target t, String corpus, List<QuestionSet.Question> questions) throws IOException {
        if (o.corpusSource() == null) {
            List<Map<String, Object>> docs = t.rows("MATCH (d:Document {corpus: $c}) RETURN d.id AS id, d.title AS title ORDER BY id", Map.of("c", corpus));
            if (docs.isEmpty()) throw new IllegalArgumentException("no corpus '" + corpus + "' in the database: ingest it first, or give --corpus");
            return docs;
        }
        List<Map<String, Object>> docs = EvalCorpus.of(documents(questions), CORPUS_SEED).documents();
        return o.estimate() ? docs.subList(0, Math.min(o.estimateDocs(), docs.size())) : docs;
    }

    /** A digest of the corpus's document ids (content hashes): a resumed run must ask the same corpus. */
    private static String digest(List<Map<String, Object>> docs) {
        List<String> ids = new ArrayList<>(docs.stream().map(d -> (String) d.get("id")).toList());
        Collections.sort(ids);
        return EvalCorpus.id("corpus", String.join("\n", ids));
    }

    private List<Map<String, Object>> documents(List<QuestionSet.Question> questions) throws IOException {
        if (EvaluateOptions.FROM_QUESTIONS.equals(o.corpusSource())) {
            Set<String> ids = new LinkedHashSet<>();
            questions.forEach(q -> ids.add(q.id()));
            List<Map<String, Object>> passages = QuestionSet.passages(o.questions(), ids);
            if (passages.isEmpty()) throw new IllegalArgumentException("--corpus questions: " + o.questions() + " carries no passages for the questions asked");
            return passages;
        }
        Path p = Path.of(o.corpusSource());
        if (!Files.exists(p)) throw new IllegalArgumentException("--corpus " + p + " does not exist");
        return CorpusFiles.read(p);
    }

    /** rag.ingest in batches (a document already there with the same text is left unchanged, so a resumed run re-reads nothing). */
    private void ingest(Target t, String corpus, List<Map<String, Object>> docs, QuestionLog log) {
        long t0 = System.nanoTime();
        Map<String, Long> status = new java.util.TreeMap<>();
        for (int i = 0; i < docs.size(); i += INGEST_BATCH) {
            List<Map<String, Object>> batch = docs.subList(i, Math.min(docs.size(), i + INGEST_BATCH));
            for (Map<String, Object> row : t.rows("CALL rag.ingest($docs, $config) YIELD status RETURN status",
                    Map.of("docs", batch, "config", EvaluatedMethod.config(corpus, null, Map.of(), o.configFor("rag.ingest"))))) {
                status.merge((String) row.get("status"), 1L, Long::sum);
            }
            if (o.progress()) err.printf("ingest: %d/%d documents%n", Math.min(docs.size(), i + INGEST_BATCH), docs.size());
        }
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("corpus", corpus);
        line.put("documents", docs.size());
        line.put("status", status);
        line.put("ms", (System.nanoTime() - t0) / 1_000_000);
        log.append(withType(QuestionLog.INGEST, line, Map.of()));
    }

    /** --estimate leaves nothing of its sample in the graph: each layer is dropped, then the sample's documents. */
    private void dropSample(Target t, String corpus, Corpus c) {
        for (EvaluatedMethod m : o.methods()) {
            if (m.indexProcedure() != null) t.rows("CALL " + m.key() + ".drop({corpus: $c})", Map.of("c", corpus));
        }
        t.rows("CALL rag.delete($ids, {corpus: $c}) YIELD documentId RETURN count(*) AS n", Map.of("ids", c.documentIds(), "c", corpus));
    }

    // ---- layers and questions

    private void build(Target t, EvaluatedMethod m, String corpus, Map<String, Object> llm, QuestionLog log) {
        if (m.indexProcedure() == null || !log.builds(m.key()).isEmpty()) return;
        err.println("evaluate: building the " + m.key() + " layer (" + m.indexProcedure() + ")");
        long t0 = System.nanoTime();
        EvaluatedMethod.Built built = m.build(t, corpus, llm, extraConfig(m.indexProcedure()));
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("method", m.key());
        line.put("procedure", m.indexProcedure());
        line.put("llmCalls", built.usage().calls());
        line.put("promptTokens", built.usage().promptTokens());
        line.put("completionTokens", built.usage().completionTokens());
        line.put("tokensByStep", built.usage().byStep());
        line.put("ms", (System.nanoTime() - t0) / 1_000_000);
        line.put("details", built.details());
        line.put("census", LayerCensus.of(t, m.key(), corpus));
        log.append(withType(QuestionLog.INDEX, line, Map.of()));
    }

    private Map<String, Object> extraConfig(String procedure) {
        Map<String, Object> c = new LinkedHashMap<>(o.llm() == EvaluateOptions.Llm.ORACLE ? OraclePolicies.fixedConfig(procedure) : Map.of());
        c.putAll(o.configFor(procedure));
        return c;
    }

    private List<String> passes(EvaluatedMethod m) {
        return m.writesMemory() && o.repeat() ? List.of("first", "repeat") : List.of("first");
    }

    private void ask(Target t, EvaluatedMethod m, String pass, String corpus, Map<String, Object> llm, List<QuestionSet.Question> questions, GoldPassages gold,
                     QuestionLog log, int concurrency) {
        List<QuestionSet.Question> todo = questions.stream().filter(q -> !log.done(m.key(), pass, q.id())).toList();
        Progress progress = new Progress(err, o.progress(), m.key() + " " + pass, questions.size(), questions.size() - todo.size());
        if (!todo.isEmpty() && todo.size() < questions.size() && m.usesLlm()) remaining(log, m, pass, todo.size());
        AtomicInteger consecutiveFailures = new AtomicInteger();
        AtomicReference<String> stop = new AtomicReference<>();
        Map<String, Object> extra = extraConfig(m.answerProcedure());
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread th = new Thread(r, "evaluate-" + m.key());
            th.setDaemon(true);
            return th;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (QuestionSet.Question q : todo) {
                futures.add(pool.submit(() -> {
                    if (stop.get() != null) return;
                    Map<String, Object> line = askOne(t, m, pass, corpus, llm, q, gold, extra);
                    log.append(line);
                    Object failure = line.get("failure");
                    if (failure == null) consecutiveFailures.set(0);
                    else if (consecutiveFailures.incrementAndGet() >= FAILURE_BREAKER) stop.compareAndSet(null, failureOf(line).message());
                    progress.questionDone(((Number) line.get("promptTokens")).longValue());
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(m.key() + ": " + e.getCause().getMessage(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        if (stop.get() != null) {
            throw new IllegalStateException(m.key() + " " + pass + ": " + FAILURE_BREAKER + " questions in a row failed, the last with: " + stop.get()
                    + " (what was answered is in the log; run again to resume)");
        }
    }

    /** On resume: what the questions left will cost at the figures the log measured so far for this pass. */
    private void remaining(QuestionLog log, EvaluatedMethod m, String pass, int left) {
        double calls = 0, prompt = 0;
        int n = 0;
        for (JsonNode e : log.latestQuestions().values()) {
            if (!e.path("method").asText().equals(m.key()) || !e.path("pass").asText().equals(pass) || !e.path("failure").isNull()) continue;
            calls += e.path("llmCalls").asDouble();
            prompt += e.path("promptTokens").asDouble();
            n++;
        }
        if (n > 0) err.printf(java.util.Locale.ROOT, "%s %s: %d questions left, about %.0f LLM calls and %.0f prompt tokens at the %d measured so far%n",
                m.key(), pass, left, calls / n * left, prompt / n * left, n);
    }

    private static Failure failureOf(Map<String, Object> line) {
        @SuppressWarnings("unchecked") Map<String, Object> f = (Map<String, Object>) line.get("failure");
        return new Failure((String) f.get("cause"), (String) f.get("message"));
    }

    /** One question through the method: only its text goes to the procedure; the rest of the line is the scorer's. */
    private static Map<String, Object> askOne(Target t, EvaluatedMethod m, String pass, String corpus, Map<String, Object> llm, QuestionSet.Question q,
                                              GoldPassages gold, Map<String, Object> extra) {
        GoldPassages.Resolved g = gold.resolve(q.gold());
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("method", m.key());
        line.put("pass", pass);
        line.put("id", q.id());
        line.put("question", q.text());
        line.put("answers", q.answers());
        long t0 = System.nanoTime();
        EvaluatedMethod.Answered a = null;
        Failure failure = null;
        try {
            a = m.answer(t, corpus, q.text(), llm, extra);
        } catch (RuntimeException e) {
            failure = Failure.of(e);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        List<String> documents = a == null ? List.of() : documentsOf(t, corpus, a.chunkIds());
        AnswerScore.Score score = AnswerScore.of(a == null ? null : a.answer(), q.answers());
        line.put("answer", a == null ? null : a.answer());
        line.put("exactMatch", score.exactMatch());
        line.put("f1", score.f1());
        line.put("gold", g.ids());
        line.put("goldComplete", g.complete());
        line.put("documents", documents);
        line.put("chunks", a == null ? List.of() : a.chunkIds());
        line.put("recall2", Scores.recallAt(documents, 2, g.ids()));
        line.put("recall5", Scores.recallAt(documents, 5, g.ids()));
        line.put("recallShown", Scores.setRecall(documents, g.ids()));
        EvaluatedMethod.Usage u = a == null ? EvaluatedMethod.Usage.NONE : a.usage();
        line.put("llmCalls", u.calls());
        line.put("promptTokens", u.promptTokens());
        line.put("completionTokens", u.completionTokens());
        line.put("tokensByStep", u.byStep());
        line.put("ms", ms);
        line.put("details", a == null ? Map.of() : a.details());
        line.put("failure", failure == null ? null : failure.asMap());
        return withType(QuestionLog.QUESTION, line, Map.of());
    }

    /** The documents of chunk ids, in the chunks' order, each once. */
    static List<String> documentsOf(Target t, String corpus, List<String> chunkIds) {
        if (chunkIds.isEmpty()) return List.of();
        Map<String, String> docOf = new HashMap<>();
        for (Map<String, Object> row : t.rows("UNWIND $ids AS id MATCH (c:Chunk {corpus: $corpus, id: id}) RETURN id, c.documentId AS doc",
                Map.of("ids", chunkIds, "corpus", corpus))) {
            docOf.put((String) row.get("id"), (String) row.get("doc"));
        }
        return dev.graphrag.oracle.OracleHarness.inChunkOrder(chunkIds, docOf);
    }

    private static Map<String, Object> withType(String type, Map<String, Object> fields, Map<String, Object> more) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.putAll(fields);
        m.putAll(more);
        return m;
    }

    private static void deleteLog(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve("results.jsonl"));
    }
}
