package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

/** An endpoint answered with a status that no retry fixes (4xx but 429): the status and a sanitised excerpt. */
public final class LlmHttpException extends RagException {
    private final int status;
    private final String excerpt;

    LlmHttpException(String message, int status, String excerpt) {
        super(message);
        this.status = status;
        this.excerpt = excerpt;
    }

    public int status() {
        return status;
    }

    /** The remote error text (already short and redacted). */
    public String excerpt() {
        return excerpt;
    }

    /** Whether the endpoint says it does not take a request feature (tools, a json_schema response format). */
    boolean rejects(String feature) {
        return status == 400 || status == 422 || status == 501 ? excerpt.toLowerCase(java.util.Locale.ROOT).contains(feature) : false;
    }
}
