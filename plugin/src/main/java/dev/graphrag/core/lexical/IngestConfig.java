package dev.graphrag.core.lexical;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.PluginSettings;

import java.util.Map;

/** rag.ingest's config: per-call values over the server's graphrag.ingest.* settings. */
public record IngestConfig(String corpus, int chunkSize, int chunkOverlap, boolean sentenceBoundaries, int batchSize,
                           long maxDocumentChars) {

    public static IngestConfig parse(Map<String, Object> config, PluginSettings settings, int modelMaxLength) {
        ConfigReader r = ConfigReader.of("rag.ingest", config);
        String corpus = LexicalGraph.checkCorpusName(r.string("corpus", LexicalGraph.DEFAULT_CORPUS));
        int maxChunk = modelMaxLength - 2; // [CLS] and [SEP]
        int chunkSize = r.integer("chunkSize", (int) Math.min(maxChunk, settings.integer("graphrag.ingest.chunkSize")), 16, maxChunk);
        // a caller who only lowers chunkSize below the default overlap gets an eighth of it, not an error
        long overlapSetting = settings.integer("graphrag.ingest.chunkOverlap");
        int overlap = r.integer("chunkOverlap", (int) (overlapSetting < chunkSize ? overlapSetting : chunkSize / 8), 0, chunkSize - 1);
        boolean sentences = r.bool("sentenceBoundaries", false);
        int batch = (int) r.integerAtMost("batchSize", settings.integer("graphrag.ingest.batchSize"), 1,
                settings.integer("graphrag.ingest.maxBatchSize"), "graphrag.ingest.maxBatchSize");
        // the setting is the default and the ceiling: a caller may only lower it
        long maxChars = r.integerAtMost("maxDocumentChars", settings.integer("graphrag.ingest.maxDocumentChars"), 1,
                settings.integer("graphrag.ingest.maxDocumentChars"), "graphrag.ingest.maxDocumentChars");
        r.finish();
        return new IngestConfig(corpus, chunkSize, overlap, sentences, batch, maxChars);
    }
}
