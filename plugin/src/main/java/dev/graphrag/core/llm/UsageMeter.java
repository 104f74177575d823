package dev.graphrag.core.llm;

/** Adds up the usage of one run; safe to call from the threads of a parallel extraction. */
public final class UsageMeter {
    private Usage total = Usage.NONE;

    public synchronized void add(String step, ChatResponse r) {
        total = total.plus(Usage.of(step, r));
    }

    public synchronized void add(Usage u) {
        total = total.plus(u);
    }

    /** Records what a step's prompt left out to fit the window (nothing when {@code items} is 0). */
    public synchronized void trimmed(String step, long items, long tokens) {
        if (items > 0) total = total.plus(Usage.trimmed(step, items, tokens));
    }

    public synchronized Usage usage() {
        return total;
    }
}
