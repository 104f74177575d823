package dev.graphrag.evaluation;

import dev.graphrag.LineIndependent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.procedures.TestServer;
import dev.graphrag.oracle.AgragAnswerEvaluation;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.OracleGold;
import dev.graphrag.oracle.OracleHarness;
import dev.graphrag.oracle.QuestionSet;
import dev.graphrag.oracle.Scores;
import dev.graphrag.oracle.ScoredQuestion;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The evaluation command end to end over Bolt against the shared test server: refusals, an --oracle run whose
 * figures equal the oracle harness's on the same graph and outputs, and every method against a named endpoint (the
 * stand-in) with canaries in every gold field that must never reach a prompt. The kill-and-resume run is
 * {@link EvaluationResumeTest}.
 */
@LineIndependent
class EvaluationCommandTest {
    static final Path MUSIQUE = Path.of("../oracle/src/test/resources/eval/musique_sample.json");
    static final ObjectMapper JSON = new ObjectMapper();

    record Ran(int status, String out, String err) {}

    static Ran run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Evaluation.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Ran(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String bolt() {
        return TestServer.get().boltURI().toString();
    }

    @Test
    void refusesARunWithoutAnLlmAndNamesEveryBadOption() {
        String q = MUSIQUE.toString();
        Ran r = run("--questions", q, "--corpus", "questions");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("no LLM to evaluate") && r.err().contains("--endpoint URL --model NAME") && r.err().contains("--oracle"), r.err());
        Map<List<String>, String> wrong = new LinkedHashMap<>();
        wrong.put(List.of("--oracle", "--limt", "3"), "unknown option '--limt'");
        wrong.put(List.of("--oracle", "--methods", "agrag,graphrag"), "no method 'graphrag'");
        wrong.put(List.of("--oracle", "--config", "agrag.answr.k=3"), "no procedure 'agrag.answr'");
        wrong.put(List.of("--oracle", "--config", "agrag.answer.llm=x"), "llm is set by the command itself");
        wrong.put(List.of("--endpoint", "http://127.0.0.1:1/v1"), "--endpoint needs --model NAME");
        wrong.put(List.of("--oracle", "--server-llm"), "exclude each other");
        wrong.put(List.of("--oracle", "--limit", "0"), "--limit must be at least 1");
        wrong.put(List.of("--oracle", "--concurrency", "two"), "--concurrency takes a whole number");
        wrong.put(List.of("--oracle", "--model", "m"), "--model goes with --endpoint only");
        wrong.put(List.of("--oracle", "--corpus-name", "a b"), "--corpus-name must be");
        wrong.put(List.of("--oracle", "--user", "neo4j"), "--user goes with --bolt only");
        wrong.put(List.of("--endpoint", "http://127.0.0.1:1/v1", "--model", "m", "--weak-model", "0.25"), "--weak-model breaks the oracle policy's replies");
        wrong.put(List.of("--oracle", "--weak-model", "lots"), "a weak model is RATE[,SEED");
        wrong.put(List.of("--server-llm", "--latency", "500"), "--latency sets the stand-in's pace: it needs --oracle");
        wrong.put(List.of("--oracle", "--latency", "500,concurrency=four"), "--latency part 'concurrency=four': 'four' is not a number");
        for (Map.Entry<List<String>, String> w : wrong.entrySet()) {
            List<String> args = new ArrayList<>(List.of("--questions", q, "--corpus", "questions"));
            args.addAll(w.getKey());
            Ran x = run(args.toArray(String[]::new));
            assertEquals(2, x.status(), w.getKey().toString());
            assertTrue(x.err().contains(w.getValue()), w.getKey() + ": " + x.err());
        }
        assertEquals(0, run("--help").status());
        Ran missing = run("--questions", "no-such-file.json", "--corpus", "questions", "--oracle", "--bolt", bolt(), "--out", "target/evaluation-missing");
        assertEquals(1, missing.status());
        assertTrue(missing.err().contains("no-such-file.json"), missing.err());
    }

    @Test
    void anOracleRunScoresExactlyWhatTheHarnessScoresOnTheSameGraph() throws Exception {
        Path out = Files.createTempDirectory("evaluate-oracle");
        String corpus = "evalcmd-oracle";
        Ran r = run("--questions", MUSIQUE.toString(), "--corpus", "questions", "--corpus-name", corpus, "--oracle", "--methods", "dense,agrag",
                "--limit", "6", "--bolt", bolt(), "--out", out.toString(), "--quiet");
        assertEquals(0, r.status(), r.err());
        JsonNode results = JSON.readTree(out.resolve("results.json").toFile());
        assertTrue(results.path("model").asText().startsWith("ORACLE POLICY"), results.path("model").asText());
        assertTrue(Files.readString(out.resolve("results.md")).startsWith("# Evaluation: ORACLE POLICY"));
        List<JsonNode> log = lines(out);
        // all six: which of a few questions the reader answers depends on BM25 statistics over the whole shared index
        assertEquals(12, log.stream().filter(e -> e.path("type").asText().equals("question")).count(), "6 questions x 2 methods");

        // the harness's Scores over the same per-question outputs
        for (JsonNode row : results.path("rows")) {
            Scores s = new Scores(row.path("method").asText());
            for (JsonNode e : log) {
                if (!e.path("type").asText().equals("question") || !e.path("method").asText().equals(row.path("method").asText())) continue;
                s.add(strings(e.path("documents")), true, new LinkedHashSet<>(strings(e.path("gold"))), e.path("ms").asDouble());
            }
            assertEquals(s.recall2(), row.path("recall2").asDouble(), 1e-12);
            assertEquals(s.recall5(), row.path("recall5").asDouble(), 1e-12);
            assertEquals(s.setRecall(), row.path("recallShown").asDouble(), 1e-12);
        }

        // the harness itself, on the graph the command built, with the same policies: the same passages, answers and tokens
        List<String> ids = log.stream().filter(e -> e.path("method").asText().equals("agrag")).map(e -> e.path("id").asText()).toList();
        EvalCorpus all = EvalCorpus.of(QuestionSet.passages(MUSIQUE, Set.copyOf(QuestionSet.read(MUSIQUE).stream().map(QuestionSet.Question::id).toList())), 1);
        List<ScoredQuestion> scored = ScoredQuestion.musique(MUSIQUE, all).stream().filter(q -> ids.contains(q.id())).toList();
        Path goldFile = out.resolve("harness-gold.json");
        OracleGold.build(OracleGold.fromMusique(MUSIQUE), goldFile);
        JsonNode agrag = row(results, "agrag", "first");
        try (EvalLlmServer server = EvalLlmServer.start()) {
            Scores harness = new OracleHarness(TestServer.db(), corpus, scored, OracleGold.load(goldFile)).method(new AgragAnswerEvaluation(), server, q -> true, new HashMap<>());
            assertEquals(harness.setRecall(), agrag.path("recallShown").asDouble(), 1e-12);
            assertEquals(harness.callsPerQuestion(), agrag.path("callsPerQuestion").asDouble(), 1e-12);
            assertEquals(harness.promptTokensPerQuestion(), agrag.path("promptTokensPerQuestion").asDouble(), 1e-12);
            assertEquals(harness.answerRate(), agrag.path("exactMatch").asDouble(), 1e-12);
        }
        assertTrue(agrag.path("recallShown").asDouble() > 0 && agrag.path("exactMatch").asDouble() > 0, agrag.toString());
        assertEquals(1, results.path("builds").size(), "agrag's layer was built once");
        assertTrue(results.path("builds").get(0).path("calls").asLong() > 0, "with the oracle's extraction policy");
    }

    @Test
    void theHotpotQaAndTwoWikiFormatsRunEndToEndWithTheirGoldFoundByTitle() throws Exception {
        for (String set : List.of("hotpotqa_sample.json", "2wikimultihopqa_sample.json")) {
            Path out = Files.createTempDirectory("evaluate-" + set.substring(0, 5));
            Ran r = run("--questions", MUSIQUE.resolveSibling(set).toString(), "--corpus", "questions", "--corpus-name", "evalcmd-" + set.substring(0, 5), "--oracle",
                    "--methods", "dense,agrag", "--config", "agrag.index.relations=cooccurrence", "--limit", "2", "--bolt", bolt(), "--out", out.toString(), "--quiet");
            assertEquals(0, r.status(), set + ": " + r.err());
            JsonNode results = JSON.readTree(out.resolve("results.json").toFile());
            for (JsonNode row : results.path("rows")) {
                assertEquals(2, row.path("questions").asInt(), set);
                assertEquals(2, row.path("retrievalScored").asInt(), set + ": every supporting title is a passage of the context");
            }
            assertEquals(0, results.path("builds").get(0).path("calls").asLong(), set + ": --config made AGRAG's build LLM-free");
            assertTrue(row(results, "dense", "first").path("recallShown").asDouble() > 0, set);
        }
    }

    @Test
    void everyMethodAgainstAnEndpointWithNoGoldFieldInAnyPrompt() throws Exception {
        Path dir = Files.createTempDirectory("evaluate-endpoint");
        List<QuestionSet.Question> qs = QuestionSet.read(MUSIQUE).subList(0, 1); // one question's 20 passages: every layer built on them
        // a user's own set: canaries in the id, an alias and a gold passage, none of which is in the corpus
        StringBuilder jsonl = new StringBuilder();
        for (QuestionSet.Question q : qs) {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("id", "CANARYID-" + q.id());
            line.put("question", q.text());
            line.put("answer", q.answers().get(0));
            List<String> aliases = new ArrayList<>(q.answers().subList(1, q.answers().size()));
            aliases.add("zqcanaryalias");
            line.put("aliases", aliases);
            List<Map<String, Object>> gold = new ArrayList<>();
            q.gold().forEach(g -> gold.add(Map.of("title", g.title(), "text", g.text())));
            gold.add(Map.of("title", "CANARYTITLE", "text", "zqcanarygold passage text"));
            line.put("gold", gold);
            jsonl.append(JSON.writeValueAsString(line)).append('\n');
        }
        Path questions = dir.resolve("own.jsonl"), corpusFile = dir.resolve("corpus.json");
        Files.writeString(questions, jsonl);
        Files.writeString(corpusFile, JSON.writeValueAsString(QuestionSet.passages(MUSIQUE, Set.of(qs.get(0).id()))));
        Path goldFile = dir.resolve("gold.json");
        OracleGold.build(OracleGold.fromMusique(MUSIQUE), goldFile);
        // a chatty model: every JSON reply wrapped in prose and a code fence, as small local models write them
        try (EvalLlmServer model = EvalLlmServer.start().dialect(dev.graphrag.oracle.ServerDialect.CHATTY)) {
            OraclePolicies.register(model, OracleGold.load(goldFile), List.of(EvaluatedMethod.values()));
            Path out = dir.resolve("out");
            Ran r = run("--questions", questions.toString(), "--corpus", corpusFile.toString(), "--corpus-name", "evalcmd-endpoint", "--endpoint", model.endpoint(),
                    "--model", "oracle-policy", "--config", "raga.ingest.bootstrapSchema=false", "--bolt", bolt(), "--out", out.toString(), "--quiet");
            assertEquals(0, r.status(), r.err());
            JsonNode results = JSON.readTree(out.resolve("results.json").toFile());
            assertEquals("oracle-policy at " + model.endpoint().replaceAll("/$", ""), results.path("model").asText(), "the endpoint as rag.llm.info shows it, /v1 included");
            assertFalse(Files.readString(out.resolve("results.md")).contains("ORACLE POLICY"), "a named endpoint's rows are that model's");
            List<String> rows = new ArrayList<>();
            results.path("rows").forEach(x -> rows.add(x.path("method").asText() + "/" + x.path("pass").asText()));
            assertEquals(List.of("dense/first", "agrag/first", "remind/first", "remind/repeat", "hgmem/first", "raga/first"), rows);
            for (JsonNode row : results.path("rows")) {
                assertEquals(0, row.path("failed").asInt(), row.toString());
                assertEquals(0, row.path("retrievalScored").asInt(), "a gold passage outside the corpus leaves retrieval unscored");
                if (!row.path("method").asText().equals("dense")) assertTrue(row.path("callsPerQuestion").asDouble() > 0, row.toString());
            }
            assertEquals(4, results.path("builds").size(), "agrag, remind, hgmem, raga");
            assertTrue(model.log().size() > 50);
            for (EvalLlmServer.LoggedRequest req : model.log()) {
                String body = req.body().toString();
                for (String canary : List.of("CANARY", "zqcanary")) assertFalse(body.contains(canary), req.step() + " sent " + canary);
                for (QuestionSet.Question q : qs) assertFalse(body.contains(q.id()), req.step() + " sent a question id");
            }
        }
    }

    static JsonNode row(JsonNode results, String method, String pass) {
        for (JsonNode r : results.path("rows")) if (r.path("method").asText().equals(method) && r.path("pass").asText().equals(pass)) return r;
        throw new AssertionError("no row " + method + "/" + pass);
    }

    static List<JsonNode> lines(Path out) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String l : Files.readAllLines(out.resolve("results.jsonl"))) if (!l.isBlank()) lines.add(JSON.readTree(l));
        return lines;
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(x -> out.add(x.asText()));
        return out;
    }
}
