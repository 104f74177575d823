package dev.graphrag.client;

/** A call the plugin refused or that failed on the server: the message is the plugin's own ("rag.search: where ..."). */
public final class GraphRagException extends RuntimeException {
    private final String procedure;

    public GraphRagException(String procedure, String message, Throwable cause) {
        super(message, cause);
        this.procedure = procedure;
    }

    /** The procedure that failed, e.g. {@code agrag.answer}. */
    public String procedure() {
        return procedure;
    }
}
