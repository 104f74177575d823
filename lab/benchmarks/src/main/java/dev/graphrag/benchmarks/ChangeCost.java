package dev.graphrag.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.demo.CorpusFiles;
import dev.graphrag.oracle.EvalLlmServer;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What bringing the layers up to date costs after a change to part of a corpus (docs/benchmarks.md#the-cost-of-a-change):
 * 2Wiki at 1x, every layer built in full (agrag.index LLM-free, remind.index, hgmem.index and raga.ingest on the
 * stand-in, whose index-time policies read only the chunk), then rag.refresh with nothing changed (the rebuild's
 * constant), then, for each fraction, that share of the documents changed (four in five renamed: one entity word of the
 * title replaced everywhere in the document by a name no document holds; one in five deleted with rag.delete) and
 * rag.refresh again. Per layer and step: seconds, LLM calls, the chunks the change touched, the proportional share of
 * the full build, the ratio of the rebuild (less the constant) to that share, and how many of the rebuild's LLM requests
 * hold the text of no changed chunk.
 * <p>
 * {@code DATA [--fractions 1,10] [--documents N] [--layers "agrag;remind;hgmem;raga"]}: --documents takes the corpus's
 * first N documents (a short check of the program, not a figure for the table).
 */
public final class ChangeCost {
    static final long SEED = 20261202L;
    static final String CORPUS = "change-x1";
    static final List<String> LAYERS = List.of("agrag", "remind", "hgmem", "raga");
    private static final Pattern TITLE_WORD = Pattern.compile("\\p{Lu}[\\p{L}\\p{N}'-]{2,}");

    /** One build or rebuild of one layer. */
    record Step(String layer, double seconds, long llmCalls, long callsWithoutChangedText) {}

    /** A change applied to the corpus: the documents updated and deleted, and the texts of the chunks the update wrote. */
    record Change(List<String> updated, List<String> deleted, long chunksBefore, long chunksTouched, List<String> newChunkTexts) {}

    private ChangeCost() {}

    public static void main(String[] argv) throws Exception {
        BenchmarkArgs args = BenchmarkArgs.parse(argv);
        List<Integer> fractions = new ArrayList<>();
        for (String f : args.string("--fractions", "1,10").split(",")) fractions.add(Integer.parseInt(f.trim()));
        List<String> layers = new ArrayList<>();
        for (String l : args.string("--layers", String.join(";", LAYERS)).split(";")) {
            if (!LAYERS.contains(l.trim())) throw new IllegalArgumentException("--layers: no layer named '" + l.trim() + "'; the layers are " + LAYERS);
            layers.add(l.trim());
        }
        List<Map<String, Object>> docs = ScaledCorpus.of(CorpusFiles.read(args.data().resolve("2wikimultihopqa/2wikimultihopqa_corpus.json")), 1, SEED);
        int limit = args.option("--documents", docs.size());
        docs = new ArrayList<>(docs.subList(0, Math.min(limit, docs.size())));
        PrintStream out = System.out;
        Path work = Files.createTempDirectory("graphrag-change");
        Neo4j neo4j = ScaleBenchmark.open(Files.createDirectories(work.resolve("server")), work.resolve("store"));
        EvalLlmServer llm = ScaleLlmLayers.server();
        StringBuilder report = new StringBuilder();
        try {
            GraphDatabaseService db = neo4j.defaultDatabaseService();
            long t = System.nanoTime();
            long chunks = Benchmark.ingest(db, CORPUS, docs);
            out.printf(Locale.ROOT, "%s: %d documents, %d chunks, rag.ingest %.1f s%n", CORPUS, docs.size(), chunks, (System.nanoTime() - t) / 1e9);
            Map<String, Step> full = new LinkedHashMap<>();
            for (String layer : layers) {
                full.put(layer, fullBuild(db, llm, layer));
                out.printf(Locale.ROOT, "full %s: %.1f s, %d LLM calls%n", layer, full.get(layer).seconds(), full.get(layer).llmCalls());
            }
            // the bodies are kept from here on: the rebuilds' requests are checked against the changed chunks' texts
            llm.keepBodies(true);
            Map<String, Step> constant = refresh(db, llm, layers, List.of(), out, "no change");
            report.append("| change | documents updated / deleted | chunks touched (share) | layer | full build s | LLM calls full | rebuild s "
                    + "| constant s | proportional share s | (rebuild - constant) / share | LLM calls rebuild | calls per touched chunk, full / rebuild "
                    + "| calls without changed text |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            Random random = new Random(SEED);
            for (int pct : fractions) {
                Change change = change(db, docs, pct, random, out);
                Map<String, Step> rebuild = refresh(db, llm, layers, change.newChunkTexts(), out, pct + " %");
                double share = change.chunksTouched() / (double) change.chunksBefore();
                for (String layer : layers) {
                    Step f = full.get(layer), r = rebuild.get(layer), c = constant.get(layer);
                    double proportional = f.seconds() * share;
                    report.append(String.format(Locale.ROOT, "| %d %% | %d / %d | %d (%.2f %%) | %s | %.1f | %d | %.1f | %.1f | %.1f | %.2f | %d | %.2f / %.2f | %d |%n",
                            pct, change.updated().size(), change.deleted().size(), change.chunksTouched(), 100 * share, layer, f.seconds(), f.llmCalls(),
                            r.seconds(), c.seconds(), proportional, (r.seconds() - c.seconds()) / proportional, r.llmCalls(),
                            f.llmCalls() / (double) change.chunksBefore(), r.llmCalls() / (double) Math.max(1, change.chunksTouched()),
                            r.callsWithoutChangedText()));
                }
            }
        } finally {
            llm.close();
            neo4j.close();
        }
        out.println();
        out.println(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "change-cost.md"), report.toString());
    }

    /** A layer's first build on the whole corpus, with the configuration rag.refresh then repeats. */
    static Step fullBuild(GraphDatabaseService db, EvalLlmServer llm, String layer) {
        String query = switch (layer) {
            case "agrag" -> "CALL agrag.index($cfg) YIELD chunks RETURN chunks";
            case "remind" -> "CALL remind.index($cfg) YIELD newChunks RETURN newChunks";
            case "hgmem" -> "CALL hgmem.index($cfg) YIELD llmCalls RETURN llmCalls";
            case "raga" -> "CALL raga.ingest([], $cfg) YIELD kind RETURN kind";
            default -> throw new IllegalArgumentException(layer);
        };
        Map<String, Object> cfg = switch (layer) {
            case "agrag" -> Map.of("corpus", CORPUS, "relations", "cooccurrence");
            // RAGA's schema discovery has no policy: the open schema starts empty, as in the evaluation command's --oracle
            case "raga" -> llm.config(CORPUS, Map.of("bootstrapSchema", false));
            default -> llm.config(CORPUS, Map.of());
        };
        int logged = llm.log().size();
        long t = System.nanoTime();
        db.executeTransactionally(query, Map.of("cfg", cfg), r -> {
            while (r.hasNext()) r.next();
            return null;
        });
        double s = (System.nanoTime() - t) / 1e9;
        return new Step(layer, s, llm.log().size() - logged, 0);
    }

    /**
     * rag.refresh over the layers built: one row per step, its seconds from the row; the LLM calls of each layer from
     * the stand-in's log by the step name's method, and how many hold none of {@code changedTexts}.
     */
    static Map<String, Step> refresh(GraphDatabaseService db, EvalLlmServer llm, List<String> layers, List<String> changedTexts, PrintStream out, String label) {
        int logged = llm.log().size();
        List<Map<String, Object>> rows = db.executeTransactionally("CALL rag.refresh({corpus: $c, layers: $layers, llm: $llm}) YIELD step, status, error, ms "
                + "RETURN step, status, error, ms", Map.of("c", CORPUS, "layers", layers, "llm", llm.config(CORPUS, Map.of()).get("llm")), r -> {
            List<Map<String, Object>> l = new ArrayList<>();
            r.forEachRemaining(l::add);
            return l;
        });
        Map<String, List<String>> probes = probes(changedTexts);
        Map<String, long[]> calls = new TreeMap<>(); // method -> {calls, calls without changed text}
        Map<String, Map<String, Integer>> withoutByStep = new TreeMap<>();
        for (EvalLlmServer.LoggedRequest x : llm.log().subList(logged, llm.log().size())) {
            String method = x.step() == null ? "" : x.step().split("[. ]", 2)[0]; // "remind.index triples", "hgmem extract", "raga.L3"
            long[] c = calls.computeIfAbsent(method, k -> new long[2]);
            c[0]++;
            if (!holdsAny(text(x.body()), probes)) {
                c[1]++;
                withoutByStep.computeIfAbsent(method, k -> new TreeMap<>()).merge(x.step(), 1, Integer::sum);
            }
        }
        Map<String, Step> steps = new LinkedHashMap<>();
        for (Map<String, Object> row : rows) {
            String step = (String) row.get("step");
            if (step.startsWith("rag.") || "skipped".equals(row.get("status"))) continue; // a layer not built here, or not asked for
            if (!"done".equals(row.get("status"))) throw new IllegalStateException(label + ": " + step + " " + row.get("status") + ": " + row.get("error"));
            String layer = step.substring(0, step.indexOf('.'));
            long[] c = calls.getOrDefault(layer, new long[2]);
            steps.put(layer, new Step(layer, ((Number) row.get("ms")).longValue() / 1e3, c[0], c[1]));
            out.printf(Locale.ROOT, "%s: %s %.1f s, %d LLM calls, %d without changed text %s%n", label, step, ((Number) row.get("ms")).longValue() / 1e3, c[0], c[1],
                    withoutByStep.getOrDefault(layer, Map.of()));
        }
        for (String layer : layers) if (!steps.containsKey(layer)) throw new IllegalStateException(label + ": rag.refresh gave no row for " + layer + ": " + rows);
        return steps;
    }

    /**
     * Changes {@code pct} % of the corpus's present documents: four in five get one entity word of their title renamed
     * throughout (re-ingested with rag.ingest), one in five are deleted with rag.delete.
     */
    @SuppressWarnings("unchecked")
    static Change change(GraphDatabaseService db, List<Map<String, Object>> docs, int pct, Random random, PrintStream out) {
        Set<String> present = Set.copyOf(db.executeTransactionally("MATCH (d:Document {corpus: $c}) RETURN collect(d.id) AS ids", Map.of("c", CORPUS),
                r -> (List<String>) r.next().get("ids")));
        List<Map<String, Object>> candidates = new ArrayList<>(docs.stream().filter(d -> present.contains((String) d.get("id"))).toList());
        Collections.shuffle(candidates, random);
        long chunksBefore = chunkCount(db);
        int n = Math.max(1, Math.round(docs.size() * pct / 100f));
        List<Map<String, Object>> updates = new ArrayList<>();
        List<String> deleted = new ArrayList<>();
        for (Map<String, Object> d : candidates.subList(0, Math.min(n, candidates.size()))) {
            Matcher m = TITLE_WORD.matcher(d.get("title") == null ? "" : (String) d.get("title"));
            String word = m.find() ? m.group() : null;
            if ((updates.size() + deleted.size()) % 5 == 4 || word == null || !((String) d.get("text")).contains(word)) {
                deleted.add((String) d.get("id"));
                continue;
            }
            Map<String, String> rename = Map.of(word, "Qu" + Integer.toString(updates.size() + 36 * pct, 36) + "vendal");
            Map<String, Object> updated = new HashMap<>(d);
            updated.put("title", ScaledCorpus.rename((String) d.get("title"), rename));
            updated.put("text", ScaledCorpus.rename((String) d.get("text"), rename));
            d.putAll(updated); // the next change starts from this text
            updates.add(updated);
        }
        long touchedByDelete = db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) WHERE c.documentId IN $ids RETURN count(c) AS n",
                Map.of("c", CORPUS, "ids", deleted), r -> (Long) r.next().get("n"));
        long t = System.nanoTime();
        Benchmark.ingest(db, CORPUS, updates);
        db.executeTransactionally("CALL rag.delete($ids, {corpus: $c})", Map.of("ids", deleted, "c", CORPUS), r -> {
            while (r.hasNext()) r.next();
            return null;
        });
        double s = (System.nanoTime() - t) / 1e9;
        List<String> texts = db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) WHERE c.documentId IN $ids RETURN collect(c.text) AS t",
                Map.of("c", CORPUS, "ids", updates.stream().map(d -> (String) d.get("id")).toList()), r -> (List<String>) r.next().get("t"));
        out.printf(Locale.ROOT, "%d %%: %d documents updated (%d chunks), %d deleted (%d chunks) in %.1f s%n", pct, updates.size(), texts.size(), deleted.size(),
                touchedByDelete, s);
        return new Change(updates.stream().map(d -> (String) d.get("id")).toList(), deleted, chunksBefore, texts.size() + touchedByDelete, texts);
    }

    static long chunkCount(GraphDatabaseService db) {
        return db.executeTransactionally("RETURN COUNT { (:Chunk {corpus: $c}) } AS n", Map.of("c", CORPUS), r -> ((Number) r.next().get("n")).longValue());
    }

    /** Every string value of a request body, joined: the messages, tool results and tool calls as the server read them. */
    static String text(JsonNode body) {
        if (body == null) return "";
        StringBuilder b = new StringBuilder();
        collect(body, b);
        return b.toString();
    }

    private static void collect(JsonNode n, StringBuilder b) {
        if (n.isTextual()) b.append(n.asText()).append('\n');
        else n.forEach(child -> collect(child, b));
    }

    /**
     * Whether {@code prompt} holds any probe: the first 40 letters and digits of a changed chunk's text ({@link #comparable} on both sides):
     * the probes are looked up by their first 12 characters at each position of the prompt, so thousands of requests
     * against hundreds of chunks stay a linear pass each.
     */
    static boolean holdsAny(String prompt, Map<String, List<String>> probes) {
        if (probes.isEmpty()) return false;
        String p = comparable(prompt);
        for (int i = 0; i + KEY <= p.length(); i++) {
            List<String> candidates = probes.get(p.substring(i, i + KEY));
            if (candidates == null) continue;
            for (String probe : candidates) if (p.startsWith(probe, i)) return true;
        }
        return false;
    }

    /** The probes of {@link #holdsAny}, by their first characters. */
    static Map<String, List<String>> probes(List<String> texts) {
        Map<String, List<String>> probes = new HashMap<>();
        for (String t : texts) {
            String c = comparable(t);
            String probe = c.substring(0, Math.min(40, c.length()));
            if (probe.length() >= KEY) probes.computeIfAbsent(probe.substring(0, KEY), k -> new ArrayList<>()).add(probe);
        }
        return probes;
    }

    /**
     * Letters and digits only, lower-cased, after undoing JSON string escapes: a prompt may quote a chunk inside a JSON
     * value (its quotes and line breaks escaped) or with its spacing changed, and either way holds the same letters.
     */
    static String comparable(String s) {
        String unescaped = s.replace("\\n", " ").replace("\\t", " ").replace("\\\"", "\"").replace("\\\\", "\\");
        StringBuilder b = new StringBuilder(unescaped.length());
        unescaped.codePoints().filter(Character::isLetterOrDigit).map(Character::toLowerCase).forEach(b::appendCodePoint);
        return b.toString();
    }

    private static final int KEY = 12;
}
