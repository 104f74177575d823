package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a model's reply the way real servers return it, for every LLM step of every method: a leading reasoning
 * block ({@code <think>}, {@code <thinking>}, {@code <reasoning>}, or the closing tag alone when the chat template
 * opened it) is removed; the one JSON value is found whether the reply is bare JSON, a fenced block anywhere, or JSON
 * inside prose; near-JSON (trailing commas, comments, single quotes, unquoted keys, raw newlines in strings) is read
 * through Jackson's lenient {@link JsonReadFeature}s. What had to be fixed is named in {@link Json#repairs()} so a
 * step can count it. A reply with no usable value, or with two candidate values, is a {@link Problem} that says so.
 */
public final class ReplyReader {
    private ReplyReader() {}

    /** Why a reply could not be read; the message goes to the repair turn and, after it, into the step's error. */
    public static final class Problem extends Exception {
        private final boolean cut;

        Problem(String message, boolean cut) {
            super(message, null, false, false);
            this.cut = cut;
        }

        /** True when the reply was cut (at maxTokens) rather than malformed: a repair turn cannot help. */
        public boolean cut() {
            return cut;
        }
    }

    /** The reply's answer text once a leading reasoning block is removed; {@code reasoning} is what was removed. */
    public record Answer(String text, String reasoning) {
        public boolean hadReasoning() {
            return reasoning != null;
        }
    }

    /** A JSON value read from a reply, and what had to be repaired to read it (empty when it was clean JSON). */
    public record Json(JsonNode value, List<String> repairs) {}

    static final ObjectMapper STRICT = new ObjectMapper();
    static final ObjectMapper LENIENT = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA, JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_YAML_COMMENTS,
                    JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES,
                    JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS, JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS,
                    JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS, JsonReadFeature.ALLOW_TRAILING_DECIMAL_POINT_FOR_NUMBERS,
                    JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS, JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
            .build();

    private static final Pattern OPEN = Pattern.compile("^\\s*<(think|thinking|reasoning)>", Pattern.CASE_INSENSITIVE);
    private static final java.util.Map<String, Pattern> CLOSE = java.util.Map.of(
            "think", Pattern.compile("</think>", Pattern.CASE_INSENSITIVE),
            "thinking", Pattern.compile("</thinking>", Pattern.CASE_INSENSITIVE),
            "reasoning", Pattern.compile("</reasoning>", Pattern.CASE_INSENSITIVE));
    private static final Pattern CLOSE_ONLY = Pattern.compile("</(think|thinking|reasoning)>", Pattern.CASE_INSENSITIVE);
    private static final Pattern FENCE = Pattern.compile("```[ \\t]*([A-Za-z0-9_+-]*)[ \\t]*\\r?\\n?(.*?)```", Pattern.DOTALL);

    /**
     * The answer part of {@code content}: a leading reasoning block removed. A block that never closes is a cut reply
     * when the server says it stopped at the length limit, and a reply with no answer otherwise.
     */
    public static Answer answer(String content, String finishReason, int maxTokens) throws Problem {
        if (content == null) return new Answer(null, null);
        Matcher open = OPEN.matcher(content);
        if (open.find()) {
            String tag = open.group(1).toLowerCase(Locale.ROOT);
            Matcher close = CLOSE.get(tag).matcher(content);
            if (!close.find(open.end())) {
                if ("length".equals(finishReason)) {
                    throw new Problem("the reply was cut off at maxTokens=" + maxTokens + " while the model was still reasoning (an unterminated <"
                            + tag + "> block, finish_reason=length); raise maxTokens (config.llm.maxTokens or graphrag.llm.maxTokens) so a "
                            + "reasoning model has room for its thinking and its answer", true);
                }
                throw new Problem("the reply is only an unterminated <" + tag + "> reasoning block with no answer after it", false);
            }
            return new Answer(content.substring(close.end()), content.substring(open.end(), close.start()));
        }
        // a chat template that opens <think> itself (Qwen3, DeepSeek-R1 on raw servers) leaves only the closing tag
        Matcher close = CLOSE_ONLY.matcher(content);
        if (close.find()) return new Answer(content.substring(close.end()), content.substring(0, close.start()));
        return new Answer(content, null);
    }

    /** The one JSON value of a reply's answer text (reasoning already removed), with what was repaired to read it. */
    public static Json json(String answer) throws Problem {
        if (answer == null || answer.isBlank()) throw new Problem("the reply was empty", false);
        String t = answer.trim();
        try {
            return new Json(STRICT.readTree(t), List.of());
        } catch (JsonProcessingException e) {
            // not bare JSON: look for it
        }
        JsonNode whole = lenientWhole(t);
        if (whole != null) return new Json(whole, List.of("lenient JSON syntax"));
        // fenced blocks first: a model that fences its JSON means that block
        List<Candidate> fenced = new ArrayList<>();
        Matcher f = FENCE.matcher(t);
        while (f.find()) {
            String body = f.group(2).trim();
            Candidate c = candidate(body, "a fenced block");
            if (c != null) fenced.add(c);
            else fenced.addAll(scan(body, "a fenced block"));
        }
        // an opening fence that never closed (cut or sloppy): read what follows it
        if (fenced.isEmpty() && t.contains("```")) {
            String after = t.substring(t.indexOf("```") + 3).replaceFirst("^[A-Za-z0-9_+-]*\\s*", "");
            fenced.addAll(scan(after, "an unclosed fence"));
        }
        List<Candidate> found = !fenced.isEmpty() ? fenced : scan(t, "prose");
        List<Candidate> objects = found.stream().filter(c -> c.value.isObject()).toList();
        List<Candidate> pick = !objects.isEmpty() ? objects : found;
        if (pick.isEmpty()) {
            throw new Problem("it is not valid JSON and holds no JSON object or array (it starts: " + start(t) + ")", false);
        }
        if (pick.size() > 1) {
            throw new Problem("it holds " + pick.size() + " candidate JSON values (" + start(pick.get(0).text) + " and " + start(pick.get(1).text)
                    + "); reply with exactly one", false);
        }
        Candidate c = pick.get(0);
        List<String> repairs = new ArrayList<>();
        repairs.add("JSON found in " + c.where);
        if (c.lenient) repairs.add("lenient JSON syntax");
        return new Json(c.value, List.copyOf(repairs));
    }

    /** {@link #answer} then {@link #json}: the usual path of a structured step; the reasoning removal is counted as a repair. */
    public static Json read(String content, String finishReason, int maxTokens) throws Problem {
        Answer a = answer(content, finishReason, maxTokens);
        if (a.hadReasoning() && (a.text() == null || a.text().isBlank())) {
            throw new Problem("the reply holds only a reasoning block and no answer after it", false);
        }
        Json j = json(a.text());
        if (!a.hadReasoning()) return j;
        List<String> repairs = new ArrayList<>();
        repairs.add("reasoning block removed");
        repairs.addAll(j.repairs());
        return new Json(j.value(), List.copyOf(repairs));
    }

    private record Candidate(JsonNode value, String text, String where, boolean lenient) {}

    private static JsonNode lenientWhole(String t) {
        try (JsonParser p = LENIENT.createParser(t)) {
            JsonNode n = LENIENT.readTree(p);
            if (n == null || !(n.isObject() || n.isArray())) return null;
            return p.nextToken() == null ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The whole text as one JSON object or array (strict, else lenient), or null. */
    private static Candidate candidate(String text, String where) {
        try {
            JsonNode n = STRICT.readTree(text);
            if (n != null && (n.isObject() || n.isArray())) return new Candidate(n, text, where, false);
        } catch (JsonProcessingException e) {
            // try lenient
        }
        JsonNode n = lenientWhole(text);
        return n == null ? null : new Candidate(n, text, where, true);
    }

    /**
     * Every JSON object or array that starts at a '{' or '[' of the text and parses to its end (strictly, else
     * leniently); scanning resumes after each value found, so nested values are not counted twice. Empty arrays and
     * arrays of scalars in prose ("see [1]") are not candidates.
     */
    private static List<Candidate> scan(String text, String where) {
        List<Candidate> out = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char ch = text.charAt(i);
            if (ch != '{' && ch != '[') {
                i++;
                continue;
            }
            int end = -1;
            JsonNode value = null;
            boolean lenient = false;
            for (ObjectMapper m : List.of(STRICT, LENIENT)) {
                try (JsonParser p = m.createParser(text.substring(i))) {
                    JsonToken first = p.nextToken();
                    if (first != JsonToken.START_OBJECT && first != JsonToken.START_ARRAY) break;
                    JsonNode n = m.readTree(p);
                    value = n;
                    end = i + (int) p.currentLocation().getCharOffset();
                    lenient = m == LENIENT;
                    break;
                } catch (IOException e) {
                    // not a value here (or not strictly): try the next reader, then the next position
                }
            }
            if (value == null || end <= i) {
                i++;
                continue;
            }
            boolean scalarArray = value.isArray() && (value.isEmpty() || !(value.get(0).isContainerNode()));
            if (!(value.isObject() && value.isEmpty()) && !scalarArray) out.add(new Candidate(value, text.substring(i, end), where, lenient));
            i = end;
        }
        return out;
    }

    private static String start(String s) {
        String t = s.strip().replaceAll("\\s+", " ");
        return t.length() > 40 ? "'" + t.substring(0, 40) + "...'" : "'" + t + "'";
    }
}
