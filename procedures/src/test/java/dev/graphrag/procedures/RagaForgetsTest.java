package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.RagaProceduresTest.SCRIPTS;
import static dev.graphrag.procedures.RagaProceduresTest.call;
import static dev.graphrag.procedures.RagaProceduresTest.complete;
import static dev.graphrag.procedures.RagaProceduresTest.tools;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RAGA graph after a document is deleted and another changed (docs/raga.md#updates-and-deletes), with a scripted
 * agent: from the moment the removal commits, retrieval and answers show nothing only the removed text supported and
 * never credit a re-used chunk id with its old text; the next raga.ingest removes those quotes, relations and entities,
 * reads the changed chunk again, and leaves no entity, relation or provenance without a quote in a present chunk.
 */
class RagaForgetsTest {
    static EvalLlmServer llm;
    static final List<String> CANARIES = List.of("Zorvath", "Quill", "Kantos");

    @BeforeAll
    static void start() {
        llm = EvalLlmServer.start();
        llm.on("raga.L3", RagaProceduresTest::read);
        // the answer step cites every chunk it is shown
        llm.on("raga.L6", r -> {
            List<String> cited = new ArrayList<>();
            dev.graphrag.oracle.RemindExtractionPolicies.block(r).path("chunks").forEach(c -> cited.add(c.path("id").asText()));
            return PolicyReply.jsonOf(Map.of("answer", "as the passages say", "answer_type", "extractive", "evidence_chunk_ids", cited));
        });
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> person(String name, String evidence) {
        return call("create_entity", Map.of("name", name, "entity_type", "Person", "evidence", evidence));
    }

    static Map<String, Object> relation(String head, String type, String tail, String evidence) {
        return call("create_relation", Map.of("head", head, "relation_type", type, "tail", tail, "evidence", evidence, "force_new_type", true));
    }

    static void readAll() {
        rows("CALL raga.ingest([], $cfg)", Map.of("cfg", llm.config("raForget", Map.of("bootstrapSchema", false))));
    }

    /** What retrieval and an answer show for a question, in every mode that reads the graph, with the answer step's prompts. */
    static String shown(String q) {
        StringBuilder out = new StringBuilder();
        for (String mode : List.of("fusion", "kg")) {
            out.append(rows("CALL raga.retrieve($q, {corpus: 'raForget', mode: $m, topK: 5}) YIELD chunkId, text, entities RETURN chunkId, text, [e IN entities | e.name] AS entities",
                    Map.of("q", q, "m", mode)));
        }
        llm.clearLog();
        out.append(rows("CALL raga.answer($q, $cfg) YIELD answer, evidence, facts RETURN answer, evidence, facts",
                Map.of("q", q, "cfg", llm.config("raForget", Map.of()))));
        for (var request : llm.log()) out.append(request.body());
        return out.toString();
    }

    @Test
    void removedTextIsHiddenAtOnceAndTheNextIngestRemovesItAndReadsTheChangedChunkAgain() {
        rows("CALL rag.ingest($docs, {corpus: 'raForget', chunker: 'structural', chunkSize: 1200, chunkOverlap: 120})", Map.of("docs", List.of(
                RemindForgetsTest.KEPT.get(0), RemindForgetsTest.CANARY_DOC, Map.of("id", "fleet", "text", RemindForgetsTest.CHANGED_OLD.get("text")))));
        SCRIPTS.put("raForget:carter:0", List.of(tools(person("John Carter", "John Carter fought Tars Tarkas"), person("Dejah Thoris", "married Dejah Thoris of Helium")),
                tools(relation("John Carter", "MARRIED", "Dejah Thoris", "John Carter married Dejah Thoris of Helium")), complete("Carter")));
        SCRIPTS.put("raForget:quill:0", List.of(tools(person("Zorvath Quill", "Zorvath Quill founded the Quill Academy")),
                tools(relation("Zorvath Quill", "TAUGHT", "Dejah Thoris", "Zorvath Quill taught Dejah Thoris the art of navigation")), complete("Quill")));
        SCRIPTS.put("raForget:fleet:0", List.of(tools(person("Kantos Kan", "Kantos Kan commanded the fleet of Helium")),
                tools(relation("Kantos Kan", "RESCUED", "John Carter", "Kantos Kan rescued John Carter from the pits")), complete("Kan")));
        readAll();
        assertTrue(shown("Who taught Dejah Thoris the art of navigation?").contains("Zorvath Quill"), "the canary is served before its removal");
        assertEquals(1, count("MATCH (:RagaEntity {corpus: 'raForget', name: 'Kantos Kan'}) RETURN 1", Map.of()));

        rows("CALL rag.delete(['quill'], {corpus: 'raForget'})");
        rows("CALL rag.ingest([{id: 'fleet', text: $t}], {corpus: 'raForget', chunker: 'structural', chunkSize: 1200, chunkOverlap: 120})", Map.of("t", RemindForgetsTest.CHANGED_NEW.get("text")));

        // before the next raga.ingest: the fleet chunk's id now holds other text, which cites nothing the old text said
        assertEquals(4L, rows("CALL raga.info({corpus: 'raForget'})").get(0).get("quotesRemoved"), "two quotes of each removed chunk");
        for (String q : List.of("Who taught Dejah Thoris the art of navigation?", "Who rescued John Carter from the pits of Zodanga?", "Who married Dejah Thoris?")) {
            assertNoCanary(shown(q), "'" + q + "'");
        }

        // the next raga.ingest forgets, then reads the changed chunk again
        SCRIPTS.put("raForget:fleet:0", List.of(tools(person("Tardos Mors", "Tardos Mors commanded the fleet of Helium")),
                tools(relation("Tardos Mors", "RESCUED", "John Carter", "Tardos Mors rescued John Carter from the pits")), complete("Mors")));
        readAll();
        assertEquals(0L, rows("CALL raga.info({corpus: 'raForget'})").get(0).get("quotesRemoved"));
        assertEquals(List.of("Dejah Thoris", "John Carter", "Tardos Mors"), rows("MATCH (e:RagaEntity {corpus: 'raForget'}) RETURN e.name AS n ORDER BY n")
                .stream().map(r -> r.get("n")).toList());
        assertEquals(List.of("MARRIED", "RESCUED"), rows("MATCH (:RagaEntity {corpus: 'raForget'})-[r:RAGA_REL]->() RETURN r.relType AS t ORDER BY t")
                .stream().map(r -> r.get("t")).toList());
        assertNoCanary(rows("MATCH (n) WHERE n.corpus = 'raForget' AND (n:RagaEntity OR n:RagaAlias OR n:RagaProvenance) RETURN n {.*, embedding: null} AS n"),
                "the RAGA graph after the next raga.ingest");
        assertEquals(0, count("MATCH (p:RagaProvenance {corpus: 'raForget'}) WHERE p.chunkId IS NOT NULL AND NOT (p)-[:RAGA_FROM_CHUNK]->() RETURN count(p)", Map.of()),
                "every quote's chunk is there");
        assertEquals(0, count("MATCH (e:RagaEntity {corpus: 'raForget'}) WHERE NOT ()-[:RAGA_MENTIONS_ENTITY]->(e) RETURN count(e)", Map.of()),
                "every entity is mentioned by a present chunk");
        assertEquals(0, count("MATCH (:RagaEntity {corpus: 'raForget'})-[r:RAGA_REL]->() UNWIND r.evidenceChunkIds AS id WITH id"
                + " WHERE NOT EXISTS { (:Chunk {id: id}) } RETURN count(id)", Map.of()), "every relation cites present chunks only");
        assertEquals(1, count("MATCH (c:Chunk {id: 'raForget:fleet:0'})<-[:RAGA_FROM_CHUNK]-(p:RagaProvenance) WHERE p.quote CONTAINS 'Tardos Mors' RETURN count(DISTINCT c)",
                Map.of()), "the changed chunk was read again");
        assertEquals(List.of(), rows("CALL raga.sync.check({corpus: 'raForget'})"));
    }

    static void assertNoCanary(Object shown, String where) {
        RemindForgetsTest.assertNoCanary(CANARIES, shown, where);
    }
}
