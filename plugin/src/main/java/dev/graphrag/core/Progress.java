package dev.graphrag.core;

/** What a long procedure reports while it runs: its phase, and how far it is through the phase's work. */
public interface Progress {
    Progress NONE = new Progress() {
        @Override
        public void phase(String name, long total) {}

        @Override
        public void advance(long done) {}
    };

    /** A new phase of {@code total} units (documents, chunks, entities; 0 when unknown). */
    void phase(String name, long total);

    /** A new label for the current phase (how many bytes of the files are read, say), keeping its count. */
    default void label(String name) {}

    /** {@code done} more units of the current phase are finished. */
    void advance(long done);
}
