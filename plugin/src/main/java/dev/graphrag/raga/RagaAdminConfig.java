package dev.graphrag.raga;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.Map;

/** The configs of RAGA's calls outside the build and the queries: a tool called by hand, the review and todo queues, the vectors' sync. */
public final class RagaAdminConfig {
    static final Key<String> CURRENT_CHUNK_ID = Key.string("currentChunkId", null);
    static final Key<Boolean> FAIL_ON_ERROR = Key.bool("failOnError", false);
    /** Which items a listing shows: one status, or ALL. */
    public enum ListStatus { OPEN, DONE, DROPPED, ALL }

    /** How a person closes an item. */
    public enum Resolved { DONE, DROPPED }

    static final Key<ListStatus> LIST_STATUS = Key.choice("status", ListStatus.class, ListStatus.OPEN);
    static final Key<Long> LIST_LIMIT = Key.longInteger("limit", 100L, 1L, 100_000L);
    static final Key<Resolved> RESOLUTION_STATUS = Key.choice("status", Resolved.class, Resolved.DONE);
    static final Key<String> NOTE = Key.string("note", "");
    static final Key<Integer> SYNC_LIMIT = Key.integer("limit", 10_000, 1, 10_000_000);
    static final Key<Integer> REPAIR_BATCH_SIZE = Key.integer("batchSize", 64, 1, 10_000);

    private RagaAdminConfig() {}

    /** A tool called by hand (raga.tool and the per-tool procedures): the corpus, the chunk it acts for, whether a refusal fails the call, the tool settings. */
    public record ToolCall(String corpus, String currentChunkId, boolean failOnError, ToolContext.Settings settings) {
        public static ToolCall parse(String owner, Map<String, Object> context) {
            ConfigReader r = ConfigReader.of(owner, context == null ? Map.of() : context);
            ToolCall c = new ToolCall(r.corpus(), CURRENT_CHUNK_ID.read(r), FAIL_ON_ERROR.read(r), RagaIngestConfig.toolSettings(r));
            r.finish();
            return c;
        }
    }

    /** raga.review.list and raga.todo.list: the corpus, which status and how many, oldest first. */
    public record Listing(String corpus, ListStatus status, long limit) {
        public static Listing parse(String owner, Map<String, Object> config) {
            ConfigReader r = ConfigReader.of(owner, config);
            Listing c = new Listing(r.corpus(), LIST_STATUS.read(r), LIST_LIMIT.read(r));
            r.finish();
            return c;
        }
    }

    /** raga.review.resolve and raga.todo.resolve: the corpus, DONE or DROPPED and a note. */
    public record Resolution(String corpus, Resolved status, String note) {
        public static Resolution parse(String owner, Map<String, Object> resolution) {
            ConfigReader r = ConfigReader.of(owner, resolution);
            Resolution c = new Resolution(r.corpus(), RESOLUTION_STATUS.read(r), NOTE.read(r));
            r.finish();
            return c;
        }
    }

    /** raga.sync.check: the corpus and at most how many issues. */
    public record SyncCheck(String corpus, int limit) {
        public static SyncCheck parse(Map<String, Object> config) {
            ConfigReader r = ConfigReader.of("raga.sync.check", config);
            SyncCheck c = new SyncCheck(r.corpus(), SYNC_LIMIT.read(r));
            r.finish();
            return c;
        }
    }

    /** raga.sync.repair: the corpus and how many vectors one committed batch re-embeds. */
    public record SyncRepair(String corpus, int batchSize) {
        public static SyncRepair parse(Map<String, Object> config) {
            ConfigReader r = ConfigReader.of("raga.sync.repair", config);
            SyncRepair c = new SyncRepair(r.corpus(), REPAIR_BATCH_SIZE.read(r));
            r.finish();
            return c;
        }
    }
}
