package dev.graphrag.raga;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a tool call gave (the envelopes of docs/raga.md#our-own-rules-where-the-paper-gives-none): success {@code {ok: true, tool, result, warnings}}, failure
 * {@code {ok: false, tool, written: false, error: {code, message, field?, hint?, candidates?}}}. {@code rollback} is set
 * when the caller must roll the call's transaction back (an atomic batch that failed after some of its writes).
 */
public record ToolResult(boolean ok, String tool, Map<String, Object> result, List<String> warnings, ToolError error, boolean rollback) {
    public static ToolResult success(String tool, Map<String, Object> result, List<String> warnings) {
        return new ToolResult(true, tool, result, List.copyOf(warnings), null, false);
    }

    public static ToolResult failure(String tool, ToolError e) {
        return new ToolResult(false, tool, Map.of(), List.of(), e, false);
    }

    public String code() {
        return error == null ? null : error.code();
    }

    public String message() {
        return error == null ? null : error.getMessage();
    }

    /** The error's hint and candidates, as raga.tool's {@code result} column shows them on failure. */
    public Map<String, Object> errorDetails() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (error == null) return m;
        if (error.field() != null) m.put("field", error.field());
        if (error.hint() != null) m.put("hint", error.hint());
        if (error.candidates() != null) m.put("candidates", error.candidates());
        return m;
    }

    public Map<String, Object> envelope() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", ok);
        m.put("tool", tool);
        if (ok) {
            m.put("result", result);
            if (!warnings.isEmpty()) m.put("warnings", warnings);
        } else {
            m.put("written", false);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("code", error.code());
            e.put("message", error.getMessage());
            e.putAll(errorDetails());
            m.put("error", e);
        }
        return m;
    }
}
