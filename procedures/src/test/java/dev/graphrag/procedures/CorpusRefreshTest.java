package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.RemindExtractionPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rag.refresh on a folder of files a user edits: one call reads the changed and removed files again and builds again the
 * layers built on the corpus with their recorded configs (never the API key), one row per step; a second call finds
 * nothing to do; bad config is named.
 */
class CorpusRefreshTest {
    static EvalLlmServer llm;

    @BeforeAll
    static void start() {
        llm = RemindExtractionPolicies.register(EvalLlmServer.start());
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    static Map<String, Object> llmWithKey() {
        Map<String, Object> m = new LinkedHashMap<>(llm.llmConfig());
        m.put("apiKey", "sk-refresh-never-stored");
        return m;
    }

    static Map<String, Map<String, Object>> byStep(List<Map<String, Object>> rows) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) out.put((String) r.get("step"), r);
        return out;
    }

    @Test
    void oneCallReadsChangedFilesAgainAndRebuildsTheBuiltLayersWithTheirRecordedConfigs() throws Exception {
        Path dir = Files.createDirectories(TestServer.importDir().resolve("refreshed"));
        Files.writeString(dir.resolve("carter.md"), "John Carter fought Tars Tarkas on Barsoom. John Carter married Dejah Thoris of Helium.\n");
        Files.writeString(dir.resolve("teacher.md"), "Zorvath Quill taught Dejah Thoris on Barsoom. Zorvath Quill founded an academy in Helium.\n");
        Files.writeString(dir.resolve("fleet.md"), "Kantos Kan commanded the fleet of Helium. Kantos Kan rescued John Carter on Barsoom.\n");
        rows("CALL rag.ingest.files('refreshed/*.md', {corpus: 'rf', chunker: 'sentences', chunkSize: 16, chunkOverlap: 0})");
        rows("CALL agrag.index({corpus: 'rf', relations: 'cooccurrence'})");
        rows("CALL remind.index({corpus: 'rf', llm: $llm})", Map.of("llm", llmWithKey()));
        assertEquals(1, count("MATCH (e:RmEntity {corpus: 'rf', name: 'Zorvath Quill'}) RETURN count(e)", Map.of()));

        Files.delete(dir.resolve("teacher.md"));
        Files.writeString(dir.resolve("fleet.md"), "Tardos Mors commanded the fleet of Helium. Tardos Mors rescued John Carter on Barsoom.\n");
        llm.clearLog();
        Map<String, Map<String, Object>> steps = byStep(rows("CALL rag.refresh({corpus: 'rf', llm: $llm})", Map.of("llm", llmWithKey())));
        assertEquals(List.of("rag.ingest.files", "agrag.index", "remind.index", "hgmem.index", "raga.ingest"), List.copyOf(steps.keySet()));
        assertEquals(Map.of("deleted", 1L, "updated", 1L, "unchanged", 1L), steps.get("rag.ingest.files").get("result"));
        assertEquals("done", steps.get("agrag.index").get("status"));
        Map<?, ?> remind = (Map<?, ?>) steps.get("remind.index").get("result");
        assertEquals("done", steps.get("remind.index").get("status"), String.valueOf(steps.get("remind.index")));
        long fleetChunks = count("MATCH (c:Chunk {corpus: 'rf', documentId: 'refreshed/fleet.md'}) RETURN count(c)", Map.of());
        assertEquals(fleetChunks, remind.get("newChunks"), "only the changed file's chunks are read by the LLM: " + remind);
        assertEquals((long) llm.log().size(), remind.get("llmCalls"));
        for (String skipped : List.of("hgmem.index", "raga.ingest")) {
            assertEquals("skipped", steps.get(skipped).get("status"));
            assertEquals(Map.of("reason", "not built on this corpus"), steps.get(skipped).get("result"));
        }
        // the removed and the replaced text are gone from both layers, and from what the graph serves
        for (String canary : List.of("zorvath", "kantos")) {
            assertEquals(0, count("MATCH (e) WHERE (e:AgEntity OR e:RmEntity) AND e.corpus = 'rf' AND toLower(e.name) CONTAINS $n RETURN count(e)",
                    Map.of("n", canary)), canary);
        }
        assertEquals("cooccurrence", rows("MATCH (m:AgMeta {corpus: 'rf'}) RETURN m.relations AS r").get(0).get("r"), "agrag.index ran with its recorded config");
        // configs are recorded without the llm map: no API key is ever stored
        for (Map<String, Object> r : rows("MATCH (n) WHERE n.buildConfig IS NOT NULL OR n.fileIngests IS NOT NULL RETURN coalesce(n.buildConfig, '') + coalesce(n.fileIngests, '') AS c")) {
            assertFalse(((String) r.get("c")).contains("sk-refresh") || ((String) r.get("c")).contains("\"llm\""), String.valueOf(r.get("c")));
        }

        // nothing changed since: every step finds nothing to do
        llm.clearLog();
        steps = byStep(rows("CALL rag.refresh({corpus: 'rf', llm: $llm, layers: ['remind']})", Map.of("llm", llm.llmConfig())));
        assertEquals(Map.of("unchanged", 2L), steps.get("rag.ingest.files").get("result"));
        assertEquals(Map.of("reason", "not asked for"), steps.get("agrag.index").get("result"));
        assertEquals(0L, ((Map<?, ?>) steps.get("remind.index").get("result")).get("llmCalls"));
        assertTrue(llm.log().isEmpty());

        assertFailsCleanly("CALL rag.refresh({corpus: 'rf', layers: ['remind', 'graphrag']})", Map.of(), "layers", "graphrag");
        assertFailsCleanly("CALL rag.refresh({corpus: 'rf', delete: true})", Map.of(), "delete");
        assertFailsCleanly("CALL rag.refresh({corpus: 'no-such-corpus'})", Map.of(), "no-such-corpus");
    }
}
