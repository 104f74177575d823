package dev.graphrag.benchmarks;

import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.procedures.EmbeddedNeo4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.EvalCorpus;
import dev.graphrag.oracle.ScoredQuestion;
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
import java.util.Set;

/**
 * rag.search's fusion on the training sets, per set and per leave-one-set-out fold: MuSiQue train, HotpotQA train and the
 * HippoRAG case studies (docs/benchmarks.md, fusion). {@code --dump FILE} writes each question's candidates (cosine and BM25
 * of the union of both sides' candidates) for offline study of fusion rules.
 */
public final class FusionBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One question of one set, in the corpus it is asked of. */
    record Asked(String set, String corpus, ScoredQuestion question) {}

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        Path data = BenchmarkArgs.dataDirectory(argv);
        Path work = Files.createTempDirectory("graphrag-fusion");
        dev.graphrag.oracle.OracleReranker oracle = dev.graphrag.oracle.OracleReranker.start();
        Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, args.path("--data"), "127.0.0.1", -1, -1, oracle.settings()));
        try {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            List<Asked> asked = load(db, data);
            Path dump = args.path("--dump");
            if (dump != null) dump(db, asked, dump);
            else if (args.has("--rerank-only")) rerank(db, asked, oracle, System.out);
            else {
                report(db, asked, args.has("--agrag"), System.out);
                rerank(db, asked, oracle, System.out);
            }
        } finally {
            neo4j.close();
            oracle.close();
        }
    }

    static List<Asked> load(GraphDatabaseService db, Path data) throws Exception {
        List<Asked> out = new ArrayList<>();
        EvalCorpus musique = EvalCorpus.of(CorpusFiles.read(data.resolve("musique/musique_train_corpus.json")), Benchmark.SEED);
        ingestOnce(db, "musique", musique);
        for (ScoredQuestion q : ScoredQuestion.musique(data.resolve("musique/musique_train.json"), musique)) out.add(new Asked("musique", "musique", q));
        EvalCorpus hotpot = EvalCorpus.of(CorpusFiles.read(data.resolve("hotpotqa/hotpotqa_train_corpus.json")), Benchmark.SEED);
        ingestOnce(db, "hotpotqa", hotpot);
        for (ScoredQuestion q : ScoredQuestion.hotpot(data.resolve("hotpotqa/hotpotqa_train.json"), hotpot)) out.add(new Asked("hotpotqa", "hotpotqa", q));
        for (String name : List.of("books", "movies", "university", "biomed")) {
            Path dir = data.resolve("hipporag_samples");
            JsonNode corpusJson = JSON.readTree(dir.resolve("case_study_" + name + "_corpus.json").toFile());
            EvalCorpus corpus = EvalCorpus.of(CorpusFiles.fromJson(corpusJson), Benchmark.SEED);
            String corpusName = "hipporag-" + name;
            ingestOnce(db, corpusName, corpus);
            for (JsonNode q : JSON.readTree(dir.resolve("case_study_" + name + ".json").toFile())) {
                Set<String> gold = new LinkedHashSet<>();
                for (JsonNode p : q.path("paragraphs")) {
                    if (!p.path("is_supporting").asBoolean()) continue;
                    String text = p.hasNonNull("text") ? p.get("text").asText() : p.path("paragraph_text").asText();
                    String id = EvalCorpus.id(p.path("title").asText(null), text);
                    if (!corpus.contains(id)) throw new IllegalStateException(corpusName + ": a gold paragraph is not in the corpus");
                    gold.add(id);
                }
                out.add(new Asked("hipporag", corpusName, new ScoredQuestion(q.path("id").asText(), q.path("question").asText(), gold)));
            }
        }
        return out;
    }

    private static void ingestOnce(GraphDatabaseService db, String corpus, EvalCorpus docs) {
        boolean there = db.executeTransactionally("MATCH (c:RagCorpus {name: $c}) RETURN count(c) AS n", Map.of("c", corpus), r -> (Long) r.next().get("n")) > 0;
        if (!there) Benchmark.ingest(db, corpus, docs.documents());
    }

    /** One JSON line per question: set, question, gold ids, and the union of 50 dense and 50 BM25 candidates with both scores. */
    static void dump(GraphDatabaseService db, List<Asked> asked, Path file) throws Exception {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), true, java.nio.charset.StandardCharsets.UTF_8)) {
            for (Asked a : asked) {
                List<Map<String, Object>> cands = db.executeTransactionally(
                        "CALL rag.search($q, {corpus: $c, k: 200, candidates: 50, mode: 'hybrid'}) YIELD documentId, denseScore, bm25Score"
                                + " RETURN documentId AS d, denseScore AS dense, bm25Score AS bm25",
                        Map.of("q", a.question().text(), "c", a.corpus()), r -> {
                            List<Map<String, Object>> l = new ArrayList<>();
                            while (r.hasNext()) l.add(new LinkedHashMap<>(r.next()));
                            return l;
                        });
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("set", a.set());
                line.put("question", a.question().text());
                line.put("gold", a.question().goldIds());
                line.put("candidates", cands);
                out.println(JSON.writeValueAsString(line));
            }
        }
    }

    /** A rag.search (or agrag.retrieve) configuration under test, as the config map it passes. */
    record Rule(String name, String procedure, Map<String, Object> config) {}

    static final List<String> SETS = List.of("musique", "hotpotqa", "hipporag");
    static final List<Double> WEIGHTS = List.of(0.5, 0.6, 0.7, 0.8, 0.9);
    static final List<Integer> HEADS = List.of(0, 1, 2, 3);

    static List<Rule> rules(boolean agrag) {
        List<Rule> out = new ArrayList<>();
        out.add(new Rule("dense", "rag.search", Map.of("mode", "dense")));
        out.add(new Rule("bm25", "rag.search", Map.of("mode", "bm25")));
        out.add(new Rule("hybrid (defaults)", "rag.search", Map.of("mode", "hybrid")));
        out.add(new Rule("rrf (defaults)", "rag.search", Map.of("mode", "rrf")));
        for (String mode : List.of("hybrid", "rrf")) {
            for (double w : WEIGHTS) {
                for (int h : HEADS) out.add(new Rule(mode + " w" + w + " head" + h, "rag.search", Map.of("mode", mode, "denseWeight", w, "denseHead", h)));
            }
        }
        if (agrag) {
            for (int first : List.of(0, 1, 2)) {
                out.add(new Rule("agrag.retrieve hybrid denseFirst " + first + (first == 0 ? " (Eq. 21 alone)" : ""), "agrag.retrieve",
                        Map.of("mode", "hybrid", "denseFirst", first)));
            }
        }
        return out;
    }

    /** Recall@2 and @5 of every rule on every set, then each held-out fold with the rule chosen on the other sets. */
    static void report(GraphDatabaseService db, List<Asked> asked, boolean agrag, PrintStream out) {
        if (agrag) {
            for (String corpus : asked.stream().map(Asked::corpus).distinct().toList()) {
                boolean built = db.executeTransactionally("MATCH (m:AgMeta {corpus: $c}) RETURN count(m) AS n", Map.of("c", corpus), r -> (Long) r.next().get("n")) > 0;
                if (!built) db.executeTransactionally(Benchmark.INDEXERS.get(0), Map.of("corpus", corpus), r -> r.next());
            }
        }
        Map<String, Map<String, double[]>> recall = new LinkedHashMap<>(); // rule -> set -> {r2, r5}
        for (Rule rule : rules(agrag)) {
            Map<String, double[]> bySet = new LinkedHashMap<>();
            for (String set : SETS) {
                List<Asked> qs = asked.stream().filter(a -> a.set().equals(set)).toList();
                double r2 = 0, r5 = 0;
                for (Asked a : qs) {
                    Map<String, Object> cfg = new LinkedHashMap<>(rule.config());
                    cfg.put("corpus", a.corpus());
                    cfg.put("k", 5L);
                    List<String> ids = db.executeTransactionally("CALL " + rule.procedure() + "($q, $cfg) YIELD documentId RETURN documentId",
                            Map.of("q", a.question().text(), "cfg", cfg), r -> {
                                List<String> l = new ArrayList<>();
                                while (r.hasNext()) l.add((String) r.next().get("documentId"));
                                return l;
                            });
                    r2 += dev.graphrag.oracle.Scores.recallAt(ids, 2, a.question().goldIds());
                    r5 += dev.graphrag.oracle.Scores.recallAt(ids, 5, a.question().goldIds());
                }
                bySet.put(set, new double[] {r2 / qs.size(), r5 / qs.size()});
            }
            recall.put(rule.name(), bySet);
            out.printf("| %s | %s |%n", rule.name(), String.join(" | ", SETS.stream().map(s -> String.format("%.3f / %.3f", bySet.get(s)[0], bySet.get(s)[1])).toList()));
        }
        // the weight and head chosen freely on the other sets, then the weight alone with the head fixed at the default
        for (boolean fixedHead : List.of(false, true)) {
            out.println();
            out.println(fixedHead ? "Weight chosen on the other sets, denseHead fixed at " + dev.graphrag.core.search.SearchConfig.DEFAULT_DENSE_HEAD + ":"
                    : "Weight and denseHead both chosen on the other sets:");
            out.println("| held-out set | mode | chosen on the other sets | held-out R@2 / R@5 | dense R@2 / R@5 | difference R@2 / R@5 |");
            out.println("|---|---|---|---|---|---|");
            for (String fold : SETS) {
                double[] dense = recall.get("dense").get(fold);
                for (String mode : List.of("hybrid", "rrf")) {
                    String best = null;
                    double bestGain = Double.NEGATIVE_INFINITY;
                    // each other set counts once, whatever its size; ties go to the larger weight and head (the rule nearer dense)
                    for (double w : WEIGHTS) {
                        for (int h : HEADS) {
                            if (fixedHead && h != dev.graphrag.core.search.SearchConfig.DEFAULT_DENSE_HEAD) continue;
                            String name = mode + " w" + w + " head" + h;
                            double gain = 0;
                            for (String other : SETS) {
                                if (!other.equals(fold)) gain += recall.get(name).get(other)[1] - recall.get("dense").get(other)[1];
                            }
                            if (gain >= bestGain - 1e-12) {
                                bestGain = gain;
                                best = name;
                            }
                        }
                    }
                    double[] held = recall.get(best).get(fold);
                    out.printf("| %s | %s | %s | %.3f / %.3f | %.3f / %.3f | %+.1f / %+.1f |%n", fold, mode, best.substring(mode.length() + 1), held[0],
                            held[1], dense[0], dense[1], 100 * (held[0] - dense[0]), 100 * (held[1] - dense[1]));
                }
            }
        }
    }

    /**
     * ORACLE POLICY: rag.search with rerank against {@link dev.graphrag.oracle.OracleReranker}, beside the same search
     * without it and the ceiling such a reranker allows (the same candidates, gold documents' chunks first in retrieval
     * order, computed here without the stage): the stage must reach the ceiling exactly.
     */
    static void rerank(GraphDatabaseService db, List<Asked> asked, dev.graphrag.oracle.OracleReranker oracle, PrintStream out) {
        for (String corpus : asked.stream().map(Asked::corpus).distinct().toList()) {
            db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) RETURN c.text AS t, c.documentId AS d", Map.of("c", corpus), r -> {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    oracle.chunk((String) row.get("t"), (String) row.get("d"));
                }
                return null;
            });
        }
        for (Asked a : asked) oracle.question(a.question().text(), a.question().goldIds());
        out.println();
        out.println("ORACLE POLICY reranker (scores gold documents' chunks 1, others 0): Recall@2 / Recall@5, k 5");
        out.println("| set | mode | rerankCandidates | without rerank | oracle rerank | ceiling (gold among the candidates first) |");
        out.println("|---|---|---|---|---|---|");
        long before = oracle.requests();
        for (String set : SETS) {
            List<Asked> qs = asked.stream().filter(x -> x.set().equals(set)).toList();
            for (String mode : List.of("dense", "hybrid", "rrf")) {
                for (int n : List.of(20, 50)) {
                    double[] plain = new double[2], reranked = new double[2], ceiling = new double[2];
                    for (Asked a : qs) {
                        Map<String, Object> cfg = new LinkedHashMap<>(Map.of("corpus", a.corpus(), "mode", mode, "k", 5L));
                        add(plain, search(db, a, cfg), a);
                        Map<String, Object> withRerank = new LinkedHashMap<>(cfg);
                        withRerank.put("rerank", true);
                        withRerank.put("rerankCandidates", (long) n);
                        add(reranked, search(db, a, withRerank), a);
                        Map<String, Object> wide = new LinkedHashMap<>(cfg);
                        wide.put("k", (long) n);
                        // the candidates the reranked call fused from (max(50, 4k) and at least rerankCandidates), so both lists agree
                        wide.put("candidates", (long) Math.max(50, n));
                        List<String> candidates = search(db, a, wide);
                        List<String> goldFirst = new ArrayList<>();
                        for (String d : candidates) if (a.question().goldIds().contains(d)) goldFirst.add(d);
                        for (String d : candidates) if (!a.question().goldIds().contains(d)) goldFirst.add(d);
                        add(ceiling, goldFirst.subList(0, Math.min(5, goldFirst.size())), a);
                    }
                    out.printf("| %s | %s | %d | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f |%n", set, mode, n, plain[0] / qs.size(), plain[1] / qs.size(),
                            reranked[0] / qs.size(), reranked[1] / qs.size(), ceiling[0] / qs.size(), ceiling[1] / qs.size());
                }
            }
        }
        out.printf("(%d rerank requests; graphrag.rerank.maxDocuments 32, so 50 candidates went in two)%n", oracle.requests() - before);
    }

    /** The documentIds of a rag.search call, in rank order (one per chunk). */
    private static List<String> search(GraphDatabaseService db, Asked a, Map<String, Object> cfg) {
        return db.executeTransactionally("CALL rag.search($q, $cfg) YIELD documentId RETURN documentId", Map.of("q", a.question().text(), "cfg", cfg), r -> {
            List<String> l = new ArrayList<>();
            while (r.hasNext()) l.add((String) r.next().get("documentId"));
            return l;
        });
    }

    private static void add(double[] recall, List<String> ids, Asked a) {
        recall[0] += dev.graphrag.oracle.Scores.recallAt(ids, 2, a.question().goldIds());
        recall[1] += dev.graphrag.oracle.Scores.recallAt(ids, 5, a.question().goldIds());
    }
}
