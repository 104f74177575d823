package dev.graphrag.core.search;

/** dense: vector index; bm25: full-text index; hybrid: mean of cosine and max-normalised BM25; rrf: reciprocal rank fusion. */
public enum SearchMode { DENSE, BM25, HYBRID, RRF }
