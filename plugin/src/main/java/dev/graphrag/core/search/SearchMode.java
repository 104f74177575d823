package dev.graphrag.core.search;

/** dense: vector index; bm25: full-text index; hybrid: min-max cosine and BM25 weighted by denseWeight; rrf: reciprocal rank fusion, weighted by denseWeight too. */
public enum SearchMode { DENSE, BM25, HYBRID, RRF }
