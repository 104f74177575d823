package dev.graphrag.procedures;

import dev.graphrag.core.layer.BuildConfig;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.Jobs;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.embed.EmbedBatchConfig;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.files.FileIngest;
import dev.graphrag.core.files.FilesConfig;
import dev.graphrag.core.lexical.IngestConfig;
import dev.graphrag.core.lexical.Ingestor;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.search.ChunkSearch;
import dev.graphrag.core.search.SearchConfig;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.logging.Log;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;
import org.neo4j.procedure.UserFunction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** The shared platform's Cypher surface: parse, delegate to the engine, map to records. */
public class RagProcedures {
    @Context public GraphDatabaseService db;
    @Context public Transaction tx;
    @Context public Log log;
    @Context public TerminationGuard guard;
    @Context public GraphRagRuntime rag;

    @Procedure(name = "rag.ingest", mode = Mode.SCHEMA)
    @Description("rag.ingest(documents :: LIST<MAP>, config = {} :: MAP) :: (documentId :: STRING, chunks :: INTEGER, status :: STRING, ms :: INTEGER)"
            + " - chunks, embeds and writes documents {id, text, title?, metadata?} into the lexical graph of a corpus;"
            + " commits in its own batches, so a ROLLBACK of the calling transaction does not undo them (as APOC's periodic procedures);"
            + " terminating the call stops it and rolls back the batch in progress; unchanged content is skipped."
            + " Config: corpus, chunker (tokens|sentences|structural), chunkSize, chunkOverlap, sentenceBoundaries, batchSize, maxDocumentChars"
            + " (at most the server's limits).")
    public Stream<Results.DocumentResult> ingest(@Name("documents") List<Map<String, Object>> documents,
                                                 @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        EmbeddingService embeddings = rag.embeddings();
        IngestConfig cfg = IngestConfig.parse(config, rag.settings(), embeddings.maxLength());
        List<Ingestor.Document> docs = Ingestor.validate(documents, cfg.maxDocumentChars());
        List<Ingestor.Outcome> outcomes;
        try (var job = rag.jobs().start("rag.ingest", db.databaseName(), cfg.corpus())) {
            outcomes = call().reportingTo(job).ingestor(embeddings).ingest(docs, cfg);
        }
        return outcomes.stream().map(o -> new Results.DocumentResult(o.documentId(), o.chunks(), o.status(), o.ms()));
    }

    @Procedure(name = "rag.ingest.files", mode = Mode.SCHEMA)
    @Description("rag.ingest.files(source :: ANY, config = {} :: MAP) :: (documentId :: STRING, source :: STRING, contentType :: STRING,"
            + " pages :: INTEGER, chunks :: INTEGER, status :: STRING, error :: STRING, ms :: INTEGER)"
            + " - reads PDF, DOCX, PPTX, XLSX, ODT, RTF, EPUB, HTML, Markdown and text files into the lexical graph, one Document per file"
            + " (id: its path in the import directory), chunks with their pages and section; source is a path or glob relative to"
            + " server.directories.import, a file: URL, an allowed http(s) URL, or a list of them. Unchanged files are skipped without"
            + " parsing; a file that cannot be read gets status failed or no_text and an error, and the others go on."
            + " Config: corpus, chunker (tokens|sentences|structural, default structural), chunkSize, chunkOverlap, sentenceBoundaries, batchSize,"
            + " maxDocumentChars, metadata, deleteMissing, failOnError, maxFileBytes, maxFiles, maxCallBytes, parseTimeoutSeconds (at most the server's limits).")
    public Stream<Results.FileResult> ingestFiles(@Name("source") Object source,
                                                  @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        EmbeddingService embeddings = rag.embeddings();
        FilesConfig cfg = FilesConfig.parse(config, rag.settings(), embeddings.maxLength());
        java.nio.file.Path importDir = ((org.neo4j.kernel.internal.GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(org.neo4j.configuration.Config.class).get(org.neo4j.configuration.GraphDatabaseSettings.load_csv_file_url_root);
        List<FileIngest.Outcome> outcomes;
        try (var job = rag.jobs().start("rag.ingest.files", db.databaseName(), cfg.ingest().corpus())) {
            RagCall call = call().reportingTo(job);
            outcomes = new FileIngest(db, call.reportingTo(dev.graphrag.core.Progress.NONE).ingestor(embeddings), embeddings.modelName(),
                    call.cancelled(), job, call.executor()).ingest(source, importDir, cfg);
        }
        BuildConfig.recordFiles(db, cfg.ingest().corpus(), source, config);
        return outcomes.stream().map(o -> new Results.FileResult(o.documentId(), o.source(), o.contentType(), o.pages(), o.chunks(),
                o.status(), o.error(), o.ms()));
    }

    @Procedure(name = "rag.refresh", mode = Mode.SCHEMA)
    @Description("rag.refresh(config = {} :: MAP) :: (step :: STRING, status :: STRING, result :: MAP, error :: STRING, ms :: INTEGER) - brings a"
            + " corpus up to date: reads again the files its rag.ingest.files calls read (with deleteMissing), then builds again every layer"
            + " already built on it (agrag.index, remind.index, hgmem.index, raga.ingest, in that order) with the config of its last build; one"
            + " row per step (done, skipped or failed with its error; a failed step does not stop the next). Config: corpus, files (true),"
            + " deleteMissing (true), layers (all four), llm.")
    public Stream<Results.RefreshStep> refresh(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        return new CorpusRefresh(this).run(config).stream();
    }

    @Procedure(name = "rag.delete", mode = Mode.WRITE)
    @Description("rag.delete(documentIds :: LIST<STRING>, config = {} :: MAP) :: (documentId :: STRING, chunks :: INTEGER, status :: STRING, ms :: INTEGER)"
            + " - removes documents with their chunks (status deleted or missing) in one transaction of its own, committed even if the"
            + " calling transaction rolls back. Config: corpus.")
    public Stream<Results.DocumentResult> delete(@Name("documentIds") List<String> documentIds,
                                                 @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.delete", config);
        String corpus = r.corpus();
        r.finish();
        return call().ingestor(null).delete(documentIds, corpus).stream()
                .map(o -> new Results.DocumentResult(o.documentId(), o.chunks(), o.status(), o.ms()));
    }

    @Procedure(name = "rag.setup", mode = Mode.SCHEMA)
    @Description("rag.setup(config = {} :: MAP) :: (name :: STRING, created :: BOOLEAN)"
            + " - creates the lexical graph's constraints, the vector index on Chunk.embedding (the model's dimensions) and the full-text index on Chunk.text.")
    public Stream<Results.SchemaResult> setup(@Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        ConfigReader.of("rag.setup", config).finish();
        List<String> created = LexicalGraph.setup(db, rag.embeddings().dimensions());
        return Stream.of("rag_document_key", "rag_chunk_id", "rag_corpus_name", "rag_chunk_corpus",
                        LexicalGraph.FULLTEXT_INDEX, LexicalGraph.VECTOR_INDEX)
                .map(n -> new Results.SchemaResult(n, created.contains(n)));
    }

    @Procedure(name = "rag.search", mode = Mode.READ)
    @Description("rag.search(query :: STRING, config = {} :: MAP) :: (rank :: INTEGER, chunkId :: STRING, documentId :: STRING, text :: STRING,"
            + " score :: FLOAT, fusedScore :: FLOAT, denseScore :: FLOAT, bm25Score :: FLOAT, note :: STRING, pages :: LIST<INTEGER>, section :: STRING,"
            + " rerankScore :: FLOAT) - top-k chunks of a corpus; score falls with rank (fusedScore is the mode's own score); note says when BM25 used only the first 1000 distinct terms of a long query"
            + " and when the reranker failed and the retrieval order was kept (null otherwise); pages and section say where the chunk is in"
            + " its file (null when unknown); rerankScore is the reranker's (null without rerank). Config: corpus, k (10),"
            + " mode (dense|bm25|hybrid|rrf, default hybrid), candidates, rrfK, denseWeight, denseHead (2), where (Document metadata: {key: value} or"
            + " {key: {$eq|$ne|$in|$nin|$gt|$gte|$lt|$lte|$exists|$startsWith: value}}), rerank (false), rerankCandidates (max(20, 4k)).")
    public Stream<Results.SearchResult> search(@Name("query") String query,
                                               @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        SearchConfig cfg = SearchConfig.parse(config);
        ChunkSearch.checkQuery("rag.search", query);
        dev.graphrag.core.search.Reranker reranker = cfg.rerank().enabled() ? rag.reranker("rag.search") : null;
        String bm25Note = cfg.mode() == dev.graphrag.core.search.SearchMode.DENSE ? null : ChunkSearch.bm25Query(query).note();
        ChunkSearch.Found found = new ChunkSearch(tx, rag.embeddings()).search(query, cfg, reranker, Termination.of(guard));
        String note = bm25Note == null ? found.rerankNote() : found.rerankNote() == null ? bm25Note : bm25Note + "; " + found.rerankNote();
        double[] rankScores = ChunkSearch.rankScores(found.hits());
        return java.util.stream.IntStream.range(0, found.hits().size())
                .mapToObj(i -> {
                    ChunkSearch.Hit h = found.hits().get(i);
                    Map<String, Object> where = LexicalGraph.location(h.node());
                    @SuppressWarnings("unchecked") List<Long> pages = (List<Long>) where.get("pages");
                    return new Results.SearchResult(h.rank(), h.chunkId(), h.documentId(), h.text(), rankScores[i], h.score(), h.denseScore(), h.bm25Score(),
                            note, pages, (String) where.get("section"), h.rerankScore());
                });
    }

    @Procedure(name = "rag.info", mode = Mode.READ)
    @Description("rag.info() :: (version :: STRING, model :: STRING, dimensions :: INTEGER, device :: STRING, settingsSource :: STRING,"
            + " corpora :: LIST<MAP>) - plugin version, the embedding model and the device it runs on, and each corpus with its document and chunk counts.")
    public Stream<Results.InfoResult> info() {
        EmbeddingService e = rag.embeddings();
        List<Map<String, Object>> corpora = LexicalGraph.corpora(tx);
        return Stream.of(new Results.InfoResult(GraphRagRuntime.VERSION, e.modelName(), e.dimensions(), e.device(),
                rag.settings().source(), corpora));
    }

    @Procedure(name = "rag.progress", mode = Mode.READ)
    @Description("rag.progress() :: (jobId :: STRING, procedure :: STRING, database :: STRING, corpus :: STRING, phase :: STRING, done :: INTEGER,"
            + " total :: INTEGER, startedAt :: ZONED DATETIME, elapsedMs :: INTEGER) - the long-running calls of this server (rag.ingest, rag.ingest.files, agrag.index)"
            + " and how far each is through its current phase; TERMINATE TRANSACTION stops one.")
    public Stream<Jobs.View> progress() {
        return rag.jobs().running().stream();
    }

    /** This call's context for the engine, built once here. */
    private RagCall call() {
        return Termination.call(db, tx, rag, log, guard);
    }

    @UserFunction(name = "rag.embed")
    @Description("rag.embed(text :: STRING) :: LIST<FLOAT> - the embedding of one text with the server's model (cached).")
    public List<Double> embed(@Name("text") String text) {
        return toList(rag.embeddings().embed(text));
    }

    @Procedure(name = "rag.embed.batch", mode = Mode.READ)
    @Description("rag.embed.batch(texts :: LIST<STRING>, config = {} :: MAP) :: (index :: INTEGER, embedding :: LIST<FLOAT>)"
            + " - embeddings of many texts in length-sorted batches; index is the position in the input. Config: useCache (false).")
    public Stream<Results.EmbeddingResult> embedBatch(@Name("texts") List<String> texts,
                                                      @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        boolean useCache = EmbedBatchConfig.parse(config).useCache();
        if (texts == null || texts.isEmpty()) throw new dev.graphrag.core.RagException("rag.embed.batch: texts must be a non-empty list");
        float[][] vectors = rag.embeddings().embedAll(texts, useCache);
        return IntStream.range(0, vectors.length).mapToObj(i -> new Results.EmbeddingResult(i, toList(vectors[i])));
    }

    static List<Double> toList(float[] v) {
        List<Double> out = new ArrayList<>(v.length);
        for (float f : v) out.add((double) f);
        return out;
    }

}
