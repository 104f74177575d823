package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HGMem base graph after documents are deleted and changed (docs/hgmem.md#updates-and-deletes): retrieval and new
 * sessions skip what only removed text named from the moment the removal commits, a session that read removed text
 * is refused, the next build removes it (entities a session's memory holds stay, stale, never retrieved) with one X1
 * call per changed chunk, and the base graph then equals a clean build of the same documents.
 */
class HgmemForgetsTest {
    static EvalLlmServer llm;
    static final List<String> NAMES = List.of("Zorvath Quill", "Quill Academy", "Kantos Kan", "Tardos Mors", "John Carter", "Dejah Thoris",
            "Tars Tarkas", "Issus", "Xodar", "Helium");
    static final List<String> CANARIES = List.of("ZORVATH", "Zorvath", "QUILL", "Quill", "KANTOS", "Kantos");
    static final Map<String, Object> ISSUS_DOC = Map.of("id", "issus", "text", "Issus ruled the First Born. Xodar served Issus in the Valley Dor.");

    /** X1 by rule: the known names of each sentence, each pair in one sentence related. */
    static PolicyReply extract(dev.graphrag.oracle.PolicyRequest r) {
        String text = RemindExtractionPolicies.block(r).path("text").asText();
        List<Map<String, Object>> entities = new ArrayList<>(), rels = new ArrayList<>();
        for (String sentence : text.split("(?<=\\.)\\s+")) {
            List<String> here = NAMES.stream().filter(sentence::contains).toList();
            for (String n : here) entities.add(Map.of("name", n, "type", "person", "description", sentence));
            for (int i = 0; i < here.size(); i++) {
                for (int j = i + 1; j < here.size(); j++) {
                    rels.add(Map.of("source", here.get(i), "target", here.get(j), "description", sentence, "keywords", "together", "strength", 2));
                }
            }
        }
        return PolicyReply.jsonOf(Map.of("entities", entities, "relationships", rels, "contentKeywords", List.of("mars")));
    }

    @BeforeAll
    static void start() {
        llm = EvalLlmServer.start();
        HgmemProceduresTest.registerLoop(llm); // the Xodar script's loop: its memory points hold XODAR and ISSUS
        llm.on("hgmem extract", HgmemForgetsTest::extract);
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static void ingest(String corpus, List<Map<String, Object>> docs) {
        rows("CALL rag.ingest($docs, {corpus: $c, chunkSize: 200, chunkOverlap: 0})", Map.of("docs", docs, "c", corpus));
    }

    static Map<String, Object> index(String corpus) {
        return rows("CALL hgmem.index($cfg)", Map.of("cfg", llm.config(corpus, Map.of()))).get(0);
    }

    static List<Map<String, Object>> docs(Map<String, Object>... docs) {
        List<Map<String, Object>> out = new ArrayList<>(List.of(RemindForgetsTest.KEPT.get(0), RemindForgetsTest.KEPT.get(2)));
        out.addAll(List.of(docs));
        return out;
    }

    static String retrieved(String corpus, String q) {
        return rows("CALL hgmem.retrieve(null, $q, {corpus: $c}) YIELD kind, name, text RETURN kind, name, text", Map.of("q", q, "c", corpus)).toString();
    }

    @Test
    void removedTextIsSkippedAtOnceSessionsThatReadItAreRefusedAndTheRebuildEqualsACleanBuild() {
        ingest("hgForget", docs(RemindForgetsTest.CANARY_DOC, RemindForgetsTest.CHANGED_OLD, ISSUS_DOC));
        index("hgForget");
        assertTrue(retrieved("hgForget", "Who is Zorvath Quill?").contains("ZORVATH QUILL"), "the canary is retrieved before its removal");
        // a session whose first step read the canary's chunk, and whose memory holds XODAR and ISSUS (the script's points)
        rows("CALL hgmem.evolve('hgOld', 'Who taught Dejah Thoris the art of navigation?', $cfg)", Map.of("cfg", llm.config("hgForget", Map.of())));
        List<String> read = Arrays.asList((String[]) rows("MATCH (s:HgSession {id: 'hgOld'}) RETURN s.historyChunkIds AS c").get(0).get("c"));
        assertTrue(read.contains("hgForget:quill:0"), "the session read the canary's chunk: " + read);

        rows("CALL rag.delete(['quill', 'issus'], {corpus: 'hgForget'})");
        ingest("hgForget", List.of(RemindForgetsTest.CHANGED_NEW));

        // before the rebuild
        Map<String, Object> info = rows("CALL hgmem.info({corpus: 'hgForget'})").get(0);
        assertTrue((Long) info.get("unsupportedEntities") >= 5, "ZORVATH QUILL, QUILL ACADEMY, KANTOS KAN, ISSUS, XODAR: " + info);
        for (String q : List.of("Who is Zorvath Quill?", "Who is Kantos Kan?", "Who is Issus?", "Who served in the Valley Dor?")) {
            String out = retrieved("hgForget", q);
            assertNoCanary(out, "hgmem.retrieve of '" + q + "'");
            assertFalse(out.contains("ISSUS") || out.contains("Valley Dor"), "the deleted document's entities and text: " + out);
        }
        TestServer.assertFailsCleanly("CALL hgmem.evolve('hgOld', null, $cfg)", Map.of("cfg", llm.config("hgForget", Map.of())),
                "removed or replaced since its last step", "hgForget:quill:0", "start a new session");
        llm.clearLog();
        rows("CALL hgmem.evolve('hgNew', 'Who taught Dejah Thoris the art of navigation?', $cfg)", Map.of("cfg", llm.config("hgForget", Map.of())));
        assertFalse(llm.log().isEmpty());
        for (var request : llm.log()) assertNoCanary(request.body().toString(), "a " + request.step() + " prompt of a new session");

        // the rebuild: one X1 call for the changed chunk; ISSUS and XODAR stay for the old session's memory, stale
        llm.clearLog();
        Map<String, Object> rebuilt = index("hgForget");
        assertEquals(1L, rebuilt.get("llmCalls"), rebuilt.toString());
        info = rows("CALL hgmem.info({corpus: 'hgForget'})").get(0);
        assertEquals(0L, info.get("unsupportedEntities"), info.toString());
        assertEquals(2L, info.get("staleEntities"), info.toString());
        assertFalse(retrieved("hgForget", "Who is Issus?").contains("ISSUS"), "a stale entity is never retrieved");
        assertNoCanary(census("hgForget").toString(), "the base graph after the rebuild");

        ingest("hgClean", docs(RemindForgetsTest.CHANGED_NEW));
        index("hgClean");
        assertEquals(census("hgClean"), census("hgForget"), "the rebuilt base graph equals a clean build of the same documents");
    }

    static void assertNoCanary(Object shown, String where) {
        RemindForgetsTest.assertNoCanary(CANARIES, shown, where);
    }

    /** The base graph by content (stale entities and sessions' provisional ones aside), chunk ids without the corpus. */
    static List<Object> census(String corpus) {
        List<Object> out = new ArrayList<>();
        out.add(rows("MATCH (e:HgEntity {corpus: $c}) WHERE NOT coalesce(e.stale, false) AND NOT e.provisional"
                + " RETURN e.name AS name, e.type AS type, e.description AS d, e.embeddedHash AS h ORDER BY name", Map.of("c", corpus)));
        out.add(new TreeSet<>(rows("MATCH (k:Chunk {corpus: $c})-[:HG_MENTIONS]->(e) RETURN substring(k.id, size($c) + 1) + ' > ' + e.name AS m",
                Map.of("c", corpus)).stream().map(r -> (String) r.get("m")).toList()));
        out.add(rows("MATCH (a:HgEntity {corpus: $c})-[r:HG_RELATED]->(b) WHERE NOT r.provisional RETURN a.name AS a, b.name AS b, r.description AS d,"
                + " r.weight AS w, r.keywords AS k, [id IN r.chunkIds | substring(id, size($c) + 1)] AS chunks, r.embeddedHash AS h ORDER BY a, b",
                Map.of("c", corpus)));
        return out;
    }
}
