package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

/**
 * A reply the model gave that cannot be used even after the client's repair turn (no JSON that parses, a required
 * field missing, a value the step's own check refuses, a reply cut at maxTokens): a fault of the model's content, not
 * of the endpoint. Methods catch it where they have an honest fallback (docs/llm.md "When the model gets it wrong")
 * and count it under its step; where they have none it reaches the user, naming the step, the model and the start of
 * what the model returned. {@link #spent} is what the failed exchanges cost, so a fallback still counts their tokens.
 */
public final class UnusableReply extends RagException {
    /** How much of the model's reply an error quotes. */
    static final int QUOTED_CHARS = 160;

    private final String step;
    private final String problem;
    private final transient ChatResponse spent;

    UnusableReply(String step, String model, String problem, String reply, ChatResponse spent) {
        super("LLM step '" + step + "'" + (problem.startsWith("unusable") ? " returned " : ": ") + problem + " (model " + model
                + (problem.contains("it starts:") ? "" : "; it returned: " + quote(reply)) + ")"); // the reader's problem may quote it already
        this.step = step;
        this.problem = problem;
        this.spent = spent;
    }

    public String step() {
        return step;
    }

    /** What was wrong with the reply, in the client's words. */
    public String problem() {
        return problem;
    }

    /** The exchanges the step took (both turns when the repair turn was sent). */
    public ChatResponse spent() {
        return spent;
    }

    static String quote(String reply) {
        if (reply == null || reply.isBlank()) return "(nothing)";
        String flat = reply.strip().replaceAll("\\s+", " ");
        return "\"" + (flat.length() <= QUOTED_CHARS ? flat : flat.substring(0, QUOTED_CHARS) + "...") + "\"";
    }
}
