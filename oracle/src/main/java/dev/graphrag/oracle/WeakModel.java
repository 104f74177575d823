package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The errors a small local model makes, laid over an oracle policy's replies (docs/evaluation.md "Weak models"):
 * each reply is broken with probability {@code rate} (one rate, per-kind rates, or a rate per step), the kind drawn
 * among those that fit the reply (a JSON object, tool calls, or text). The draw is a hash of the seed, the step and
 * the request body, so a run repeats exactly, requests answered in any order get the same errors, and a repair turn
 * (another body) draws anew. Only the form and content of the reply change; the policy's knowledge is never touched.
 */
public final class WeakModel {
    /** What goes wrong; {@link #applies} says which kinds fit a reply. */
    public enum Kind {
        /** An apology in prose instead of the JSON or the tool call asked for. */
        PROSE,
        /** JSON that no repair fixes: unquoted keys, a list cut in the middle, a stray brace. */
        BROKEN_JSON,
        /** A required field of the object left out (its first field). */
        MISSING_FIELD,
        /** A value the request never offered: a string (name, id, quote, answer) or a number (an index) replaced by an invented one. */
        INVENTED,
        /** Nothing at all. */
        EMPTY,
        /** A call to a tool that does not exist. */
        UNKNOWN_TOOL,
        /** A tool call whose arguments are not a JSON object of the tool's parameters. */
        BAD_ARGUMENTS,
        /** The finishing tool call left out (a loop that never finishes): the other calls stay, or prose when none is left. */
        NO_FINISH;

        boolean applies(JsonNode message) {
            boolean tools = message.path("tool_calls").isArray() && !message.path("tool_calls").isEmpty();
            boolean json = !tools && jsonObject(message.path("content").asText(null)) != null;
            return switch (this) {
                case PROSE, EMPTY -> true;
                case BROKEN_JSON, MISSING_FIELD, INVENTED -> json;
                case UNKNOWN_TOOL, BAD_ARGUMENTS, NO_FINISH -> tools;
            };
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The invented string: a name no corpus here contains. */
    static final String INVENTED_TEXT = "Zorvath Quellington";
    static final int INVENTED_NUMBER = 9137;
    static final String APOLOGY = "I'm sorry, but I can't provide that in the requested format. Based on the information given, "
            + "I would need more context to answer accurately.";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final long seed;
    private final double rate;
    private final Map<Kind, Double> kindRates;
    private final Map<String, Double> stepRates;
    private final Map<String, AtomicLong> injected = new ConcurrentHashMap<>();

    private WeakModel(long seed, double rate, Map<Kind, Double> kindRates, Map<String, Double> stepRates) {
        if (rate < 0 || rate > 1) throw new IllegalArgumentException("a weak model's rate is a share between 0 and 1, got " + rate);
        this.seed = seed;
        this.rate = rate;
        this.kindRates = kindRates;
        this.stepRates = stepRates;
    }

    /** Every reply broken with probability {@code rate}, the kind drawn evenly among those that fit it. */
    public static WeakModel of(long seed, double rate) {
        return new WeakModel(seed, rate, Map.of(), Map.of());
    }

    /** The same model with kind {@code k} at its own rate (the kinds given rates are then the only ones drawn). */
    public WeakModel kind(Kind k, double r) {
        Map<Kind, Double> m = new EnumMap<>(Kind.class);
        m.putAll(kindRates);
        m.put(k, r);
        return new WeakModel(seed, rate, m, stepRates);
    }

    /** The same model with step {@code step}'s replies broken at {@code r} instead of the overall rate. */
    public WeakModel step(String step, double r) {
        Map<String, Double> m = new TreeMap<>(stepRates);
        m.put(step, r);
        return new WeakModel(seed, rate, kindRates, m);
    }

    public long seed() {
        return seed;
    }

    /** The errors injected so far, by "step: kind". */
    public Map<String, Long> injected() {
        Map<String, Long> out = new TreeMap<>();
        injected.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    public void clearCounts() {
        injected.clear();
    }

    /** The kind of error this request's reply gets, or null when it goes out as the policy wrote it. */
    public Kind draw(String step, JsonNode body, JsonNode message) {
        long h = mix(seed ^ fnv(step + "\u0000" + body));
        double u = unit(h), v = unit(mix(h));
        List<Kind> fitting = new ArrayList<>();
        for (Kind k : Kind.values()) if (k.applies(message) && (kindRates.isEmpty() || kindRates.containsKey(k))) fitting.add(k);
        if (fitting.isEmpty()) return null;
        if (kindRates.isEmpty() || stepRates.containsKey(step)) {
            double r = stepRates.getOrDefault(step, rate);
            return u < r ? fitting.get(Math.min(fitting.size() - 1, (int) (v * fitting.size()))) : null;
        }
        double at = 0;
        for (Kind k : fitting) {
            at += kindRates.get(k);
            if (u < at) return k;
        }
        return null;
    }

    /** The reply as this model sends it: {@code message} (an OpenAI assistant message) broken or as it was. */
    public JsonNode apply(String step, JsonNode body, JsonNode message) {
        Kind k = draw(step, body, message);
        if (k == null) return message;
        injected.computeIfAbsent(step + ": " + k.label(), x -> new AtomicLong()).incrementAndGet();
        return broken(k, message, mix(seed ^ fnv(body.toString())));
    }

    /**
     * The same errors on the test stand-in (StandInLlm's {@code shape} hook, which sees the completion body and the
     * request but not the step header): the completion's message broken or kept, drawn on the request body alone.
     */
    public ObjectNode shape(ObjectNode completion, JsonNode request) {
        JsonNode choice = completion.path("choices").path(0);
        if (!choice.isObject() || !choice.has("message")) return completion;
        JsonNode sent = apply("", request, choice.get("message"));
        ((ObjectNode) choice).set("message", sent);
        ((ObjectNode) choice).put("finish_reason", sent.has("tool_calls") ? "tool_calls" : "stop");
        return completion;
    }

    static JsonNode broken(Kind k, JsonNode message, long h) {
        ObjectNode out = JSON.createObjectNode();
        out.put("role", "assistant");
        String content = message.path("content").asText(null);
        switch (k) {
            case PROSE -> out.put("content", APOLOGY);
            case EMPTY -> out.put("content", "");
            case BROKEN_JSON -> {
                // keys unquoted and the text cut inside a value, then a stray brace: nothing a lenient reader can mend
                String s = content.replaceAll("\"([A-Za-z_]+)\":", "$1 =");
                out.put("content", s.substring(0, Math.max(1, s.length() / 2)) + " }} ]");
            }
            case MISSING_FIELD -> {
                ObjectNode o = jsonObject(content);
                String first = firstField(o);
                if (first != null) o.remove(first);
                out.put("content", o.toString());
            }
            case INVENTED -> {
                ObjectNode o = jsonObject(content);
                List<Leaf> leaves = new ArrayList<>();
                leaves(o, leaves);
                if (!leaves.isEmpty()) leaves.get((int) Long.remainderUnsigned(h, leaves.size())).invent();
                out.put("content", o.toString());
            }
            case UNKNOWN_TOOL, BAD_ARGUMENTS, NO_FINISH -> {
                out.put("content", content == null ? "" : content);
                ArrayNode calls = JSON.createArrayNode();
                for (JsonNode c : message.path("tool_calls")) {
                    ObjectNode call = c.deepCopy();
                    String name = call.path("function").path("name").asText();
                    if (k == Kind.NO_FINISH && (name.contains("finish") || name.contains("complete"))) continue;
                    if (k == Kind.UNKNOWN_TOOL && calls.isEmpty()) ((ObjectNode) call.get("function")).put("name", "search_web");
                    if (k == Kind.BAD_ARGUMENTS && calls.isEmpty()) ((ObjectNode) call.get("function")).put("arguments", "{query: " + name + ", ");
                    calls.add(call);
                }
                if (calls.isEmpty()) out.put("content", "I have recorded everything I found and will continue with the next step.");
                else out.set("tool_calls", calls);
            }
        }
        return out;
    }

    private static String firstField(ObjectNode o) {
        var it = o.fieldNames();
        while (it.hasNext()) {
            String f = it.next();
            if (!f.equals("reasoning")) return f;
        }
        return null;
    }

    /** A string or number value in a reply, with the means to replace it. */
    private record Leaf(JsonNode parent, String field, int index) {
        void invent() {
            JsonNode v = field != null ? parent.get(field) : parent.get(index);
            if (field != null) {
                if (v.isNumber()) ((ObjectNode) parent).put(field, INVENTED_NUMBER);
                else ((ObjectNode) parent).put(field, INVENTED_TEXT);
            } else {
                if (v.isNumber()) ((ArrayNode) parent).set(index, JSON.getNodeFactory().numberNode(INVENTED_NUMBER));
                else ((ArrayNode) parent).set(index, JSON.getNodeFactory().textNode(INVENTED_TEXT));
            }
        }
    }

    private static void leaves(JsonNode n, List<Leaf> out) {
        if (n.isObject()) {
            var it = n.fields();
            while (it.hasNext()) {
                var e = it.next();
                if (e.getKey().equals("reasoning")) continue;
                if (e.getValue().isTextual() || e.getValue().isNumber()) out.add(new Leaf(n, e.getKey(), -1));
                else leaves(e.getValue(), out);
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                JsonNode v = n.get(i);
                if (v.isTextual() || v.isNumber()) out.add(new Leaf(n, null, i));
                else leaves(v, out);
            }
        }
    }

    static ObjectNode jsonObject(String content) {
        if (content == null) return null;
        try {
            JsonNode n = JSON.readTree(content);
            return n instanceof ObjectNode o ? o : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static double unit(long h) {
        return (h >>> 11) * 0x1.0p-53;
    }

    /**
     * Reads "RATE[,SEED]" or "RATE,SEED,KIND=RATE,...,STEP=RATE" (a command-line value): kinds by their names in lower
     * case, any other name a step.
     */
    public static WeakModel parse(String spec) {
        String[] parts = spec.split(",");
        WeakModel m;
        try {
            m = of(parts.length > 1 ? Long.parseLong(parts[1].trim()) : 1L, Double.parseDouble(parts[0].trim()));
            for (int i = 2; i < parts.length; i++) {
                String[] kv = parts[i].split("=", 2);
                double r = Double.parseDouble(kv[1].trim());
                String name = kv[0].trim();
                Kind k = null;
                for (Kind c : Kind.values()) if (c.label().equals(name)) k = c;
                m = k != null ? m.kind(k, r) : m.step(name, r);
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("a weak model is RATE[,SEED[,KIND=RATE|STEP=RATE...]], e.g. 0.25,7 or 0.1,7,prose=0.2; got '"
                    + spec + "'");
        }
        return m;
    }
}
