package dev.graphrag.core.files;

import java.util.function.BooleanSupplier;

/**
 * The guards one parse runs under, checked by the extractors as text comes out of the parser: the text limit
 * (characters), a deadline, the caller's termination and the element depth of the parser's event stream. A file
 * that breaks one stops its parse with a {@link FileProblem}; nothing a file holds can grow the heap past the text
 * limit or keep a thread past the deadline by producing output.
 */
public final class ParseLimits {
    /** Deeper element nesting than any real document has: a crafted file, not a document. */
    public static final int MAX_DEPTH = 1000;

    private final long maxChars;
    private final long deadlineNanos;
    private final long timeoutSeconds;
    private final BooleanSupplier cancelled;

    public ParseLimits(long maxChars, long timeoutSeconds, BooleanSupplier cancelled) {
        this.maxChars = maxChars;
        this.timeoutSeconds = timeoutSeconds;
        this.deadlineNanos = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        this.cancelled = cancelled;
    }

    /** Called with the text length so far; throws when a guard is broken. */
    public void check(long chars) {
        if (chars > maxChars) {
            throw new FileProblem("its text is longer than maxDocumentChars=" + maxChars + " characters; split the file or raise the limit");
        }
        if (System.nanoTime() - deadlineNanos > 0) throw timedOut();
        if (cancelled.getAsBoolean()) throw new FileProblem("the call was terminated while this file was parsed");
    }

    public void checkDepth(int depth) {
        if (depth > MAX_DEPTH) throw new FileProblem("its structure is nested more than " + MAX_DEPTH + " levels deep (a damaged or crafted file)");
    }

    public FileProblem timedOut() {
        return new FileProblem("parsing took longer than parseTimeoutSeconds=" + timeoutSeconds + "; the file may be damaged, or raise the limit");
    }

    public long maxChars() {
        return maxChars;
    }
}
