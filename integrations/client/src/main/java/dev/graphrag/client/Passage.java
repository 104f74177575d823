package dev.graphrag.client;

/** One retrieved chunk: its rank (1 first), text, score (higher is better, in the procedure's own scale) and citation. */
public record Passage(int rank, String text, double score, Citation citation) {
    public String chunkId() {
        return citation.chunkId();
    }

    public String documentId() {
        return citation.documentId();
    }
}
