package dev.graphrag.core.lexical;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.embed.TextTokenizer;
import dev.graphrag.core.text.Chunker;
import dev.graphrag.core.text.SentenceChunker;
import dev.graphrag.core.text.StructuralChunker;
import dev.graphrag.core.text.TokenChunker;

import java.util.Map;

/**
 * rag.ingest's config: per-call values over the server's graphrag.ingest.* settings. What chunkSize and
 * chunkOverlap count depends on the chunker: tokens (token windows), tokens and sentences (sentence packing),
 * characters (structural).
 */
public record IngestConfig(String corpus, ChunkerKind chunker, int chunkSize, int chunkOverlap, boolean sentenceBoundaries, int batchSize,
                           long maxDocumentChars) {

    /** rag.ingest's chunker choice. */
    public enum ChunkerKind { TOKENS, SENTENCES, STRUCTURAL }

    /** Largest chunk of the sentence and structural chunkers; longer than the embedder reads, so marked embeddingTruncated. */
    public static final int MAX_SENTENCE_CHUNK_TOKENS = 8192;
    public static final int MAX_STRUCTURAL_CHUNK_CHARS = 100_000;

    // chunk size and overlap per chunker: tokens (tokens chunker, defaults from graphrag.ingest.*), tokens and sentences
    // (sentences, ReMindRAG's defaults), characters (structural, RAGA's defaults); the ranges that depend on the chunk
    // size are narrowed where they are read
    static final Key<Integer> TOKEN_CHUNK_SIZE = Key.integer("chunkSize", 256, 16, 510);
    static final Key<Integer> TOKEN_OVERLAP = Key.integer("chunkOverlap", 32, 0, 509);
    static final Key<Integer> SENTENCE_CHUNK_SIZE = Key.integer("chunkSize", 750, 16, MAX_SENTENCE_CHUNK_TOKENS);
    static final Key<Integer> SENTENCE_OVERLAP = Key.integer("chunkOverlap", 1, 0, 100);
    static final Key<Integer> STRUCTURAL_CHUNK_SIZE = Key.integer("chunkSize", 1200, 100, MAX_STRUCTURAL_CHUNK_CHARS);
    static final Key<Integer> STRUCTURAL_OVERLAP = Key.integer("chunkOverlap", 120, 0, MAX_STRUCTURAL_CHUNK_CHARS / 2 - 1);
    static final Key<Boolean> SENTENCE_BOUNDARIES = Key.bool("sentenceBoundaries", false);

    public static IngestConfig parse(Map<String, Object> config, PluginSettings settings, int modelMaxLength) {
        ConfigReader r = ConfigReader.of("rag.ingest", config);
        IngestConfig cfg = parse(r, settings, modelMaxLength, ChunkerKind.TOKENS);
        r.finish();
        return cfg;
    }

    /** The ingest keys of a config that has more (rag.ingest.files'); the caller finishes the reader. */
    public static IngestConfig parse(ConfigReader r, PluginSettings settings, int modelMaxLength, ChunkerKind defaultChunker) {
        String corpus = r.corpus();
        ChunkerKind chunker = Key.choice("chunker", ChunkerKind.class, defaultChunker).read(r);
        int chunkSize;
        int overlap;
        switch (chunker) {
            case SENTENCES -> {
                chunkSize = SENTENCE_CHUNK_SIZE.read(r);
                overlap = SENTENCE_OVERLAP.read(r);
            }
            case STRUCTURAL -> {
                chunkSize = STRUCTURAL_CHUNK_SIZE.read(r);
                overlap = r.integer(STRUCTURAL_OVERLAP.name(), STRUCTURAL_OVERLAP.dflt(), 0, chunkSize / 2 - 1);
            }
            default -> {
                int maxChunk = modelMaxLength - 2; // [CLS] and [SEP]
                chunkSize = r.integer(TOKEN_CHUNK_SIZE.name(), (int) Math.min(maxChunk, settings.get(ServerSettings.INGEST_CHUNK_SIZE)), 16, maxChunk);
                // a caller who only lowers chunkSize below the default overlap gets an eighth of it, not an error
                long overlapSetting = settings.get(ServerSettings.INGEST_CHUNK_OVERLAP);
                overlap = r.integer(TOKEN_OVERLAP.name(), (int) (overlapSetting < chunkSize ? overlapSetting : chunkSize / 8), 0, chunkSize - 1);
            }
        }
        boolean sentences = SENTENCE_BOUNDARIES.read(r);
        if (sentences && chunker != ChunkerKind.TOKENS) {
            throw new dev.graphrag.core.RagException(r.owner() + ": sentenceBoundaries belongs to the tokens chunker; the " + chunker.name().toLowerCase(java.util.Locale.ROOT)
                    + " chunker keeps sentences whole by itself");
        }
        int batch = (int) (long) Key.atMost("batchSize", 1, settings, ServerSettings.INGEST_BATCH_SIZE, ServerSettings.INGEST_MAX_BATCH_SIZE).read(r);
        // the setting is the default and the ceiling: a caller may only lower it
        long maxChars = Key.atMost("maxDocumentChars", 1, settings, ServerSettings.INGEST_MAX_DOCUMENT_CHARS, ServerSettings.INGEST_MAX_DOCUMENT_CHARS).read(r);
        return new IngestConfig(corpus, chunker, chunkSize, overlap, sentences, batch, maxChars);
    }

    /** About how many characters a chunk covers (about four a token), for sizing batches. */
    public int approxChunkChars() {
        return chunker == ChunkerKind.STRUCTURAL ? chunkSize : chunkSize * 4;
    }

    /** The chunker this config asks for. */
    public Chunker newChunker(TextTokenizer tokenizer) {
        return switch (chunker) {
            case TOKENS -> new TokenChunker(tokenizer, chunkSize, chunkOverlap, sentenceBoundaries);
            case SENTENCES -> new SentenceChunker(tokenizer, chunkSize, chunkOverlap);
            case STRUCTURAL -> new StructuralChunker(tokenizer, chunkSize, chunkOverlap);
        };
    }
}
