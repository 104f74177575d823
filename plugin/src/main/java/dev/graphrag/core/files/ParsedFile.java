package dev.graphrag.core.files;

import dev.graphrag.core.text.TextLayout;

import java.util.Map;

/**
 * A file's text as Markdown blocks, its title (from the file's metadata or its first heading; null when neither),
 * its content type, where its pages and headings are, and what the file says of itself (author, created,
 * modified: ISO-8601 strings).
 */
public record ParsedFile(String text, String title, String contentType, TextLayout layout, Map<String, Object> metadata) {
    public ParsedFile {
        metadata = Map.copyOf(metadata);
    }
}
