package dev.graphrag.springai;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.GraphRagException;
import dev.graphrag.client.IngestResult;
import org.springframework.ai.document.Document;
import org.springframework.ai.document.DocumentWriter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Spring AI {@link DocumentWriter} that ingests Documents into a corpus through rag.ingest: each Document's id,
 * text and metadata (strings, numbers, booleans and lists of them become Document properties a {@code where} can
 * filter on; a {@code title} entry becomes the title). The plugin chunks and embeds them itself, so a
 * TokenTextSplitter before it is not needed; an unchanged document is skipped. A document that fails makes the write
 * fail with the plugin's message, after the others were written.
 */
public final class GraphRagDocumentWriter implements DocumentWriter {
    private final GraphRagClient client;
    private final String corpus;
    private final Map<String, Object> config;

    /** {@code config}: rag.ingest's chunking keys (chunker, chunkSize, ...), or empty. */
    public GraphRagDocumentWriter(GraphRagClient client, String corpus, Map<String, Object> config) {
        this.client = Objects.requireNonNull(client, "client");
        this.corpus = Objects.requireNonNull(corpus, "corpus");
        this.config = config == null ? Map.of() : Map.copyOf(config);
    }

    @Override
    public void accept(List<Document> documents) {
        if (documents == null || documents.isEmpty()) return;
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Document d : documents) {
            if (d.getText() == null || d.getText().isBlank()) throw new IllegalArgumentException("document " + d.getId() + " has no text to ingest");
            Map<String, Object> metadata = new LinkedHashMap<>(d.getMetadata());
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("id", d.getId());
            doc.put("text", d.getText());
            Object title = metadata.remove("title");
            if (title != null) doc.put("title", title.toString());
            if (!metadata.isEmpty()) doc.put("metadata", metadata);
            docs.add(doc);
        }
        List<String> failed = new ArrayList<>();
        for (IngestResult r : client.ingest(docs, corpus, config)) if ("failed".equals(r.status())) failed.add(r.documentId());
        if (!failed.isEmpty()) throw new GraphRagException("rag.ingest", "rag.ingest: documents not written: " + failed, null);
    }
}
