package dev.graphrag.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * remind.* end to end on the shared server: the build from rule-extracted replies, a target-seeking scripted walker
 * that pays many calls cold and two on a repeat, memorisation under concurrency, and bad input.
 */
class RemindProceduresTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static EvalLlmServer llm;
    static final String QUESTION = "Where was the star of the horror film directed by Scott Derrickson born?";

    static final List<Map<String, Object>> DOCS = List.of(
            Map.of("id", "derrickson", "text", "Scott Derrickson is an American film director. Scott Derrickson directed the horror film Sinister in 2012."),
            Map.of("id", "sinister", "text", "Sinister is a 2012 horror film. Ethan Hawke stars in Sinister as a true crime writer."),
            Map.of("id", "hawke", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke studied acting at New York University."),
            Map.of("id", "brooks", "text", "Conrad Brooks is an American actor. Conrad Brooks appeared in films of Ed Wood in Hollywood."),
            Map.of("id", "derrickson2", "text", "Scott DERRICKSON grew up in Denver. Scott DERRICKSON studied at Biola University."));

    /** A walker that seeks the word "Austin": sufficient once a chunk holds it; enters unvisited chunks first; prefers candidates the question names. */
    static void registerWalker(EvalLlmServer s) {
        s.on("remind sufficiency", r -> json(Map.of("sufficient", texts(block(r)).contains("Austin"))));
        s.on("remind next node", r -> {
            JsonNode b = block(r);
            if (b.path("unvisitedChunks").size() > 0) return json(Map.of("type", "chunk", "id", b.path("unvisitedChunks").get(0).path("id").asText()));
            JsonNode best = null;
            int bestScore = -1;
            for (JsonNode c : b.path("candidates")) {
                int score = overlap(QUESTION, c.path("name").asText(c.path("title").asText()) + " " + c.path("relation").asText());
                if (score > bestScore) {
                    best = c;
                    bestScore = score;
                }
            }
            if (best != null) return json(Map.of("type", "entity", "id", best.path("id").asText()));
            // nothing ahead: back to a collected node, round robin over what was collected
            List<String> collected = new ArrayList<>();
            b.path("entities").fieldNames().forEachRemaining(collected::add); // the walk's prompts: one map, handle to name
            b.path("anchors").forEach(e -> collected.add(e.path("id").asText()));
            return json(Map.of("type", "entity", "id", collected.get(b.path("history").size() % collected.size())));
        });
        s.on("remind filter", r -> {
            List<String> useful = new ArrayList<>();
            for (JsonNode c : block(r).path("chunks")) {
                String t = c.path("text").asText();
                if (t.contains("Austin") || t.contains("stars in Sinister") || t.contains("directed the horror film")) useful.add(c.path("id").asText());
            }
            return json(Map.of("edges", List.of(), "chunks", useful));
        });
        s.on("remind answer", r -> {
            List<String> cited = new ArrayList<>();
            for (JsonNode c : block(r).path("chunks")) if (c.path("text").asText().contains("Austin")) cited.add(c.path("id").asText());
            return json(Map.of("answer", cited.isEmpty() ? "unknown" : "Austin, Texas", "citedChunks", cited));
        });
    }

    static JsonNode block(dev.graphrag.oracle.PolicyRequest r) {
        return RemindExtractionPolicies.block(r);
    }

    static String texts(JsonNode b) {
        StringBuilder t = new StringBuilder();
        for (JsonNode c : b.path("chunks")) t.append(c.path("text").asText()).append('\n');
        return t.toString();
    }

    static int overlap(String a, String b) {
        Set<String> wa = new TreeSet<>(List.of(a.toLowerCase().split("\\W+")));
        int n = 0;
        for (String w : b.toLowerCase().split("\\W+")) if (w.length() > 3 && wa.contains(w)) n++;
        return n;
    }

    static PolicyReply json(Map<String, Object> m) {
        return PolicyReply.jsonOf(m);
    }

    @BeforeAll
    static void start() {
        llm = RemindExtractionPolicies.register(EvalLlmServer.start());
        registerWalker(llm);
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> cfg(String corpus, Map<String, Object> extra) {
        return llm.config(corpus, extra);
    }

    static Map<String, Object> build(String corpus) {
        return build(corpus, 750);
    }

    static Map<String, Object> build(String corpus, int chunkTokens) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunker: 'sentences', chunkSize: $n, chunkOverlap: 0})", Map.of("docs", DOCS, "c", corpus, "n", chunkTokens));
        return rows("CALL remind.index($cfg)", Map.of("cfg", cfg(corpus, Map.of()))).get(0);
    }

    @Test
    void buildMergesSynonymsChainsAnchorsAndStartsWithZeroMemory() {
        llm.clearLog();
        Map<String, Object> s = build("rm1", 16); // one sentence a chunk: two chunks a document, chained
        System.out.println("remind.index: " + s);
        assertEquals(10L, s.get("chunks"));
        assertEquals(10L, s.get("newChunks"));
        assertEquals((long) llm.log().size(), s.get("llmCalls"), "the yielded calls are the server's");
        assertEquals(30L, s.get("llmCalls"), "entities, triples and title per chunk");
        assertEquals(5L, s.get("nextEdges"));
        assertEquals(5, count("MATCH (a:RmAnchor {corpus: 'rm1', index: 0})-[:RM_NEXT]->(b:RmAnchor {index: 1}) WHERE a.documentId = b.documentId RETURN count(a)", Map.of()));
        // "Scott DERRICKSON" (another surface form, cosine 1 under the uncased embedder) merged into the first form
        assertEquals(1L, s.get("entitiesMerged"), "one surface form merged (its second chunk reuses the merge): " + s);
        assertEquals(0, count("MATCH (e:RmEntity {corpus: 'rm1', name: 'Scott DERRICKSON'}) RETURN count(e)", Map.of()));
        assertEquals(4, count("MATCH (:RmEntity {corpus: 'rm1', name: 'Scott Derrickson'})-[:RM_MENTIONED_IN]->(a:RmAnchor) RETURN count(a)", Map.of()));
        assertEquals(10, count("MATCH (a:RmAnchor {corpus: 'rm1'})-[:RM_HAS_CHUNK]->(:Chunk {corpus: 'rm1'}) RETURN count(a)", Map.of()));
        assertEquals(0, count("MATCH (:RmAnchor {corpus: 'rm1'})-[r]-() WHERE r.memory IS NOT NULL RETURN count(r)", Map.of()));
        assertTrue(count("MATCH (:RmEntity {corpus: 'rm1'})-[r:RM_RELATION]->() RETURN count(r)", Map.of()) >= 3);
        // a re-run extracts nothing and changes nothing
        List<Object> before = TestServer.fingerprint(Set.of("version", "indexedAt", "buildStartedAt", "versionSeq"));
        Map<String, Object> again = rows("CALL remind.index($cfg)", Map.of("cfg", cfg("rm1", Map.of()))).get(0);
        assertEquals(0L, again.get("newChunks"));
        assertEquals(0L, again.get("llmCalls"));
        assertEquals(before, TestServer.fingerprint(Set.of("version", "indexedAt", "buildStartedAt", "versionSeq")));
        Map<String, Object> info = rows("CALL remind.info({corpus: 'rm1'})").get(0);
        assertEquals("ready", info.get("state"));
        assertEquals(384L, info.get("embeddingDimensions"));
    }

    @Test
    void aRepeatedQuestionReplaysItsMemoryAndCostsTwoCalls() {
        build("rm2");
        llm.clearLog();
        Map<String, Object> first = rows("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm2", Map.of()))).get(0);
        System.out.println("cold: " + first);
        assertEquals("SUFFICIENT", first.get("stopReason"));
        assertEquals("Austin, Texas", first.get("answer"));
        assertEquals(List.of("rm2:hawke:0"), first.get("citedChunks"));
        assertEquals(true, first.get("memorized"));
        assertTrue((Long) first.get("enhanced") >= 2, first.toString());
        long coldCalls = (Long) first.get("llmCalls");
        assertEquals(llm.log().size(), coldCalls, "the yielded calls are the server's");
        assertTrue(coldCalls >= 5, "a cold walk pays for its steps: " + coldCalls);
        assertTrue((Long) first.get("traversalTokens") < (Long) first.get("promptTokens") + (Long) first.get("completionTokens"));

        llm.clearLog();
        Map<String, Object> second = rows("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm2", Map.of()))).get(0);
        System.out.println("repeat: " + second);
        assertEquals(2L, second.get("llmCalls"), "one sufficiency check after replay, one answer");
        assertEquals(List.of("remind sufficiency", "remind answer"), llm.log().stream().map(EvalLlmServer.LoggedRequest::step).toList());
        assertEquals(0L, second.get("jumps"));
        assertEquals(false, second.get("memorized"), "a replay-only answer writes nothing (paper App. B.4)");
        assertEquals("Austin, Texas", second.get("answer"));
        assertTrue(((List<?>) second.get("chunks")).contains("rm2:hawke:0"));

        // replay alone finds the same evidence with no LLM at all; memory stats show the written edges
        Map<String, Object> replay = rows("CALL remind.replay($q, {corpus: 'rm2'})", Map.of("q", QUESTION)).get(0);
        assertTrue(((List<?>) replay.get("chunks")).contains("rm2:hawke:0"), replay.toString());
        long nonZero = rows("CALL remind.memory.stats({corpus: 'rm2'}) YIELD nonZero RETURN sum(nonZero) AS n").get(0).get("n") instanceof Long l ? l : -1;
        assertEquals(first.get("enhanced"), nonZero);
        // remind.query never writes; reset forgets everything and the next answer walks again
        long before = TestServer.lastCommittedTransaction();
        rows("CALL remind.query($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm2", Map.of())));
        assertEquals(before, TestServer.lastCommittedTransaction());
        assertEquals(nonZero, rows("CALL remind.memory.reset({corpus: 'rm2'})").get(0).get("relationshipsReset"));
        List<?> weights = (List<?>) rows("CALL remind.replay($q, {corpus: 'rm2'})", Map.of("q", QUESTION)).get(0).get("weights");
        assertTrue(weights.stream().allMatch(w -> "seed".equals(((Map<?, ?>) w).get("origin"))), "only a seed anchor's own chunk: " + weights);
    }

    /** What the sufficiency judge reads in a logged L7 request: chunk texts, anchor titles and edge texts. */
    static Set<String> judged(JsonNode b) {
        Set<String> out = new TreeSet<>();
        b.path("chunks").forEach(c -> out.add("C " + c.path("text").asText()));
        b.path("anchors").forEach(a -> { if (a.has("title")) out.add("A " + a.path("title").asText()); });
        b.path("edges").forEach(e -> { if (e.has("text")) out.add("R " + e.path("text").asText()); });
        return out;
    }

    @Test
    void theJudgeIsNotAskedAgainWhileTheSubgraphShowsItNothingNew() {
        build("rm7", 16);
        Map<String, Long> l7 = new LinkedHashMap<>();
        Map<Boolean, Map<String, Object>> runs = new LinkedHashMap<>();
        for (boolean every : List.of(true, false)) {
            llm.clearLog();
            Map<String, Object> r = rows("CALL remind.query($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm7", Map.of("judgeEveryStep", every)))).get(0);
            runs.put(every, r);
            List<JsonNode> judged = llm.log().stream().filter(x -> x.step().equals("remind sufficiency"))
                    .map(x -> block(new dev.graphrag.oracle.PolicyRequest(x.step(), x.body()))).toList();
            l7.put(String.valueOf(every), (long) judged.size());
            long grew = ((List<?>) r.get("trace")).stream().map(t -> ((Map<?, ?>) t).get("move")).filter(m -> m.equals("forward") || m.equals("forced")).count();
            if (every) assertEquals(1 + grew, judged.size(), "the reference: after replay and after every move that grows S");
            else for (int i = 1; i < judged.size(); i++) {
                assertFalse(judged(judged.get(i)).equals(judged(judged.get(i - 1))), "asked again only for something new to read: " + judged.get(i));
            }
        }
        System.out.println("L7 calls, judgeEveryStep true/false: " + l7);
        assertEquals(runs.get(true).get("stopReason"), runs.get(false).get("stopReason"));
        assertEquals(runs.get(true).get("chunks"), runs.get(false).get("chunks"), "the same walk");
        assertEquals(runs.get(true).get("answer"), runs.get(false).get("answer"));
        assertTrue(l7.get("false") < l7.get("true"), "moves that show nothing new are not judged again: " + l7);
    }

    @Test
    void queryPromptsShowEachChunkWithItsDocumentsTitle() {
        List<Map<String, Object>> titled = new ArrayList<>();
        for (Map<String, Object> d : DOCS) {
            Map<String, Object> t = new HashMap<>(d);
            if (!d.get("id").equals("derrickson2")) t.put("title", d.get("id") + " (page)");
            titled.add(t);
        }
        rows("CALL rag.ingest($docs, {corpus: 'rm6', chunker: 'sentences', chunkSize: 750, chunkOverlap: 0})", Map.of("docs", titled));
        rows("CALL remind.index($cfg)", Map.of("cfg", cfg("rm6", Map.of())));
        // L6 "summarises" a chunk as its own text, so every chunk entry below can be told by its text
        llm.on("remind chunk summary", r -> json(Map.of("summary", block(r).path("newChunk").path("text").asText())));
        Map<String, String> titleByText = new HashMap<>();
        for (Map<String, Object> d : titled) titleByText.put((String) d.get("text"), (String) d.getOrDefault("title", "<none>"));
        llm.clearLog();
        rows("CALL remind.traverse($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm6", Map.of("chunkSummaryThreshold", 1))));
        int summaries = 0, entries = 0;
        for (EvalLlmServer.LoggedRequest r : llm.log()) {
            JsonNode b = block(new dev.graphrag.oracle.PolicyRequest(r.step(), r.body()));
            List<JsonNode> chunks = new ArrayList<>();
            b.path("chunks").forEach(chunks::add);
            if (b.has("newChunk")) {
                chunks.add(b.path("newChunk"));
                summaries++;
            }
            for (JsonNode c : chunks) {
                String expected = titleByText.get(c.path("text").asText());
                assertTrue(expected != null, "a chunk entry shows its document's text: " + c);
                assertEquals(expected, c.path("document").asText("<none>"), r.step() + " shows " + c);
                entries++;
            }
        }
        assertTrue(summaries > 0, "the L6 path ran: " + llm.log().stream().map(EvalLlmServer.LoggedRequest::step).toList());
        assertTrue(entries > summaries, "chunks were shown in the walk's blocks too");
        assertTrue(titleByText.containsValue("<none>"), "one document is untitled");
    }

    /** A traversal handed to remind.memorize with explicit useful chunks: the hand-off of remind.traverse, checked. */
    static Map<String, Object> traversal(String corpus) {
        return rows("CALL remind.traverse($q, $cfg) YIELD traversal, path RETURN traversal, path", Map.of("q", QUESTION, "cfg", cfg(corpus, Map.of()))).get(0);
    }

    static List<Double> embed(String text) {
        @SuppressWarnings("unchecked") List<Double> v = (List<Double>) rows("RETURN rag.embed($t) AS v", Map.of("t", text)).get(0).get("v");
        return v;
    }

    @Test
    void concurrentMemorisationsOfOneEdgeSerialiseAndLoseNothing() throws Exception {
        build("rm3");
        Map<String, Object> t = traversal("rm3");
        @SuppressWarnings("unchecked") Map<String, Object> handoff = (Map<String, Object>) t.get("traversal");
        String q1 = "Where was Ethan Hawke born?", q2 = "Which horror film did Scott Derrickson direct?";
        Map<String, Object> explicit = Map.of("corpus", "rm3", "filter", "explicit", "usefulChunkIds", List.of("rm3:hawke:0"));
        // T9: tx 1 memorises and holds its locks; tx 2 must wait for its commit, then apply on top of it
        String memorize = "CALL remind.memorize($q, $t, $cfg) YIELD enhanced RETURN enhanced";
        java.util.concurrent.CompletableFuture<Throwable> second;
        try (var tx = TestServer.db().beginTx()) {
            tx.execute(memorize, Map.of("q", q1, "t", handoff, "cfg", explicit)).close();
            second = TestServer.inBackground(memorize, Map.of("q", q2, "t", handoff, "cfg", explicit));
            Thread.sleep(700);
            assertFalse(second.isDone(), "the second memorisation waits for the first one's locks");
            tx.commit();
        }
        assertEquals(null, second.get(30, java.util.concurrent.TimeUnit.SECONDS));
        List<Map<String, Object>> edges = rows("MATCH (:RmAnchor {corpus: 'rm3', chunkId: 'rm3:hawke:0'})-[r:RM_HAS_CHUNK]->() RETURN r.memory AS m, r.enhanceCount AS n");
        assertEquals(2L, edges.get(0).get("n"));
        double[] expected = dev.graphrag.remind.MemoryMath.enhance(dev.graphrag.remind.MemoryMath.enhance(null, doubles(embed(q1))), doubles(embed(q2)));
        double[] got = doubles((float[]) edges.get(0).get("m"));
        for (int i = 0; i < got.length; i++) assertEquals(expected[i], got[i], 1e-5, "component " + i + ": both updates, in lock order");

        // at scale: 8 threads x 5 memorisations of the same edges; every one is counted
        rows("CALL remind.memory.reset({corpus: 'rm3'})");
        List<java.util.concurrent.CompletableFuture<Throwable>> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) all.add(TestServer.inBackground(memorize, Map.of("q", i % 2 == 0 ? q1 : q2, "t", handoff, "cfg", explicit)));
        for (var f : all) assertEquals(null, f.get(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(40L, rows("MATCH (:RmAnchor {corpus: 'rm3', chunkId: 'rm3:hawke:0'})-[r:RM_HAS_CHUNK]->() RETURN r.enhanceCount AS n").get(0).get("n"));
        // the closed form keeps the norm below 1; memories are stored as float[], so a saturated one read back may sit a
        // float rounding (~1e-7) above it, and which one depends on the order the 40 threads took the lock
        double norm = ((Number) rows("MATCH (:RmAnchor {corpus: 'rm3', chunkId: 'rm3:hawke:0'})-[r:RM_HAS_CHUNK]->() RETURN r.memoryNorm AS n").get(0).get("n")).doubleValue();
        assertTrue(norm > 0.99 && norm <= 1 + 1e-6, "saturated, never past 1: " + norm);
    }

    @Test
    @SuppressWarnings("unchecked")
    void memorizeWhenSufficientSkipsWalksThatFailed() {
        build("rm5");
        Map<String, Object> handoff = (Map<String, Object>) traversal("rm5").get("traversal");
        assertEquals(true, handoff.get("sufficient"), "the scripted walker finds the answer");
        Map<String, Object> failed = new java.util.HashMap<>(handoff);
        failed.put("sufficient", false);
        String memorize = "CALL remind.memorize($q, $t, $cfg) YIELD memorized, enhanced RETURN memorized, enhanced";
        Map<String, Object> onlySufficient = Map.of("corpus", "rm5", "filter", "explicit", "usefulChunkIds", List.of("rm5:hawke:0"), "memorizeWhen", "sufficient");
        Map<String, Object> r = rows(memorize, Map.of("q", QUESTION, "t", failed, "cfg", onlySufficient)).get(0);
        assertEquals(false, r.get("memorized"));
        assertEquals(0L, rows("MATCH (:RmAnchor {corpus: 'rm5'})-[r:RM_HAS_CHUNK]->() WHERE r.memoryNorm > 0 RETURN count(r) AS n").get(0).get("n"));
        assertEquals(true, rows(memorize, Map.of("q", QUESTION, "t", handoff, "cfg", onlySufficient)).get(0).get("memorized"));
        Map<String, Object> always = new java.util.HashMap<>(onlySufficient);
        always.put("memorizeWhen", "always");
        assertEquals(true, rows(memorize, Map.of("q", QUESTION, "t", failed, "cfg", always)).get(0).get("memorized"), "the paper memorises every walk");
        assertFailsCleanly(memorize, Map.of("q", QUESTION, "t", handoff, "cfg", Map.of("corpus", "rm5", "memorizeWhen", "sometimes")), "memorizeWhen", "[always, sufficient]");
    }

    static double[] doubles(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static double[] doubles(float[] v) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) out[i] = v[i];
        return out;
    }

    @Test
    void badInputFaultsAndAnotherModelLeaveMemoriesAsTheyWere() {
        build("rm4");
        Map<String, Object> ok = cfg("rm4", Map.of());
        assertFailsCleanly("CALL remind.answer('', $cfg)", Map.of("cfg", ok), "query must be a non-empty string");
        assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm4", Map.of("lamda", 0.5))), "unknown config key 'lamda'", "lambda");
        assertFailsCleanly("CALL remind.replay($q, {corpus: 'rm4', lambda: 'high'})", Map.of("q", QUESTION), "lambda");
        assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm4", Map.of("judgeEveryStep", "yes"))), "judgeEveryStep");
        assertFailsCleanly("CALL remind.seeds($q, {corpus: 'nope'})", Map.of("q", QUESTION), "unknown corpus 'nope'");
        assertFailsCleanly("CALL remind.memory.reset({corpus: 'rm4', relTypes: ['KNOWS']})", Map.of(), "relTypes may hold only");
        assertFailsCleanly("CALL remind.memory.stats({corpus: 'rm4', relTypes: 'RM_NEXT'})", Map.of(), "relTypes");
        assertFailsCleanly("CALL remind.index({corpus: 'rm4', synonymThreshold: 1.5})", Map.of(), "synonymThreshold");
        assertFailsCleanly("CALL remind.index({corpus: 'rm4', extractionErrors: 'ignore'})", Map.of(), "extractionErrors", "[fail, skip_unusable, skip]");
        assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm4", Map.of("llmGuided", false))), "unknown config key 'llmGuided'");
        assertFailsCleanly("CALL remind.traverse($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("rm4", Map.of("usefulRelIds", List.of()))),
                "unknown config key 'usefulRelIds'");
        assertFailsCleanly("CALL remind.memorize($q, {}, {corpus: 'rm4', usefulChunkIds: ['x']})", Map.of("q", QUESTION), "belong to filter 'explicit'");
        assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", "x".repeat(10_001), "cfg", ok), "at most 10000");
        // a corpus without a layer, and an index with no LLM anywhere: errors that say what to do, nothing written
        rows("CALL rag.ingest($docs, {corpus: 'rm4bare', chunker: 'sentences'})", Map.of("docs", DOCS.subList(0, 1)));
        assertFailsCleanly("CALL remind.info({corpus: 'rm4bare'})", Map.of(), "has no ReMind layer yet", "remind.index");
        assertFailsCleanly("CALL remind.replay($q, {corpus: 'rm4bare'})", Map.of("q", QUESTION), "has no ReMind layer yet");
        assertFailsCleanly("CALL remind.index({corpus: 'rm4bare'})", Map.of(), "needs an LLM", "graphrag.llm.endpoint");
        assertFailsCleanly("CALL remind.drop({corpus: 'nope'})", Map.of(), "unknown corpus 'nope'");
        // rejected traversal maps: not a map, a relationship of another kind, a path that is not a forest from the seeds
        Map<String, Object> t = traversal("rm4");
        @SuppressWarnings("unchecked") Map<String, Object> handoff = (Map<String, Object>) t.get("traversal");
        Map<String, Object> explicit = Map.of("corpus", "rm4", "filter", "explicit", "usefulChunkIds", List.of("rm4:hawke:0"));
        assertFailsCleanly("CALL remind.memorize($q, 'x', $cfg)", Map.of("q", QUESTION, "cfg", explicit), "traversal must be the MAP");
        @SuppressWarnings("unchecked") List<Map<String, Object>> path = (List<Map<String, Object>>) handoff.get("path");
        assertTrue(path.size() >= 2, handoff.toString());
        Map<String, Object> reordered = new LinkedHashMap<>(handoff);
        List<Map<String, Object>> reversed = new ArrayList<>(path);
        java.util.Collections.reverse(reversed);
        reordered.put("path", reversed);
        assertFailsCleanly("CALL remind.memorize($q, $t, $cfg)", Map.of("q", QUESTION, "t", reordered, "cfg", explicit), "not a forest rooted at the seeds");
        String lexicalRel = (String) rows("MATCH (:Document {corpus: 'rm4'})-[r:HAS_CHUNK]->() RETURN elementId(r) AS id LIMIT 1").get(0).get("id");
        Map<String, Object> foreign = new LinkedHashMap<>(handoff);
        Map<String, Object> bad = new LinkedHashMap<>(path.get(0));
        bad.put("relId", lexicalRel);
        foreign.put("path", List.of(bad));
        assertFailsCleanly("CALL remind.memorize($q, $t, $cfg)", Map.of("q", QUESTION, "t", foreign, "cfg", explicit), "not a ReMind edge");
        Map<String, Object> extra = new LinkedHashMap<>(handoff);
        extra.put("sneaky", 1);
        assertFailsCleanly("CALL remind.memorize($q, $t, $cfg)", Map.of("q", QUESTION, "t", extra, "cfg", explicit), "unknown config key 'sneaky'");
        // an LLM fault mid-walk: an error naming the step, and no memory written
        try (EvalLlmServer broken = RemindExtractionPolicies.register(EvalLlmServer.start())) {
            broken.on("remind sufficiency", r -> json(Map.of("sufficient", false)));
            broken.on("remind next node", r -> { throw new IllegalStateException("scripted fault"); });
            Map<String, Object> c = new HashMap<>(ok);
            c.put("llm", broken.llmConfig());
            assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", c), "remind next node");
        }
        // another model's layer: the stored probe no longer matches the server's embedder
        rows("MATCH (m:RmMeta {corpus: 'rm4'}) SET m.modelProbe = [x IN m.modelProbe | -x]");
        assertFailsCleanly("CALL remind.replay($q, {corpus: 'rm4'})", Map.of("q", QUESTION), "was built with embedding model", "remind.drop");
        assertFailsCleanly("CALL remind.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", ok), "was built with embedding model");
        // drop removes the layer and keeps the chunks
        Map<String, Object> dropped = rows("CALL remind.drop({corpus: 'rm4'})").get(0);
        assertTrue((Long) dropped.get("nodesDeleted") > 5, dropped.toString());
        assertEquals(0, count("MATCH (n {corpus: 'rm4'}) WHERE n:RmEntity OR n:RmAnchor OR n:RmMeta RETURN count(n)", Map.of()));
        assertEquals(5, count("MATCH (c:Chunk {corpus: 'rm4'}) WHERE c.remindExtraction IS NULL RETURN count(c)", Map.of()));
    }

    @Test
    void functionsAndCalibration() {
        Map<String, Object> f = rows("RETURN remind.delta(0.0) AS d0, remind.enhance(null, [3.0, 4.0]) AS e, remind.penalize([0.8, 0.0], [1.0, 1.0]) AS p,"
                + " remind.penalize([0.8, 0.0], [1.0, 1.0], 'none') AS n, remind.maxMemorizableAngle(0.55) AS a,"
                + " remind.edgeWeight([0.6, 0.8, 0.0], [0.6, 0.0, 0.8], [0.9, 0.0, 0.0], [1.0, 0.0, 0.0]) AS w").get(0);
        assertEquals(0.636620, (Double) f.get("d0"), 1e-6);
        assertEquals(List.of(0.381972, 0.509296), ((List<?>) f.get("e")).stream().map(x -> Math.round((Double) x * 1e6) / 1e6).toList());
        assertEquals(0.639440, (Double) ((List<?>) f.get("p")).get(0), 1e-6);
        assertEquals(List.of(0.8, 0.0), f.get("n"));
        assertEquals(72.392, (Double) f.get("a"), 1e-3);
        assertEquals(0.846, (Double) f.get("w"), 1e-6, "the hand-worked T3's S-Z weight");
        assertFailsCleanly("RETURN remind.penalize([1.0], [1.0], 'soft')", Map.of(), "mode must be one of");
        assertFailsCleanly("RETURN remind.enhance([1.0, 0.0], [0.0, 0.0])", Map.of(), "query must not be the zero vector");
        assertFailsCleanly("RETURN remind.enhance([1.0, 0.0, 0.0], [1.0, 0.0])", Map.of(), "dimensions");
        assertFailsCleanly("RETURN remind.edgeWeight([1.0, 0.0], [1.0], null, [1.0, 0.0])", Map.of(), "differ in dimension");
        assertFailsCleanly("RETURN remind.maxMemorizableAngle(1.5)", Map.of(), "lambda must be in [0, 1]");
        // a null or NaN argument is named, not a ClassCastException from Neo4j's own argument conversion (found by HostileInputTest)
        assertFailsCleanly("RETURN remind.maxMemorizableAngle(null)", Map.of(), "remind.maxMemorizableAngle: lambda must be a finite number, got null");
        assertFailsCleanly("RETURN remind.delta($x)", java.util.Collections.singletonMap("x", null), "remind.delta: norm must be a finite number, got null");
        assertFailsCleanly("RETURN remind.delta(0.0 / 0.0)", Map.of(), "remind.delta: norm must be a finite number, got NaN");
        assertFailsCleanly("CALL remind.calibrate({paraphrases: [['a']]})", Map.of(), "pair");
        Map<String, Object> c = rows("CALL remind.calibrate()").get(0);
        System.out.println("calibrate: " + c);
        @SuppressWarnings("unchecked") Map<String, Object> unrelated = (Map<String, Object>) c.get("unrelated");
        @SuppressWarnings("unchecked") Map<String, Object> paraphrases = (Map<String, Object>) c.get("paraphrases");
        assertEquals(435L, c.get("unrelatedPairs"));
        assertTrue((Double) paraphrases.get("p50") > (Double) unrelated.get("p90"), "paraphrases are closer than unrelated questions: " + c);
        assertEquals(9, ((List<?>) c.get("window")).size());
        assertFailsCleanly("CALL remind.calibrate({questions: ['a', 'b']})", Map.of(), "at least 5 questions");
    }
}
