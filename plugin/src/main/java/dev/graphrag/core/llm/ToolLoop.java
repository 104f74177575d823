package dev.graphrag.core.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * An agent's loop: the model calls typed Java tools until it gives a final answer or a budget runs out.
 * Endpoints with OpenAI tool calling get native {@code tools}; endpoints without it (many Ollama and llama.cpp
 * models) get the same tools described in the prompt and answer with one JSON action per turn. Which one an
 * endpoint needs is learnt on first use (a 4xx that names tools switches it to JSON actions for good) and shown by
 * rag.llm.info. Tool arguments are checked against each tool's schema before its handler runs; a handler that
 * throws {@link RagException} gives the model an error result instead of ending the loop. Native replies with
 * several tool calls run them one after another, in the order given.
 */
public final class ToolLoop {
    /**
     * A tool: name, description, JSON schema of its arguments (what every call is checked against), the handler that
     * runs it, and the schema the model is shown when it should differ from the checked one (null: the checked schema
     * without validation-only keywords, {@link #modelView}).
     */
    public record Tool(String name, String description, Map<String, Object> parameters, Function<JsonNode, Object> handler, Map<String, Object> shown,
                       Function<JsonNode, Object> digest) {
        public Tool {
            if (!name.matches("[A-Za-z0-9_-]{1,64}")) throw new IllegalArgumentException("tool name must be 1-64 of [A-Za-z0-9_-]: " + name);
        }

        public Tool(String name, String description, Map<String, Object> parameters, Function<JsonNode, Object> handler) {
            this(name, description, parameters, handler, null, null);
        }

        /** The same tool shown to the model with this schema (calls are still checked against {@code parameters}). */
        public Tool shownAs(Map<String, Object> schema) {
            return new Tool(name, description, parameters, handler, schema, digest);
        }

        /**
         * The same tool whose results, once the model has read them in full for one round, are sent in later rounds as
         * {@code digest} gives them (null: unchanged): what a result still contributes after the model acted on it.
         */
        public Tool digestedBy(Function<JsonNode, Object> digest) {
            return new Tool(name, description, parameters, handler, shown, digest);
        }

        Object shownParameters() {
            return modelView(shown != null ? shown : parameters);
        }

        Map<String, Object> openAi() {
            Map<String, Object> fn = new LinkedHashMap<>();
            fn.put("name", name);
            fn.put("description", description);
            fn.put("parameters", shownParameters());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "function");
            m.put("function", fn);
            return m;
        }
    }

    /**
     * A schema as the model is shown it: without the keywords only the local check needs ({@code additionalProperties:
     * false}, {@code minLength: 1}), which are a fifth of a typical toolset's tokens and are sent again every round.
     * Arguments are still checked against the full schema before any handler runs. Maps without an order of their own
     * ({@code Map.of}, whose order changes from one JVM to the next) are sorted by key, so the bytes sent are the same
     * after a restart and a server's prefix cache still matches.
     */
    static Object modelView(Object schema) {
        if (schema instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            Map<?, ?> ordered = map instanceof LinkedHashMap<?, ?> || map instanceof java.util.SortedMap<?, ?> ? map : new java.util.TreeMap<>(map);
            ordered.forEach((k, v) -> {
                if ("additionalProperties".equals(k) && Boolean.FALSE.equals(v)) return;
                if ("minLength".equals(k) && v instanceof Number n && n.intValue() == 1) return;
                out.put((String) k, modelView(v));
            });
            return out;
        }
        if (schema instanceof List<?> list) return list.stream().map(ToolLoop::modelView).toList();
        return schema;
    }

    /** A handler's refusal: its body goes back to the model as the tool's result, and the call counts as invalid. */
    public record Refused(Object body) {}

    /** A handler's word that the run is over (a control tool such as "task complete"): its body becomes the outcome's content. */
    public record Finished(Object body) {}

    /** Why a call never reached its handler: no such tool, arguments that are not JSON, or arguments the schema rejects. */
    public enum RefusalKind { UNKNOWN_TOOL, INVALID_JSON, INVALID_ARGUMENTS }

    /** A refusal before the handler; {@code field} is the JSON pointer of the offending argument when known. */
    public record Refusal(RefusalKind kind, String tool, String message, String field) {}

    /** Limits of one run: model turns, tool calls, and tokens (prompt plus completion). */
    public record Budget(int maxRounds, int maxToolCalls, long maxTokens) {}

    public enum Mode { AUTO, NATIVE, JSON }

    /** One tool call of the transcript; ok=false when its arguments were invalid or the handler refused. */
    public record Call(int round, String tool, String arguments, String result, boolean ok) {}

    /**
     * stopReason: final (the model answered, or called the finishing tool), maxRounds, maxToolCalls, maxTokens, or
     * repeatedCall (the same call, name and arguments, made {@link #MAX_SAME_CALL} times: a model in a rut).
     */
    public record Outcome(String content, List<Call> calls, Usage usage, String stopReason, Mode mode, int invalidCalls) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String JSON_ACTION_GUIDE = """
            You can call tools. Answer every turn with exactly one JSON object and nothing else:
            {"action": "<tool name>", "arguments": {...}} to call a tool (its result comes back in the next message), or
            {"action": "final", "content": "<your final answer>"} when you are done.
            Tools (name: description; arguments as a JSON schema):
            """;

    private final LlmClient llm;
    private final LlmConfig cfg;
    private final String step;
    private final List<Tool> tools;
    private final Map<String, Tool> byName = new LinkedHashMap<>();
    private final Budget budget;
    /** The tools as native calling sends them every round, and their tokens (the same every round). */
    private final List<Map<String, Object>> schemas;
    private final long schemaTokens;
    private final BooleanSupplier cancelled;
    private Function<Refusal, Object> refusals = r -> Map.of("ok", false, "error", r.message());

    /** The most times one call (the same tool and arguments) is made in a run before the run stops as "repeatedCall". */
    public static final int MAX_SAME_CALL = 3;

    /** Counts a call; true when it is the {@link #MAX_SAME_CALL}th of its kind in this run. */
    private boolean repeated(Map<String, Integer> seen, String name, String arguments) {
        String key = name + "\u0000" + arguments.replaceAll("\\s+", "");
        return seen.merge(key, 1, Integer::sum) >= MAX_SAME_CALL;
    }

    public ToolLoop(LlmClient llm, LlmConfig cfg, String step, List<Tool> tools, Budget budget, BooleanSupplier cancelled) {
        this.llm = llm;
        this.cfg = cfg;
        this.step = step;
        this.tools = List.copyOf(tools);
        for (Tool t : tools) {
            if (byName.put(t.name(), t) != null) throw new IllegalArgumentException("two tools are named " + t.name());
        }
        if (byName.containsKey("final")) throw new IllegalArgumentException("'final' is reserved for the JSON-action answer");
        this.budget = budget;
        this.schemas = this.tools.stream().map(Tool::openAi).toList();
        this.schemaTokens = TokenCounter.count(TokenCounter.json(schemas));
        this.cancelled = cancelled;
    }

    /** How refusals before a handler are worded for the model (a method's own error envelope); default {ok:false, error}. */
    public ToolLoop refusalsAs(Function<Refusal, Object> format) {
        this.refusals = format;
        return this;
    }

    /** Runs from these messages (system and user turns); AUTO uses what the endpoint is known to take, native first. */
    public Outcome run(List<Map<String, Object>> messages, Mode mode) {
        Mode m = mode != Mode.AUTO ? mode : Boolean.FALSE.equals(llm.capabilities(cfg).nativeTools()) ? Mode.JSON : Mode.NATIVE;
        List<Map<String, Object>> transcript = new ArrayList<>(messages);
        if (m == Mode.JSON) transcript = withGuide(transcript);
        List<Call> calls = new ArrayList<>();
        results.clear();
        compacted.clear();
        digested.clear();
        UsageMeter usage = new UsageMeter();
        Map<String, Integer> seen = new java.util.HashMap<>();
        int invalid = 0;
        for (int round = 1; ; round++) {
            if (cancelled.getAsBoolean()) throw new RagException("LLM step '" + step + "' cancelled: the transaction was terminated");
            if (round > budget.maxRounds()) return new Outcome(null, calls, usage.usage(), "maxRounds", m, invalid);
            if (usage.usage().totalTokens() >= budget.maxTokens()) return new Outcome(null, calls, usage.usage(), "maxTokens", m, invalid);
            ChatResponse r;
            digestOlderThan(round - 1, transcript, calls);
            if (m == Mode.NATIVE) {
                fitTranscript(transcript, calls, schemaTokens, usage);
                try {
                    r = llm.chat(cfg, new ChatRequest(step, transcript, schemas, "auto", null, null), false, cancelled);
                    llm.noteNativeTools(cfg, true);
                } catch (LlmHttpException e) {
                    if (mode == Mode.NATIVE || !(e.rejects("tool") || e.rejects("function"))) throw e;
                    llm.noteNativeTools(cfg, false);
                    m = Mode.JSON;
                    transcript = withGuide(transcript);
                    results.forEach(p -> p[0]++); // the guide went in first
                    shift(compacted);
                    shift(digested);
                    round--;
                    continue;
                }
            } else {
                fitTranscript(transcript, calls, TokenCounter.responseFormat("json_object"), usage);
                r = llm.chat(cfg, new ChatRequest(step, transcript, null, null, "json_object", null), false, cancelled);
            }
            if (m == Mode.NATIVE) {
                List<Map<String, Object>> toolCalls = r.toolCalls();
                if (toolCalls.isEmpty()) {
                    // a model that writes its call as JSON in the content, despite native tools
                    Map<String, Object> written = writtenCall(r.content());
                    if (written == null) {
                        usage.add(step, r);
                        return new Outcome(r.content(), calls, usage.usage(), "final", m, invalid);
                    }
                    toolCalls = List.of(written);
                    r = r.withRepairs(1);
                }
                usage.add(step, r);
                Map<String, Object> assistant = new LinkedHashMap<>();
                assistant.put("role", "assistant");
                // the calls alone: prose or thinking beside them is not sent again every round (reasoning models' chat
                // templates drop earlier thinking too), and the calls and their results are what later rounds need
                assistant.put("content", "");
                assistant.put("tool_calls", toolCalls);
                transcript.add(assistant);
                for (Map<String, Object> tc : toolCalls) {
                    if (calls.size() >= budget.maxToolCalls()) return new Outcome(null, calls, usage.usage(), "maxToolCalls", m, invalid);
                    Object fn = tc.get("function");
                    String name = fn instanceof Map<?, ?> f ? String.valueOf(f.get("name")) : "?";
                    String args = fn instanceof Map<?, ?> f && f.get("arguments") != null ? String.valueOf(f.get("arguments")) : "{}";
                    if (repeated(seen, name, args)) return new Outcome(null, calls, usage.usage(), "repeatedCall", m, invalid);
                    Call c = invoke(round, name, args);
                    if (!c.ok()) invalid++;
                    calls.add(c);
                    results.add(new int[]{transcript.size(), calls.size() - 1});
                    transcript.add(Map.of("role", "tool", "tool_call_id", String.valueOf(tc.get("id")), "content", c.result()));
                    if (finished) return new Outcome(c.result(), calls, usage.usage(), "final", m, invalid);
                }
            } else {
                String raw = r.content() == null ? "" : r.content().strip();
                JsonNode action;
                try {
                    ReplyReader.Json j = ReplyReader.read(r.content(), r.finishReason(), cfg.maxTokens());
                    action = j.value();
                    if (!j.repairs().isEmpty()) {
                        r = r.withRepairs(1);
                        raw = action.toString(); // the transcript keeps the action alone, not the prose or reasoning around it
                    }
                } catch (ReplyReader.Problem e) {
                    action = null;
                }
                usage.add(step, r);
                transcript.add(Map.of("role", "assistant", "content", raw));
                if (action == null || !action.path("action").isTextual()) {
                    invalid++;
                    transcript.add(Map.of("role", "user", "content", "That was not one JSON object with an \"action\". Reply with"
                            + " {\"action\": \"<tool name>\", \"arguments\": {...}} or {\"action\": \"final\", \"content\": \"...\"} only."));
                    continue;
                }
                String name = action.path("action").asText();
                if (name.equals("final")) {
                    JsonNode content = action.path("content");
                    return new Outcome(content.isTextual() ? content.asText() : content.toString(), calls, usage.usage(), "final", m, invalid);
                }
                if (calls.size() >= budget.maxToolCalls()) return new Outcome(null, calls, usage.usage(), "maxToolCalls", m, invalid);
                String args = action.path("arguments").isMissingNode() ? "{}" : action.path("arguments").toString();
                if (repeated(seen, name, args)) return new Outcome(null, calls, usage.usage(), "repeatedCall", m, invalid);
                Call c = invoke(round, name, args);
                if (!c.ok()) invalid++;
                calls.add(c);
                if (finished) return new Outcome(c.result(), calls, usage.usage(), "final", m, invalid);
                results.add(new int[]{transcript.size(), calls.size() - 1});
                transcript.add(Map.of("role", "user", "content", "Result of " + name + ": " + c.result()));
            }
        }
    }

    /**
     * Results of calls made before {@code round} whose tool has a digest are sent as the digest from now on: the model
     * read each in full in the round after its call. A refused call's result (its error and hint) is never digested.
     */
    private void digestOlderThan(int round, List<Map<String, Object>> transcript, List<Call> calls) {
        for (int[] r : results) {
            Call c = calls.get(r[1]);
            Tool t = byName.get(c.tool());
            if (c.round() >= round || !c.ok() || t == null || t.digest() == null || !digested.add(r[0]) || compacted.contains(r[0])) continue;
            Object d;
            try {
                d = t.digest().apply(JSON.readTree(c.result()));
                if (d == null) continue;
                String text = JSON.writeValueAsString(d);
                Map<String, Object> msg = new LinkedHashMap<>(transcript.get(r[0]));
                msg.put("content", "tool".equals(msg.get("role")) ? text : "Result of " + c.tool() + ": " + text);
                transcript.set(r[0], msg);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("tool " + c.tool() + " gave a result or digest that is not JSON", e);
            }
        }
    }

    private static void shift(java.util.Set<Integer> positions) {
        List<Integer> moved = positions.stream().map(i -> i + 1).toList();
        positions.clear();
        positions.addAll(moved);
    }

    /** Transcript positions already digested. */
    private final java.util.Set<Integer> digested = new java.util.HashSet<>();

    /** Transcript positions of tool results ({message index, call index}), oldest first: what compaction may shorten. */
    private final List<int[]> results = new ArrayList<>();

    /**
     * Keeps the next request within the window: the oldest tool results are replaced by a one-line note (their effect
     * is in the graph, and the calls that made them stay in the transcript) until the transcript fits; what was left out
     * is recorded as trimmed under the step. The system and task messages are never touched.
     */
    private void fitTranscript(List<Map<String, Object>> transcript, List<Call> calls, long overhead, UsageMeter usage) {
        long budget = cfg.promptBudget();
        long tokens = TokenCounter.messages(transcript) + overhead;
        if (TokenCounter.withMargin(tokens) <= budget) return;
        long trimmed = 0, saved = 0;
        for (int[] r : results) {
            if (TokenCounter.withMargin(tokens) <= budget) break;
            if (!compacted.add(r[0])) continue;
            Map<String, Object> msg = transcript.get(r[0]);
            Call c = calls.get(r[1]);
            String note = "{\"compacted\": \"the result of " + c.tool() + " was left out to fit the context window; the call " + (c.ok() ? "succeeded" : "failed") + "\"}";
            Map<String, Object> shorter = new LinkedHashMap<>(msg);
            shorter.put("content", "tool".equals(msg.get("role")) ? note : "Result of " + c.tool() + ": " + note);
            long before = TokenCounter.messages(List.of(msg)), after = TokenCounter.messages(List.of(shorter));
            if (after >= before) continue;
            transcript.set(r[0], shorter);
            tokens -= before - after;
            saved += before - after;
            trimmed++;
        }
        usage.trimmed(step, trimmed, saved);
        // what still does not fit fails in the client's own check, before any request, naming the step and the setting
    }

    /** Transcript positions already compacted. */
    private final java.util.Set<Integer> compacted = new java.util.HashSet<>();

    /** A tool call written as JSON in the content ({"action": tool, "arguments": ...} or {"name": tool, "arguments": ...}), or null. */
    private Map<String, Object> writtenCall(String content) {
        if (content == null || content.isBlank()) return null;
        JsonNode j;
        try {
            j = ReplyReader.json(content).value();
        } catch (ReplyReader.Problem e) {
            return null;
        }
        String name = j.path("action").isTextual() ? j.path("action").asText() : j.path("name").isTextual() ? j.path("name").asText() : null;
        if (name == null || !byName.containsKey(name)) return null;
        return ToolCalls.call(null, name, j.path("arguments"));
    }

    /** Set by the last {@link #invoke} when its handler returned {@link Finished}. */
    private boolean finished;

    /** Runs one call: the arguments checked against the tool's schema first; the result as JSON text. */
    private Call invoke(int round, String name, String arguments) {
        finished = false;
        Tool t = byName.get(name);
        if (t == null) {
            return refused(round, name, arguments, new Refusal(RefusalKind.UNKNOWN_TOOL, name, "no tool named '" + name + "'; tools are " + byName.keySet(), null));
        }
        JsonNode args;
        try {
            args = JSON.readTree(arguments);
        } catch (JsonProcessingException e) {
            return refused(round, name, arguments, new Refusal(RefusalKind.INVALID_JSON, name, "arguments are not valid JSON: " + e.getOriginalMessage(), null));
        }
        String problem = JsonSchemaCheck.problem(t.parameters(), args);
        if (problem != null) {
            return refused(round, name, arguments, new Refusal(RefusalKind.INVALID_ARGUMENTS, name, "invalid arguments: " + problem, JsonSchemaCheck.pointer(problem)));
        }
        try {
            Object out = t.handler().apply(args);
            if (out instanceof Refused r) return new Call(round, name, arguments, JSON.writeValueAsString(r.body()), false);
            if (out instanceof Finished f) {
                finished = true;
                return new Call(round, name, arguments, JSON.writeValueAsString(f.body()), true);
            }
            return new Call(round, name, arguments, JSON.writeValueAsString(out), true);
        } catch (RagException e) {
            return new Call(round, name, arguments, error(e.getMessage()), false);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("tool " + name + " returned something that is not JSON-serialisable", e);
        }
    }

    private Call refused(int round, String name, String arguments, Refusal r) {
        try {
            return new Call(round, name, arguments, JSON.writeValueAsString(refusals.apply(r)), false);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String error(String message) {
        try {
            return JSON.writeValueAsString(Map.of("ok", false, "error", message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tools described in a system message, for endpoints without native tool calling. */
    private List<Map<String, Object>> withGuide(List<Map<String, Object>> messages) {
        StringBuilder b = new StringBuilder(JSON_ACTION_GUIDE);
        for (Tool t : tools) {
            try {
                b.append("- ").append(t.name()).append(": ").append(t.description()).append(" Arguments: ")
                        .append(JSON.writeValueAsString(t.shownParameters())).append('\n');
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        out.add(Map.of("role", "system", "content", b.toString()));
        out.addAll(messages);
        return out;
    }
}
