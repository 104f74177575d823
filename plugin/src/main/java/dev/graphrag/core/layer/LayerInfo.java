package dev.graphrag.core.layer;

import org.neo4j.graphdb.Node;

/**
 * What every layer's info starts with: its version (0 before a first complete build), its state (ready, building,
 * dropping) and whether rag.ingest or rag.delete changed the corpus since the last complete build (the method's index
 * call brings it up to date); {@code meta} holds what the build recorded.
 */
public record LayerInfo(String corpus, long version, String state, boolean chunksChanged, Node meta) {
    /** A count or setting the build recorded on the meta node; 0 when absent. */
    public long recorded(String key) {
        return ((Number) meta.getProperty(key, 0L)).longValue();
    }

    public String embeddingModel() {
        return (String) meta.getProperty("embeddingModel", null);
    }
}
