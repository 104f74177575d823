package dev.graphrag.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The long-running calls of this server member (rag.ingest, agrag.index, extractions), for rag.progress(): each
 * registers a job when it starts and removes it when it ends, however it ends. Held in memory, per member: a
 * cluster's writer runs the builds, so that is where their progress shows.
 */
public final class Jobs {
    /** A row of rag.progress(). */
    public record View(String jobId, String procedure, String database, String corpus, String phase, long done, long total,
                       java.time.ZonedDateTime startedAt, long elapsedMs) {}

    private final ConcurrentHashMap<String, Job> running = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** One running call; close it in a finally (try-with-resources). */
    public final class Job implements Progress, AutoCloseable {
        private final String id, procedure, database, corpus;
        private final Instant started = Instant.now();
        private volatile String phase = "starting";
        private final AtomicLong done = new AtomicLong();
        private volatile long total;

        private Job(String id, String procedure, String database, String corpus) {
            this.id = id;
            this.procedure = procedure;
            this.database = database;
            this.corpus = corpus;
        }

        @Override
        public void phase(String name, long total) {
            this.phase = name;
            this.total = total;
            this.done.set(0);
        }

        @Override
        public void label(String name) {
            this.phase = name;
        }

        @Override
        public void advance(long n) {
            done.addAndGet(n);
        }

        View view() {
            return new View(id, procedure, database, corpus, phase, done.get(), total, started.atZone(java.time.ZoneOffset.UTC),
                    java.time.Duration.between(started, Instant.now()).toMillis());
        }

        @Override
        public void close() {
            running.remove(id);
        }
    }

    public Job start(String procedure, String database, String corpus) {
        String id = procedure + "-" + ids.incrementAndGet();
        Job j = new Job(id, procedure, database, corpus);
        running.put(id, j);
        return j;
    }

    public List<View> running() {
        List<View> out = new ArrayList<>();
        for (Job j : running.values()) out.add(j.view());
        out.sort(Comparator.comparing(View::startedAt));
        return out;
    }
}
