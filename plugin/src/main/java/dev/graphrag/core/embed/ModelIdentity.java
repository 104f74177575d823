package dev.graphrag.core.embed;

import org.neo4j.graphdb.Node;

/**
 * Which embedding model a layer's vectors come from, recorded on its meta node: the model's name and dimensions, and
 * the embedding of a fixed probe text. Another model (even of the same dimension, or under the same name) embeds the
 * probe elsewhere, and vectors of two models must never be compared or mixed.
 */
public final class ModelIdentity {
    /** Never change this text: stored probes of existing layers are embeddings of it (it first served ReMind's layer). */
    static final String PROBE = "ReMindRAG model identity probe: the quick brown fox jumps over the lazy dog near the river bank.";
    /** The least cosine between the stored and the current probe that still counts as the same model (int8 CPU vs GPU differ by ~1e-3). */
    static final double SAME_MODEL = 0.99;

    private ModelIdentity() {}

    /** Writes the server's model identity onto {@code meta} (embeddingModel, embeddingDimensions, modelProbe). */
    public static void record(Node meta, EmbeddingService embeddings) {
        meta.setProperty("embeddingModel", embeddings.modelName());
        meta.setProperty("embeddingDimensions", (long) embeddings.dimensions());
        meta.setProperty("modelProbe", embeddings.embed(PROBE));
    }

    /** Whether the vectors recorded by {@link #record} on {@code meta} come from the server's model. */
    public static boolean matches(Node meta, EmbeddingService embeddings) {
        long dims = ((Number) meta.getProperty("embeddingDimensions", 0L)).longValue();
        float[] probe = floats(meta.getProperty("modelProbe", null));
        return dims == embeddings.dimensions() && probe != null && probe.length == embeddings.dimensions()
                && EmbeddingService.cosine(probe, embeddings.embed(PROBE)) >= SAME_MODEL;
    }

    /** "'name' (n dimensions)" of the model recorded on {@code meta}, for error messages. */
    public static String recorded(Node meta) {
        return "'" + meta.getProperty("embeddingModel", "?") + "' (" + ((Number) meta.getProperty("embeddingDimensions", 0L)).longValue() + " dimensions)";
    }

    /** A stored vector as floats, whichever numeric array type wrote it (Cypher writes double[]); null otherwise. */
    public static float[] floats(Object v) {
        if (v instanceof float[] f) return f;
        if (v instanceof double[] d) {
            float[] out = new float[d.length];
            for (int i = 0; i < d.length; i++) out[i] = (float) d[i];
            return out;
        }
        return null;
    }
}
