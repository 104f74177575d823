package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The HTTP side of the LLM client: one JDK HTTP client (created on first use, replaced after a failure of its own
 * machinery, never following redirects), {@code maxConcurrent} permits shared by every procedure of the server (a
 * call holds one only while its exchange is in flight, and waits at most {@code maxQueueMs} for one), retries with
 * exponential back-off and jitter, replies read up to {@code maxReplyBytes}, and every wait bounded and cancellable.
 * The API key goes only into the Authorization header, and only to the configured endpoint.
 */
final class LlmTransport {
    /** The body of a 2xx reply and the time its exchange took. */
    record Posted(String body, long ms) {}

    /** Whose exchanges these are: the words and settings the errors and logs name. */
    enum Kind {
        LLM("LLM step", dev.graphrag.core.config.ServerSettings.LLM, "LLM"),
        EMBEDDING("embedding request", dev.graphrag.core.config.ServerSettings.EMBEDDING, "embedding"),
        RERANK("rerank request", dev.graphrag.core.config.ServerSettings.RERANK, "reranking");

        final String noun;
        final dev.graphrag.core.config.ServerSettings.Endpoint group;
        final String server;

        Kind(String noun, dev.graphrag.core.config.ServerSettings.Endpoint group, String server) {
            this.noun = noun;
            this.group = group;
            this.server = server;
        }
    }

    /** The header that names the caller's step on every request, so a server's log matches what a procedure reports. */
    static final String STEP_HEADER = "X-Rag-Step";
    private static final long MAX_RETRY_AFTER_MS = 60_000;

    private final int maxConcurrent;
    private final long connectTimeoutMs;
    private final long maxQueueMs;
    private final long maxReplyBytes;
    private volatile HttpClient http; // created on first use: its TLS set-up must not run while the server starts
    private final Semaphore permits;
    private final Consumer<String> log;
    private final Kind kind;

    LlmTransport(int maxConcurrent, long connectTimeoutMs, long maxQueueMs, long maxReplyBytes, Consumer<String> log) {
        this(Kind.LLM, maxConcurrent, connectTimeoutMs, maxQueueMs, maxReplyBytes, log);
    }

    LlmTransport(Kind kind, int maxConcurrent, long connectTimeoutMs, long maxQueueMs, long maxReplyBytes, Consumer<String> log) {
        this.kind = kind;
        this.maxConcurrent = Math.max(1, maxConcurrent);
        this.connectTimeoutMs = connectTimeoutMs;
        this.maxQueueMs = maxQueueMs;
        this.maxReplyBytes = maxReplyBytes;
        this.permits = new Semaphore(this.maxConcurrent, true);
        this.log = log;
    }

    /** The transport of a server-named endpoint, its permits and reply cap from {@code kind}'s settings. */
    static LlmTransport of(Kind kind, dev.graphrag.core.config.PluginSettings s, LlmConfig target, Consumer<String> log) {
        return new LlmTransport(kind, s.intValue(kind.group.maxConcurrent()), target.connectTimeoutMs(), s.get(kind.group.maxQueueMs()),
                s.get(kind.group.maxReplyBytes()), log);
    }

    int availablePermits() {
        return permits.availablePermits();
    }

    int maxConcurrent() {
        return maxConcurrent;
    }

    private HttpClient http() {
        HttpClient h = http;
        if (h == null) {
            synchronized (this) {
                if (http == null) {
                    // redirects are never followed: an allowed endpoint must not pass a request (and its key) on
                    try {
                        http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(connectTimeoutMs)).version(HttpClient.Version.HTTP_1_1)
                                .followRedirects(HttpClient.Redirect.NEVER).executor(HTTP_THREADS).build();
                    } catch (LinkageError e) {
                        throw new RagException(UrlHandlerConflict.explain(e));
                    }
                }
                h = http;
            }
        }
        return h;
    }

    /** After a failure of the HTTP machinery itself (not of the remote end) the next call starts a fresh client. */
    private synchronized void discardHttpClient(HttpClient broken) {
        if (http == broken) http = null;
    }

    private static final java.util.concurrent.ExecutorService HTTP_THREADS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "graphrag-http");
        t.setDaemon(true);
        return t;
    });

    /**
     * POSTs a chat completion, retrying 429, 5xx, timeouts and I/O errors with back-off (honouring Retry-After); the
     * body of the first 2xx reply and the time its exchange took.
     */
    Posted post(LlmConfig cfg, String step, String payload, BooleanSupplier cancelled) {
        return post(cfg, "/chat/completions", step, payload, cancelled);
    }

    /** As above, to {@code path} under the endpoint (/chat/completions, /embeddings). */
    Posted post(LlmConfig cfg, String path, String step, String payload, BooleanSupplier cancelled) {
        String lastProblem = "no attempt made";
        for (int attempt = 0; attempt <= cfg.maxRetries(); attempt++) {
            long retryAfter = -1;
            acquire(cancelled, step);
            long t0 = System.nanoTime();
            try {
                HttpResponse<byte[]> resp = send(cfg, path, payload, cancelled, step);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                int status = resp.statusCode();
                String text = new String(resp.body(), StandardCharsets.UTF_8);
                if (status / 100 == 2) return new Posted(text, ms);
                String excerpt = OpenAiWire.excerpt(cfg, text);
                lastProblem = "HTTP " + status + " from " + cfg.host() + ": " + excerpt;
                if (status != 429 && status / 100 != 5) {
                    throw new LlmHttpException(kind.noun + " '" + step + "' failed: " + lastProblem + hint(cfg, status, excerpt), status, excerpt);
                }
                retryAfter = resp.headers().firstValue("Retry-After").map(LlmTransport::retryAfterMs).orElse(-1L);
            } catch (HttpTimeoutException | TimeoutException e) {
                lastProblem = "no complete reply within " + (kind == Kind.LLM ? "" : kind.group.prefix() + ".") + "timeoutMs=" + cfg.timeoutMs();
            } catch (ReplyTooLargeException e) {
                throw new RagException(kind.noun + " '" + step + "': the reply from " + cfg.host() + " passed " + maxReplyBytes
                        + " bytes (" + kind.group.maxReplyBytes().name() + ") and was abandoned");
            } catch (java.net.ConnectException e) {
                // nothing listens there: retrying cannot help, and a wrong endpoint should say so at once
                throw new RagException(kind.noun + " '" + step + "' failed: connection refused at " + cfg.host()
                        + " (is the " + kind.server + " server running? check the endpoint: " + kind.group.endpoint().name()
                        + (kind == Kind.LLM ? " or config.llm.endpoint)" : ")"));
            } catch (IOException e) {
                lastProblem = "I/O error talking to " + cfg.host() + ": " + OpenAiWire.excerpt(cfg, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            } finally {
                permits.release();
            }
            if (attempt < cfg.maxRetries()) {
                long wait = retryAfter >= 0 ? Math.min(retryAfter, MAX_RETRY_AFTER_MS)
                        : cfg.retryBaseMs() * (1L << Math.min(attempt, 16)) + ThreadLocalRandom.current().nextLong(cfg.retryBaseMs() + 1);
                log.accept("graphrag: " + kind.noun + " '" + step + "': " + lastProblem + "; retry " + (attempt + 1) + "/" + cfg.maxRetries() + " in " + wait + " ms");
                sleep(wait, cancelled, step);
            }
        }
        throw new RagException(kind.noun + " '" + step + "' failed after " + (cfg.maxRetries() + 1) + " attempts: " + lastProblem);
    }

    /** What to check, after a 4xx that retrying cannot mend. */
    private String hint(LlmConfig cfg, int status, String excerpt) {
        if (status == 401 || status == 403) return " (check the API key)";
        if (status == 404) return " (check the endpoint, ending in /v1, and the model name)";
        if (!OpenAiWire.refusesContext(excerpt)) return "";
        return kind == Kind.LLM ? " (the prompt does not fit the server's context window: set graphrag.llm.contextTokens"
                + " (now " + cfg.contextTokens() + ") to the server's window (vLLM --max-model-len, llama.cpp --ctx-size) so prompts are trimmed"
                + " to fit, or raise the server's window; docs/llm.md#context-windows)"
                : kind == Kind.EMBEDDING ? " (a text is longer than the embedding model takes: lower graphrag.ingest.chunkSize, or raise the server's input limit)"
                : " (a passage is longer than the reranker takes: lower graphrag.rerank.maxDocumentChars, or let the server truncate)";
    }

    private HttpResponse<byte[]> send(LlmConfig cfg, String path, String payload, BooleanSupplier cancelled, String step)
            throws IOException, TimeoutException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cfg.endpoint() + path))
                .timeout(Duration.ofMillis(cfg.timeoutMs()))
                .header("Content-Type", "application/json")
                .header(STEP_HEADER, headerSafe(step))
                .POST(HttpRequest.BodyPublishers.ofString(payload));
        if (cfg.hasApiKey()) b.header("Authorization", "Bearer " + cfg.apiKey());
        return await(http().sendAsync(b.build(), capped()), cfg.timeoutMs(), cancelled, step);
    }

    /**
     * Waits for a whole exchange (headers and body) until the deadline, polling the caller's cancellation; a
     * cancelled, timed-out or oversized exchange is aborted, so its connection and buffer are released.
     */
    private <T> HttpResponse<T> await(CompletableFuture<HttpResponse<T>> f, long timeoutMs, BooleanSupplier cancelled, String step)
            throws IOException, TimeoutException {
        HttpClient used = http;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            if (cancelled.getAsBoolean()) {
                f.cancel(true);
                throw cancelledError(step);
            }
            try {
                return f.get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    f.cancel(true);
                    throw e;
                }
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                while (cause instanceof java.util.concurrent.CompletionException || (cause instanceof IOException && cause.getCause() instanceof ReplyTooLargeException)) {
                    cause = cause.getCause();
                }
                if (cause instanceof ReplyTooLargeException tooLarge) throw tooLarge;
                if (cause instanceof IOException io) throw io;
                discardHttpClient(used);
                if (cause instanceof LinkageError broken) throw new RagException(UrlHandlerConflict.explain(broken));
                throw new IOException(cause == null ? "unknown failure" : cause.getClass().getSimpleName(), cause);
            } catch (InterruptedException e) {
                f.cancel(true);
                Thread.currentThread().interrupt();
                throw cancelledError(step);
            } catch (RuntimeException e) {
                discardHttpClient(used);
                throw new IOException(e.getClass().getSimpleName(), e);
            }
        }
    }

    /** A body handler that keeps at most maxReplyBytes and cancels the exchange past that. */
    private HttpResponse.BodyHandler<byte[]> capped() {
        long max = maxReplyBytes;
        return info -> new CappedBody(max, info.headers().firstValueAsLong("Content-Length").orElse(-1));
    }

    /** Thrown when a reply passes maxReplyBytes: the whole call fails at once, nothing is retried. */
    static final class ReplyTooLargeException extends IOException {
        ReplyTooLargeException(long max) {
            super("reply larger than " + max + " bytes");
        }
    }

    private static final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final long max;
        private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private java.util.concurrent.Flow.Subscription subscription;

        CappedBody(long max, long declaredLength) {
            this.max = max;
            if (declaredLength > max) result.completeExceptionally(new ReplyTooLargeException(max));
        }

        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
            subscription = s;
            if (result.isDone()) s.cancel();
            else s.request(1);
        }

        @Override
        public void onNext(List<java.nio.ByteBuffer> items) {
            if (result.isDone()) return;
            for (java.nio.ByteBuffer b : items) {
                if (buffer.size() + (long) b.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new ReplyTooLargeException(max));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                buffer.write(chunk, 0, chunk.length);
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(buffer.toByteArray());
        }

        @Override
        public java.util.concurrent.CompletionStage<byte[]> getBody() {
            return result;
        }
    }

    /** A GET (or a POST of {@code json}) to the endpoint's own server; the body on 2xx, else null. */
    String get(LlmConfig cfg, String url, String json, BooleanSupplier cancelled) {
        long timeout = Math.min(cfg.timeoutMs(), 10_000);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(timeout)).header(STEP_HEADER, "rag.llm.info");
        if (json == null) b.GET();
        else b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        // the key goes to the endpoint's own path only: /props and /api/show sit beside it, and get none
        if (cfg.hasApiKey() && url.startsWith(cfg.endpoint() + "/")) b.header("Authorization", "Bearer " + cfg.apiKey());
        try {
            HttpResponse<byte[]> r = await(http().sendAsync(b.build(), capped()), timeout, cancelled, "rag.llm.info");
            return r.statusCode() / 100 == 2 ? new String(r.body(), StandardCharsets.UTF_8) : null;
        } catch (IOException | TimeoutException e) {
            return null;
        }
    }

    /** Header values must be visible ASCII; step names are ours, but keep them safe anyway. */
    private static String headerSafe(String step) {
        String s = step == null ? "unnamed" : step.replaceAll("[^\\x20-\\x7e]", "?");
        return s.length() > 200 ? s.substring(0, 200) : s;
    }

    static long retryAfterMs(String v) {
        try {
            return (long) (Double.parseDouble(v.trim()) * 1000);
        } catch (NumberFormatException e) {
            return -1; // an HTTP date: fall back to our own back-off
        }
    }

    private void acquire(BooleanSupplier cancelled, String step) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxQueueMs);
        try {
            while (!permits.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                if (cancelled.getAsBoolean()) throw cancelledError(step);
                if (System.nanoTime() > deadline) {
                    throw new RagException(kind.noun + " '" + step + "': the server is busy: all " + maxConcurrent
                            + " " + kind.server + " permits (" + kind.group.maxConcurrent().name() + ") stayed in use for " + maxQueueMs
                            + " ms (" + kind.group.maxQueueMs().name() + "); retry later");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelledError(step);
        }
    }

    private void sleep(long ms, BooleanSupplier cancelled, String step) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        try {
            while (System.nanoTime() < end) {
                if (cancelled.getAsBoolean()) throw cancelledError(step);
                Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelledError(step);
        }
    }

    private RagException cancelledError(String step) {
        return new RagException(kind.noun + " '" + step + "' cancelled: the transaction was terminated");
    }
}
