package dev.graphrag.core.config;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.search.SearchConfig;
import dev.graphrag.core.search.SearchMode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
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
        assertEquals(128, s.integer("graphrag.ingest.chunkSize"));
        assertEquals("llama", s.string("graphrag.llm.model"));
        assertEquals(32, s.integer("graphrag.ingest.chunkOverlap"));
        assertTrue(s.source().endsWith("graphrag.conf"));
    }

    @Test
    void badSettingsAreNamedWithoutTheirValue(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.timeoutMs=sk-secret-value\n");
        var e = assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of()));
        assertTrue(e.getMessage().contains("graphrag.llm.timeoutMs"));
        assertFalse(e.getMessage().contains("sk-secret-value"));
        Files.writeString(dir.resolve("graphrag.conf"), "graphrag.llm.endpiont=http://x\n");
        assertTrue(assertThrows(RagException.class, () -> PluginSettings.load(dir, Map.of())).getMessage().contains("graphrag.llm.endpiont"));
    }
}
