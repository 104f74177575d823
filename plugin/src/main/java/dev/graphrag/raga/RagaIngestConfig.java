package dev.graphrag.raga;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.llm.ToolLoop;

import java.util.Map;

/**
 * raga.ingest's config (docs/raga/raga.ingest.md; defaults in docs/raga.md#our-own-rules-where-the-paper-gives-none, flat keys as everywhere on the platform). The tool
 * settings are shared with raga.tool through {@link #toolSettings}.
 */
public record RagaIngestConfig(String corpus, boolean batchToolset, int maxRounds, int maxToolCallsPerChunk, int maxObservationChars,
                               int adjacentContextChars, int recentEntities, int promptTypes, long tokenBudgetPerChunk, long tokenBudget, ToolLoop.Mode toolMode,
                               boolean bootstrapSchema, int schemaSampleDocs, int schemaSampleChars, boolean todos, int todoBatchSize, int todoMaxRounds,
                               ToolContext.Settings tools, Map<String, Object> llm) {

    /** toolset: full (every tool) or batch (the batch write tools in place of one call per write). */
    public enum Toolset { FULL, BATCH }

    /** phaseGuard: a tool called outside its phase is a warning, or refused. */
    public enum PhaseGuard { WARN, STRICT }

    /** schemaMode: the agent may propose types (open), or uses the declared ones only (closed). */
    public enum SchemaMode { OPEN, CLOSED }

    static final Key<Toolset> TOOLSET = Key.choice("toolset", Toolset.class, Toolset.FULL);
    static final Key<Integer> MAX_ROUNDS = Key.integer("maxRounds", 12, 1, 100);
    static final Key<Integer> MAX_TOOL_CALLS_PER_CHUNK = Key.integer("maxToolCallsPerChunk", 40, 1, 1000);
    static final Key<Integer> MAX_OBSERVATION_CHARS = Key.integer("maxObservationChars", 4000, 200, 100_000);
    static final Key<Integer> ADJACENT_CONTEXT_CHARS = Key.integer("adjacentContextChars", 400, 0, 10_000);
    static final Key<Integer> RECENT_ENTITIES = Key.integer("recentEntities", 20, 0, 200);
    static final Key<Integer> PROMPT_TYPES = Key.integer("promptTypes", 40, 0, 1000);
    static final Key<Long> TOKEN_BUDGET_PER_CHUNK = Key.longInteger("tokenBudgetPerChunk", 100_000L, 1_000L, 100_000_000L);
    static final Key<Long> TOKEN_BUDGET = Key.longInteger("tokenBudget", 0L, 0L, Long.MAX_VALUE);
    static final Key<ToolLoop.Mode> TOOL_MODE = Key.choice("toolMode", ToolLoop.Mode.class, ToolLoop.Mode.AUTO);
    static final Key<Boolean> BOOTSTRAP_SCHEMA = Key.bool("bootstrapSchema", true);
    static final Key<Integer> SCHEMA_SAMPLE_DOCS = Key.integer("schemaSampleDocs", 3, 1, 20);
    static final Key<Integer> SCHEMA_SAMPLE_CHARS = Key.integer("schemaSampleChars", 2000, 200, 20_000);
    static final Key<Boolean> FOLLOW_UPS = Key.bool("todos", true);
    static final Key<Integer> FOLLOW_UP_BATCH_SIZE = Key.integer("todoBatchSize", 5, 1, 50);
    static final Key<Integer> FOLLOW_UP_MAX_ROUNDS = Key.integer("todoMaxRounds", 8, 1, 50);

    public static RagaIngestConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("raga.ingest", config);
        String corpus = r.corpus();
        boolean batch = TOOLSET.read(r) == Toolset.BATCH;
        RagaIngestConfig c = new RagaIngestConfig(corpus, batch, MAX_ROUNDS.read(r), MAX_TOOL_CALLS_PER_CHUNK.read(r), MAX_OBSERVATION_CHARS.read(r),
                ADJACENT_CONTEXT_CHARS.read(r), RECENT_ENTITIES.read(r), PROMPT_TYPES.read(r), TOKEN_BUDGET_PER_CHUNK.read(r), TOKEN_BUDGET.read(r),
                TOOL_MODE.read(r), BOOTSTRAP_SCHEMA.read(r), SCHEMA_SAMPLE_DOCS.read(r), SCHEMA_SAMPLE_CHARS.read(r), FOLLOW_UPS.read(r),
                FOLLOW_UP_BATCH_SIZE.read(r), FOLLOW_UP_MAX_ROUNDS.read(r), toolSettings(r), LlmConfig.KEY.read(r));
        r.finish();
        return c;
    }

    static final Key<PhaseGuard> PHASE_GUARD = Key.choice("phaseGuard", PhaseGuard.class, PhaseGuard.WARN);
    static final Key<SchemaMode> SCHEMA_MODE = Key.choice("schemaMode", SchemaMode.class, SchemaMode.OPEN);
    private static final ToolContext.Settings TOOL_DEFAULTS = ToolContext.Settings.DEFAULTS;
    static final Key<Integer> EVIDENCE_MIN_CHARS = Key.integer("evidenceMinChars", TOOL_DEFAULTS.evidenceMinChars(), 1, 1000);
    static final Key<Integer> EVIDENCE_MAX_CHARS = Key.integer("evidenceMaxChars", TOOL_DEFAULTS.evidenceMaxChars(), 10, 10_000);
    static final Key<Double> DUP_HINT_THRESHOLD = Key.number("dupHintThreshold", TOOL_DEFAULTS.dupHintThreshold(), -1, 1);
    static final Key<Boolean> REQUIRE_EVIDENCE_ON_UPDATE = Key.bool("requireEvidenceOnUpdate", TOOL_DEFAULTS.requireEvidenceOnUpdate());
    static final Key<Boolean> QUALITY_GATE = Key.bool("qualityGate", TOOL_DEFAULTS.qualityGate());
    static final Key<Integer> MAX_NAME_CHARS = Key.integer("maxNameChars", TOOL_DEFAULTS.maxNameChars(), 1, 1000);
    static final Key<Double> MIN_PRINTABLE_RATIO = Key.number("minPrintableRatio", TOOL_DEFAULTS.minPrintableRatio(), 0, 1);
    static final Key<Double> SIMILAR_TYPE_THRESHOLD = Key.number("similarTypeThreshold", TOOL_DEFAULTS.similarTypeThreshold(), -1, 1.01);

    /** The keys the tools read (raga.ingest's and raga.tool's context share them). */
    public static ToolContext.Settings toolSettings(ConfigReader r) {
        boolean strict = PHASE_GUARD.read(r) == PhaseGuard.STRICT;
        boolean open = SCHEMA_MODE.read(r) == SchemaMode.OPEN;
        int min = EVIDENCE_MIN_CHARS.read(r);
        int max = EVIDENCE_MAX_CHARS.read(r);
        if (min > max) throw new RagException(r.owner() + ": evidenceMinChars (" + min + ") cannot exceed evidenceMaxChars (" + max + ")");
        return new ToolContext.Settings(strict, DUP_HINT_THRESHOLD.read(r), min, max, REQUIRE_EVIDENCE_ON_UPDATE.read(r), QUALITY_GATE.read(r),
                MAX_NAME_CHARS.read(r), MIN_PRINTABLE_RATIO.read(r), TOOL_DEFAULTS.certainty(), open, SIMILAR_TYPE_THRESHOLD.read(r));
    }
}
