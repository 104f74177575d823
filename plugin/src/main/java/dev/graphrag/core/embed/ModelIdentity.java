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

    /**
     * Refuses a layer whose vectors come from another model than the server's. {@code layer} names it in the message
     * ("ReMind layer"), {@code method} its procedures' namespace, {@code what} what would be mixed and {@code cost} what
     * a rebuild loses (may be empty).
     */
    public static void require(Node meta, EmbeddingService embeddings, String corpus, String layer, String method, String what, String cost) {
        if (matches(meta, embeddings)) return;
        throw new dev.graphrag.core.RagException("the " + layer + " of corpus '" + corpus + "' was built with embedding model " + recorded(meta)
                + " but the server now embeds with '" + embeddings.modelName() + "' (" + embeddings.dimensions() + " dimensions), whose vectors lie"
                + " elsewhere: " + what + " would be mixed with another model's. Configure the model it was built with, or rebuild: CALL " + method
                + ".drop({corpus: '" + corpus + "'}) then " + method + ".index" + (cost.isEmpty() ? "" : " (" + cost + ")"));
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
