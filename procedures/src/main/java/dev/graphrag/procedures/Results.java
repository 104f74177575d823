package dev.graphrag.procedures;

import java.util.List;
import java.util.Map;

/** Result records of the rag.* procedures; field names are the YIELD columns documented in docs/procedures. */
public final class Results {
    private Results() {}

    /** rag.ingest / rag.delete: one row per document. status: created|updated|unchanged|deleted|missing. */
    public record DocumentResult(String documentId, long chunks, String status, long ms) {}

    /** One step of rag.refresh: the procedure it ran, done, skipped or failed, its row (or why it was skipped), its error. */
    public record RefreshStep(String step, String status, Map<String, Object> result, String error, long ms) {}

    /**
     * rag.ingest.files: one row per file (and per deleted Document with deleteMissing). status:
     * created|updated|unchanged|failed|no_text|deleted; error says why for failed and no_text (null otherwise);
     * pages is null for formats without pages.
     */
    public record FileResult(String documentId, String source, String contentType, Long pages, long chunks, String status,
                             String error, long ms) {}

    /**
     * rag.search: one row per chunk; score falls with rank (ChunkSearch.rankScores), fusedScore is the mode's own score,
     * denseScore the cosine, bm25Score Lucene's BM25;
     * note is null unless BM25 had to shorten a long query; pages (the pages the chunk spans) and section (its
     * heading path) are null when the document has none; rerankScore is the reranker's score (null without rerank, or when
     * the reranker failed: note says so).
     */
    public record SearchResult(long rank, String chunkId, String documentId, String text, double score, double fusedScore,
                               double denseScore, double bm25Score, String note, List<Long> pages, String section, Double rerankScore) {}

    /** rag.setup: one row per schema object, created=false when it already existed. */
    public record SchemaResult(String name, boolean created) {}

    /** rag.info: one row. */
    public record InfoResult(String version, String model, long dimensions, String device, String settingsSource,
                             List<Map<String, Object>> corpora) {}

    /** rag.embed.batch: one row per input text. */
    public record EmbeddingResult(long index, List<Double> embedding) {}
}
