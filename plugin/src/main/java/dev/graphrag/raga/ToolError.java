package dev.graphrag.raga;

import java.util.List;
import java.util.Map;

/**
 * A refused tool call (docs/raga.md#our-own-rules-where-the-paper-gives-none): a code the agent can act on, a message, and optionally the offending argument
 * (JSON pointer), a hint and candidates. Thrown only before anything is written, so a refusal writes nothing.
 */
public final class ToolError extends RuntimeException {
    private final String code;
    private final String field;
    private final String hint;
    private final List<Map<String, Object>> candidates;

    public ToolError(String code, String message) {
        this(code, message, null, null, null);
    }

    public ToolError(String code, String message, String field, String hint, List<Map<String, Object>> candidates) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
        this.hint = hint;
        this.candidates = candidates;
    }

    public String code() { return code; }
    public String field() { return field; }
    public String hint() { return hint; }
    public List<Map<String, Object>> candidates() { return candidates; }

    public ToolError withHint(String h) {
        return new ToolError(code, getMessage(), field, h, candidates);
    }
}
