package dev.graphrag.core;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class ForkedTest {
    @Test
    void withoutAPoolTheStageRunsOnTheCallerWhenJoined() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicInteger runs = new AtomicInteger();
        Forked<String> f = Forked.start(null, () -> {
            ranOn.set(Thread.currentThread());
            runs.incrementAndGet();
            return "done";
        });
        assertEquals(0, runs.get(), "nothing runs before join");
        assertEquals("done", f.join());
        assertSame(Thread.currentThread(), ranOn.get());
        assertEquals("done", f.join());
        assertEquals(1, runs.get(), "a second join does not run it again");
    }

    @Test
    void aWorkerRunsTheStageBesideTheCaller() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1), callerWorking = new CountDownLatch(1);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            Forked<Integer> f = Forked.start(pool, () -> {
                ranOn.set(Thread.currentThread());
                started.countDown();
                try {
                    // only finishes once the caller has done its own part: the two overlap
                    assertTrue(callerWorking.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return 42;
            });
            // the worker has begun while the caller has not joined yet
            assertTrue(started.await(10, TimeUnit.SECONDS));
            callerWorking.countDown();
            assertEquals(42, f.join());
            assertNotSame(Thread.currentThread(), ranOn.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStageNoWorkerHasBegunRunsOnTheCallerAndOnlyOnce() {
        List<Runnable> queued = new ArrayList<>(); // a pool too busy to start anything
        AtomicInteger runs = new AtomicInteger();
        Forked<Integer> f = Forked.start(queued::add, runs::incrementAndGet);
        assertEquals(1, queued.size());
        assertEquals(1, f.join());
        queued.get(0).run(); // the worker gets to it late: it does not run twice
        assertEquals(1, runs.get());
    }

    @Test
    void aPoolThatRefusesWorkLeavesTheStageToTheCaller() {
        Forked<String> f = Forked.start(r -> {
            throw new RejectedExecutionException("shut down");
        }, () -> Thread.currentThread().getName());
        assertEquals(Thread.currentThread().getName(), f.join());
    }

    @Test
    void theStagesExceptionReachesTheCallerUnwrapped() throws Exception {
        RagException thrown = new RagException("the snapshot changed");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Forked<Object> onWorker = Forked.start(pool, () -> {
                throw thrown;
            });
            assertSame(thrown, assertThrows(RagException.class, onWorker::join));
            Forked<Object> onCaller = Forked.start(null, () -> {
                throw thrown;
            });
            assertSame(thrown, assertThrows(RagException.class, onCaller::join));
            StackOverflowError error = new StackOverflowError();
            assertSame(error, assertThrows(StackOverflowError.class, Forked.start(pool, () -> {
                throw error;
            })::join));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anInterruptedCallerStillGetsTheResultAndKeepsItsInterrupt() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1), release = new CountDownLatch(1);
            Forked<String> f = Forked.start(pool, () -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return "finished";
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            Thread caller = Thread.currentThread();
            Thread interrupter = new Thread(() -> {
                caller.interrupt();
                release.countDown();
            });
            interrupter.start();
            assertEquals("finished", f.join());
            assertTrue(Thread.interrupted(), "the interrupt is kept for the caller's next check");
            interrupter.join();
        } finally {
            pool.shutdownNow();
        }
    }
}
