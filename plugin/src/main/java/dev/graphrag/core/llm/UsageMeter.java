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

    /** A reply the step could not use, its cost, and the fallback taken instead ({@link Usage#unusable}). */
    public synchronized void unusable(UnusableReply e, String fallback) {
        total = total.plus(Usage.unusable(e, fallback));
    }

    /** A fallback taken without an unusable reply to blame (a loop bound reached). */
    public synchronized void fallback(String step, String fallback) {
        total = total.plus(Usage.fallback(step, 0, fallback));
    }

    public synchronized Usage usage() {
        return total;
    }
}
