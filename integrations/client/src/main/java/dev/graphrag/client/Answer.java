package dev.graphrag.client;

import java.util.List;

/**
 * A method's answer: its text, the chunks it cites (in the answer's order, with pages and sections), and the LLM
 * calls it took.
 */
public record Answer(Method method, String text, List<Citation> citations, long llmCalls) {
    public Answer {
        citations = List.copyOf(citations);
    }
}
