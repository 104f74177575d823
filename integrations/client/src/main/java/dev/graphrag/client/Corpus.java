package dev.graphrag.client;

import java.util.List;

/** A corpus of the database: its documents and chunks, the embedding model, and the methods whose layer is built over it. */
public record Corpus(String name, long documents, long chunks, String embeddingModel, List<Method> layers) {
    public Corpus {
        layers = List.copyOf(layers);
    }
}
