package dev.graphrag.core;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.function.Supplier;

/**
 * One stage of a call run beside the caller's own work on the shared pool, for stages that touch no transaction
 * (PageRank on a snapshot, a scan of an in-memory matrix). {@link #join()} runs the stage on the caller's thread
 * when no worker has begun it yet, so a busy pool never makes a call slower than running its stages one after
 * another, and a pool that refuses work changes nothing but the thread.
 */
public final class Forked<T> {
    private final FutureTask<T> task;

    private Forked(Supplier<T> work) {
        this.task = new FutureTask<>(work::get);
    }

    /** Starts {@code work} on {@code pool}, or leaves it for {@link #join()} when {@code pool} is null (a call told to use one thread). */
    public static <T> Forked<T> start(Executor pool, Supplier<T> work) {
        Forked<T> f = new Forked<>(work);
        if (pool != null) {
            try {
                pool.execute(f.task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // a pool shut down with the server: join() runs it here
            }
        }
        return f;
    }

    /** The stage's result; its exception as it was thrown (a RuntimeException or Error), not wrapped. */
    public T join() {
        task.run(); // no-op when a worker has begun or finished it
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    // the worker finishes within the stage's own time; the caller's interrupt is kept for its next check
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new RagException("a parallel stage failed: " + cause, cause);
        } catch (CancellationException e) {
            throw new RagException("a parallel stage was cancelled", e);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
