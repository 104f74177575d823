package dev.graphrag.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hgmem.* end to end on the shared server: the base graph from rule-extracted replies (one chunk answered in the
 * paper's delimiter records), the paper's Xodar case through the whole loop (insert with an absent vertex, a local
 * investigation, update, merge, the cited answer), the memory as nodes, failures that write nothing and resume,
 * two concurrent steps on one session, and bad input.
 */
class HgmemProceduresTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String QUESTION = "Why is Xodar given to Carter as a slave?";
    static final List<String> NAMES = List.of("Xodar", "Issus", "John Carter", "Tars Tarkas", "First Born");
    static final List<Map<String, Object>> DOCS = List.of(
            Map.of("id", "xodar", "text", "Xodar is a Dator of the First Born. John Carter defeated Xodar in the pits. Issus degraded Xodar to a slave of slaves."),
            Map.of("id", "issus", "text", "Issus is the goddess of the First Born. Issus punished Xodar for his defeat."),
            Map.of("id", "tars", "text", "Tars Tarkas leads the Thark horde. John Carter fought beside Tars Tarkas."));
    static final AtomicBoolean BROKEN_EVOLVE = new AtomicBoolean();
    static EvalLlmServer llm;

    static JsonNode block(dev.graphrag.oracle.PolicyRequest r) {
        return RemindExtractionPolicies.block(r);
    }

    static PolicyReply json(Object m) {
        return PolicyReply.jsonOf(m);
    }

    /** X1 by rule: the known names a chunk mentions, each pair sharing a sentence related (strength 2); the Tars chunk answers in delimiter records. */
    static PolicyReply extract(dev.graphrag.oracle.PolicyRequest r) {
        String text = block(r).path("text").asText();
        if (text.contains("Tars Tarkas")) {
            return PolicyReply.text("(\"entity\"<|>\"Tars Tarkas\"<|>\"person\"<|>\"Tars Tarkas leads the Thark horde.\")##\n"
                    + "(\"entity\"<|>\"John Carter\"<|>\"person\"<|>\"John Carter fought beside Tars Tarkas.\")##\n"
                    + "(\"relationship\"<|>\"Tars Tarkas\"<|>\"Thark horde\"<|>\"Tars Tarkas leads the Thark horde.\"<|>\"leadership\"<|>3)##\n"
                    + "(\"relationship\"<|>\"John Carter\"<|>\"Tars Tarkas\"<|>\"They fought side by side.\"<|>\"alliance\"<|>4)##\n"
                    + "(\"content_keywords\"<|>\"war, alliance\")<|COMPLETE|>");
        }
        List<Map<String, Object>> entities = new ArrayList<>(), rels = new ArrayList<>();
        for (String sentence : text.split("(?<=\\.)\\s+")) {
            List<String> here = NAMES.stream().filter(sentence::contains).toList();
            for (String n : here) entities.add(Map.of("name", n, "type", n.equals("First Born") ? "organization" : "person", "description", sentence));
            for (int i = 0; i < here.size(); i++) {
                for (int j = i + 1; j < here.size(); j++) {
                    rels.add(Map.of("source", here.get(i), "target", here.get(j), "description", sentence, "keywords", "together", "strength", 2));
                }
            }
        }
        return json(Map.of("entities", entities, "relationships", rels, "contentKeywords", List.of("mars")));
    }

    /** The paper's Xodar case (seed Table 6) as a script that reads the prompts' input blocks. */
    static void registerLoop(EvalLlmServer s) {
        s.on("hgmem extract", HgmemProceduresTest::extract);
        s.on("hgmem evolve", r -> {
            if (BROKEN_EVOLVE.get()) throw new IllegalStateException("the evolve policy is down"); // an HTTP 500: an endpoint fault, not the model's content
            JsonNode b = block(r);
            if (b.path("currentSubqueries").size() == 0 && b.path("memory").size() == 0) {
                return json(Map.of("inserted", List.of(
                        Map.of("entities", List.of("Xodar", "Issus", "Degradation"), "description", "Issus degrades Xodar to a slave of slaves."),
                        Map.of("entities", List.of("xodar", " John Carter "), "description", "Carter defeated Xodar.")), "updated", List.of()));
            }
            if (b.path("currentSubqueries").size() > 0 && b.path("memory").size() > 0) {
                return json(Map.of("inserted", List.of(), "updated", List.of(Map.of("index", 1, "entities", List.of("XODAR", "JOHN CARTER"),
                        "description", "Carter defeated Xodar in the pits, and Issus punished Xodar for that defeat."))));
            }
            return json(Map.of("inserted", List.of(), "updated", List.of()));
        });
        s.on("hgmem describe absent", r -> {
            JsonNode b = block(r);
            List<Map<String, Object>> ents = new ArrayList<>(), rels = new ArrayList<>();
            b.path("entities").forEach(e -> ents.add(Map.of("name", e.asText(), "type", "event", "description", "Issus reduced Xodar to a slave of slaves.")));
            b.path("pairs").forEach(p -> rels.add(Map.of("source", p.get(0).asText(), "target", p.get(1).asText(), "description", "part of the degradation",
                    "keywords", "punishment")));
            return json(Map.of("entities", ents, "relationships", rels));
        });
        s.on("hgmem merge", r -> json(Map.of("merges", block(r).path("memory").size() >= 2
                ? List.of(Map.of("indices", List.of(0, 1), "description", "Xodar, defeated by Carter, is degraded by Issus to a slave and given to Carter."))
                : List.of())));
        s.on("hgmem plan", r -> {
            JsonNode b = block(r);
            for (JsonNode m : b.path("memory")) if (m.path("description").asText().contains("given to Carter")) return json(Map.of("judgement", "1", "concerns", List.of()));
            int carter = -1;
            for (JsonNode m : b.path("memory")) for (JsonNode e : m.path("entities")) if (e.asText().equals("JOHN CARTER")) carter = m.path("index").asInt();
            if (carter >= 0 && b.path("allowedJudgements").toString().contains("2.1")) {
                return json(Map.of("judgement", "2.1", "concerns", List.of(Map.of("concern", "what Carter's victory cost Xodar", "memoryPointIndices", List.of(carter)))));
            }
            return json(Map.of("judgement", "2.2", "concerns", List.of(Map.of("concern", "who Xodar serves"))));
        });
        s.on("hgmem subqueries", r -> {
            List<String> subs = new ArrayList<>();
            block(r).path("concerns").forEach(c -> subs.add("What happened after John Carter defeated Xodar?"));
            return json(Map.of("subqueries", subs));
        });
        s.on("hgmem answer", r -> {
            List<String> cited = new ArrayList<>();
            for (JsonNode c : block(r).path("sources")) if (c.path("content").asText().contains("degraded Xodar")) cited.add(c.path("id").asText());
            cited.add("made-up:chunk:9"); // never shown: must be dropped, not passed on
            return json(Map.of("answer", "Issus degraded Xodar after Carter defeated him.", "citedSources", cited));
        });
    }

    @BeforeAll
    static void start() {
        llm = EvalLlmServer.start();
        registerLoop(llm);
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> cfg(String corpus, Map<String, Object> extra) {
        return llm.config(corpus, extra);
    }

    static Map<String, Object> build(String corpus) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunkSize: 200, chunkOverlap: 50})", Map.of("docs", DOCS, "c", corpus));
        return rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg(corpus, Map.of()))).get(0);
    }

    /** The sources (title and content) of the logged E1 requests. */
    static List<String> e1Sources() {
        List<String> out = new ArrayList<>();
        for (EvalLlmServer.LoggedRequest x : llm.log()) {
            if (!x.step().equals("hgmem evolve")) continue;
            for (JsonNode src : RemindExtractionPolicies.block(new dev.graphrag.oracle.PolicyRequest(x.step(), x.body())).path("retrieved").path("sources")) {
                out.add(src.path("title").asText("") + "\n" + src.path("content").asText());
            }
        }
        return out;
    }

    static Map<String, Integer> read(String json) {
        try {
            return new ObjectMapper().readValue(json, new com.fasterxml.jackson.core.type.TypeReference<Map<String, Integer>>() {});
        } catch (java.io.IOException e) {
            throw new AssertionError(json, e);
        }
    }

    static List<String> steps() {
        return llm.log().stream().map(EvalLlmServer.LoggedRequest::step).toList();
    }

    @Test
    void baseGraphMergesPerNameSumsWeightsReadsDelimiterRecordsAndResumes() {
        llm.clearLog();
        Map<String, Object> s = build("hg1");
        System.out.println("hgmem.index: " + s);
        assertEquals(3L, s.get("chunks"));
        assertEquals(3L, s.get("llmCalls"), "one X1 call per chunk");
        assertEquals((long) llm.log().size(), s.get("llmCalls"));
        // one entity per (corpus, name), upper-cased; THARK HORDE only ever a relation endpoint: type UNKNOWN
        assertEquals(List.of("FIRST BORN", "ISSUS", "JOHN CARTER", "TARS TARKAS", "THARK HORDE", "XODAR"),
                rows("MATCH (e:HgEntity {corpus: 'hg1'}) RETURN e.name AS n ORDER BY n").stream().map(r -> r.get("n")).toList());
        assertEquals("UNKNOWN", rows("MATCH (e:HgEntity {corpus: 'hg1', name: 'THARK HORDE'}) RETURN e.type AS t").get(0).get("t"));
        assertEquals("organization", rows("MATCH (e:HgEntity {corpus: 'hg1', name: 'FIRST BORN'}) RETURN e.type AS t").get(0).get("t"));
        // ISSUS-XODAR co-occur in one sentence of each of two chunks: strengths 2 + 2, both chunks listed, descriptions joined sorted
        Map<String, Object> rel = rows("MATCH (a:HgEntity {corpus: 'hg1', name: 'ISSUS'})-[r:HG_RELATED]-(b:HgEntity {name: 'XODAR'})"
                + " RETURN r.weight AS w, r.chunkIds AS c, r.description AS d, startNode(r).name AS from").get(0);
        assertEquals(4.0, rel.get("w"));
        assertEquals(List.of("hg1:issus:0", "hg1:xodar:0"), java.util.Arrays.asList((String[]) rel.get("c")));
        assertEquals("ISSUS", rel.get("from"), "stored once per pair, from the smaller name");
        assertEquals("Issus degraded Xodar to a slave of slaves.<SEP>Issus punished Xodar for his defeat.", rel.get("d"));
        assertEquals(2, count("MATCH (c:Chunk {corpus: 'hg1'})-[:HG_MENTIONS]->(:HgEntity {name: 'XODAR'}) RETURN count(c)", Map.of()));
        assertEquals(0, count("MATCH (e:HgEntity {corpus: 'hg1'}) WHERE e.embedding IS NULL RETURN count(e)", Map.of()));
        assertEquals(0, count("MATCH (:HgEntity {corpus: 'hg1'})-[r:HG_RELATED]->() WHERE r.embedding IS NULL RETURN count(r)", Map.of()));
        // the delimiter records were read: weight 4 for the alliance, keywords kept
        assertEquals("alliance", rows("MATCH (:HgEntity {corpus: 'hg1', name: 'JOHN CARTER'})-[r:HG_RELATED]-(:HgEntity {name: 'TARS TARKAS'}) RETURN r.keywords AS k")
                .get(0).get("k").toString().split("<SEP>")[0]);

        // a re-run asks nothing and changes nothing; a new document costs one call
        List<Object> before = TestServer.fingerprint(Set.of("version", "indexedAt", "buildStartedAt", "versionSeq"));
        llm.clearLog();
        Map<String, Object> again = rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg("hg1", Map.of()))).get(0);
        assertEquals(0L, again.get("llmCalls"));
        assertEquals(3L, again.get("reusedExtractions"));
        assertEquals(before, TestServer.fingerprint(Set.of("version", "indexedAt", "buildStartedAt", "versionSeq")));
        rows("CALL rag.ingest([{id: 'sola', text: 'Sola is a Thark. Sola cared for John Carter.'}], {corpus: 'hg1', chunkSize: 200, chunkOverlap: 50})");
        Map<String, Object> info = rows("CALL hgmem.info({corpus: 'hg1'})").get(0);
        assertEquals(true, info.get("chunksChanged"));
        assertEquals(1L, rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg("hg1", Map.of()))).get(0).get("extracted"));
        assertEquals(false, rows("CALL hgmem.info({corpus: 'hg1'})").get(0).get("chunksChanged"));
        assertEquals(384L, info.get("embeddingDimensions"));
    }

    @Test
    void theXodarCaseRunsTheWholeLoopWithAnAbsentVertexALocalStepAMergeAndACitedAnswer() {
        build("hg2");
        llm.clearLog();
        List<Map<String, Object>> out = rows("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg2", Map.of("returnTrace", true))));
        out.forEach(r -> System.out.println("hgmem.answer row: " + r));
        assertEquals(List.of("step", "step", "answer"), out.stream().map(r -> r.get("kind")).toList());
        assertEquals(List.of("hgmem evolve", "hgmem describe absent", "hgmem plan", "hgmem subqueries", "hgmem evolve", "hgmem merge", "hgmem plan",
                "hgmem answer"), steps(), "E1, E2, E4, E5 | E1, E3, E4 | E6");
        Map<String, Object> s0 = out.get(0), s1 = out.get(1), ans = out.get(2);
        // the extended-info hint E4 reads: graph neighbours of memory's entities, outside memory, rendered as the code does
        JsonNode plan0 = RemindExtractionPolicies.block(new dev.graphrag.oracle.PolicyRequest("hgmem plan",
                llm.log().stream().filter(x -> x.step().equals("hgmem plan")).findFirst().orElseThrow().body()));
        String hint = plan0.path("extendedInfo").asText();
        assertTrue(hint.contains("****TARS TARKAS****\nEntity_Type: person\nDescription: "), hint);
        assertFalse(hint.contains("****XODAR****"), "memory's own entities are not hinted: " + hint);
        assertEquals(0.0, llm.log().get(0).body().path("temperature").asDouble(), "deterministic by default");
        assertEquals("global", s0.get("mode"));
        assertEquals(List.of(QUESTION), s0.get("subqueries"));
        assertEquals("2.1", s0.get("judgement"));
        assertEquals("local", s1.get("mode"), "the concern targets the point holding JOHN CARTER");
        assertEquals(List.of("What happened after John Carter defeated Xodar?"), s1.get("subqueries"));
        Map<?, ?> trace1 = (Map<?, ?>) ((List<?>) s1.get("trace")).get(0);
        assertEquals("local", trace1.get("mode"));
        assertTrue((Long) trace1.get("candidates") >= 2, "candidate-set size reported: " + trace1);
        assertEquals("1", s1.get("judgement"));
        assertEquals(1L, s1.get("units"), "the two points merged into one");
        assertEquals(4.0, (Double) s1.get("avgVerticesPerUnit"), 1e-9);

        assertEquals("Issus degraded Xodar after Carter defeated him.", ans.get("answer"));
        assertEquals(List.of("hg2:xodar:0"), ans.get("citedChunks"), "the invented citation is dropped");
        assertTrue(((List<?>) ans.get("chunks")).contains("hg2:xodar:0"));
        assertEquals((long) llm.log().size(), ans.get("llmCalls"), "the answer row counts the whole loop");
        assertEquals(4.0, (Double) ans.get("avgVerticesPerUnit"), 1e-9);
        String sid = (String) ans.get("sessionId");

        // memory as nodes: one active unit over four entities in union order, its two sources merged into it
        List<Map<String, Object>> mem = rows("CALL hgmem.memory($s) YIELD index, entities, origin, mergedFrom, members RETURN *", Map.of("s", sid));
        assertEquals(1, mem.size());
        assertEquals(List.of("XODAR", "ISSUS", "DEGRADATION", "JOHN CARTER"), mem.get(0).get("entities"));
        assertEquals("merge", mem.get(0).get("origin"));
        assertEquals(2, ((List<?>) mem.get(0).get("mergedFrom")).size());
        assertEquals(3, rows("CALL hgmem.memory($s, {includeInactive: true})", Map.of("s", sid)).size());
        assertEquals(2, count("MATCH (:HgUnit {sessionId: $s, status: 'merged'})-[:HG_MERGED_INTO]->(:HgUnit {status: 'active'}) RETURN count(*)", Map.of("s", sid)));
        assertEquals("- Point (0)\nInvolved Objects: XODAR, ISSUS, DEGRADATION, JOHN CARTER\n"
                + "Description: Xodar, defeated by Carter, is degraded by Issus to a slave and given to Carter.\n",
                rows("CALL hgmem.memory.render($s)", Map.of("s", sid)).get(0).get("text"));
        Map<String, Object> stats = rows("CALL hgmem.stats($s)", Map.of("s", sid)).get(0);
        assertEquals("answered", stats.get("status"));
        assertEquals(4L, stats.get("memberships"));
        assertEquals(2L, stats.get("mergedUnits"));
        assertEquals(2L, stats.get("steps"));
        assertEquals(ans.get("llmCalls"), stats.get("llmCalls"));
        assertEquals(2, count("MATCH (:HgSession {id: $s})-[:HG_HAS_STEP]->(t:HgStep) RETURN count(t)", Map.of("s", sid)));

        // the absent vertex: one provisional entity, related to the other members of its unit, embedded so later steps find it
        Map<String, Object> deg = rows("MATCH (e:HgEntity {corpus: 'hg2', name: 'DEGRADATION'}) RETURN e.provisional AS p, e.createdBySession AS s, e.type AS t,"
                + " e.embedding IS NOT NULL AS v, COUNT { (e)-[:HG_RELATED {provisional: true}]-() } AS r").get(0);
        assertEquals(Map.of("p", true, "s", sid, "t", "event", "v", true, "r", 2L), deg);
        assertEquals(sid, rows("CALL hgmem.session.list({corpus: 'hg2'})").get(0).get("sessionId"));

        // dry-run retrieval around the merged point, same anchors as a step would use
        List<Map<String, Object>> dry = rows("CALL hgmem.retrieve($s, 'Who defeated Xodar?', {mode: 'local', targets: [0]})", Map.of("s", sid));
        assertTrue(dry.stream().allMatch(r -> "local".equals(r.get("mode"))));
        assertTrue(dry.stream().anyMatch(r -> "entity".equals(r.get("kind"))), dry.toString());

        // dropping the session (with its provisional entities) leaves the base graph as indexing made it
        Map<String, Object> dropped = rows("CALL hgmem.session.drop($s, {dropProvisional: true})", Map.of("s", sid)).get(0);
        assertEquals(3L, dropped.get("unitsDeleted"));
        assertEquals(1L, dropped.get("entitiesDeleted"));
        assertEquals(0, count("MATCH (e:HgEntity {corpus: 'hg2'}) WHERE e.provisional RETURN count(e)", Map.of()));
        assertEquals(0, count("MATCH (n) WHERE (n:HgUnit OR n:HgStep OR n:HgSession) AND n.corpus = 'hg2' RETURN count(n)", Map.of()));
    }

    @Test
    void aFailedStepWritesNothingMarksTheSessionFailedAndResumes() {
        build("hg3");
        BROKEN_EVOLVE.set(true);
        String error;
        try {
            error = TestServer.assertFails("CALL hgmem.evolve('s-fail', $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg3", Map.of())), "step 0", "s-fail",
                    "marked failed", "hgmem evolve");
        } finally {
            BROKEN_EVOLVE.set(false);
        }
        System.out.println("failed step: " + error);
        Map<String, Object> listed = rows("CALL hgmem.session.list({corpus: 'hg3'})").get(0);
        assertEquals("failed", listed.get("status"));
        assertEquals(0L, listed.get("step"));
        assertTrue(((String) listed.get("error")).contains("HTTP 500"), listed.toString());
        assertEquals(0, count("MATCH (u:HgUnit {sessionId: 's-fail'}) RETURN count(u)", Map.of()), "nothing of the step");
        assertEquals(0, count("MATCH (e:HgEntity {corpus: 'hg3'}) WHERE e.provisional RETURN count(e)", Map.of()));

        // resumed at step 0 with the same question; the LLM works again
        llm.clearLog();
        Map<String, Object> r = rows("CALL hgmem.evolve('s-fail', null, $cfg)", Map.of("cfg", cfg("hg3", Map.of()))).get(0);
        assertEquals(0L, r.get("step"));
        assertEquals(2L, r.get("inserted"));
        assertEquals(List.of("hgmem evolve", "hgmem describe absent", "hgmem plan", "hgmem subqueries"), steps());
        assertEquals("active", rows("CALL hgmem.session.list({corpus: 'hg3'})").get(0).get("status"));
        // the session records what E1 read and when memory's vertices arrived, so the next call (any member) knows what was shown
        List<String> readAtStep0 = e1Sources();
        Map<String, Object> record = rows("MATCH (s:HgSession {id: 's-fail'}) RETURN s.readAt AS readAt, s.vertexSince AS since").get(0);
        Map<String, Integer> readAt = read((String) record.get("readAt")), since = read((String) record.get("since"));
        assertEquals(readAtStep0.size(), readAt.size(), "every source E1 read at step 0: " + readAt);
        assertTrue(readAt.values().stream().allMatch(v -> v == 0) && !since.isEmpty() && since.values().stream().allMatch(v -> v == 0), record.toString());
        // a step that fails after a committed one keeps that one
        BROKEN_EVOLVE.set(true);
        try {
            TestServer.assertFails("CALL hgmem.evolve('s-fail', null, $cfg)", Map.of("cfg", cfg("hg3", Map.of())), "step 1");
        } finally {
            BROKEN_EVOLVE.set(false);
        }
        assertEquals(2, count("MATCH (u:HgUnit {sessionId: 's-fail', status: 'active'}) RETURN count(u)", Map.of()));
        llm.clearLog();
        Map<String, Object> r1 = rows("CALL hgmem.evolve('s-fail', null, $cfg)", Map.of("cfg", cfg("hg3", Map.of()))).get(0);
        assertEquals(1L, r1.get("step"));
        for (String again : e1Sources()) {
            if (!readAtStep0.contains(again)) continue;
            String text = again.toLowerCase(Locale.ROOT);
            assertTrue(since.keySet().stream().anyMatch(v -> text.contains(v.toLowerCase(Locale.ROOT))),
                    "a source step 0 showed is read again only when it names a memory vertex that arrived since: " + again);
        }
        assertEquals(true, r1.get("done"));
        assertFailsCleanly("CALL hgmem.evolve('s-fail', null, $cfg)", Map.of("cfg", cfg("hg3", Map.of())), "is done", "force");
    }

    @Test
    void twoConcurrentStepsOnOneSessionBothCommitInTurn() throws Exception {
        build("hg4");
        rows("CALL hgmem.evolve('s-conc', $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg4", Map.of("enableMerge", false))));
        Map<String, Object> cfg = cfg("hg4", Map.of("subqueries", List.of("Who is Issus?"), "force", true));
        CompletableFuture<Throwable> a = TestServer.inBackground("CALL hgmem.evolve('s-conc', null, $cfg)", Map.of("cfg", cfg));
        CompletableFuture<Throwable> b = TestServer.inBackground("CALL hgmem.evolve('s-conc', null, $cfg)", Map.of("cfg", cfg));
        assertNull(a.get(), "first concurrent step");
        assertNull(b.get(), "second concurrent step");
        assertEquals(List.of(0L, 1L, 2L), rows("MATCH (:HgSession {id: 's-conc'})-[:HG_HAS_STEP]->(t:HgStep) RETURN t.t AS t ORDER BY t")
                .stream().map(r -> r.get("t")).toList(), "each step ran on the state the other committed");
        assertEquals(3L, rows("CALL hgmem.stats('s-conc')").get(0).get("steps"));
    }

    @Test
    void badInputWritesNothingAndNoSecretIsStored() {
        build("hg5");
        long before = TestServer.lastCommittedTransaction();
        Map<String, Object> ok = cfg("hg5", Map.of());
        assertFailsCleanly("CALL hgmem.evolve(null, null, $cfg)", Map.of("cfg", ok), "query is needed");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("maxTurn", 2))), "unknown config key 'maxTurn'", "maxTurns");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("rereadSources", "no"))), "rereadSources");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("hintDescriptionTokens", 5L))), "hintDescriptionTokens");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("retrievalStrategy", "sideways"))), "retrievalStrategy");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("absentEntityPolicy", 3))), "absentEntityPolicy");
        assertFailsCleanly("CALL hgmem.evolve('bad id!', $q, $cfg)", Map.of("q", QUESTION, "cfg", ok), "sessionId");
        assertFailsCleanly("CALL hgmem.evolve(null, '', $cfg)", Map.of("cfg", ok), "query must not be empty");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("nocorpus", Map.of())), "nocorpus");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("subqueries", List.of("a"), "targets", List.of(List.of(4))))),
                "memory point 4", "0 points");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("keepSession", true))), "unknown config key 'keepSession'");
        assertFailsCleanly("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("force", true))), "unknown config key 'force'");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("force", "yes"))), "'force'", "BOOLEAN");
        assertFailsCleanly("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("keepSession", 1))), "'keepSession'", "BOOLEAN");
        assertFailsCleanly("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("emptyMemoryChunks", -1))), "'emptyMemoryChunks'");
        assertFailsCleanly("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg5", Map.of("subqueries", "one"))), "'subqueries'");
        assertFailsCleanly("CALL hgmem.retrieve(null, 'x', {corpus: 'hg5', mode: 'local'})", Map.of(), "needs targets");
        assertFailsCleanly("CALL hgmem.retrieve(null, 'x', {corpus: 'hg5', mode: 'sideways'})", Map.of(), "mode");
        assertFailsCleanly("CALL hgmem.memory('nope')", Map.of(), "no HGMem session 'nope'");
        assertFailsCleanly("CALL hgmem.respond('nope', $cfg)", Map.of("cfg", Map.of("llm", llm.llmConfig())), "no HGMem session 'nope'");
        assertFailsCleanly("CALL hgmem.session.drop('nope')", Map.of(), "no HGMem session 'nope'");
        assertFailsCleanly("CALL hgmem.index({corpus: 'hg5', entityTypes: []})", Map.of(), "entityTypes");
        assertFailsCleanly("CALL hgmem.info({corpus: 'hg5x'})", Map.of(), "hg5x");
        assertEquals(before, TestServer.lastCommittedTransaction(), "no bad call wrote anything");

        // a per-call API key reaches the endpoint but never the graph
        String secret = "sk-hgmem-secret-0123456789";
        Map<String, Object> keyed = new LinkedHashMap<>(llm.llmConfig());
        keyed.put("apiKey", secret);
        Map<String, Object> c = cfg("hg5", Map.of("maxTurns", 0));
        c.put("llm", keyed);
        rows("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", c));
        assertEquals(0L, TestServer.entitiesHolding(secret), "the key is stored nowhere");
        assertEquals(0, count("MATCH (s:HgSession {corpus: 'hg5'}) WHERE s.config CONTAINS 'apiKey' OR s.config CONTAINS 'llm' RETURN count(s)", Map.of()));

        // localOnly with an empty memory explores globally; dry-run retrieval with no session works on an empty memory
        List<Map<String, Object>> g = rows("CALL hgmem.retrieve(null, 'Who is Issus?', {corpus: 'hg5'})");
        assertTrue(g.stream().anyMatch(r -> "ISSUS".equals(r.get("id"))), g.toString());
        assertTrue(g.stream().allMatch(r -> "global".equals(r.get("mode"))));
        assertEquals(Set.of("global"), Set.copyOf(g.stream().map(r -> (String) r.get("mode")).toList()));
        assertEquals("hg5".toUpperCase(Locale.ROOT), "HG5");
    }

    @Test
    void aSessionKeepsTheKeysItWasStartedWithAcrossUsesThatDoNotReadThem() {
        build("hg8");
        rows("CALL hgmem.answer($q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg8", Map.of("sessionId", "keep-cfg", "maxTurns", 0, "finalMaxChunks", 1))));
        rows("CALL hgmem.evolve('keep-cfg', null, $cfg)", Map.of("cfg", cfg("hg8", Map.of("force", true, "subqueries", List.of("Who is Issus?")))));
        Map<String, Object> r = rows("CALL hgmem.respond('keep-cfg', $cfg)", Map.of("cfg", Map.of("llm", llm.llmConfig()))).get(0);
        assertTrue(((List<?>) r.get("chunks")).size() <= 1, "finalMaxChunks 1, stored by hgmem.answer, survives a step by hgmem.evolve: " + r);
    }

    @Test
    void thePaperProfileSamplesAsThePaperDid() {
        build("hg7");
        llm.clearLog();
        rows("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg7", Map.of("profile", "paper", "maxTurns", 0))));
        JsonNode body = llm.log().get(0).body();
        assertEquals(0.8, body.path("temperature").asDouble());
        assertEquals(2048, body.path("max_tokens").asInt());
    }

    @Test
    void anUnusableSummaryKeepsTheDescriptionsThatFitAndTheNextRunSummarisesAgain() {
        AtomicBoolean prose = new AtomicBoolean(true);
        llm.on("hgmem summarise", r -> prose.get() ? PolicyReply.text("I'm sorry, I can't summarise that.")
                : json(Map.of("summary", "In short: " + block(r).path("name").asText() + ".")));
        rows("CALL rag.ingest([{id: 'pits', text: $t}], {corpus: 'hg-weak', chunkSize: 200, chunkOverlap: 50})", Map.of("t",
                "Issus sent Xodar to the pits of Omean. Issus watched Xodar toil in the pits. Issus kept Xodar in golden chains."
                        + " Issus called Xodar a coward before the court. Issus gave Xodar no food for days. Issus let Xodar fight the green men."));
        Map<String, Object> cfg = cfg("hg-weak", Map.of("summaryMaxTokens", 50L));
        Map<String, Object> built = rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg)).get(0);
        assertEquals("ready", rows("CALL hgmem.info({corpus: 'hg-weak'})").get(0).get("state"), "the build finishes");
        @SuppressWarnings("unchecked")
        Map<String, Object> x2 = (Map<String, Object>) ((Map<String, Object>) built.get("tokensByStep")).get("hgmem summarise");
        assertEquals(3L, x2.get("unusable"), "ISSUS, XODAR and their relation: " + x2);
        assertEquals(Map.of("descriptions kept up to summaryMaxTokens, summarised next run", 3L), x2.get("fallbacks"));
        for (Object d : rows("MATCH (e:HgEntity {corpus: 'hg-weak'}) RETURN e.description AS d").stream().map(r -> r.get("d")).toList()) {
            assertFalse(((String) d).startsWith("In short"), "the described text, not a summary: " + d);
        }
        prose.set(false);
        llm.clearLog();
        rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg));
        assertEquals(List.of("hgmem summarise", "hgmem summarise", "hgmem summarise"), steps(), "summarised again, nothing else asked");
        assertEquals(List.of("In short: ISSUS.", "In short: XODAR."),
                rows("MATCH (e:HgEntity {corpus: 'hg-weak'}) RETURN e.description AS d ORDER BY d").stream().map(r -> r.get("d")).toList());
    }

    @Test
    void aBuildStoppedWhileWritingKeepsTheEntitiesItWroteAndTheNextRunReusesTheirSummaries() {
        // six sentences naming Issus and Xodar: both entities and their relation reach summaryMaxTokens and need X2;
        // X2 fails for the relation (its name is the pair), after the entities were described, embedded and written
        AtomicBoolean pairFails = new AtomicBoolean(true);
        llm.on("hgmem summarise", r -> {
            String name = block(r).path("name").asText();
            if (pairFails.get() && name.contains(" -- ")) throw new IllegalStateException("the summariser is down"); // HTTP 500: the endpoint, not the content
            return json(Map.of("summary", "In short: " + name + "."));
        });
        rows("CALL rag.ingest([{id: 'pits', text: $t}], {corpus: 'hg-stop', chunkSize: 200, chunkOverlap: 50})", Map.of("t",
                "Issus sent Xodar to the pits of Omean. Issus watched Xodar toil in the pits. Issus kept Xodar in golden chains."
                        + " Issus called Xodar a coward before the court. Issus gave Xodar no food for days. Issus let Xodar fight the green men."));
        Map<String, Object> cfg = cfg("hg-stop", Map.of("summaryMaxTokens", 50L));
        TestServer.assertFails("CALL hgmem.index($cfg)", Map.of("cfg", cfg), "hgmem.index");
        assertEquals("building", rows("CALL hgmem.info({corpus: 'hg-stop'})").get(0).get("state"));
        assertEquals(List.of("In short: ISSUS.", "In short: XODAR."),
                rows("MATCH (e:HgEntity {corpus: 'hg-stop'}) WHERE e.embedding IS NOT NULL RETURN e.description AS d ORDER BY d").stream().map(r -> r.get("d")).toList(),
                "the entities' slice was written, summarised and embedded, before the relation's X2 failed");
        assertEquals(0, count("MATCH (:HgEntity {corpus: 'hg-stop'})-[r:HG_RELATED]->() RETURN count(r)", Map.of()));

        pairFails.set(false);
        llm.clearLog();
        Map<String, Object> resumed = rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg)).get(0);
        assertEquals(List.of("hgmem summarise"), steps(), "X1 and the entities' summaries are reused: the relation's X2 alone is asked");
        assertEquals(1L, resumed.get("reusedExtractions"));
        assertEquals("ready", rows("CALL hgmem.info({corpus: 'hg-stop'})").get(0).get("state"));
        assertEquals("In short: ISSUS -- XODAR.", rows("MATCH (:HgEntity {corpus: 'hg-stop'})-[r:HG_RELATED]->() WHERE r.embedding IS NOT NULL"
                + " RETURN r.description AS d").get(0).get("d"));
    }

    @Test
    void policyBareCreatesAbsentNamesAsNodesOnlyWithNoLlmCall() {
        build("hg6");
        llm.clearLog();
        Map<String, Object> r = rows("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg6", Map.of("absentEntityPolicy", "bare", "maxTurns", 0)))).get(0);
        assertEquals(true, r.get("done"), "maxTurns 0: one round, no planning");
        assertEquals(List.of("hgmem evolve"), steps(), "no E2 under bare, no E4 at the last turn");
        assertEquals(Map.of("p", true, "d", "", "r", 0L), rows("MATCH (e:HgEntity {corpus: 'hg6', name: 'DEGRADATION'})"
                + " RETURN e.provisional AS p, e.description AS d, COUNT { (e)-[:HG_RELATED]-() } AS r").get(0));
        assertEquals(3L, rows("CALL hgmem.stats($s)", Map.of("s", r.get("sessionId"))).get(0).get("vertices") instanceof Long l ? l - 1 : -1,
                "XODAR, ISSUS, DEGRADATION and JOHN CARTER are the memory's vertices");
    }

    @Test
    void aDocumentTitleReachesExtractionTheSourcesTableAndTheAnswerAndLinksAnAbsentNameToItsChunk() {
        // the Xodar chunk names Xodar only in its document's title, as a Wikipedia paragraph names its subject
        rows("CALL rag.ingest($docs, {corpus: 'hg9', chunkSize: 200, chunkOverlap: 50})", Map.of("docs", List.of(
                Map.of("id", "xodar", "title", "Xodar (dator)", "text", "He is a Dator of the First Born. John Carter defeated him in the pits. He was degraded to a slave."),
                Map.of("id", "issus", "text", "Issus is the goddess of the First Born."))));
        llm.clearLog();
        rows("CALL hgmem.index($cfg)", Map.of("cfg", cfg("hg9", Map.of())));
        Map<String, JsonNode> x1 = new java.util.HashMap<>();
        for (EvalLlmServer.LoggedRequest r : llm.log()) {
            JsonNode b = block(new dev.graphrag.oracle.PolicyRequest(r.step(), r.body()));
            x1.put(b.path("text").asText().startsWith("He is") ? "xodar" : "issus", b);
        }
        assertEquals("Xodar (dator)", x1.get("xodar").path("title").asText(), "X1 is told the document's title");
        assertTrue(x1.get("issus").path("title").isMissingNode(), "an untitled document's chunk has no title key: " + x1.get("issus"));

        llm.clearLog();
        Map<String, Object> step = rows("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION, "cfg", cfg("hg9", Map.of("maxTurns", 0)))).get(0);
        JsonNode evolve = block(new dev.graphrag.oracle.PolicyRequest("hgmem evolve", llm.log().get(0).body()));
        // E1 reads sources as title and content (it cites none; E6 gets the ids, below)
        Map<String, String> titleBySource = new java.util.HashMap<>();
        for (JsonNode src : evolve.path("retrieved").path("sources")) {
            assertTrue(src.path("id").isMissingNode(), "no id in E1's sources: " + src);
            titleBySource.put(src.path("content").asText().split(" ")[0], src.path("title").asText(null));
        }
        assertTrue(titleBySource.containsKey("He") && titleBySource.containsKey("Issus"), "both chunks retrieved: " + titleBySource);
        assertEquals("Xodar (dator)", titleBySource.get("He"));
        assertNull(titleBySource.get("Issus"));
        // XODAR was absent from the graph (no text names it): the sources whose title or text name it become its chunks
        assertEquals(List.of("hg9:xodar:0"), rows("MATCH (c:Chunk)-[:HG_MENTIONS]->(:HgEntity {corpus: 'hg9', name: 'XODAR', provisional: true})"
                + " RETURN c.id AS id").stream().map(r -> r.get("id")).toList());

        llm.clearLog();
        rows("CALL hgmem.respond($s, $cfg)", Map.of("s", step.get("sessionId"), "cfg", cfg("hg9", Map.of())));
        JsonNode answer = block(new dev.graphrag.oracle.PolicyRequest("hgmem answer", llm.log().get(0).body()));
        List<String> titles = new ArrayList<>();
        for (JsonNode src : answer.path("sources")) if (src.has("title")) titles.add(src.path("id").asText() + "=" + src.path("title").asText());
        assertEquals(List.of("hg9:xodar:0=Xodar (dator)"), titles, "E6's sources carry the title too");
    }

    @Test
    void aMemoryWithNoPointAnswersFromTheRetrievedChunksNearestTheSubqueries() {
        build("hg10");
        // with a subquery and an empty memory the script inserts nothing: the step ends with no memory point
        Map<String, Object> step = rows("CALL hgmem.evolve(null, $q, $cfg)", Map.of("q", QUESTION,
                "cfg", cfg("hg10", Map.of("subqueries", List.of("Who degraded Xodar?"), "maxTurns", 0)))).get(0);
        assertEquals(0L, step.get("units"), step.toString());
        String sid = (String) step.get("sessionId");
        List<String> history = java.util.Arrays.asList((String[]) rows("MATCH (s:HgSession {id: $s}) RETURN s.historyChunkIds AS h", Map.of("s", sid)).get(0).get("h"));
        assertFalse(history.isEmpty());
        Map<String, Object> none = rows("CALL hgmem.respond($s, $cfg)", Map.of("s", sid, "cfg", cfg("hg10", Map.of("emptyMemoryChunks", 0)))).get(0);
        assertEquals(List.of(), none.get("chunks"), "0: no context, as the paper's");
        Map<String, Object> two = rows("CALL hgmem.respond($s, $cfg)", Map.of("s", sid, "cfg", cfg("hg10", Map.of("emptyMemoryChunks", 2)))).get(0);
        List<?> chunks = (List<?>) two.get("chunks");
        assertEquals(Math.min(2, history.size()), chunks.size(), two.toString());
        assertTrue(history.containsAll(chunks), "only chunks some step retrieved");
        assertTrue(chunks.contains("hg10:xodar:0"), "the chunk nearest the subquery: " + chunks);
    }
}
