package dev.graphrag.evaluation;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The progress line of a pass: done of total, time a question, the ETA from the questions this run asked, and the
 * prompt tokens a question so far. On a terminal it redraws one line; otherwise (a log file, CI) it prints a line at
 * each tenth of the pass.
 */
final class Progress {
    private final PrintStream err;
    private final boolean enabled;
    private final boolean terminal;
    private final String label;
    private final int total;
    private final long started = System.nanoTime();
    private int done, askedHere, lastTenth = -1;
    private long promptTokens;

    Progress(PrintStream err, boolean enabled, String label, int total, int alreadyDone) {
        this.err = err;
        this.enabled = enabled;
        this.terminal = System.console() != null;
        this.label = label;
        this.total = total;
        this.done = alreadyDone;
        if (enabled && alreadyDone > 0) err.printf(Locale.ROOT, "%s: %d of %d questions already in the log, resuming%n", label, alreadyDone, total);
    }

    synchronized void questionDone(long prompt) {
        done++;
        askedHere++;
        promptTokens += prompt;
        if (!enabled) return;
        int tenth = total == 0 ? 10 : done * 10 / total;
        if (!terminal && tenth == lastTenth && done < total) return;
        lastTenth = tenth;
        double secondsEach = (System.nanoTime() - started) / 1e9 / askedHere;
        String bar = "#".repeat(tenth * 2) + ".".repeat(20 - tenth * 2);
        String line = String.format(Locale.ROOT, "%s [%s] %d/%d · %.1f s/q · ETA %s · %.0f prompt tok/q", label, bar, done, total, secondsEach,
                eta(secondsEach * (total - done)), (double) promptTokens / askedHere);
        if (terminal) err.print("\r" + line + (done == total ? "\n" : ""));
        else err.println(line);
    }

    private static String eta(double seconds) {
        Duration d = Duration.ofSeconds(Math.round(seconds));
        return d.toHours() > 0 ? String.format(Locale.ROOT, "%dh%02dm", d.toHours(), d.toMinutesPart())
                : String.format(Locale.ROOT, "%dm%02ds", d.toMinutes(), d.toSecondsPart());
    }
}
