package dev.graphrag.evaluation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Why a question failed, in the categories a user acts on (a larger window, a longer timeout, a model that writes
 * JSON, fewer concurrent requests), read from the error the procedure raised; the message itself goes to the log,
 * cut to a readable length. The plugin's errors never carry an API key (docs/security.md), and none is added here.
 */
record Failure(String cause, String message) {
    private static final int MAX_MESSAGE = 600;

    /** Causes in the order they are tested: the first whose pattern the message matches. */
    private static final List<Map.Entry<String, Pattern>> CAUSES = List.of(
            Map.entry("context window", Pattern.compile("prompt tokens of the|contextTokens|context window|context length|too large for|maximum context|exceeds the", Pattern.CASE_INSENSITIVE)),
            Map.entry("timeout", Pattern.compile("timed? ?out|timeout", Pattern.CASE_INSENSITIVE)),
            Map.entry("malformed reply", Pattern.compile("unusable JSON|not JSON|no choices|could not be parsed|malformed|invalid JSON", Pattern.CASE_INSENSITIVE)),
            Map.entry("server busy", Pattern.compile("server is busy|LLM permits|429|too many requests", Pattern.CASE_INSENSITIVE)),
            Map.entry("unreachable", Pattern.compile("connection refused|cannot reach|unknown host|UnknownHost|No route", Pattern.CASE_INSENSITIVE)),
            Map.entry("LLM error", Pattern.compile("LLM step '[^']*' failed|HTTP [45]\\d\\d|status [45]\\d\\d", Pattern.CASE_INSENSITIVE)),
            Map.entry("layer not built", Pattern.compile("not built|no .* layer|run [a-z]+\\.index|is building", Pattern.CASE_INSENSITIVE)));

    static Failure of(Throwable t) {
        String message = message(t);
        for (Map.Entry<String, Pattern> c : CAUSES) {
            if (c.getValue().matcher(message).find()) return new Failure(c.getKey(), cut(message));
        }
        return new Failure("other", cut(message));
    }

    Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cause", cause);
        m.put("message", message);
        return m;
    }

    /** The innermost message that says something (Neo4j wraps a procedure's error as "Failed to invoke procedure ...: Caused by: ..."). */
    private static String message(Throwable t) {
        String best = t.getClass().getSimpleName();
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && !c.getMessage().isBlank()) best = c.getMessage();
        }
        return best;
    }

    private static String cut(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE) + "...";
    }
}
