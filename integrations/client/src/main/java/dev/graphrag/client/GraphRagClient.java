package dev.graphrag.client;

import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.exceptions.Neo4jException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed calls over the plugin's procedures through the Neo4j Java driver: what an application, the LangChain4j
 * retriever and the MCP server use instead of hand-written Cypher. Each call is one auto-routed transaction (read for
 * retrieval and search, write where the procedure writes: ingest, hgmem.answer's session memory); user values travel
 * as parameters, never in the query text. Thread-safe as the driver is.
 */
public final class GraphRagClient implements AutoCloseable {
    private final Driver driver;
    private final String database;
    private final boolean ownsDriver;

    /** A client over a driver the caller keeps (and closes); {@code database} null: the server's default database. */
    public GraphRagClient(Driver driver, String database) {
        this(driver, database, false);
    }

    private GraphRagClient(Driver driver, String database, boolean ownsDriver) {
        this.driver = driver;
        this.database = database == null || database.isBlank() ? null : database;
        this.ownsDriver = ownsDriver;
    }

    /** Connects with basic auth (user null: no auth) and verifies the connection; closing the client closes the driver. */
    public static GraphRagClient connect(String uri, String user, String password, String database) {
        Driver driver = GraphDatabase.driver(uri, user == null ? AuthTokens.none() : AuthTokens.basic(user, password == null ? "" : password));
        try {
            driver.verifyConnectivity();
        } catch (RuntimeException e) {
            driver.close();
            throw new GraphRagException(null, "cannot reach Neo4j at " + uri + ": " + e.getMessage(), e);
        }
        return new GraphRagClient(driver, database, true);
    }

    /** Chunk search (rag.search): {@code mode} in the request's config picks dense, bm25, hybrid (default) or rrf. */
    public List<Passage> search(String query, Request request) {
        return retrieve(Method.SEARCH, query, request);
    }

    /** The method's retrieval: ranked passages, best first, with citations. */
    public List<Passage> retrieve(Method method, String query, Request request) {
        requireText(query, "query");
        Map<String, Object> config = request.toConfig(method.kKey());
        String cypher = switch (method) {
            case SEARCH -> "CALL rag.search($q, $config) YIELD rank, chunkId, documentId, text, score, pages, section"
                    + " RETURN rank, chunkId, documentId, text, score, pages, section";
            case AGRAG -> "CALL agrag.retrieve($q, $config) YIELD rank, chunkId, documentId, text, score"
                    + " OPTIONAL MATCH (c:Chunk {id: chunkId}) RETURN rank, chunkId, documentId, text, score, c.pages AS pages, c.section AS section";
            case RAGA -> "CALL raga.retrieve($q, $config) YIELD rank, chunkId, docId, text, score"
                    + " OPTIONAL MATCH (c:Chunk {id: chunkId}) RETURN rank, chunkId, docId AS documentId, text, score, c.pages AS pages, c.section AS section";
            // entity and relation rows are the memory's matter; the passages are the chunk rows, best score first
            case HGMEM -> "CALL hgmem.retrieve(null, $q, $config) YIELD kind, id, name, score, text WITH kind, id, name, score, text WHERE kind = 'chunk'"
                    + " OPTIONAL MATCH (c:Chunk {id: id}) RETURN 0 AS rank, id AS chunkId, name AS documentId, text, score, c.pages AS pages, c.section AS section"
                    + " ORDER BY score DESC";
            // the walk's chunks in the order it reached them
            case REMIND -> "CALL remind.query($q, $config) YIELD chunks UNWIND range(0, size(chunks) - 1) AS i WITH i, chunks[i] AS chunkId"
                    + " MATCH (c:Chunk {id: chunkId}) RETURN i + 1 AS rank, chunkId, c.documentId AS documentId, c.text AS text, 1.0 / (i + 1) AS score,"
                    + " c.pages AS pages, c.section AS section ORDER BY rank";
        };
        String procedure = method == Method.SEARCH ? "rag.search" : method == Method.REMIND ? "remind.query" : method.prefix() + ".retrieve";
        List<Passage> out = call(procedure, method == Method.REMIND, cypher, Map.of("q", query, "config", config), r -> {
            double score = r.get("score").isNull() ? 0 : r.get("score").asDouble();
            Citation c = new Citation(r.get("documentId").asString(null), r.get("chunkId").asString(null), Rows.longs(r.get("pages").asObject()),
                    r.get("section").asString(null), score);
            return new Passage(r.get("rank").asInt(0), r.get("text").asString(""), score, c);
        });
        List<Passage> ranked = new ArrayList<>();
        int limit = request.k() == null ? Integer.MAX_VALUE : request.k();
        for (Passage p : out) {
            if (ranked.size() == limit) break;
            ranked.add(p.rank() == ranked.size() + 1 ? p : new Passage(ranked.size() + 1, p.text(), p.score(), p.citation()));
        }
        return ranked;
    }

    /**
     * The method's answer with the LLM (the request's {@code llm} map, or the server's graphrag.llm.* settings): AGRAG
     * agrag.answer, HGMem hgmem.answer (a session; keepSession false in the config deletes it after), RAGA raga.answer,
     * ReMind remind.query (the answer without memorising the walk; call remind.answer yourself to memorise).
     */
    public Answer answer(Method method, String question, Request request) {
        requireText(question, "question");
        Map<String, Object> config = request.toConfig(method == Method.AGRAG || method == Method.RAGA ? method.kKey() : null);
        String cypher;
        String procedure;
        boolean write = false;
        switch (method) {
            case AGRAG -> {
                procedure = "agrag.answer";
                cypher = "CALL agrag.answer($q, $config) YIELD answer, citations, llmCalls RETURN answer, citations, llmCalls";
            }
            case HGMEM -> {
                procedure = "hgmem.answer";
                write = true;
                cypher = "CALL hgmem.answer($q, $config) YIELD kind, answer, citations, llmCalls WITH kind, answer, citations, llmCalls"
                        + " WHERE kind = 'answer' RETURN answer, citations, llmCalls";
            }
            case RAGA -> {
                procedure = "raga.answer";
                cypher = "CALL raga.answer($q, $config) YIELD answer, evidence, llmCalls RETURN answer, evidence AS citations, llmCalls";
            }
            case REMIND -> {
                procedure = "remind.query";
                cypher = "CALL remind.query($q, $config) YIELD answer, citations, llmCalls RETURN answer, citations, llmCalls";
            }
            default -> throw new IllegalArgumentException("search has no answer: ask one of agrag, hgmem, raga, remind");
        }
        List<Answer> rows = call(procedure, write, cypher, Map.of("q", question, "config", config), r -> {
            List<Citation> citations = new ArrayList<>();
            for (Object c : r.get("citations").asList(v -> v.asObject())) if (c instanceof Map<?, ?> m) citations.add(Citation.of(m));
            return new Answer(method, r.get("answer").asString(null), citations, r.get("llmCalls").asLong(0));
        });
        if (rows.isEmpty()) throw new GraphRagException(procedure, procedure + " returned no answer", null);
        return rows.get(rows.size() - 1);
    }

    /** Ingests documents ({id, text, metadata?, title?}) into a corpus with rag.ingest; {@code config} adds chunking keys. */
    public List<IngestResult> ingest(List<Map<String, Object>> documents, String corpus, Map<String, Object> config) {
        if (documents == null || documents.isEmpty()) throw new IllegalArgumentException("documents must be a non-empty list");
        Map<String, Object> c = new java.util.LinkedHashMap<>(config == null ? Map.of() : config);
        c.put("corpus", corpus);
        return call("rag.ingest", true, "CALL rag.ingest($docs, $config) YIELD documentId, chunks, status RETURN documentId, chunks, status",
                Map.of("docs", documents, "config", c),
                r -> new IngestResult(r.get("documentId").asString(null), r.get("status").asString(null), r.get("chunks").asLong(0), null, null, null, null));
    }

    /**
     * Ingests files the server may read (a path or glob under its import directory, a URL it allows, or a list of
     * them) with rag.ingest.files; one result per file, failed files with their error.
     */
    public List<IngestResult> ingestFiles(Object source, String corpus, Map<String, Object> config) {
        if (source == null) throw new IllegalArgumentException("source must be a path, glob, URL or list of them");
        Map<String, Object> c = new java.util.LinkedHashMap<>(config == null ? Map.of() : config);
        c.put("corpus", corpus);
        return call("rag.ingest.files", true, "CALL rag.ingest.files($source, $config) YIELD documentId, source, contentType, pages, chunks, status, error"
                        + " RETURN documentId, source, contentType, pages, chunks, status, error", Map.of("source", source, "config", c),
                r -> new IngestResult(r.get("documentId").asString(null), r.get("status").asString(null), r.get("chunks").asLong(0),
                        r.get("source").asString(null), r.get("contentType").asString(null), r.get("pages").isNull() ? null : r.get("pages").asLong(),
                        r.get("error").asString(null)));
    }

    /** The corpora of the database, each with the methods whose layer is built over it. */
    public List<Corpus> corpora() {
        List<Map<String, Object>> corpora = call("rag.info", false, "CALL rag.info() YIELD corpora UNWIND corpora AS c RETURN c",
                Map.of(), r -> r.get("c").asMap());
        List<Corpus> out = new ArrayList<>();
        for (Map<String, Object> c : corpora) {
            String name = (String) c.get("name");
            List<Method> layers = new ArrayList<>();
            for (Method m : List.of(Method.AGRAG, Method.HGMEM, Method.RAGA, Method.REMIND)) if (layerInfo(m, name) != null) layers.add(m);
            out.add(new Corpus(name, Rows.number(c.get("documents")), Rows.number(c.get("chunks")), Rows.text(c.get("embeddingModel")), layers));
        }
        return out;
    }

    /** The method's info row for a corpus (agrag.info, ...), or null when its layer is not built there. */
    public Map<String, Object> layerInfo(Method method, String corpus) {
        if (method == Method.SEARCH) throw new IllegalArgumentException("search has no layer: its chunks are rag.ingest's");
        List<Map<String, Object>> rows;
        try {
            rows = call(method.prefix() + ".info", false, "CALL " + method.prefix() + ".info($config)", Map.of("config", Map.of("corpus", corpus)), Record::asMap);
        } catch (GraphRagException e) {
            if (e.getMessage().contains("has no ") && e.getMessage().contains(" yet")) return null; // "corpus 'x' has no AGRAG layer yet: CALL ..."
            throw e;
        }
        if (rows.isEmpty()) return null;
        Map<String, Object> info = rows.get(0);
        // RAGA's info counts an empty layer rather than failing: nothing read yet is nothing built
        if (method == Method.RAGA && Rows.number(info.get("entities")) == 0 && Rows.number(info.get("sessions")) == 0) return null;
        return info;
    }

    /**
     * rag.llm.check: how the configured model (or the {@code llm} map in config) does on each method's steps;
     * {@code dryRun: true} says what would be asked without calling it.
     */
    public List<ModelCheck> checkModel(Map<String, Object> config) {
        return call("rag.llm.check", false, "CALL rag.llm.check($config) YIELD method, step, trials, firstTry, repaired, unusable, wrong, verdict,"
                        + " methodVerdict, advice, problem RETURN *", Map.of("config", config == null ? Map.of() : config),
                r -> new ModelCheck(r.get("method").asString(null), r.get("step").asString(null), r.get("trials").asLong(0), r.get("firstTry").asLong(0),
                        r.get("repaired").asLong(0), r.get("unusable").asLong(0), r.get("wrong").asLong(0), r.get("verdict").asString(null),
                        r.get("methodVerdict").asString(null), r.get("advice").asString(null), r.get("problem").asString(null)));
    }

    private <T> List<T> call(String procedure, boolean write, String cypher, Map<String, Object> params, Function<Record, T> row) {
        SessionConfig.Builder sc = SessionConfig.builder();
        if (database != null) sc.withDatabase(database);
        try (Session session = driver.session(sc.build())) {
            return write ? session.executeWrite(tx -> tx.run(cypher, params).list(row::apply))
                    : session.executeRead(tx -> tx.run(cypher, params).list(row::apply));
        } catch (Neo4jException e) {
            throw new GraphRagException(procedure, pluginMessage(e.getMessage()), e);
        }
    }

    /** "Failed to invoke procedure `rag.search`: Caused by: dev.graphrag.core.RagException: rag.search: ..." to the plugin's own words. */
    static String pluginMessage(String serverMessage) {
        if (serverMessage == null) return "the server gave no message";
        Matcher m = CAUSE.matcher(serverMessage);
        String last = null;
        while (m.find()) last = serverMessage.substring(m.end());
        return last == null ? serverMessage : last.trim();
    }

    private static final Pattern CAUSE = Pattern.compile("Caused by: [\\w.$]+(?:Exception|Error): ");

    private static void requireText(String value, String what) {
        if (value == null || value.isBlank()) throw new IllegalArgumentException(what + " must be a non-empty string");
    }

    @Override
    public void close() {
        if (ownsDriver) driver.close();
    }
}
