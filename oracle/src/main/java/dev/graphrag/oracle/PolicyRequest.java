package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;

/** One chat request as a policy sees it: the step header and the OpenAI request body. */
public record PolicyRequest(String step, JsonNode body) {
    /** The content of the last user message ("" when there is none). */
    public String lastUser() {
        String last = "";
        for (JsonNode m : body.path("messages")) if ("user".equals(m.path("role").asText())) last = m.path("content").asText("");
        return last;
    }

    /** The text between the first line starting with {@code prefix} and the end of that line, or null. */
    public static String line(String text, String prefix) {
        for (String l : text.split("\n")) if (l.startsWith(prefix)) return l.substring(prefix.length()).trim();
        return null;
    }
}
