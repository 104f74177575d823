package dev.graphrag.remind;

import java.util.List;

/**
 * What replay and the LLM walk read of a ReMind layer, by node and edge id (element ids in the database, any
 * strings in tests): incident edges with their memory norm (read without the vector, so replay can skip cold edges
 * unread), node embeddings, edge memories and the texts prompts show. Traversal ignores stored direction.
 */
public interface MemoryGraph {
    enum Kind { ENTITY, ANCHOR, CHUNK }

    /** An edge as seen from one end: its id, type, the node at the other end and its memory norm (0 when cold). */
    record Edge(String id, String type, String other, double memoryNorm) {}

    Kind kind(String node);

    /** Every edge incident to the node, in a stable order. */
    List<Edge> edges(String node);

    /** The node's unit embedding. */
    float[] embedding(String node);

    /** The edge's memory, or null for the zero vector. */
    double[] memory(String edge);

    /** What a prompt calls the node: an entity's name, an anchor's title, a chunk's id. */
    String name(String node);

    /** A chunk's text (for summaries and answers). */
    String chunkText(String chunk);

    /** The title of a chunk's document, shown beside its text; null when the document has none. */
    String chunkDocumentTitle(String chunk);

    /** A chunk's length in embedding-tokenizer tokens. */
    long chunkTokens(String chunk);

    /** An edge's text: a relation's sentence, an anchor's title on its chunk edge, the contextual skeleton's phrase. */
    String edgeText(String edge);

    /** The anchor's chunk and the edge to it, or null. */
    default Edge chunkOf(String anchor) {
        for (Edge e : edges(anchor)) if (kind(e.other()) == Kind.CHUNK) return e;
        return null;
    }
}
