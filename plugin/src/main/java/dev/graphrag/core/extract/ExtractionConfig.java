package dev.graphrag.core.extract;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

/**
 * The keys every LLM-extracting layer build reads (hgmem.index, remind.index): chunks extracted at once, operations
 * per committed batch, and what a chunk whose extraction fails does to the build ({@link ChunkExtraction.OnError}:
 * by default a chunk whose reply is unusable is skipped, and the next run retries it). agrag.index reads the first and
 * the last with its own batch size.
 */
public record ExtractionConfig(int extractionConcurrency, int batchSize, ChunkExtraction.OnError extractionErrors) {
    /** 0 (the default): as many chunks at once as the server's LLM permits (graphrag.llm.maxConcurrent), see {@link #parallelism}. */
    public static final Key<Integer> EXTRACTION_CONCURRENCY = Key.integer("extractionConcurrency", 0, 0, 64);

    /**
     * Chunks extracted at once: the given number, or with 0 the server's LLM permits (at most 64), so a server whose
     * graphrag.llm.maxConcurrent matches its model server's capacity keeps that many requests in flight. More would only
     * wait for a permit.
     */
    public static int parallelism(int extractionConcurrency, dev.graphrag.core.llm.LlmClient llm) {
        return extractionConcurrency > 0 ? extractionConcurrency : Math.max(1, Math.min(64, llm.maxConcurrent()));
    }
    public static final Key<Integer> BATCH_SIZE = Key.integer("batchSize", 500, 1, 100_000);
    public static final Key<ChunkExtraction.OnError> EXTRACTION_ERRORS = Key.choice("extractionErrors", ChunkExtraction.OnError.class,
            ChunkExtraction.OnError.SKIP_UNUSABLE);

    public static ExtractionConfig read(ConfigReader r) {
        return new ExtractionConfig(EXTRACTION_CONCURRENCY.read(r), BATCH_SIZE.read(r), EXTRACTION_ERRORS.read(r));
    }
}
