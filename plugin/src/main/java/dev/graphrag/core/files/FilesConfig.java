package dev.graphrag.core.files;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.core.config.Setting;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.lexical.IngestConfig;
import dev.graphrag.core.lexical.Ingestor;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * rag.ingest.files' config: rag.ingest's keys (the structural chunker by default, as files have headings and
 * tables), the metadata every file's Document gets, deleteMissing, failOnError, and the limits, each at most its
 * server setting.
 */
public record FilesConfig(IngestConfig ingest, Map<String, Object> metadata, boolean deleteMissing, boolean failOnError,
                          long maxFileBytes, long maxFiles, long maxCallBytes, long parseTimeoutSeconds, List<String> allowedUrls) {
    /** The Document properties a file sets itself; metadata from the config may not set them either. */
    public static final Set<String> FILE_PROPERTIES = Set.of("source", "contentType", "bytes", "sha256", "pages", "author", "created",
            "modified", "ingestSettings");

    static final Key<Map<String, Object>> METADATA = Key.map("metadata");
    static final Key<Boolean> DELETE_MISSING = Key.bool("deleteMissing", false);
    static final Key<Boolean> FAIL_ON_ERROR = Key.bool("failOnError", false);

    public static FilesConfig parse(Map<String, Object> config, PluginSettings settings, int modelMaxLength) {
        ConfigReader r = ConfigReader.of("rag.ingest.files", config);
        IngestConfig ingest = IngestConfig.parse(r, settings, modelMaxLength, IngestConfig.ChunkerKind.STRUCTURAL);
        Set<String> reserved = new java.util.HashSet<>(Ingestor.RESERVED);
        reserved.addAll(FILE_PROPERTIES);
        Map<String, Object> metadata = Ingestor.metadata("rag.ingest.files: config", METADATA.read(r), reserved);
        boolean deleteMissing = DELETE_MISSING.read(r);
        boolean failOnError = FAIL_ON_ERROR.read(r);
        long maxFileBytes = atMost(r, settings, ServerSettings.INGEST_MAX_FILE_BYTES);
        long maxFiles = atMost(r, settings, ServerSettings.INGEST_MAX_FILES);
        long maxCallBytes = atMost(r, settings, ServerSettings.INGEST_MAX_CALL_BYTES);
        long timeout = atMost(r, settings, ServerSettings.INGEST_PARSE_TIMEOUT_SECONDS);
        r.finish();
        List<String> urls = Stream.of(settings.get(ServerSettings.INGEST_ALLOWED_URLS).split(",")).map(String::strip)
                .filter(s -> !s.isEmpty()).toList();
        return new FilesConfig(ingest, metadata, deleteMissing, failOnError, maxFileBytes, maxFiles, maxCallBytes, timeout, urls);
    }

    /** A limit key whose default and ceiling are both the server's setting that declares it its ceiling. */
    private static long atMost(ConfigReader r, PluginSettings settings, Setting<Long> setting) {
        return Key.atMost(setting.callKey(), 1, settings, setting, setting).read(r);
    }

    /**
     * What decides whether an unchanged file's Document is still current: the model, the chunking and the metadata
     * from the config (the file's bytes are compared by their sha256 beside it).
     */
    public String signature(String model) {
        StringBuilder b = new StringBuilder(FILES_FORMAT).append('\u0000').append(model).append('\u0000').append(ingest.chunker())
                .append('/').append(ingest.chunkSize()).append('/').append(ingest.chunkOverlap()).append('/').append(ingest.sentenceBoundaries());
        new java.util.TreeMap<>(metadata).forEach((k, v) -> b.append('\u0000').append(k).append('=')
                .append(v instanceof String[] a ? Arrays.toString(a) : v));
        return FileDigest.sha256(b.toString());
    }

    /** Bumped when the text a format is turned into changes, so files ingested before are parsed again. */
    static final String FILES_FORMAT = "files-1";
}
