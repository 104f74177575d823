package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ReMind layer after documents are deleted, changed and added again (docs/remind.md#updates-and-deletes): from the
 * moment the removing call commits no row or prompt shows what only the removed text said (canary names), the next
 * build removes it with LLM calls for the changed chunks alone and keeps the memories of what stays, and the layer
 * then equals a clean build of the same documents.
 */
class RemindForgetsTest {
    static EvalLlmServer llm;

    /** Canaries: Zorvath Quill lives only in the deleted document, Kantos Kan only in the old text of the changed one. */
    static final Map<String, Object> CANARY_DOC = Map.of("id", "quill", "text",
            "Zorvath Quill founded the Quill Academy in Helium. Zorvath Quill taught Dejah Thoris the art of navigation.");
    static final Map<String, Object> CHANGED_OLD = Map.of("id", "kantos", "text",
            "Kantos Kan commanded the fleet of Helium. Kantos Kan rescued John Carter from the pits of Zodanga.");
    static final Map<String, Object> CHANGED_NEW = Map.of("id", "kantos", "text",
            "Tardos Mors commanded the fleet of Helium. Tardos Mors rescued John Carter from the pits of Zodanga.");
    static final List<Map<String, Object>> KEPT = List.of(
            Map.of("id", "carter", "text", "John Carter fought Tars Tarkas on Barsoom. John Carter married Dejah Thoris of Helium."),
            Map.of("id", "issus", "text", "Issus ruled the First Born. Xodar served Issus in the Valley Dor."),
            Map.of("id", "tarkas", "text", "Tars Tarkas led the Tharks. Tars Tarkas befriended John Carter in the dead sea bottoms."));
    static final List<String> CANARIES = List.of("Zorvath", "Quill Academy", "Kantos");

    @BeforeAll
    static void start() {
        llm = RemindExtractionPolicies.register(EvalLlmServer.start());
        RemindProceduresTest.registerWalker(llm);
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static void ingest(String corpus, List<Map<String, Object>> docs) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunker: 'sentences', chunkSize: 16, chunkOverlap: 0})", Map.of("docs", docs, "c", corpus));
    }

    static Map<String, Object> index(String corpus) {
        return rows("CALL remind.index($cfg)", Map.of("cfg", llm.config(corpus, Map.of()))).get(0);
    }

    static List<Map<String, Object>> with(List<Map<String, Object>> kept, Map<String, Object>... more) {
        List<Map<String, Object>> out = new ArrayList<>(kept);
        out.addAll(List.of(more));
        return out;
    }

    @Test
    void deletedAndChangedTextIsHiddenAtOnceRemovedByTheNextBuildAndTheLayerEqualsACleanBuild() {
        ingest("rmForget", with(KEPT, CANARY_DOC, CHANGED_OLD));
        index("rmForget");
        assertTrue(seedNames("rmForget", "Who is Zorvath Quill?").contains("Zorvath Quill"), "the canary is in the layer before its removal");
        // memories on an edge that stays and on one only the canary supports
        rows("MATCH (:RmEntity {corpus: 'rmForget', name: 'John Carter'})-[r:RM_RELATION]-(:RmEntity {name: 'Tars Tarkas'})"
                + " SET r.memoryNorm = 0.5, r.enhanceCount = 3");
        rows("MATCH (:RmEntity {corpus: 'rmForget', name: 'Zorvath Quill'})-[r:RM_RELATION]-() SET r.memoryNorm = 0.7");

        long removed = chunks("rmForget", "quill") + chunks("rmForget", "kantos");
        rows("CALL rag.delete(['quill'], {corpus: 'rmForget'})");
        ingest("rmForget", List.of(CHANGED_NEW));
        long added = chunks("rmForget", "kantos");

        // before the rebuild: nothing the canaries' text said reaches a row or a prompt
        Map<String, Object> info = rows("CALL remind.info({corpus: 'rmForget'})").get(0);
        assertEquals(removed, info.get("chunksRemoved"), "the deleted document's chunks and the changed one's old ones: " + info);
        assertEquals(added, info.get("chunksNew"), info.toString());
        for (String name : List.of("Zorvath Quill", "Kantos Kan")) {
            assertNoCanary(seedNames("rmForget", "Who is " + name + "?"), "seeds of a question naming " + name);
        }
        // questions the removed text answered, naming no canary themselves, so any canary in a prompt came from the layer
        for (String q : List.of("Who founded the academy in Helium and taught navigation?", "Who commanded the fleet of Helium?")) {
            llm.clearLog();
            Map<String, Object> answer = rows("CALL remind.answer($q, $cfg)", Map.of("q", q, "cfg", llm.config("rmForget", Map.of("memorize", false)))).get(0);
            assertNoCanary(String.valueOf(answer), "remind.answer's row");
            assertFalse(llm.log().isEmpty());
            for (var request : llm.log()) assertNoCanary(request.body().toString(), "a " + request.step() + " prompt");
            List<Map<String, Object>> traversed = rows("CALL remind.traverse($q, {corpus: 'rmForget', llmGuided: false}) YIELD nodes, relationships"
                    + " RETURN [n IN nodes | coalesce(n.name, n.title, n.text)] AS names, [r IN relationships | r.text] AS texts", Map.of("q", q));
            assertNoCanary(String.valueOf(traversed), "remind.traverse's replay");
        }

        // the rebuild: LLM calls for the changed document's two chunks only, the canaries gone, kept memories kept
        llm.clearLog();
        Map<String, Object> rebuilt = index("rmForget");
        assertEquals(true, rebuilt.get("reassembled"), rebuilt.toString());
        assertEquals(removed, rebuilt.get("removedChunks"));
        assertExtractedOnly(rebuilt, added);
        assertNoCanary(census("rmForget").toString(), "the layer after the rebuild");
        assertEquals(List.of(Map.of("norm", 0.5, "count", 3L)), rows("MATCH (:RmEntity {corpus: 'rmForget', name: 'John Carter'})-[r:RM_RELATION]-"
                + "(:RmEntity {name: 'Tars Tarkas'}) RETURN r.memoryNorm AS norm, r.enhanceCount AS count"));
        info = rows("CALL remind.info({corpus: 'rmForget'})").get(0);
        assertEquals(0L, info.get("chunksRemoved"));
        assertEquals(0L, info.get("chunksNew"));
        assertEquals(false, info.get("chunksChanged"));

        List<Map<String, Object>> finalDocs = with(KEPT, CHANGED_NEW);
        ingest("rmClean", finalDocs);
        index("rmClean");
        assertEquals(census("rmClean"), census("rmForget"), "the rebuilt layer equals a clean build of the same documents");

        // the deleted document comes back (its id sorts before kept ones): equal to a clean build again, from its stored extractions
        ingest("rmForget", List.of(CANARY_DOC));
        llm.clearLog();
        Map<String, Object> readded = index("rmForget");
        assertExtractedOnly(readded, chunks("rmForget", "quill"));
        assertEquals(true, readded.get("reassembled"), "its id sorts before kept ones: " + readded);
        ingest("rmClean2", with(finalDocs, CANARY_DOC));
        index("rmClean2");
        assertEquals(census("rmClean2"), census("rmForget"));
        assertTrue(seedNames("rmForget", "Who is Zorvath Quill?").contains("Zorvath Quill"), "what came back is served again");
    }

    /** LLM calls for the new chunks alone: one entities and one title call each, a triples call for those with entities. */
    static void assertExtractedOnly(Map<String, Object> built, long newChunks) {
        Map<?, ?> byStep = (Map<?, ?>) built.get("tokensByStep");
        assertEquals(newChunks, ((Map<?, ?>) byStep.get("remind.index entities")).get("calls"), built.toString());
        assertEquals(newChunks, ((Map<?, ?>) byStep.get("remind.index title")).get("calls"), built.toString());
        assertTrue((Long) built.get("llmCalls") <= 3 * newChunks, built.toString());
    }

    static long chunks(String corpus, String document) {
        return TestServer.count("MATCH (c:Chunk {corpus: $c, documentId: $d}) RETURN count(c)", Map.of("c", corpus, "d", document));
    }

    static List<String> seedNames(String corpus, String q) {
        return rows("CALL remind.seeds($q, {corpus: $c, seedCount: 8}) YIELD node RETURN coalesce(node.name, node.title) AS n", Map.of("q", q, "c", corpus))
                .stream().map(r -> String.valueOf(r.get("n"))).toList();
    }

    static void assertNoCanary(Object shown, String where) {
        assertNoCanary(CANARIES, shown, where);
    }

    /** No canary name of removed text in what a row, a prompt or the graph shows (the layers' forget tests share it). */
    static void assertNoCanary(List<String> canaries, Object shown, String where) {
        for (String c : canaries) assertFalse(String.valueOf(shown).contains(c), where + " shows removed text ('" + c + "'): " + shown);
    }

    /** The layer by content, chunk ids without the corpus: entities in creation order, mentions, relations, anchors, the chain. */
    static List<Object> census(String corpus) {
        String cut = "substring(%s, size($c) + 1)";
        List<Object> out = new ArrayList<>();
        out.add(rows("MATCH (e:RmEntity {corpus: $c}) RETURN e.name AS name, e.createdSeq AS seq ORDER BY seq", Map.of("c", corpus)));
        out.add(new TreeSet<>(rows("MATCH (e:RmEntity {corpus: $c})-[:RM_MENTIONED_IN]->(a) RETURN e.name + ' @ ' + " + cut.formatted("a.chunkId") + " AS m",
                Map.of("c", corpus)).stream().map(r -> (String) r.get("m")).toList()));
        out.add(new TreeSet<>(rows("MATCH (a:RmEntity {corpus: $c})-[r:RM_RELATION]->(b) RETURN a.name + ' > ' + b.name + ': ' + r.text + ' @ ' + "
                + cut.formatted("r.chunkId") + " AS r", Map.of("c", corpus)).stream().map(r -> (String) r.get("r")).toList()));
        out.add(rows("MATCH (a:RmAnchor {corpus: $c})-[h:RM_HAS_CHUNK]->(k:Chunk) RETURN " + cut.formatted("a.chunkId") + " AS chunk, a.title AS title,"
                + " h.text AS text, k.id = a.chunkId AS own ORDER BY chunk", Map.of("c", corpus)));
        out.add(new TreeSet<>(rows("MATCH (a:RmAnchor {corpus: $c})-[:RM_NEXT]->(b) RETURN " + cut.formatted("a.chunkId") + " + ' > ' + "
                + cut.formatted("b.chunkId") + " AS n", Map.of("c", corpus)).stream().map(r -> (String) r.get("n")).toList()));
        return out;
    }
}
