package dev.graphrag.core;

/** The one error type users see: its message names the problem (key, id, corpus, step) in plain words. */
public class RagException extends RuntimeException {
    public RagException(String message) {
        super(message);
    }

    public RagException(String message, Throwable cause) {
        super(message, cause);
    }
}
