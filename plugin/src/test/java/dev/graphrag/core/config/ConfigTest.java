package dev.graphrag.core.config;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.search.SearchConfig;
import dev.graphrag.core.search.SearchMode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class ConfigTest {
    @Test
    void searchConfigDefaultsAndOverrides() {
        SearchConfig d = SearchConfig.parse(Map.of());
        assertEquals("default", d.corpus());
        assertEquals(10, d.k());
        assertEquals(SearchMode.HYBRID, d.mode());
        SearchConfig c = SearchConfig.parse(Map.of("k", 5L, "mode", "BM25", "corpus", "musique"));
        assertEquals(5, c.k());
        assertEquals(SearchMode.BM25, c.mode());
    }

    @Test
    void unknownKeyIsNamedWithTheValidOnes() {
        var e = assertThrows(RagException.class, () -> SearchConfig.parse(Map.of("topK", 5L)));
        assertTrue(e.getMessage().contains("'topK'"), e.getMessage());
        assertTrue(e.getMessage().contains("k"), e.getMessage());
    }

    @Test
    void wrongTypeAndRangeAreNamed() {
        assertTrue(assertThrows(RagException.class, () -> SearchConfig.parse(Map.of("k", "5"))).getMessage().contains("'k' must be INTEGER, got STRING"));
        assertTrue(assertThrows(RagException.class, () -> SearchConfig.parse(Map.of("k", 0L))).getMessage().contains("between 1 and"));
        assertTrue(assertThrows(RagException.class, () -> SearchConfig.parse(Map.of("mode", "fuzzy"))).getMessage().contains("[dense, bm25, hybrid, rrf]"));
        assertTrue(assertThrows(RagException.class, () -> SearchConfig.parse(Map.of("corpus", "a b"))).getMessage().contains("invalid corpus name"));
    }

    @Test
    void settingsFileThenEnvironment(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.ingest.chunkSize=128\ngraphrag.llm.model=qwen\n# comment\n");
        PluginSettings s = PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_MODEL", "llama", "OTHER", "x"));
        assertEquals(128L, s.get(ServerSettings.INGEST_CHUNK_SIZE));
        assertEquals("llama", s.get(ServerSettings.LLM.model()));
        assertEquals(32L, s.get(ServerSettings.INGEST_CHUNK_OVERLAP));
        assertTrue(s.source().endsWith("graphrag.conf"));
    }

    @Test
    void badSettingsAreNamedWithoutTheirValue(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.timeoutMs=sk-secret-value\n");
        var e = assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of()));
        assertTrue(e.getMessage().contains("graphrag.llm.timeoutMs"));
        assertFalse(e.getMessage().contains("sk-secret-value"));
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.endpiont=http://x\n");
        assertEquals(dir.resolve("graphrag.conf") + ": unknown setting 'graphrag.llm.endpiont', did you mean 'graphrag.llm.endpoint'? (see docs/configuration.md)",
                assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of())).getMessage());
    }

    @Test
    void everySettingIsTypedAndRangedWhereverItIsSet(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        // out of range in the file: the range is named
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.maxConcurrent=0\n");
        assertEquals(dir.resolve("graphrag.conf") + ": setting 'graphrag.llm.maxConcurrent' must be an integer in 1..10000, got 0",
                assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of())).getMessage());
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.temperature=2.5\n");
        assertTrue(assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of())).getMessage().contains("'graphrag.llm.temperature' must be a number in 0.0..2.0"));
        // a choice is read in any case and stored as declared; another word names the choices
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.embedding.pooling=MEAN\n");
        assertEquals("mean", PluginSettings.load(dir, Map.of()).get(ServerSettings.EMBEDDING_POOLING));
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.rerank.provider=jina\n");
        assertTrue(assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of())).getMessage()
                .endsWith("setting 'graphrag.rerank.provider' must be one of none, cohere, voyage, tei, got 'jina'"));
        // from the environment: the variable is named, never the value
        Files.delete(dir.resolve("graphrag.conf"));
        RagException env = assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_TIMEOUT_MS", "sk-live-123")));
        assertEquals("environment variable GRAPHRAG_LLM_TIMEOUT_MS: setting 'graphrag.llm.timeoutMs' must be an integer", env.getMessage());
        assertEquals(false, PluginSettings.load(dir, Map.of("GRAPHRAG_AGRAG_WARM_ON_START", "false"), AgragSettingsForTest.WARM).get(AgragSettingsForTest.WARM));
        // a variable inside a settings group that is no setting is a misspelt setting: an error with the nearest name
        assertEquals("environment: unknown setting variable GRAPHRAG_LLM_ENDPIONT, did you mean 'GRAPHRAG_LLM_ENDPOINT'? (see docs/configuration.md)",
                assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of("GRAPHRAG_LLM_ENDPIONT", "http://x"))).getMessage());
        // any other GRAPHRAG_* variable (the compose file's own) is only named in a warning
        assertEquals(List.of("environment variable GRAPHRAG_PLUGIN_JAR is not a graphrag setting and is ignored (see docs/configuration.md)"),
                PluginSettings.load(dir, Map.of("GRAPHRAG_PLUGIN_JAR", "x.jar")).warnings());
        // every declaration's default parses as itself, so docs/configuration.md's default column is a value the server accepts
        for (Setting<?> setting : PluginSettings.declarations()) {
            assertEquals(setting.dflt(), setting.parse(setting.dfltText(), "test"), setting.name());
        }
    }

    /** A method's contributed setting, as AGRAG declares its own (core's tests import no method). */
    static final class AgragSettingsForTest {
        static final Setting<Boolean> WARM = Setting.bool("graphrag.agrag.warmOnStart", true);
    }
}
