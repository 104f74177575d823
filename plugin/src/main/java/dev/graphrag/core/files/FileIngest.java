package dev.graphrag.core.files;

import dev.graphrag.core.Progress;
import dev.graphrag.core.RagException;
import dev.graphrag.core.lexical.Ingestor;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * rag.ingest.files: each file is hashed (unchanged files, same bytes and settings, end there without parsing),
 * parsed under its limits on a worker thread, and handed to {@link Ingestor} as one Document, so chunking,
 * embedding, batching, resumability and the corpus lock are rag.ingest's own. A file that cannot be read gets a
 * row saying why and writes nothing; the others go on (unless failOnError). Parsed files go to the ingestor in
 * groups, so the heap holds one group's text, not the whole folder's.
 */
public final class FileIngest {
    /** One row of rag.ingest.files. pages is null for formats without pages. */
    public record Outcome(String documentId, String source, String contentType, Long pages, long chunks, String status, String error, long ms) {}

    /** Text characters parsed before a group goes to the ingestor. */
    static final long GROUP_CHARS = 8_000_000;
    static final int GROUP_FILES = 512;

    private final GraphDatabaseService db;
    private final Ingestor ingestor;
    private final String model;
    private final BooleanSupplier cancelled;
    private final Progress progress;
    private final ExecutorService parsers;

    /**
     * Files read into {@code ingestor}'s corpus (which should report no progress of its own: this reports files); parses run
     * on {@code parsers}, one at a time.
     */
    public FileIngest(GraphDatabaseService db, Ingestor ingestor, String embeddingModel, BooleanSupplier cancelled, Progress progress,
                      ExecutorService parsers) {
        this.db = db;
        this.ingestor = ingestor;
        this.model = embeddingModel;
        this.cancelled = cancelled;
        this.progress = progress;
        this.parsers = parsers;
    }

    public List<Outcome> ingest(Object source, Path importDir, FilesConfig cfg) {
        List<String> entries = ImportSources.entries(source);
        ImportSources.Resolved resolved = ImportSources.resolve(entries, importDir, cfg.allowedUrls());
        List<ImportSources.Source> files = resolved.files();
        if (files.size() > cfg.maxFiles()) {
            throw new RagException("rag.ingest.files: the source matches " + files.size() + " files, over maxFiles=" + cfg.maxFiles()
                    + "; ingest it in parts (one call per folder, say)");
        }
        long totalBytes = files.stream().mapToLong(f -> Math.max(0, f.bytes())).sum();
        if (totalBytes > cfg.maxCallBytes()) {
            throw new RagException("rag.ingest.files: the files hold " + totalBytes + " bytes, over maxCallBytes=" + cfg.maxCallBytes()
                    + "; ingest them in parts");
        }
        String signature = cfg.signature(model);
        Map<String, Outcome> rows = new LinkedHashMap<>();
        for (String id : resolved.missing()) rows.put(id, new Outcome(id, id, FileParsers.contentType(id), null, 0, FileProblem.FAILED,
                "no such file in the import directory", 0));
        resolved.unmatched().forEach((pattern, why) -> rows.put(pattern, new Outcome(pattern, pattern, null, null, 0, FileProblem.NO_MATCH, why, 0)));
        progress.phase("files", files.size());
        List<Ingestor.Document> group = new ArrayList<>();
        Map<String, Parsed> parsedFiles = new HashMap<>();
        long groupChars = 0, bytesDone = 0;
        for (ImportSources.Source f : files) {
            if (cancelled.getAsBoolean()) {
                throw new RagException("rag.ingest.files: terminated after " + rows.size() + " of " + files.size() + " files (written files are"
                        + " committed; a rerun skips them)");
            }
            long t0 = System.nanoTime();
            String contentType = FileParsers.contentType(f.id());
            Path temp = null;
            try {
                Path path = f.path();
                String name = f.id();
                if (f.remote()) {
                    Download d = download(f, cfg);
                    temp = d.file();
                    path = d.file();
                    name = d.name();
                    contentType = FileParsers.contentType(name);
                }
                long bytes = Files.size(path);
                if (bytes > cfg.maxFileBytes()) {
                    throw new FileProblem("the file has " + bytes + " bytes, over maxFileBytes=" + cfg.maxFileBytes());
                }
                String sha = FileDigest.sha256(path);
                Outcome unchanged = unchanged(f, cfg.ingest().corpus(), sha, signature, contentType, t0);
                if (unchanged != null) {
                    rows.put(f.id(), unchanged);
                } else {
                    ParsedFile parsed = parse(path, name, cfg);
                    contentType = parsed.contentType();
                    Map<String, Object> meta = new TreeMap<>(cfg.metadata());
                    parsed.metadata().forEach(meta::put);
                    meta.put("source", f.id());
                    meta.put("contentType", parsed.contentType());
                    meta.put("bytes", bytes);
                    meta.put("sha256", sha);
                    meta.put("ingestSettings", signature);
                    if (parsed.layout().pageCount() > 0) meta.put("pages", (long) parsed.layout().pageCount());
                    String title = parsed.title() != null ? parsed.title() : fileName(f.id());
                    group.add(new Ingestor.Document(f.id(), parsed.text(), title, meta, parsed.layout()));
                    parsedFiles.put(f.id(), new Parsed(t0, parsed.contentType(), parsed.layout().pageCount()));
                    groupChars += parsed.text().length();
                    rows.put(f.id(), null); // keeps the input order; filled when the group is written
                }
            } catch (FileProblem p) {
                if (cfg.failOnError()) {
                    flush(group, parsedFiles, rows, cfg);
                    throw new RagException("rag.ingest.files: '" + f.id() + "': " + p.getMessage() + " (failOnError; the files before it are committed)");
                }
                rows.put(f.id(), new Outcome(f.id(), f.id(), contentType, null, 0, p.status(), p.getMessage(), ms(t0)));
            } catch (IOException e) {
                rows.put(f.id(), new Outcome(f.id(), f.id(), contentType, null, 0, FileProblem.FAILED, "cannot read the file: " + e.getMessage(), ms(t0)));
            } finally {
                if (temp != null) deleteQuietly(temp);
            }
            bytesDone += Math.max(0, f.bytes());
            // a parsed file is done when its group is embedded and written (flush); a failed or unchanged one now
            if (!parsedFiles.containsKey(f.id())) progress.advance(1);
            progress.label("files (" + mb(bytesDone) + " of " + mb(totalBytes) + " MB read)");
            if (groupChars >= GROUP_CHARS || group.size() >= GROUP_FILES) {
                flush(group, parsedFiles, rows, cfg);
                groupChars = 0;
            }
        }
        flush(group, parsedFiles, rows, cfg);
        if (cfg.deleteMissing()) {
            // a path named alone whose file is gone is then deleted, not failed
            for (Outcome o : deleteMissing(resolved, files, cfg.ingest().corpus())) rows.put(o.documentId(), o);
        }
        return new ArrayList<>(rows.values());
    }

    /** A parsed file waiting for its group to be written: when its work began, its content type and pages. */
    private record Parsed(long startNanos, String contentType, int pages) {}

    private void flush(List<Ingestor.Document> group, Map<String, Parsed> parsedFiles, Map<String, Outcome> rows, FilesConfig cfg) {
        if (group.isEmpty()) return;
        progress.label("files (embedding and writing " + group.size() + " parsed " + (group.size() == 1 ? "file" : "files") + ")");
        for (Ingestor.Outcome o : ingestor.ingest(List.copyOf(group), cfg.ingest())) {
            Parsed p = parsedFiles.remove(o.documentId());
            rows.put(o.documentId(), new Outcome(o.documentId(), o.documentId(), p.contentType(), p.pages() > 0 ? (long) p.pages() : null,
                    o.chunks(), o.status(), null, ms(p.startNanos())));
        }
        progress.advance(group.size());
        group.clear();
    }

    /** The row of a file whose Document has the same bytes and settings, or null when it must be parsed. */
    private Outcome unchanged(ImportSources.Source f, String corpus, String sha, String signature, String contentType, long t0) {
        try (Transaction tx = db.beginTx()) {
            Node doc = Ingestor.findDocument(tx, corpus, f.id());
            if (doc == null || !sha.equals(doc.getProperty("sha256", null)) || !signature.equals(doc.getProperty("ingestSettings", null))) {
                return null;
            }
            Object pages = doc.getProperty("pages", null);
            return new Outcome(f.id(), f.id(), (String) doc.getProperty("contentType", contentType), pages instanceof Long p ? p : null,
                    ((Number) doc.getProperty("chunkCount", 0L)).longValue(), "unchanged", null, ms(t0));
        }
    }

    private ParsedFile parse(Path path, String name, FilesConfig cfg) {
        ParseLimits limits = new ParseLimits(cfg.ingest().maxDocumentChars(), cfg.parseTimeoutSeconds(), cancelled);
        Future<ParsedFile> future = parsers.submit(() -> FileParsers.parse(path, name, limits));
        try {
            // the parse checks its deadline as text comes out; this bounds a parser that stalls without output
            return future.get(cfg.parseTimeoutSeconds() + 5, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw limits.timedOut();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new RagException("rag.ingest.files: interrupted");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof FileProblem p) throw p;
            if (c instanceof OutOfMemoryError) throw new FileProblem("the parser ran out of memory on this file; lower maxFileBytes or split the file");
            if (c instanceof StackOverflowError) throw new FileProblem("the file's structure is nested too deeply to parse (a damaged or crafted file)");
            throw new FileProblem("the parser failed on this file (" + FileParsers.cut(c.getClass().getSimpleName() + ": " + c.getMessage()) + ")");
        }
    }

    /** Documents of the corpus that came from a file under one of the source patterns and whose file is gone. */
    private List<Outcome> deleteMissing(ImportSources.Resolved resolved, List<ImportSources.Source> files, String corpus) {
        Set<String> present = new java.util.HashSet<>();
        for (ImportSources.Source f : files) present.add(f.id());
        List<String> gone = new ArrayList<>();
        try (Transaction tx = db.beginTx();
             Result r = tx.execute("MATCH (d:Document {corpus: $c}) WHERE d.source IS NOT NULL AND d.source = d.id RETURN d.id AS id ORDER BY id",
                     Map.of("c", corpus))) {
            while (r.hasNext()) {
                String id = (String) r.next().get("id");
                if (present.contains(id) || id.contains("://")) continue;
                Path rel = Path.of(id);
                if (resolved.patterns().stream().anyMatch(m -> m.matches(rel))) gone.add(id);
            }
        }
        if (gone.isEmpty()) return List.of();
        List<Outcome> out = new ArrayList<>();
        for (Ingestor.Outcome o : ingestor.delete(gone, corpus)) {
            out.add(new Outcome(o.documentId(), o.documentId(), null, null, o.chunks(), o.status(), null, o.ms()));
        }
        return out;
    }

    private record Download(Path file, String name) {}

    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** An allowed URL's body into a temp file, at most maxFileBytes; redirects are not followed (their target was not allowed). */
    private Download download(ImportSources.Source f, FilesConfig cfg) throws IOException {
        HttpRequest req = HttpRequest.newBuilder(f.url()).timeout(Duration.ofSeconds(cfg.parseTimeoutSeconds())).GET().build();
        HttpResponse<InputStream> resp;
        try {
            resp = HTTP.send(req, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException("rag.ingest.files: interrupted");
        } catch (IOException e) {
            throw new FileProblem("fetching the URL failed: " + FileParsers.cut(String.valueOf(e.getMessage())));
        }
        try (InputStream body = resp.body()) {
            if (resp.statusCode() / 100 == 3) {
                throw new FileProblem("the URL redirects (HTTP " + resp.statusCode() + ") to " + resp.headers().firstValue("location").orElse("?")
                        + "; redirects are not followed: list the final URL instead");
            }
            if (resp.statusCode() / 100 != 2) throw new FileProblem("the server answered HTTP " + resp.statusCode());
            String name = f.url().getPath() == null ? "" : f.url().getPath();
            if (FileParsers.contentType(name) == null) {
                String ext = FileParsers.extensionFor(resp.headers().firstValue("content-type").orElse(null));
                if (ext == null) {
                    throw new FileProblem("unsupported type: the URL's name has no supported extension and the server sent Content-Type "
                            + resp.headers().firstValue("content-type").orElse("(none)") + "; supported: " + FileParsers.supportedExtensions());
                }
                name = "download." + ext;
            }
            Path temp = Files.createTempFile("graphrag-download", "." + FileParsers.extension(name));
            long n = 0;
            try (OutputStream out = Files.newOutputStream(temp)) {
                byte[] buf = new byte[1 << 16];
                for (int r; (r = body.read(buf)) > 0; ) {
                    n += r;
                    if (n > cfg.maxFileBytes()) throw new FileProblem("the download passed maxFileBytes=" + cfg.maxFileBytes() + " bytes");
                    out.write(buf, 0, r);
                }
            } catch (RuntimeException | IOException e) {
                deleteQuietly(temp);
                throw e;
            }
            return new Download(temp, name);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a temp file; the JVM's temp directory is cleaned by the system
        }
    }

    private static String fileName(String id) {
        int slash = id.lastIndexOf('/');
        return slash >= 0 ? id.substring(slash + 1) : id;
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String mb(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
