package dev.graphrag.raga;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.llm.ToolLoop;

import java.util.Map;

/**
 * raga.ingest's config (docs/raga/ingest.md; defaults from spec §5, flat keys as everywhere on the platform). The tool
 * settings are shared with raga.tool through {@link #toolSettings}.
 */
public record RagaIngestConfig(String corpus, boolean batchToolset, int maxRounds, int maxToolCallsPerChunk, int maxObservationChars,
                               int adjacentContextChars, int recentEntities, int promptTypes, long tokenBudgetPerChunk, long tokenBudget, ToolLoop.Mode toolMode,
                               boolean bootstrapSchema, int schemaSampleDocs, int schemaSampleChars, boolean todos, int todoBatchSize, int todoMaxRounds,
                               ToolContext.Settings tools, Map<String, Object> llm) {

    public static RagaIngestConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("raga.ingest", config);
        String corpus = r.corpus();
        String toolset = r.string("toolset", "full");
        if (!toolset.equals("full") && !toolset.equals("batch")) throw new RagException("raga.ingest: config key 'toolset' must be one of [full, batch], got '" + toolset + "'");
        int maxRounds = r.integer("maxRounds", 12, 1, 100);
        int maxCalls = r.integer("maxToolCallsPerChunk", 40, 1, 1000);
        int obs = r.integer("maxObservationChars", 4000, 200, 100_000);
        int adjacent = r.integer("adjacentContextChars", 400, 0, 10_000);
        int recent = r.integer("recentEntities", 20, 0, 200);
        int promptTypes = r.integer("promptTypes", 40, 0, 1000);
        long perChunk = r.integer("tokenBudgetPerChunk", 100_000L, 1_000L, 100_000_000L);
        long total = r.integer("tokenBudget", 0L, 0L, Long.MAX_VALUE);
        ToolLoop.Mode mode = r.choice("toolMode", ToolLoop.Mode.class, ToolLoop.Mode.AUTO);
        boolean bootstrap = r.bool("bootstrapSchema", true);
        int sampleDocs = r.integer("schemaSampleDocs", 3, 1, 20);
        int sampleChars = r.integer("schemaSampleChars", 2000, 200, 20_000);
        boolean todos = r.bool("todos", true);
        int todoBatch = r.integer("todoBatchSize", 5, 1, 50);
        int todoRounds = r.integer("todoMaxRounds", 8, 1, 50);
        ToolContext.Settings tools = toolSettings(r);
        Map<String, Object> llm = r.map("llm");
        r.finish();
        return new RagaIngestConfig(corpus, toolset.equals("batch"), maxRounds, maxCalls, obs, adjacent, recent, promptTypes, perChunk, total, mode, bootstrap, sampleDocs,
                sampleChars, todos, todoBatch, todoRounds, tools, llm);
    }

    /** The keys the tools read (raga.ingest's and raga.tool's context share them). */
    public static ToolContext.Settings toolSettings(ConfigReader r) {
        ToolContext.Settings d = ToolContext.Settings.DEFAULTS;
        String guard = r.string("phaseGuard", "warn");
        if (!guard.equals("warn") && !guard.equals("strict")) throw new RagException(r.owner() + ": config key 'phaseGuard' must be one of [warn, strict], got '" + guard + "'");
        String schemaMode = r.string("schemaMode", "open");
        if (!schemaMode.equals("open") && !schemaMode.equals("closed")) {
            throw new RagException(r.owner() + ": config key 'schemaMode' must be one of [open, closed], got '" + schemaMode + "'");
        }
        int min = r.integer("evidenceMinChars", d.evidenceMinChars(), 1, 1000);
        int max = r.integer("evidenceMaxChars", d.evidenceMaxChars(), 10, 10_000);
        if (min > max) throw new RagException(r.owner() + ": evidenceMinChars (" + min + ") cannot exceed evidenceMaxChars (" + max + ")");
        return new ToolContext.Settings(guard.equals("strict"), r.number("dupHintThreshold", d.dupHintThreshold(), -1, 1), min, max,
                r.bool("requireEvidenceOnUpdate", d.requireEvidenceOnUpdate()), r.bool("qualityGate", d.qualityGate()),
                r.integer("maxNameChars", d.maxNameChars(), 1, 1000), r.number("minPrintableRatio", d.minPrintableRatio(), 0, 1), d.certainty(),
                schemaMode.equals("open"), r.number("similarTypeThreshold", d.similarTypeThreshold(), -1, 1.01));
    }
}
