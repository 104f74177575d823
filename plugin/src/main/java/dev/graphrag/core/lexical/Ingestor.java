package dev.graphrag.core.lexical;

import dev.graphrag.core.Progress;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.text.Chunker;
import dev.graphrag.core.text.TextLayout;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Writes documents into the lexical graph. Everything is validated before anything is written; then
 * documents go in batches, each batch chunked and embedded outside any transaction and written in one
 * transaction of its own (not the caller's: a ROLLBACK of the caller's transaction does not undo committed
 * batches), so an interrupted run keeps whole documents only and a rerun skips them by content hash.
 * Termination is checked while chunking, between model calls and right before each commit: nothing is
 * committed once the caller's transaction is terminated. Every write transaction of a corpus first takes
 * the corpus node's write lock, so concurrent ingests and deletes of a corpus serialise their writes
 * (the expensive chunking and embedding still run in parallel) and never see each other's half-done state.
 */
public final class Ingestor {
    /** One input document after validation. */
    public record Document(String id, String text, String title, Map<String, Object> metadata, TextLayout layout) {
        /** A document handed in as text: its layout is its Markdown headings. */
        public Document(String id, String text, String title, Map<String, Object> metadata) {
            this(id, text, title, metadata, null);
        }

        TextLayout layoutOrHeadings() {
            return layout != null ? layout : TextLayout.of(text);
        }
    }

    /** One row of rag.ingest's result. */
    public record Outcome(String documentId, long chunks, String status, long ms) {}

    private static final Pattern PROPERTY_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    /** Properties of a Document that metadata may not set. */
    public static final Set<String> RESERVED = Set.of("id", "corpus", "text", "title", "contentHash", "chunkCount",
            "embeddingModel", "ingestedAt", "length", "chunker");

    private final GraphDatabaseService db;
    private final EmbeddingService embeddings;
    private final Consumer<String> log;
    private final BooleanSupplier cancelled;

    private final Progress progress;

    private final ExecutorService executor;

    /** For rag.ingest (embeddings loaded) and rag.delete (none needed: null); chunking runs on {@code executor}. */
    public Ingestor(GraphDatabaseService db, EmbeddingService embeddings, Consumer<String> log, BooleanSupplier cancelled, Progress progress,
                     ExecutorService executor) {
        this.executor = executor;
        this.progress = progress;
        this.db = db;
        this.embeddings = embeddings;
        this.log = log;
        this.cancelled = cancelled;
    }

    /** Checks the raw Cypher list of maps; errors name the document (by position and id) and the field. */
    public static List<Document> validate(List<?> raw, long maxChars) {
        if (raw == null) throw new RagException("rag.ingest: documents must be a list of maps, got null");
        if (raw.isEmpty()) throw new RagException("rag.ingest: documents is empty");
        List<Document> docs = new ArrayList<>(raw.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < raw.size(); i++) {
            Object o = raw.get(i);
            if (!(o instanceof Map<?, ?> m)) {
                throw new RagException("rag.ingest: document " + i + " must be a map {id, text, title?, metadata?}, got " + ConfigReader.typeName(o));
            }
            for (Object k : m.keySet()) {
                if (!Set.of("id", "text", "title", "metadata").contains(k)) {
                    throw new RagException("rag.ingest: document " + i + " has unknown key '" + k + "'; valid keys are [id, text, title, metadata]");
                }
            }
            Object id = m.get("id");
            if (!(id instanceof String sid) || sid.isBlank()) {
                throw new RagException("rag.ingest: document " + i + " needs a non-empty STRING id, got " + ConfigReader.typeName(id));
            }
            if (sid.length() > 512) throw new RagException("rag.ingest: document " + i + " id is longer than 512 characters");
            if (!seen.add(sid)) throw new RagException("rag.ingest: duplicate document id '" + sid + "' in one call");
            Object text = m.get("text");
            if (!(text instanceof String st)) {
                throw new RagException("rag.ingest: document '" + sid + "' needs a STRING text, got " + ConfigReader.typeName(text));
            }
            if (st.isBlank()) throw new RagException("rag.ingest: document '" + sid + "' has empty text");
            if (st.length() > maxChars) {
                throw new RagException("rag.ingest: document '" + sid + "' has " + st.length() + " characters, over maxDocumentChars=" + maxChars);
            }
            Object title = m.get("title");
            if (title != null && !(title instanceof String)) {
                throw new RagException("rag.ingest: document '" + sid + "' title must be a STRING, got " + ConfigReader.typeName(title));
            }
            docs.add(new Document(sid, st, (String) title, metadata(sid, m.get("metadata"))));
        }
        return docs;
    }

    private static Map<String, Object> metadata(String id, Object raw) {
        return metadata("rag.ingest: document '" + id + "'", raw, RESERVED);
    }

    /** Checked metadata: keys that are property names and not {@code reserved}, values Neo4j can store; errors start with {@code owner}. */
    public static Map<String, Object> metadata(String owner, Object raw, Set<String> reserved) {
        if (raw == null) return Map.of();
        if (!(raw instanceof Map<?, ?> m)) throw new RagException(owner + " metadata must be a MAP");
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!PROPERTY_NAME.matcher(key).matches() || reserved.contains(key)) {
                throw new RagException(owner + " metadata key '" + key
                        + "' is not allowed (letters, digits, '_'; not one of " + new java.util.TreeSet<>(reserved) + ")");
            }
            Object v = e.getValue();
            if (v instanceof String || v instanceof Long || v instanceof Double || v instanceof Boolean) {
                out.put(key, v);
            } else if (v instanceof List<?> list && list.stream().allMatch(x -> x instanceof String)) {
                out.put(key, list.toArray(new String[0]));
            } else if (v != null) {
                throw new RagException(owner + " metadata '" + key
                        + "' must be a STRING, INTEGER, FLOAT, BOOLEAN or LIST<STRING>, got " + ConfigReader.typeName(v));
            }
        }
        return out;
    }

    public List<Outcome> ingest(List<Document> docs, IngestConfig cfg) {
        LexicalGraph.setup(db, embeddings.dimensions());
        ensureCorpus(cfg.corpus());
        Chunker chunker = cfg.newChunker(embeddings.tokenizer());
        progress.phase("documents", docs.size());
        List<Outcome> out = new ArrayList<>(docs.size());
        long t0 = System.nanoTime();
        long[] chunksDone = {0};
        // embedding batch k+1 overlaps with writing batch k (on the shared pool, one batch in flight)
        Future<List<Outcome>> pending = null;
        try {
            List<Document> batch = new ArrayList<>();
            int batchChunks = 0;
            for (int i = 0; i < docs.size(); i++) {
                Document d = docs.get(i);
                batch.add(d);
                batchChunks += Math.max(1, d.text().length() / cfg.approxChunkChars());
                if (batchChunks >= cfg.batchSize() || i == docs.size() - 1) {
                    checkCancelled(out.size(), docs.size());
                    Prepared prepared;
                    try {
                        prepared = prepare(List.copyOf(batch), cfg, chunker);
                    } catch (RagException e) {
                        // an embedding endpoint that fails mid-ingest: say what is committed, after the batch in flight is
                        if (pending != null) collect(pending, out, chunksDone, docs.size(), cfg, t0);
                        pending = null;
                        throw new RagException("rag.ingest: " + e.getMessage() + "; " + out.size() + " of " + docs.size()
                                + " documents are committed (a rerun skips them)"); // no cause: Neo4j reports the innermost one
                    }
                    if (pending != null) collect(pending, out, chunksDone, docs.size(), cfg, t0);
                    pending = executor.submit(() -> write(prepared, cfg));
                    batch.clear();
                    batchChunks = 0;
                }
            }
            if (pending != null) collect(pending, out, chunksDone, docs.size(), cfg, t0);
            pending = null;
        } finally {
            // never return while a batch is still being written: it commits whole, or (terminated) rolls back
            if (pending != null) {
                try {
                    pending.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    // the error that brought us here is the one to report
                }
            }
        }
        return out;
    }

    private void checkCancelled(int done, int total) {
        if (cancelled.getAsBoolean()) {
            throw new RagException("rag.ingest: terminated after " + done + " of " + total + " documents (those are committed; a rerun skips them)");
        }
    }

    private void collect(Future<List<Outcome>> pending, List<Outcome> out, long[] chunksDone, int total, IngestConfig cfg, long t0) {
        List<Outcome> done;
        try {
            done = pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RagException("rag.ingest: interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new RagException("rag.ingest: writing a batch failed: " + e.getCause(), e.getCause());
        }
        out.addAll(done);
        progress.advance(done.size());
        for (Outcome o : done) chunksDone[0] += o.status().equals("unchanged") ? 0 : o.chunks();
        if (total > cfg.batchSize()) {
            double s = (System.nanoTime() - t0) / 1e9;
            log.accept(String.format("rag.ingest corpus=%s: %d/%d documents, %d chunks written, %.1f chunks/s",
                    cfg.corpus(), out.size(), total, chunksDone[0], chunksDone[0] / Math.max(1e-9, s)));
        }
    }

    /** A batch chunked and embedded, ready to write. */
    private record Prepared(List<Document> docs, String[] hashes, String[] previous, List<List<Chunker.Chunk>> chunks,
                            float[][] vectors, long startNanos, Chunker chunker) {}

    private Prepared prepare(List<Document> batch, IngestConfig cfg, Chunker chunker) {
        long t0 = System.nanoTime();
        String[] hashes = new String[batch.size()];
        String[] previous = new String[batch.size()];
        try (Transaction tx = db.beginTx()) {
            for (int i = 0; i < batch.size(); i++) {
                hashes[i] = contentHash(batch.get(i), cfg, embeddings.modelName());
                Node n = findDocument(tx, cfg.corpus(), batch.get(i).id());
                previous[i] = n == null ? null : (String) n.getProperty("contentHash", "");
            }
        }
        List<List<Chunker.Chunk>> chunks = new ArrayList<>();
        List<Chunker.Chunk> all = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            List<Chunker.Chunk> cs = hashes[i].equals(previous[i]) ? List.of() : chunker.chunk(batch.get(i).text(), cancelled);
            chunks.add(cs);
            all.addAll(cs);
        }
        float[][] vectors = embed(all);
        return new Prepared(batch, hashes, previous, chunks, vectors, t0, chunker);
    }

    private float[][] embed(List<Chunker.Chunk> chunks) {
        return embeddings.embedChunks(chunks.stream().map(Chunker.Chunk::text).toList(), chunks.stream().map(Chunker.Chunk::tokenIds).toList(), cancelled);
    }

    private List<Outcome> write(Prepared p, IngestConfig cfg) {
        List<Document> batch = p.docs();
        String[] hashes = p.hashes();
        String[] previous = p.previous();
        List<List<Chunker.Chunk>> chunks = p.chunks();
        float[][] vectors = p.vectors();
        long t0 = p.startNanos();
        List<Outcome> out = new ArrayList<>();
        try (Transaction tx = db.beginTx()) {
            Node corpusNode = LexicalGraph.requireCorpus(tx, cfg.corpus());
            tx.acquireWriteLock(corpusNode);
            boolean changed = false;
            int v = 0;
            for (int i = 0; i < batch.size(); i++) {
                Document d = batch.get(i);
                Node doc = findDocument(tx, cfg.corpus(), d.id());
                if (doc != null && hashes[i].equals(doc.getProperty("contentHash", null))) {
                    // unchanged, or written meanwhile by a concurrent call with the same content: keep it
                    if (!hashes[i].equals(previous[i])) v += chunks.get(i).size();
                    out.add(new Outcome(d.id(), ((Number) doc.getProperty("chunkCount", 0L)).longValue(), "unchanged", 0));
                    continue;
                }
                List<Chunker.Chunk> cs = chunks.get(i);
                float[][] docVectors = null;
                if (hashes[i].equals(previous[i])) {
                    // seen unchanged before the lock, changed or deleted by a concurrent call since: prepare it now
                    cs = p.chunker().chunk(d.text(), cancelled);
                    docVectors = embed(cs);
                }
                changed = true;
                String status = doc == null ? "created" : "updated";
                if (doc == null) {
                    doc = tx.createNode(LexicalGraph.DOCUMENT);
                    doc.setProperty("corpus", cfg.corpus());
                    doc.setProperty("id", d.id());
                } else {
                    deleteChunks(doc);
                    for (String k : doc.getPropertyKeys()) {
                        if (!k.equals("corpus") && !k.equals("id")) doc.removeProperty(k);
                    }
                }
                doc.setProperty("text", d.text());
                doc.setProperty("length", (long) d.text().length());
                if (d.title() != null) doc.setProperty("title", d.title());
                d.metadata().forEach(doc::setProperty);
                doc.setProperty("contentHash", hashes[i]);
                doc.setProperty("embeddingModel", embeddings.modelName());
                doc.setProperty("ingestedAt", ZonedDateTime.now());
                doc.setProperty("chunker", cfg.chunker().name().toLowerCase(java.util.Locale.ROOT));
                doc.setProperty("chunkCount", (long) cs.size());
                TextLayout layout = d.layoutOrHeadings();
                Node prev = null;
                for (Chunker.Chunk c : cs) {
                    Node chunk = tx.createNode(LexicalGraph.CHUNK);
                    chunk.setProperty("id", LexicalGraph.chunkId(cfg.corpus(), d.id(), c.index()));
                    chunk.setProperty("corpus", cfg.corpus());
                    chunk.setProperty("documentId", d.id());
                    chunk.setProperty("index", (long) c.index());
                    chunk.setProperty("text", c.text());
                    chunk.setProperty("start", (long) c.start());
                    chunk.setProperty("end", (long) c.end());
                    chunk.setProperty("tokens", (long) c.tokens());
                    if (c.kind() != null) chunk.setProperty("kind", c.kind());
                    // what a citation shows: the pages the chunk spans (files with pages) and its section path (documents with headings)
                    long[] pages = layout.pages(c.start(), c.end());
                    if (pages != null) chunk.setProperty("pages", pages);
                    String section = layout.section(c.start());
                    if (section != null) chunk.setProperty("section", section);
                    // the embedder reads at most maxLength tokens: a longer chunk's vector stands for its beginning
                    if (c.tokens() > embeddings.maxLength() - 2) chunk.setProperty("embeddingTruncated", true);
                    float[] vec = docVectors != null ? docVectors[c.index()] : vectors[v++];
                    if (vec.length != embeddings.dimensions()) {
                        throw new RagException("embedding has " + vec.length + " dimensions, expected " + embeddings.dimensions());
                    }
                    chunk.setProperty("embedding", vec);
                    doc.createRelationshipTo(chunk, LexicalGraph.HAS_CHUNK);
                    if (prev != null) prev.createRelationshipTo(chunk, LexicalGraph.NEXT_CHUNK);
                    prev = chunk;
                }
                out.add(new Outcome(d.id(), cs.size(), status, 0));
            }
            // layers derived from the chunks (snapshots, method layers) see that they changed
            if (changed) LayerVersions.bumpLexical(tx, corpusNode);
            // the caller may have been terminated while this batch was written: then it must not land
            if (cancelled.getAsBoolean()) throw new RagException("rag.ingest: terminated; the batch in progress was rolled back");
            tx.commit();
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        List<Outcome> timed = new ArrayList<>(out.size());
        for (Outcome o : out) timed.add(new Outcome(o.documentId(), o.chunks(), o.status(), ms));
        return timed;
    }

    /** rag.delete: documents with their chunks; ids that are not there report "missing". */
    public List<Outcome> delete(List<?> ids, String corpus) {
        if (ids == null || ids.isEmpty()) throw new RagException("rag.delete: documentIds must be a non-empty list of strings");
        for (Object id : ids) {
            if (!(id instanceof String)) throw new RagException("rag.delete: document ids must be STRING, got " + ConfigReader.typeName(id));
        }
        List<Outcome> out = new ArrayList<>();
        try (Transaction tx = db.beginTx()) {
            Node corpusNode = LexicalGraph.requireCorpus(tx, corpus);
            tx.acquireWriteLock(corpusNode);
            boolean changed = false;
            for (Object id : ids) {
                long t0 = System.nanoTime();
                Node doc = findDocument(tx, corpus, (String) id);
                if (doc == null) {
                    out.add(new Outcome((String) id, 0, "missing", 0));
                    continue;
                }
                changed = true;
                long n = deleteChunks(doc);
                for (Relationship r : doc.getRelationships()) r.delete();
                doc.delete();
                out.add(new Outcome((String) id, n, "deleted", (System.nanoTime() - t0) / 1_000_000));
            }
            if (changed) LayerVersions.bumpLexical(tx, corpusNode);
            if (cancelled.getAsBoolean()) throw new RagException("rag.delete: terminated; nothing was deleted");
            tx.commit();
        }
        return out;
    }

    private static long deleteChunks(Node doc) {
        long n = 0;
        for (Relationship has : doc.getRelationships(Direction.OUTGOING, LexicalGraph.HAS_CHUNK)) {
            Node chunk = has.getEndNode();
            for (Relationship r : chunk.getRelationships()) r.delete();
            chunk.delete();
            n++;
        }
        return n;
    }

    /** The corpus node, created once even when several first ingests race (MERGE on the unique name locks its index entry). */
    private void ensureCorpus(String corpus) {
        try (Transaction tx = db.beginTx()) {
            Node c;
            try (Result r = tx.execute("MERGE (c:RagCorpus {name: $name}) ON CREATE SET c.embeddingModel = $model, c.dimensions = $dimensions,"
                    + " c.createdAt = datetime() RETURN c", Map.of("name", corpus, "model", embeddings.modelName(), "dimensions", (long) embeddings.dimensions()))) {
                c = (Node) r.next().get("c");
            }
            if (!embeddings.modelName().equals(c.getProperty("embeddingModel", null))) {
                throw new RagException("corpus '" + corpus + "' was embedded with model '" + c.getProperty("embeddingModel", "?")
                        + "' but the server now runs '" + embeddings.modelName() + "': vectors of different models cannot share an index");
            }
            tx.commit();
        }
    }

    public static Node findDocument(Transaction tx, String corpus, String id) {
        try (var it = tx.findNodes(LexicalGraph.DOCUMENT, Map.of("corpus", corpus, "id", id))) {
            return it.hasNext() ? it.next() : null;
        }
    }

    static String contentHash(Document d, IngestConfig cfg, String model) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            StringBuilder b = new StringBuilder();
            b.append(model).append('\u0000').append(cfg.chunkSize()).append('/').append(cfg.chunkOverlap()).append('/')
                    .append(cfg.sentenceBoundaries());
            // the default chunker adds nothing, so documents ingested before chunkers existed stay unchanged
            if (cfg.chunker() != IngestConfig.ChunkerKind.TOKENS) b.append('/').append(cfg.chunker().name());
            b.append('\u0000').append(d.title()).append('\u0000');
            d.metadata().forEach((k, v) -> b.append(k).append('=').append(v instanceof String[] a ? String.join("\u0001", a) : v).append('\u0000'));
            md.update(b.toString().getBytes(StandardCharsets.UTF_8));
            md.update(d.text().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
