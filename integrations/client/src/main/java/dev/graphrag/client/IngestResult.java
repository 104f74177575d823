package dev.graphrag.client;

/**
 * One document of rag.ingest or one file of rag.ingest.files: its id, status (new, updated, unchanged, failed, ...),
 * chunks written, and for files the source, content type, pages and the error of a file that failed.
 */
public record IngestResult(String documentId, String status, long chunks, String source, String contentType, Long pages, String error) {}
