package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

/** The server cut the prompt to its window (its prompt count is far below what was sent): never run on. */
public final class PromptCutException extends RagException {
    PromptCutException(String message) {
        super(message);
    }
}
