package dev.graphrag.core.files;

/**
 * Why one file could not be ingested, in words a user can act on; the call goes on with the other files (unless
 * failOnError) and the file's row carries {@code status} and this message. Nothing of the file is written.
 */
public final class FileProblem extends RuntimeException {
    /** The row status of a file without text (a scanned PDF, an empty document); every other problem is "failed". */
    public static final String NO_TEXT = "no_text";
    public static final String FAILED = "failed";
    /** The row status of a glob that matches no file: a row rather than silence, so a mistyped folder is seen at once. */
    public static final String NO_MATCH = "no_match";

    private final String status;

    public FileProblem(String message) {
        this(FAILED, message);
    }

    public FileProblem(String status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public String status() {
        return status;
    }
}
