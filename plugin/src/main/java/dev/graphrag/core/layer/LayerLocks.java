package dev.graphrag.core.layer;

import dev.graphrag.core.RagException;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One builder at a time per (database, corpus, layer): a second {@code agrag.index} of a corpus waits for the first
 * and then runs on its result, instead of racing it into constraint violations. Writes of a database all run
 * on its one writer (the single server, or the cluster's leader for that database), so a lock in that JVM
 * serialises them; a build that spans many transactions cannot hold a graph lock instead. Waiting honours
 * the caller's termination. Owned by the runtime, one per server.
 */
public final class LayerLocks {
    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    public <T> T exclusive(String database, String corpus, String layer, String owner, BooleanSupplier cancelled, Consumer<String> log,
                           Supplier<T> work) {
        String key = database + "\u0000" + corpus + "\u0000" + layer;
        ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock(true));
        boolean said = false;
        try {
            while (!lock.tryLock(100, TimeUnit.MILLISECONDS)) {
                if (cancelled.getAsBoolean()) {
                    throw new RagException(owner + ": terminated while waiting for another build of the " + layer + " layer of corpus '" + corpus + "'");
                }
                if (!said) {
                    log.accept(owner + " corpus=" + corpus + ": another build of the " + layer + " layer is running; waiting for it to finish");
                    said = true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException(owner + ": interrupted while waiting for another build of corpus '" + corpus + "'");
        }
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }
}
