package dev.graphrag.core.extract;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

/**
 * The keys every LLM-extracting layer build reads (hgmem.index, remind.index): chunks extracted at once, operations
 * per committed batch, and what a chunk whose extraction fails does to the build ({@link ChunkExtraction.OnError}:
 * by default a chunk whose reply is unusable is skipped, and the next run retries it). agrag.index reads the last two
 * with its own batch size.
 */
public record ExtractionConfig(int extractionConcurrency, int batchSize, ChunkExtraction.OnError extractionErrors) {
    public static final Key<Integer> EXTRACTION_CONCURRENCY = Key.integer("extractionConcurrency", 4, 1, 64);
    public static final Key<Integer> BATCH_SIZE = Key.integer("batchSize", 500, 1, 100_000);
    public static final Key<ChunkExtraction.OnError> EXTRACTION_ERRORS = Key.choice("extractionErrors", ChunkExtraction.OnError.class,
            ChunkExtraction.OnError.SKIP_UNUSABLE);

    public static ExtractionConfig read(ConfigReader r) {
        return new ExtractionConfig(EXTRACTION_CONCURRENCY.read(r), BATCH_SIZE.read(r), EXTRACTION_ERRORS.read(r));
    }
}
