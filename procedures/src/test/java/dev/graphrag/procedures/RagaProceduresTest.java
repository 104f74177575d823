package dev.graphrag.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.PolicyRequest;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.graphrag.procedures.TestServer.assertFails;
import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.lastCommittedTransaction;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * raga.* end to end on the shared server, against the stand-in LLM with scripted tool-call sequences: the hand-worked T1
 * trace, T2 evidence, T3 disambiguation and merge, T7 invalid calls (nothing written on any refusal), resume after a
 * failure mid-ingest, JSON actions for endpoints without tool calls, the strict phase guard, chunk visibility, schema
 * bootstrap with similar-type refusals, todos, sync check and repair, retrieval modes over the vector index, grounded answers and bad input.
 */
class RagaProceduresTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CURIE = "Marie Curie discovered polonium. She was born in Warsaw.";
    static EvalLlmServer llm;
    /** Scripted rounds per chunk id: round n (1-based, counted from the assistant turns so far) answers with the n-th reply. */
    static final Map<String, List<PolicyReply>> SCRIPTS = new ConcurrentHashMap<>();
    static final AtomicBoolean BROKEN = new AtomicBoolean();

    static Map<String, Object> call(String name, Map<String, Object> args) {
        try {
            return Map.of("id", "call_" + name + "_" + Math.abs(args.hashCode() % 10000), "type", "function",
                    "function", Map.of("name", name, "arguments", JSON.writeValueAsString(args)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @SafeVarargs
    static PolicyReply tools(Map<String, Object>... calls) {
        return PolicyReply.tools(List.of(calls));
    }

    static PolicyReply complete(String summary) {
        return PolicyReply.jsonOf(Map.of("status", "chunk_complete", "summary", summary));
    }

    static PolicyReply read(PolicyRequest r) {
        String chunk = RemindExtractionPolicies.block(r).path("current_paragraph").path("chunk_id").asText();
        if (BROKEN.get() && chunk.endsWith(":1")) throw new IllegalStateException("injected fault");
        int assistant = 0;
        for (JsonNode m : r.body().path("messages")) if ("assistant".equals(m.path("role").asText())) assistant++;
        List<PolicyReply> script = SCRIPTS.get(chunk);
        if (script == null) return complete("nothing durable");
        return assistant < script.size() ? script.get(assistant) : complete("script ended");
    }

    @BeforeAll
    static void start() {
        llm = EvalLlmServer.start();
        llm.on("raga.L3", RagaProceduresTest::read);
        llm.on("raga.L2", r -> PolicyReply.jsonOf(Map.of("domain", "physics history",
                "entity_types", List.of(Map.of("name", "Person", "description", "a human being"), Map.of("name", "Element", "description", "a chemical element")),
                "relation_types", List.of(Map.of("name", "DISCOVERED", "description", "found for the first time", "domain", "Person", "range", "Element", "quality", 0.9),
                        Map.of("name", "born in", "description", "bad name"), Map.of("name", "WEAK", "description", "low quality", "quality", 0.2),
                        Map.of("name", "WORKED_AT", "description", "employment", "domain", "Person", "range", "Institute", "quality", 0.8)))));
        llm.on("raga.L4", r -> {
            List<Map<String, Object>> resolved = new ArrayList<>();
            RemindExtractionPolicies.block(r).path("todos").forEach(t -> resolved.add(Map.of("todo_id", t.path("todo_id").asText(), "outcome", "DONE",
                    "resolution", "the later paragraph names her birthplace")));
            return PolicyReply.jsonOf(Map.of("status", "todos_complete", "resolved", resolved, "summary", "resolved"));
        });
        llm.on("raga.L5", r -> PolicyReply.jsonOf(Map.of("entities", List.of("Pierre Curie"), "keywords", List.of(), "sub_questions", List.of())));
        llm.on("raga.L6", r -> {
            List<String> cited = new ArrayList<>();
            JsonNode b = RemindExtractionPolicies.block(r);
            String q = b.path("question").asText();
            if (!q.contains("nothing")) for (JsonNode c : b.path("chunks")) if (c.path("text").asText().contains("Warsaw")) cited.add(c.path("id").asText());
            cited.add("made:up:9");
            return PolicyReply.jsonOf(Map.of("answer", q.contains("nothing") ? "Unanswerable" : "Warsaw", "answer_type",
                    q.contains("nothing") ? "unanswerable" : "extractive", "evidence_chunk_ids", cited));
        });
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> cfg(String corpus, Map<String, Object> extra) {
        return llm.config(corpus, extra);
    }

    static void ingestDocs(String corpus, List<Map<String, Object>> docs) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunker: 'structural', chunkSize: 1200, chunkOverlap: 120})", Map.of("docs", docs, "c", corpus));
    }

    static List<Map<String, Object>> ingest(String corpus, List<String> docs, Map<String, Object> extra) {
        return rows("CALL raga.ingest($docs, $cfg)", Map.of("docs", docs, "cfg", cfg(corpus, extra)));
    }

    static Map<String, Object> tool(String name, Map<String, Object> args, String corpus) {
        return rows("CALL raga.tool($n, $a, {corpus: $c})", Map.of("n", name, "a", args, "c", corpus)).get(0);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> result(Map<String, Object> row) {
        return (Map<String, Object>) row.get("result");
    }

    static void scriptCurie(String chunk) {
        SCRIPTS.put(chunk, List.of(
                tools(call("search_kg", Map.of("query", "Marie Curie", "search_type", "fuzzy")), call("search_kg", Map.of("query", "polonium"))),
                tools(call("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "Marie Curie discovered polonium", "certainty", "high")),
                        call("create_entity", Map.of("name", "Polonium", "entity_type", "Concept", "evidence", "discovered polonium", "certainty", "high")),
                        call("create_entity", Map.of("name", "Warsaw", "entity_type", "Concept", "evidence", "born in Warsaw"))),
                tools(call("create_relation", Map.of("head", "Marie Curie", "relation_type", "DISCOVERED", "tail", "Polonium", "evidence",
                                "Marie Curie discovered polonium", "certainty", "high")),
                        call("create_relation", Map.of("head", "marie curie", "relation_type", "BORN_IN", "tail", "Warsaw", "evidence",
                                "She was born in Warsaw", "certainty", "high"))),
                complete("Curie facts")));
    }

    @Test
    void t1ScriptedTraceBuildsTheSpecGraphWithProvenanceAndVectorsThenT2AndT7RefuseWithoutWriting() {
        ingestDocs("rg1", List.of(Map.of("id", "d1", "text", CURIE)));
        scriptCurie("rg1:d1:0");
        llm.clearLog();
        List<Map<String, Object>> out = ingest("rg1", List.of("d1"), Map.of("bootstrapSchema", false));
        assertEquals(2, out.size());
        Map<String, Object> chunk = out.get(0), summary = out.get(1);
        assertEquals("chunk", chunk.get("kind"));
        assertEquals("Curie facts", chunk.get("summary"));
        assertEquals("summary", summary.get("kind"));
        assertEquals("done", summary.get("stopReason"));
        assertEquals(3L, summary.get("entitiesCreated"));
        assertEquals(2L, summary.get("relationsCreated"));
        assertEquals(7L, summary.get("toolCalls"));
        assertEquals(0L, summary.get("invalidToolCalls"));
        assertEquals(4L, summary.get("llmCalls"));
        assertEquals((long) llm.log().size(), summary.get("llmCalls"), "the stand-in's own count agrees");

        assertEquals(List.of("Marie Curie", "Polonium", "Warsaw"), rows("MATCH (e:RagaEntity {corpus: 'rg1'}) RETURN e.name AS n ORDER BY n")
                .stream().map(r -> r.get("n")).toList());
        assertEquals(List.of("marie curie", "polonium", "warsaw"), rows("MATCH (a:RagaAlias {corpus: 'rg1'}) RETURN a.key AS k ORDER BY k")
                .stream().map(r -> r.get("k")).toList());
        assertEquals(2, count("MATCH (:RagaEntity {corpus: 'rg1', name: 'Marie Curie'})-[r:RAGA_REL]->() RETURN count(r)", Map.of()));
        assertEquals(List.of(List.of("Marie Curie", 0L, 31L), List.of("Marie Curie", 0L, 31L), List.of("Marie Curie", 33L, 55L), List.of("Polonium", 12L, 31L),
                        List.of("Warsaw", 41L, 55L)),
                rows("MATCH (p:RagaProvenance {corpus: 'rg1', op: 'CREATE'}) OPTIONAL MATCH (e:RagaEntity)-[:RAGA_EVIDENCED_BY]->(p)"
                        + " OPTIONAL MATCH (h:RagaEntity)-[r:RAGA_REL {relId: p.targetId}]->() WITH p, coalesce(e.name, h.name) AS n"
                        + " WHERE p.docStart = p.start RETURN [n, p.start, p.end] AS s ORDER BY n, p.start, p.end").stream().map(r -> r.get("s")).toList());
        assertEquals(List.of("entity BORN_IN PROPOSED", "entity Concept PROPOSED", "entity DISCOVERED PROPOSED", "entity Person PROPOSED").size(),
                count("MATCH (t) WHERE (t:RagaEntityType OR t:RagaRelationType) AND t.corpus = 'rg1' AND t.status = 'PROPOSED' RETURN count(t)", Map.of()));
        assertEquals(List.of("BORN_IN", "Concept", "DISCOVERED", "Person"), rows("CALL raga.schema.active({corpus: 'rg1'}) YIELD name RETURN name ORDER BY name")
                .stream().map(r -> r.get("name")).toList());
        assertEquals(List.of(List.of("Marie Curie", 0.9, 3L), List.of("Polonium", 0.9, 2L), List.of("Warsaw", 0.6, 2L)),
                rows("MATCH (c:Chunk {id: 'rg1:d1:0'})-[m:RAGA_MENTIONS_ENTITY]->(e) RETURN [e.name, e.confidence, m.count] AS s ORDER BY e.name")
                        .stream().map(r -> r.get("s")).toList());
        assertEquals(List.of(0.9, 0.9), rows("MATCH (:RagaEntity {corpus: 'rg1'})-[r:RAGA_REL]->() RETURN r.confidence AS c").stream().map(r -> r.get("c")).toList());
        assertEquals(0, count("MATCH (e:RagaEntity {corpus: 'rg1'}) WHERE NOT e.vectorSynced OR size(e.embedding) <> 384 RETURN count(e)", Map.of()));
        Map<String, Object> c = rows("MATCH (c:Chunk {id: 'rg1:d1:0'}) RETURN c.ragaState AS s, c.ragaSummary AS sum, size(c.text) AS len").get(0);
        assertEquals(List.of("ARCHIVED", "Curie facts", 56L), List.of(c.get("s"), c.get("sum"), c.get("len")));
        // every quote is the chunk text at its offsets, after normalisation
        assertEquals(0, count("MATCH (p:RagaProvenance {corpus: 'rg1'})-[:RAGA_FROM_CHUNK]->(c:Chunk)"
                + " WHERE toLower(substring(c.text, p.start, p.end - p.start)) <> toLower(p.quote) RETURN count(p)", Map.of()));
        List<Map<String, Object>> prov = rows("CALL raga.provenance('Marie Curie', {corpus: 'rg1'})");
        assertEquals(1, prov.size());
        assertEquals(List.of("CREATE", "create_entity", "Marie Curie discovered polonium", 0L, 31L, "rg1:d1:0", "high"), List.of(prov.get(0).get("op"),
                prov.get(0).get("tool"), prov.get(0).get("quote"), prov.get(0).get("startOffset"), prov.get(0).get("endOffset"), prov.get(0).get("chunkId"),
                prov.get(0).get("certainty")));
        assertNotNull(prov.get(0).get("sessionId"));

        // T2 (a): a quote that is not in the chunk: refused, nothing written
        long before = lastCommittedTransaction();
        Map<String, Object> a = tool("create_entity", Map.of("name", "Pierre Curie", "entity_type", "Person", "evidence", "Pierre Curie co-discovered radium",
                "source_chunk_id", "rg1:d1:0"), "rg1");
        assertEquals(List.of(false, "EVIDENCE_NOT_FOUND"), List.of(a.get("ok"), a.get("code")));
        assertEquals(before, lastCommittedTransaction());
        // (c) too short
        assertEquals("EVIDENCE_TOO_SHORT", tool("create_entity", Map.of("name", "Pierre Curie", "entity_type", "Person", "evidence", "Curie",
                "source_chunk_id", "rg1:d1:0"), "rg1").get("code"));
        // T7: invalid type, unknown endpoint with candidates, non-JSON arguments, unknown tool, a batch with a schema failure
        assertEquals("RELATION_TYPE_INVALID", tool("create_relation", Map.of("head", "Marie Curie", "relation_type", "born in", "tail", "Warsaw",
                "evidence", "born in Warsaw", "source_chunk_id", "rg1:d1:0"), "rg1").get("code"));
        Map<String, Object> nf = tool("create_relation", Map.of("head", "Marie Curie", "relation_type", "BORN_IN", "tail", "Paris",
                "evidence", "born in Warsaw", "source_chunk_id", "rg1:d1:0"), "rg1");
        assertEquals("ENTITY_NOT_FOUND", nf.get("code"));
        assertEquals("/tail", result(nf).get("field"));
        assertEquals("INVALID_ARGUMENTS", rows("CALL raga.tool('create_entity', '{name:', {corpus: 'rg1'})").get(0).get("code"));
        assertEquals("UNKNOWN_TOOL", tool("create_everything", Map.of(), "rg1").get("code"));
        Map<String, Object> valid = Map.of("name", "Radium Institute", "entity_type", "Organization", "evidence", "Marie Curie discovered polonium",
                "source_chunk_id", "rg1:d1:0");
        Map<String, Object> schemaBad = tool("batch_kg_ops", Map.of("creates", Map.of("entities", List.of(valid, Map.of("name", "Y", "entity_type", "Concept")))), "rg1");
        assertEquals("INVALID_ARGUMENTS", schemaBad.get("code"));
        assertEquals("/creates/entities/1", result(schemaBad).get("field"));
        assertEquals(before, lastCommittedTransaction(), "no refused call wrote anything");
        Map<String, Object> badQuote = Map.of("name", "Sorbonne", "entity_type", "Organization", "evidence", "she taught at the Sorbonne", "source_chunk_id", "rg1:d1:0");
        Map<String, Object> atomic = tool("batch_kg_ops", Map.of("creates", Map.of("entities", List.of(valid, badQuote)), "atomic", true), "rg1");
        assertEquals(List.of(false, "EVIDENCE_NOT_FOUND"), List.of(atomic.get("ok"), atomic.get("code")));
        assertEquals(before, lastCommittedTransaction(), "an atomic batch with one bad op writes nothing");
        Map<String, Object> partial = tool("batch_kg_ops", Map.of("creates", Map.of("entities", List.of(valid, badQuote))), "rg1");
        assertEquals(true, partial.get("ok"));
        assertEquals(Map.of("searched", 0L, "created", 1L, "reused", 0L, "updated", 0L, "merged", 0L, "deleted", 0L, "failed", 1L), result(partial).get("counters"));
        assertEquals(1, count("MATCH (e:RagaEntity {corpus: 'rg1', name: 'Radium Institute'}) RETURN count(e)", Map.of()));
        assertEquals(0, count("MATCH (e:RagaEntity {corpus: 'rg1', name: 'Sorbonne'}) RETURN count(e)", Map.of()));
        // T2 (b): the normalised quote reuses Marie Curie and anchors at [0, 31)
        Map<String, Object> b = tool("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "marie  curie\ndiscovered Polonium",
                "source_chunk_id", "rg1:d1:0"), "rg1");
        assertEquals(true, result(b).get("reused"));
        assertEquals(Map.of("chunk_id", "rg1:d1:0", "start", 0L, "end", 31L), result(b).get("evidence_span"));
        assertEquals(4L, rows("MATCH (:Chunk {id: 'rg1:d1:0'})-[m:RAGA_MENTIONS_ENTITY]->(:RagaEntity {name: 'Marie Curie'}) RETURN m.count AS c").get(0).get("c"));

        // a re-run reads nothing: every chunk is archived
        llm.clearLog();
        List<Map<String, Object>> again = ingest("rg1", List.of("d1"), Map.of("bootstrapSchema", false));
        assertEquals(1, again.size());
        assertEquals(0L, again.get(0).get("llmCalls"));
        assertEquals(0, llm.log().size());
    }

    @Test
    void theLayerIsSetUpThroughTheFrameAndASetUpStoppedHalfwayIsSetUpAgain() {
        ingestDocs("rg-frame", List.of(Map.of("id", "d1", "text", CURIE)));
        TestServer.assertFails("CALL raga.info({corpus: 'rg-frame'})", Map.of(), "has no RAGA layer yet: CALL raga.setup({corpus: 'rg-frame'})");
        // what a set-up leaves when it stops between the frame's start and finish: the meta node building, no version
        rows("CREATE (:RagaMeta {corpus: 'rg-frame', state: 'building'})");
        TestServer.assertFails("CALL raga.info({corpus: 'rg-frame'})", Map.of(), "first build was interrupted: CALL raga.setup({corpus: 'rg-frame'})");
        rows("CALL raga.setup({corpus: 'rg-frame'})");
        Map<String, Object> meta = rows("MATCH (m:RagaMeta {corpus: 'rg-frame'}) RETURN m.state AS state, m.version AS version, count(*) AS n").get(0);
        assertEquals("ready", meta.get("state"));
        assertEquals(1L, meta.get("n"), "one meta node");
        assertTrue(((Number) meta.get("version")).longValue() > 0, "a version from the corpus's counter: " + meta);
        assertEquals("rg-frame", rows("CALL raga.info({corpus: 'rg-frame'}) YIELD corpus RETURN corpus").get(0).get("corpus"));
        rows("CALL raga.drop({corpus: 'rg-frame'})");
        TestServer.assertFails("CALL raga.info({corpus: 'rg-frame'})", Map.of(), "has no RAGA layer yet");
    }

    /** search_kg's [evidence_count, whether sample_evidence is a quote from the entity's provenance] for an entity. */
    @SuppressWarnings("unchecked")
    static List<Object> evidenceSeen(String corpus, String name) {
        for (Map<String, Object> e : (List<Map<String, Object>>) result(tool("search_kg", Map.of("query", name), corpus)).get("entities")) {
            if (!name.equals(e.get("name"))) continue;
            boolean quoted = count("MATCH (:RagaEntity {corpus: $c, name: $n})-[:RAGA_EVIDENCED_BY]->(p) WHERE p.quote = $q RETURN count(p)",
                    Map.of("c", corpus, "n", name, "q", String.valueOf(e.get("sample_evidence")))) > 0;
            return List.of(e.get("evidence_count"), quoted);
        }
        throw new AssertionError(name + " not found by search_kg");
    }

    @Test
    void t3SearchPinsExactKeysMergeMovesEverythingAndAliasesStayUnique() {
        ingestDocs("rg3", List.of(Map.of("id", "d1", "text", "Barack Obama was born in Hawaii."),
                Map.of("id", "d2", "text", "Obama signed the Affordable Care Act in 2010.")));
        rows("CALL raga.setup({corpus: 'rg3'})");
        assertEquals(true, tool("create_entity", Map.of("name", "Barack Obama", "entity_type", "Person", "evidence", "Barack Obama was born", "source_chunk_id", "rg3:d1:0"), "rg3").get("ok"));
        assertEquals(true, tool("create_entity", Map.of("name", "Obama", "entity_type", "Person", "evidence", "Obama signed", "source_chunk_id", "rg3:d2:0"), "rg3").get("ok"));
        assertEquals(true, tool("create_entity", Map.of("name", "Affordable Care Act", "entity_type", "Law", "evidence", "the Affordable Care Act",
                "source_chunk_id", "rg3:d2:0"), "rg3").get("ok"));
        Map<String, Object> rel = result(tool("create_relation", Map.of("head", "Obama", "relation_type", "SIGNED", "tail", "Affordable Care Act",
                "evidence", "Obama signed the Affordable Care Act", "source_chunk_id", "rg3:d2:0"), "rg3"));
        String relId = (String) rel.get("relation_id");

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> found = (List<Map<String, Object>>) result(tool("search_kg", Map.of("query", "Obama"), "rg3")).get("entities");
        assertEquals("Obama", found.get(0).get("name"));
        assertEquals(List.of("exact"), ((List<?>) found.get(0).get("reasons")).subList(0, 1));
        assertEquals("Barack Obama", found.get(1).get("name"));

        Map<String, Object> merged = tool("merge_entity", Map.of("target_name", "Barack Obama", "source_name", "Obama", "reason", "same person"), "rg3");
        assertEquals(true, merged.get("ok"));
        assertEquals(0, count("MATCH (e:RagaEntity {corpus: 'rg3', name: 'Obama'}) RETURN count(e)", Map.of()));
        Map<String, Object> e1 = rows("MATCH (e:RagaEntity {corpus: 'rg3', name: 'Barack Obama'}) RETURN e.aliases AS a, e.mergeCount AS m, e.embeddingTextHash AS h").get(0);
        assertEquals(List.of("Obama"), Arrays.asList((String[]) e1.get("a")));
        assertEquals(1L, e1.get("m"));
        assertEquals(2, count("MATCH (a:RagaAlias {corpus: 'rg3'})-[:RAGA_ALIAS_OF]->(:RagaEntity {name: 'Barack Obama'}) WHERE a.key IN ['barack obama', 'obama'] RETURN count(a)", Map.of()));
        assertEquals(relId, rows("MATCH (:RagaEntity {name: 'Barack Obama', corpus: 'rg3'})-[r:RAGA_REL]->(:RagaEntity {name: 'Affordable Care Act'}) RETURN r.relId AS id")
                .get(0).get("id"), "the relation keeps its id and now starts at the target");
        assertEquals(List.of("CREATE", "CREATE", "MERGE"), rows("CALL raga.provenance('Barack Obama', {corpus: 'rg3'}) YIELD op, quote RETURN op ORDER BY op")
                .stream().map(r -> r.get("op")).toList());
        assertEquals(List.of(List.of("rg3:d1:0", 1L), List.of("rg3:d2:0", 2L)), rows("MATCH (c:Chunk)-[m:RAGA_MENTIONS_ENTITY]->(:RagaEntity {corpus: 'rg3', name: 'Barack Obama'})"
                + " RETURN [c.id, m.count] AS s ORDER BY c.id").stream().map(r -> r.get("s")).toList());
        // (c) another spelling of a known key is reused, adding evidence
        Map<String, Object> reuse = result(tool("create_entity", Map.of("name", "OBAMA ", "entity_type", "Person", "evidence", "Obama signed", "source_chunk_id", "rg3:d2:0"), "rg3"));
        assertEquals(true, reuse.get("reused"));
        assertEquals(2, count("MATCH (e:RagaEntity {corpus: 'rg3'}) RETURN count(e)", Map.of()));
        assertEquals(3L, rows("MATCH (:Chunk {id: 'rg3:d2:0'})-[m:RAGA_MENTIONS_ENTITY]->(:RagaEntity {name: 'Barack Obama'}) RETURN m.count AS c").get(0).get("c"));
        // evidence_count is the kept count of quote-bearing provenance (the merge's own record has none), the walk's when none is kept
        String quotedWalk = "MATCH (e:RagaEntity {corpus: 'rg3', name: $n}) RETURN e.quotedEvidence AS kept, COUNT { (e)-[:RAGA_EVIDENCED_BY]->(p) WHERE p.quote IS NOT NULL } AS walked";
        assertEquals(Map.of("kept", 3L, "walked", 3L), rows(quotedWalk, Map.of("n", "Barack Obama")).get(0));
        assertEquals(List.of(3L, true), evidenceSeen("rg3", "Barack Obama"));
        rows("MATCH (e:RagaEntity {corpus: 'rg3', name: 'Barack Obama'}) REMOVE e.quotedEvidence");
        assertEquals(List.of(3L, true), evidenceSeen("rg3", "Barack Obama"), "an entity written before the count was kept is counted by a walk");
        assertEquals(true, result(tool("create_entity", Map.of("name", "Barack Obama", "entity_type", "Person", "evidence", "born in Hawaii", "source_chunk_id", "rg3:d1:0"), "rg3")).get("reused"));
        assertEquals(Map.of("kept", 4L, "walked", 4L), rows(quotedWalk, Map.of("n", "Barack Obama")).get(0), "the next quote-bearing write counts from the walk");
        // the twin of a relation is found from either end: from the tail when the head has more relations out than the tail has in
        Map<String, Object> hawaii = tool("create_entity", Map.of("name", "Hawaii", "entity_type", "Place", "evidence", "born in Hawaii", "source_chunk_id", "rg3:d1:0"), "rg3");
        assertEquals(true, hawaii.get("ok"), hawaii.toString());
        for (String type : List.of("BORN_IN", "LIVED_IN")) {
            assertEquals(false, result(tool("create_relation", Map.of("head", "Barack Obama", "relation_type", type, "tail", "Hawaii", "evidence", "born in Hawaii",
                    "source_chunk_id", "rg3:d1:0", "force_new_type", true), "rg3")).get("reused"));
        }
        Map<String, Object> again = result(tool("create_relation", Map.of("head", "Barack Obama", "relation_type", "SIGNED", "tail", "Affordable Care Act",
                "evidence", "Obama signed the Affordable Care Act", "source_chunk_id", "rg3:d2:0"), "rg3"));
        assertEquals(List.of(true, relId), List.of(again.get("reused"), again.get("relation_id")), "head 3 out, tail 1 in: found walking the tail");
        Map<String, Object> bornAgain = result(tool("create_relation", Map.of("head", "Barack Obama", "relation_type", "BORN_IN", "tail", "Hawaii",
                "evidence", "Barack Obama was born in Hawaii", "source_chunk_id", "rg3:d1:0"), "rg3"));
        assertEquals(true, bornAgain.get("reused"));
        assertEquals(1, count("MATCH (:RagaEntity {corpus: 'rg3', name: 'Barack Obama'})-[r:RAGA_REL {relType: 'BORN_IN'}]->() RETURN count(r)", Map.of()));
        // (d) an alias another entity owns: ALIAS_CONFLICT naming the owner, nothing written
        assertEquals(true, tool("create_entity", Map.of("name", "Michelle Obama", "entity_type", "Person", "evidence", "Barack Obama was born in Hawaii",
                "source_chunk_id", "rg3:d1:0"), "rg3").get("ok"));
        long before = lastCommittedTransaction();
        Map<String, Object> conflict = tool("update_entity", Map.of("entity_name", "Michelle Obama", "updates", Map.of("aliases", List.of("Obama")), "reason", "x"), "rg3");
        assertEquals("ALIAS_CONFLICT", conflict.get("code"));
        assertEquals("Barack Obama", ((Map<?, ?>) ((List<?>) result(conflict).get("candidates")).get(0)).get("name"));
        assertEquals(before, lastCommittedTransaction());
        // a type conflict asks for a qualified name instead of merging two things
        assertEquals("ENTITY_TYPE_CONFLICT", tool("create_entity", Map.of("name", "Affordable Care Act", "entity_type", "Person", "evidence", "the Affordable Care Act",
                "source_chunk_id", "rg3:d2:0"), "rg3").get("code"));
        // update, soft delete, then the relation is hidden from search but kept for audit
        assertEquals(true, tool("update_entity", Map.of("entity_name", "Michelle Obama", "updates", Map.of("description", "First Lady", "properties", Map.of("born", 1964)),
                "reason", "from another source"), "rg3").get("ok"));
        assertEquals(1964L, rows("MATCH (e:RagaEntity {corpus: 'rg3', name: 'Michelle Obama'}) RETURN e.attr_born AS b").get(0).get("b"));
        assertEquals(true, tool("delete_relation", Map.of("relation_id", relId, "reason", "test"), "rg3").get("ok"));
        assertEquals("RELATION_DELETED", tool("update_relation", Map.of("relation_id", relId, "confidence", 0.5), "rg3").get("code"));
        assertEquals(List.of(), result(tool("search_kg", Map.of("query", "SIGNED", "search_type", "relation"), "rg3")).get("relations"));
        assertEquals(true, tool("delete_entity", Map.of("entity_name", "Michelle Obama", "reason", "not in these documents"), "rg3").get("ok"));
        assertEquals(0, count("MATCH (a:RagaAlias {corpus: 'rg3', key: 'michelle obama'}) RETURN count(a)", Map.of()));
        assertTrue(((String) rows("CALL raga.provenance($id, {corpus: 'rg3'}) YIELD op, details WHERE op = 'DELETE' RETURN details",
                Map.of("id", rows("MATCH (p:RagaProvenance {corpus: 'rg3', op: 'DELETE', targetKind: 'ENTITY'}) RETURN p.targetId AS t").get(0).get("t"))).get(0).get("details"))
                .contains("First Lady"), "the deletion snapshot keeps what was deleted");
        assertEquals(List.of(), rows("CALL raga.sync.check({corpus: 'rg3'})"), "every write kept its vector in step");
    }

    @Test
    void anInterruptedIngestResumesWithoutDuplicatesAndAJsonActionEndpointWorksUnderTheStrictGuard() {
        String text = "# Curie\n\nMarie Curie discovered polonium. She was born in Warsaw.\n\n# Later life\n\nMarie Curie led the Radium Institute in Paris.";
        ingestDocs("rg4", List.of(Map.of("id", "d1", "text", text)));
        ingestDocs("rg5", List.of(Map.of("id", "d1", "text", text)));
        List<String> chunkTexts = rows("MATCH (c:Chunk {corpus: 'rg4'}) RETURN c.text AS t ORDER BY c.index").stream().map(r -> (String) r.get("t")).toList();
        assertEquals(2, chunkTexts.size(), "the structural chunker cut at the second heading");
        for (String corpus : List.of("rg4", "rg5")) {
            scriptCurie(corpus + ":d1:0");
            SCRIPTS.put(corpus + ":d1:1", List.of(
                    tools(call("search_kg", Map.of("query", "Radium Institute")), call("create_entity", Map.of("name", "Radium Institute", "entity_type", "Organization",
                            "evidence", "the Radium Institute in Paris"))),
                    tools(call("create_relation", Map.of("head", "Marie Curie", "relation_type", "LED", "tail", "Radium Institute",
                            "evidence", "Marie Curie led the Radium Institute"))),
                    complete("Institute")));
        }
        // rg4: the endpoint fails on the second chunk: the first stays archived, the second is left to resume
        BROKEN.set(true);
        try {
            assertFails("CALL raga.ingest(['d1'], $cfg)", Map.of("cfg", cfg("rg4", Map.of("bootstrapSchema", false))), "rg4:d1:1", "resumes");
        } finally {
            BROKEN.set(false);
        }
        assertEquals(List.of("ARCHIVED", "READING"), rows("MATCH (c:Chunk {corpus: 'rg4'}) RETURN c.ragaState AS s ORDER BY c.index").stream().map(r -> r.get("s")).toList());
        assertEquals("FAILED", rows("MATCH (s:RagaSession {corpus: 'rg4'}) RETURN s.status AS s").get(0).get("s"));
        List<Map<String, Object>> resumed = ingest("rg4", List.of("d1"), Map.of("bootstrapSchema", false));
        assertEquals(List.of("rg4:d1:1"), resumed.stream().filter(r -> "chunk".equals(r.get("kind"))).map(r -> r.get("chunkId")).toList(),
                "only the chunk that failed is read again");
        ingest("rg5", List.of("d1"), Map.of("bootstrapSchema", false));
        assertEquals(census("rg5"), census("rg4"), "a resumed ingest builds what an uninterrupted one builds");

        // JSON actions (no native tool calls) with phaseGuard strict: create before search is refused, a chunk not read is not quotable
        ingestDocs("rg6", List.of(Map.of("id", "d1", "text", CURIE), Map.of("id", "d2", "text", "Pierre Curie shared the Nobel Prize with Marie Curie.")));
        SCRIPTS.put("rg6:d1:0", List.of(
                action("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "Marie Curie discovered polonium")),
                action("search_kg", Map.of("query", "Marie Curie")),
                action("create_entity", Map.of("name", "Pierre Curie", "entity_type", "Person", "evidence", "Pierre Curie shared the Nobel Prize",
                        "source_chunk_id", "rg6:d2:0")),
                action("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "Marie Curie discovered polonium")),
                action("chunk_complete", Map.of("summary", "one entity"))));
        SCRIPTS.put("rg6:d2:0", List.of(PolicyReply.jsonOf(Map.of("action", "final", "content", "{\"status\":\"chunk_complete\",\"summary\":\"skipped\"}"))));
        llm.clearLog();
        List<Map<String, Object>> rows = ingest("rg6", List.of(), Map.of("bootstrapSchema", false, "toolMode", "JSON", "phaseGuard", "strict"));
        Map<String, Object> c0 = rows.get(0);
        assertEquals(List.of(5L, 2L, 1L, "one entity"), List.of(c0.get("toolCalls"), c0.get("invalidToolCalls"), c0.get("entitiesCreated"), c0.get("summary")));
        assertEquals("skipped", rows.get(1).get("summary"));
        assertTrue(llm.log().stream().noneMatch(r -> r.body().has("tools")), "JSON-action mode sends no tools array");
        List<String> results = new ArrayList<>();
        for (EvalLlmServer.LoggedRequest r : llm.log()) {
            JsonNode msgs = r.body().path("messages");
            String last = msgs.get(msgs.size() - 1).path("content").asText();
            if (last.startsWith("Result of create_entity")) results.add(last);
        }
        assertTrue(results.get(0).contains("SEARCH_REQUIRED"), results.toString());
        assertTrue(results.get(1).contains("EVIDENCE_CHUNK_NOT_VISIBLE"), results.toString());
        assertEquals(List.of("Marie Curie"), rows("MATCH (e:RagaEntity {corpus: 'rg6'}) RETURN e.name AS n").stream().map(r -> r.get("n")).toList());
        assertTrue(((String[]) rows("MATCH (s:RagaSession {corpus: 'rg6'}) RETURN s.errorHistory AS h").get(0).get("h"))[0].contains("SEARCH_REQUIRED"));
    }

    @Test
    void schemaBootstrapActivatesValidTypesP4RefusesASimilarNewTypeAndALaterChunkResolvesATodo() {
        String text = "# Discovery\n\nMarie Curie discovered polonium in 1898.\n\n# Birth\n\nMarie Curie was born in Warsaw.";
        ingestDocs("rg8", List.of(Map.of("id", "d1", "text", text)));
        SCRIPTS.put("rg8:d1:0", List.of(
                tools(call("search_kg", Map.of("query", "Marie Curie")),
                        call("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "Marie Curie discovered polonium")),
                        call("create_entity", Map.of("name", "Polonium", "entity_type", "Element", "evidence", "discovered polonium in 1898"))),
                tools(call("create_relation", Map.of("head", "Marie Curie", "relation_type", "FOUND", "tail", "Polonium", "evidence", "Marie Curie discovered polonium"))),
                tools(call("create_relation", Map.of("head", "Marie Curie", "relation_type", "FOUND", "tail", "Polonium", "evidence", "Marie Curie discovered polonium",
                        "force_new_type", true)), call("create_todo", Map.of("task", "find where Marie Curie was born", "todo_type", "attribute_completion",
                        "related_entity", "Marie Curie"))),
                complete("discovery")));
        SCRIPTS.put("rg8:d1:1", List.of(
                tools(call("create_entity", Map.of("name", "Warsaw", "entity_type", "Place", "evidence", "born in Warsaw")),
                        call("create_relation", Map.of("head", "Marie Curie", "relation_type", "BORN_IN", "tail", "Warsaw", "evidence", "Marie Curie was born in Warsaw",
                                "force_new_type", true))),
                complete("birth")));
        llm.clearLog();
        List<Map<String, Object>> out = ingest("rg8", List.of("d1"), Map.of("similarTypeThreshold", -1.0));
        Map<String, Object> summary = out.get(out.size() - 1);
        assertEquals(1L, out.get(0).get("invalidToolCalls"), "the first FOUND is refused as similar to an active type");
        assertEquals(List.of(1L, 1L), List.of(summary.get("todos"), summary.get("todosResolved")));
        assertEquals(List.of("raga.L2", "raga.L3", "raga.L3", "raga.L3", "raga.L3", "raga.L3", "raga.L3", "raga.L4"),
                llm.log().stream().map(EvalLlmServer.LoggedRequest::step).toList(), "the todo raised in chunk 0 is handled after chunk 1 mentions its entity");
        Map<String, String> status = new HashMap<>();
        for (Map<String, Object> r : rows("CALL raga.schema.active({corpus: 'rg8'})")) status.put(r.get("kind") + " " + r.get("name"), (String) r.get("status"));
        assertEquals("ACTIVE", status.get("entity Person"));
        assertEquals("ACTIVE", status.get("relation DISCOVERED"));
        assertEquals("CANDIDATE", status.get("relation WORKED_AT"), "its range Institute is not a declared type");
        assertEquals("PROPOSED", status.get("relation FOUND"));
        assertEquals("PROPOSED", status.get("entity Place"));
        assertFalse(status.containsKey("relation WEAK") || status.containsKey("relation born in"), status.toString());
        List<Map<String, Object>> todos = rows("CALL raga.todo.list({corpus: 'rg8', status: 'ALL'})");
        assertEquals(List.of("DONE", "Marie Curie", "the later paragraph names her birthplace"), List.of(todos.get(0).get("status"), todos.get(0).get("entity"),
                todos.get(0).get("resolution")));
        rows("CALL raga.review.mark({subject: 'Polonium', reason: 'year unclear'}, {corpus: 'rg8'})");
        String id = (String) rows("CALL raga.review.list({corpus: 'rg8'})").get(0).get("id");
        assertEquals(true, rows("CALL raga.review.resolve($id, {corpus: 'rg8', status: 'DROPPED', note: 'fine'})", Map.of("id", id)).get(0).get("ok"));
        assertEquals(List.of(), rows("CALL raga.review.list({corpus: 'rg8'})"));
    }

    @Test
    void syncCheckFindsDriftAndRepairReembedsIt() {
        ingestDocs("rg9", List.of(Map.of("id", "d1", "text", CURIE)));
        rows("CALL raga.setup({corpus: 'rg9'})");
        tool("create_entity", Map.of("name", "Marie Curie", "entity_type", "Person", "evidence", "Marie Curie discovered polonium", "source_chunk_id", "rg9:d1:0"), "rg9");
        tool("create_entity", Map.of("name", "Warsaw", "entity_type", "City", "evidence", "born in Warsaw", "source_chunk_id", "rg9:d1:0"), "rg9");
        assertEquals(List.of(), rows("CALL raga.sync.check({corpus: 'rg9'})"));
        rows("MATCH (e:RagaEntity {corpus: 'rg9', name: 'Marie Curie'}) SET e.description = 'physicist, edited by hand'");
        rows("MATCH (e:RagaEntity {corpus: 'rg9', name: 'Warsaw'}) REMOVE e.embedding");
        rows("MATCH (c:Chunk {id: 'rg9:d1:0'}) REMOVE c.embedding");
        assertEquals(List.of("CHUNK MISSING", "ENTITY MISSING", "ENTITY STALE"), rows("CALL raga.sync.check({corpus: 'rg9'}) YIELD kind, issue RETURN kind + ' ' + issue AS x ORDER BY x")
                .stream().map(r -> r.get("x")).toList());
        Map<String, Object> rep = rows("CALL raga.sync.repair({corpus: 'rg9'})").get(0);
        assertEquals(List.of(3L, 0L, 0L), List.of(rep.get("repaired"), rep.get("failed"), rep.get("unrepairable")));
        assertEquals(List.of(), rows("CALL raga.sync.check({corpus: 'rg9'})"));
        double cos = (Double) rows("MATCH (e:RagaEntity {corpus: 'rg9', name: 'Marie Curie'}) WITH e, rag.embed('Marie Curie (Person): physicist, edited by hand') AS v"
                + " RETURN vector.similarity.cosine(e.embedding, v) AS c").get(0).get("c");
        assertTrue(cos > 0.99, "the repaired vector is the embedding of the entity's current text: " + cos);
        assertEquals(true, rows("CALL raga.info({corpus: 'rg9'})").get(0).get("modelMatches"));
        assertEquals(0, count("MATCH (e:RagaEntity {corpus: 'rg9'}) WHERE NOT e.vectorSynced RETURN count(e)", Map.of()));
    }

    static void buildRetrievalGraph(String corpus) {
        ingestDocs(corpus, List.of(Map.of("id", "a", "text", "Marie Curie discovered polonium with her husband."),
                Map.of("id", "b", "text", "Polonium is a rare radioactive element with atomic number 84."),
                Map.of("id", "c", "text", "Pierre Curie studied crystals and magnetism before radioactivity."),
                Map.of("id", "d", "text", "Warsaw is the capital of Poland, on the Vistula river."),
                Map.of("id", "e", "text", "Marie Curie was born in Warsaw in 1867.")));
        rows("CALL raga.setup({corpus: $c})", Map.of("c", corpus));
        Object[][] entities = {{"Marie Curie", "Person", "Marie Curie discovered polonium", "a"}, {"Polonium", "Element", "Polonium is a rare radioactive element", "b"},
                {"Pierre Curie", "Person", "Pierre Curie studied crystals", "c"}, {"Warsaw", "City", "Warsaw is the capital of Poland", "d"}};
        for (Object[] e : entities) {
            assertEquals(true, tool("create_entity", Map.of("name", e[0], "entity_type", e[1], "evidence", e[2], "source_chunk_id", corpus + ":" + e[3] + ":0"), corpus).get("ok"));
        }
        Object[][] rels = {{"Marie Curie", "DISCOVERED", "Polonium", "Marie Curie discovered polonium", "a"}, {"Marie Curie", "BORN_IN", "Warsaw", "Marie Curie was born in Warsaw", "e"},
                {"Pierre Curie", "MARRIED_TO", "Marie Curie", "discovered polonium with her husband", "a"}};
        for (Object[] r : rels) {
            assertEquals(true, tool("create_relation", Map.of("head", r[0], "relation_type", r[1], "tail", r[2], "evidence", r[3], "source_chunk_id", corpus + ":" + r[4] + ":0"),
                    corpus).get("ok"));
        }
    }

    @Test
    void retrievalModesFuseTheVectorIndexWithTheGraphFallBackWhenDegradedAndAnswersCiteOnlyWhatTheySaw() {
        buildRetrievalGraph("rg7");
        String q = "Which element did Marie Curie discover?";
        List<Object> dense = rows("CALL rag.search($q, {corpus: 'rg7', mode: 'DENSE', k: 5}) YIELD chunkId RETURN chunkId", Map.of("q", q)).stream().map(r -> r.get("chunkId")).toList();
        List<Map<String, Object>> vector = rows("CALL raga.retrieve($q, {corpus: 'rg7', mode: 'vector', topK: 5})", Map.of("q", q));
        assertEquals(dense, vector.stream().map(r -> r.get("chunkId")).toList(), "vector mode is the lexical layer's dense ranking");
        List<Map<String, Object>> degraded = rows("CALL raga.retrieve($q, {corpus: 'rg7', kgTimeoutMs: 0, topK: 5})", Map.of("q", q));
        assertEquals(dense, degraded.stream().map(r -> r.get("chunkId")).toList(), "a timed-out graph stream falls back to exactly the vector ranking");
        assertTrue(degraded.stream().allMatch(r -> Boolean.TRUE.equals(r.get("degraded"))));
        assertEquals(1.0 / 61, (Double) degraded.get(0).get("score"), 1e-9);
        List<Map<String, Object>> fusion = rows("CALL raga.retrieve($q, {corpus: 'rg7', topK: 5})", Map.of("q", q));
        double last = Double.MAX_VALUE;
        for (Map<String, Object> r : fusion) {
            long vr = (Long) r.get("vecRank"), kr = (Long) r.get("kgRank");
            double expected = (vr > 0 ? 1.0 / (60 + vr) : 0) + (kr > 0 ? 1.0 / (60 + kr) : 0);
            assertEquals(expected, (Double) r.get("score"), 1e-9, "RRF of the two ranks: " + r);
            assertTrue((Double) r.get("score") <= last + 1e-12);
            last = (Double) r.get("score");
            assertFalse(Boolean.TRUE.equals(r.get("degraded")));
        }
        Map<String, Object> top = fusion.get(0);
        assertEquals("rg7:a:0", top.get("chunkId"));
        assertTrue(((List<?>) top.get("entities")).size() >= 2, "the chunk's scored entities come with it, for Browser");
        assertEquals(((List<?>) top.get("entities")).size(), ((List<?>) top.get("relationships")).size());

        // kg mode anchored on a name: the polonium chunk is reached only through DISCOVERED; a soft delete cuts it off
        Map<String, Object> kgCfg = Map.of("corpus", "rg7", "mode", "kg", "anchorEntities", 1, "semanticFilter", 0.0, "topK", 10);
        List<Object> kg = rows("CALL raga.retrieve('Marie Curie', $cfg)", Map.of("cfg", kgCfg)).stream().map(r -> r.get("chunkId")).toList();
        assertTrue(kg.contains("rg7:b:0") && kg.contains("rg7:d:0"), kg.toString());
        String relId = (String) rows("MATCH (:RagaEntity {corpus: 'rg7', name: 'Marie Curie'})-[r:RAGA_REL {relType: 'DISCOVERED'}]->() RETURN r.relId AS id").get(0).get("id");
        assertEquals(true, tool("delete_relation", Map.of("relation_id", relId, "reason", "test the graph stream"), "rg7").get("ok"));
        List<Object> cut = rows("CALL raga.retrieve('Marie Curie', $cfg)", Map.of("cfg", kgCfg)).stream().map(r -> r.get("chunkId")).toList();
        assertFalse(cut.contains("rg7:b:0"), cut.toString());
        assertTrue(cut.contains("rg7:d:0"), cut.toString());

        // deep: L5 names Pierre Curie; the chunks mentioning him come first (by s_vec), then his neighbours' chunks, then vector candidates
        List<Map<String, Object>> deep = rows("CALL raga.retrieve($q, $cfg)", Map.of("q", q, "cfg", cfg("rg7", Map.of("mode", "deep", "topK", 5))));
        assertEquals(java.util.Set.of("rg7:a:0", "rg7:c:0"), java.util.Set.of(deep.get(0).get("chunkId"), deep.get(1).get("chunkId")));
        assertEquals(List.of(1L, 2L), List.of(deep.get(0).get("kgRank"), deep.get(1).get("kgRank")));
        assertTrue((Double) deep.get(0).get("kgScore") >= (Double) deep.get(1).get("kgScore"));
        assertEquals(1L, deep.get(0).get("llmCalls"));

        // answers cite only chunks they were shown; citing nothing is ungrounded, never a made-up citation
        Map<String, Object> a = rows("CALL raga.answer('Where was Marie Curie born?', $cfg)", Map.of("cfg", cfg("rg7", Map.of()))).get(0);
        assertEquals("Warsaw", a.get("answer"));
        assertEquals(true, a.get("grounded"));
        List<?> ev = (List<?>) a.get("evidence");
        assertFalse(ev.isEmpty());
        for (Object e : ev) assertTrue(((String) ((Map<?, ?>) e).get("text")).contains("Warsaw"));
        assertTrue(((List<?>) a.get("retrieved")).containsAll(ev.stream().map(e -> ((Map<?, ?>) e).get("chunkId")).toList()));
        Map<String, Object> none = rows("CALL raga.answer('Tell me nothing at all', $cfg)", Map.of("cfg", cfg("rg7", Map.of()))).get(0);
        assertEquals(List.of(), none.get("evidence"));
        assertEquals(false, none.get("grounded"));
        assertEquals("unanswerable", none.get("answerType"));
    }

    @Test
    void fusionListsThePagesOfTheEntitiesTheBestChunkNamesFirstAndDropRemovesTheTitleKeys() {
        ingestDocs("rg15", List.of(Map.of("id", "song", "title", "Hello Love", "text", "Hello Love is a country song that Hank Snow recorded in 1974."),
                Map.of("id", "snow", "title", "Hank Snow (musician)", "text", "Clarence Eugene Snow was a Canadian-American singer who died in Madison, Tennessee."),
                Map.of("id", "tour", "title", "Country tours", "text", "Many country singers, Hank Snow among them, toured Canada after the war.")));
        assertEquals(List.of(), rows("MATCH (d:Document {corpus: 'rg15'}) WHERE d.ragaTitleKey IS NOT NULL RETURN d"));
        ingest("rg15", List.of(), Map.of()); // each chunk completes with nothing durable: the run stamps the title keys
        assertEquals(List.of("country tours", "hank snow", "hello love"),
                rows("MATCH (d:Document {corpus: 'rg15'}) RETURN d.ragaTitleKey AS k ORDER BY k").stream().map(r -> r.get("k")).toList(), "disambiguator dropped");
        assertEquals(true, tool("create_entity", Map.of("name", "Hank Snow", "entity_type", "Person", "evidence", "Hank Snow recorded in 1974",
                "source_chunk_id", "rg15:song:0"), "rg15").get("ok"));
        String q = "Which country song did Hank Snow record in 1974?";
        assertEquals("rg15:song:0", rows("CALL raga.retrieve($q, {corpus: 'rg15', mode: 'vector', topK: 1})", Map.of("q", q)).get(0).get("chunkId"));
        Map<String, Long> kgRank = new java.util.HashMap<>();
        for (Map<String, Object> r : rows("CALL raga.retrieve($q, {corpus: 'rg15', topK: 3})", Map.of("q", q))) kgRank.put((String) r.get("chunkId"), (Long) r.get("kgRank"));
        assertEquals(1L, kgRank.get("rg15:snow:0"), "the page of Hank Snow, named by the best chunk, leads the graph stream: " + kgRank);
        Map<String, Long> off = new java.util.HashMap<>();
        for (Map<String, Object> r : rows("CALL raga.retrieve($q, {corpus: 'rg15', topK: 3, pageAnchors: 0})", Map.of("q", q))) off.put((String) r.get("chunkId"), (Long) r.get("kgRank"));
        assertEquals(0L, off.get("rg15:snow:0"), "without pages the chunk mentions no entity, so the graph stream cannot reach it: " + off);
        for (String mode : List.of("fusion", "kg")) {
            List<Object> docs = rows("CALL raga.retrieve($q, {corpus: 'rg15', mode: $m, topK: 3, docIds: ['song', 'tour']}) YIELD docId RETURN docId",
                    Map.of("q", q, "m", mode)).stream().map(r -> r.get("docId")).toList();
            assertFalse(docs.isEmpty() || docs.contains("snow"), mode + ": a document filter holds for chunks the graph reaches too: " + docs);
        }
        rows("CALL raga.drop({corpus: 'rg15'})");
        assertEquals(List.of(), rows("MATCH (d:Document {corpus: 'rg15'}) WHERE d.ragaTitleKey IS NOT NULL RETURN d"));
        assertEquals(3L, (long) count("MATCH (d:Document {corpus: 'rg15'}) RETURN count(d)", Map.of()), "the lexical graph stays");
    }

    @Test
    void badInputIsRefusedWithTheProblemNamedAndWritesNothing() {
        ingestDocs("rg10", List.of(Map.of("id", "d1", "text", CURIE)));
        assertFailsCleanly("CALL raga.tool('search_kg', {query: 'x'}, {corpus: 'rg10'})", Map.of(), "no RAGA layer yet", "raga.setup");
        rows("CALL raga.setup({corpus: 'rg10'})");
        assertFailsCleanly("CALL raga.ingest(null, {corpus: 'rg10'})", Map.of(), "documentIds");
        assertFailsCleanly("CALL raga.ingest(['nope'], $cfg)", Map.of("cfg", cfg("rg10", Map.of())), "no document 'nope'");
        assertFailsCleanly("CALL raga.ingest([], $cfg)", Map.of("cfg", cfg("rg10", Map.of("toolsett", "batch"))), "unknown config key 'toolsett'", "toolset");
        assertFailsCleanly("CALL raga.ingest([], $cfg)", Map.of("cfg", cfg("rg10", Map.of("toolset", "some"))), "toolset", "full, batch");
        assertFailsCleanly("CALL raga.ingest([], {corpus: 'nowhere'})", Map.of(), "nowhere");
        assertFailsCleanly("CALL raga.tool('search_kg', [1, 2], {corpus: 'rg10'})", Map.of(), "args must be a MAP or a JSON STRING");
        assertFailsCleanly("CALL raga.tool('search_kg', {query: 'x'}, {corpus: 'rg10', phaseGuard: 'loose'})", Map.of(), "phaseGuard");
        assertFailsCleanly("CALL raga.tool('create_entity', {name: 'X'}, {corpus: 'rg10', failOnError: true})", Map.of(), "INVALID_ARGUMENTS", "entity_type");
        Map<String, Object> deep = new HashMap<>();
        Map<String, Object> cur = deep;
        for (int i = 0; i < 40; i++) {
            Map<String, Object> next = new HashMap<>();
            cur.put("k", next);
            cur = next;
        }
        assertFailsCleanly("CALL raga.tool('search_kg', $a, {corpus: 'rg10'})", Map.of("a", Map.of("query", "x", "deep", deep)), "nested");
        assertFailsCleanly("CALL raga.retrieve('', {corpus: 'rg10'})", Map.of(), "query must not be empty");
        assertFailsCleanly("CALL raga.retrieve('x', {corpus: 'rg10', mode: 'graph'})", Map.of(), "mode", "vector, kg, fusion, deep");
        assertFailsCleanly("CALL raga.retrieve('x', {corpus: 'rg10', wVec: 0, wKg: 0})", Map.of(), "wVec and wKg");
        assertFailsCleanly("CALL raga.retrieve('x', {corpus: 'rg10', pageAnchors: -1})", Map.of(), "pageAnchors");
        assertFailsCleanly("CALL raga.review.resolve('review-nope', {corpus: 'rg10'})", Map.of(), "no item 'review-nope'");
        long before = lastCommittedTransaction();
        Map<String, Object> r = tool("create_entity", Map.of("name", "Introduction", "entity_type", "Concept", "evidence", "Marie Curie discovered polonium",
                "source_chunk_id", "rg10:d1:0"), "rg10");
        assertEquals("QUALITY_GATE_REJECTED", r.get("code"));
        assertEquals("GENERIC_HEADING", ((Map<?, ?>) ((List<?>) result(r).get("candidates")).get(0)).get("rule"));
        assertEquals("CHUNK_NOT_FOUND", tool("create_entity", Map.of("name", "Polonium", "entity_type", "Concept", "evidence", "Marie Curie discovered polonium",
                "source_chunk_id", "rg1:d1:0"), "rg10").get("code"), "a chunk of another corpus is not found here");
        assertEquals("INVALID_ARGUMENTS", tool("create_entity", Map.of("name", "Polonium", "entity_type", "Concept", "evidence", "Marie Curie discovered polonium",
                "source_chunk_id", "rg10:d1:0", "colour", "red"), "rg10").get("code"));
        assertEquals(before, lastCommittedTransaction());
        rows("CALL raga.drop({corpus: 'rg10'})");
        assertEquals(0, count("MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'Raga') AND n.corpus = 'rg10' RETURN count(n)", Map.of()));
    }

    @Test
    void faultyCallsWriteNothingAndAnIngestTerminatedMidwayResumesToTheGraphOfAnUninterruptedOne() throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < 6; i++) docs.add(Map.of("id", "k" + i, "title", "Kepler " + i, "text", "Johannes Kepler described orbit " + i
                + " in Prague. Tycho Brahe measured orbit " + i + " at Uraniborg."));
        ingestDocs("rg11", docs);
        ingestDocs("rg12", docs);
        ingestDocs("rg13", docs);
        llm.on("raga.L3", new dev.graphrag.oracle.RagaConstructionPolicy(false, false));
        try {
            List<Map<String, Object>> clean = ingest("rg12", List.of(), Map.of("bootstrapSchema", false));
            assertEquals(0L, clean.get(clean.size() - 1).get("invalidToolCalls"));
            assertTrue(count("MATCH (:RagaEntity {corpus: 'rg12'})-[r:RAGA_REL]->() RETURN count(r)", Map.of()) >= 2);
            // corrupted calls before a quarter of the valid ones: every one refused, and the graph is the clean one
            llm.on("raga.L3", new dev.graphrag.oracle.RagaConstructionPolicy(false, true));
            llm.clearLog();
            List<Map<String, Object>> faulty = ingest("rg13", List.of(), Map.of("bootstrapSchema", false));
            long injected = 0;
            for (EvalLlmServer.LoggedRequest r : llm.log()) for (JsonNode tc : r.reply().path("tool_calls")) if (tc.path("id").asText().startsWith("x")) injected++;
            assertTrue(injected >= 5, "faults were injected: " + injected);
            assertEquals(injected, faulty.get(faulty.size() - 1).get("invalidToolCalls"));
            assertEquals(census("rg12"), census("rg13"), "refused calls wrote nothing");
            SLOW.set(true);
            llm.on("raga.L3", r -> {
                if (SLOW.get()) sleep(60);
                return new dev.graphrag.oracle.RagaConstructionPolicy(false, false).reply(r);
            });
            var run = TestServer.inBackground("CALL raga.ingest([], $cfg)", Map.of("cfg", cfg("rg11", Map.of("bootstrapSchema", false))));
            String id = TestServer.runningTransaction("CALL raga.ingest", () -> count("MATCH (c:Chunk {corpus: 'rg11', ragaState: 'ARCHIVED'}) RETURN count(c)", Map.of()) >= 2);
            assertNotNull(id, "the ingest never got going");
            rows("TERMINATE TRANSACTION $id", Map.of("id", id));
            Throwable t = run.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertNotNull(t, "a terminated ingest fails");
            long archived = count("MATCH (c:Chunk {corpus: 'rg11', ragaState: 'ARCHIVED'}) RETURN count(c)", Map.of());
            assertTrue(archived >= 2 && archived < 6, "stopped part-way: " + archived);
            SLOW.set(false);
            List<Map<String, Object>> resumed = ingest("rg11", List.of(), Map.of("bootstrapSchema", false));
            assertEquals(6 - archived, resumed.size() - 1, "only the chunks not archived are read again");
            assertEquals(census("rg12"), census("rg11"), "the resumed graph is the uninterrupted one");
        } finally {
            SLOW.set(false);
            llm.on("raga.L3", RagaProceduresTest::read);
        }
    }

    static final AtomicBoolean SLOW = new AtomicBoolean();

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void tokenBudgetsStopAChunkAndTheRunWithTheirReasons() {
        ingestDocs("rg14", List.of(Map.of("id", "d1", "text", CURIE), Map.of("id", "d2", "text", "Pierre Curie studied crystals."),
                Map.of("id", "d3", "text", "Warsaw is the capital of Poland.")));
        List<PolicyReply> forever = new ArrayList<>();
        for (int i = 0; i < 20; i++) forever.add(tools(call("search_kg", Map.of("query", "Curie " + i))));
        SCRIPTS.put("rg14:d1:0", forever);
        List<Map<String, Object>> out = ingest("rg14", List.of(), Map.of("bootstrapSchema", false, "tokenBudgetPerChunk", 3000, "tokenBudget", 4000));
        Map<String, Object> first = out.get(0), summary = out.get(out.size() - 1);
        assertEquals(List.of("rg14:d1:0", "maxTokens", true), List.of(first.get("chunkId"), first.get("stopReason"), first.get("incomplete")));
        assertTrue((Long) first.get("promptTokens") + (Long) first.get("completionTokens") >= 3000);
        assertEquals(List.of("summary", "tokenBudget", "STOPPED"), List.of(summary.get("kind"), summary.get("stopReason"), summary.get("state")));
        assertTrue(out.size() < 4, "the run stopped before reading every chunk: " + out.size());
        assertEquals(1, count("MATCH (a:RagaAlert {corpus: 'rg14', kind: 'ROUND_LIMIT'}) RETURN count(a)", Map.of()));
        assertEquals(1L, rows("CALL raga.info({corpus: 'rg14'})").get(0).get("chunksIncomplete"));
        // the next run reads what is left
        List<Map<String, Object>> rest = ingest("rg14", List.of(), Map.of("bootstrapSchema", false));
        assertEquals(3 - (out.size() - 1), rest.size() - 1);
        assertEquals("done", rest.get(rest.size() - 1).get("stopReason"));
    }

    static PolicyReply action(String name, Map<String, Object> args) {
        return PolicyReply.jsonOf(Map.of("action", name, "arguments", args));
    }

    /** What an ingest built, independent of ids and times. */
    static List<Object> census(String corpus) {
        List<Object> out = new ArrayList<>();
        for (String q : List.of("MATCH (e:RagaEntity {corpus: $c}) RETURN e.name + '|' + e.entityType + '|' + e.confidence AS x",
                "MATCH (h:RagaEntity {corpus: $c})-[r:RAGA_REL]->(t) RETURN h.name + '-' + r.relType + '->' + t.name AS x",
                "MATCH (p:RagaProvenance {corpus: $c}) RETURN p.op + coalesce(p.chunkId, '') + coalesce(p.start, -1) + ':' + coalesce(p.end, -1) AS x",
                "MATCH (c:Chunk {corpus: $c})-[m:RAGA_MENTIONS_ENTITY]->(e) RETURN c.index + e.name + m.count AS x",
                "MATCH (a:RagaAlias {corpus: $c}) RETURN a.key AS x")) {
            List<String> xs = new ArrayList<>();
            for (Map<String, Object> r : rows(q, Map.of("c", corpus))) xs.add(String.valueOf(r.get("x")).replace(corpus + ":", ""));
            java.util.Collections.sort(xs);
            out.add(xs);
        }
        return out;
    }

}
