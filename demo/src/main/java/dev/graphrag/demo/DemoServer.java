package dev.graphrag.demo;

import dev.graphrag.procedures.EmbeddedNeo4j;
import dev.graphrag.procedures.SampleFiles;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.harness.Neo4j;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * README command 1: an embedded Neo4j 5.26 with the plugin, GDS and APOC; ingests a corpus (the bundled
 * sample by default), prints a few searches, and serves Bolt and HTTP until Ctrl-C ({@code --once}: exit).
 */
public final class DemoServer {
    static final String USAGE = """
            Usage: DemoServer [options]
              --data DIR          keep the database in DIR (persists across restarts; default: a fresh temporary one)
              --host HOST         address to listen on (default 127.0.0.1)
              --bolt-port N       Bolt port (default 7687; 0 = any free port, -1 = off)
              --http-port N       HTTP port (default 7474; 0 = any free port, -1 = off)
              --corpus PATH       corpus to ingest: JSON list of {id?, title?, text}, JSON title->[sentences], .jsonl, or a folder of .txt/.md
              --corpus-name NAME  corpus namespace (default "default")
              --import-dir DIR    Neo4j's import directory, where rag.ingest.files reads (default: a temporary one holding
                                  the sample files); the demo ingests its files into corpus "files"
              --query TEXT        a question to search for (repeatable; default: three sample questions)
              --llm-endpoint URL  OpenAI-compatible base URL ending in /v1 (e.g. http://localhost:11434/v1 for Ollama)
              --llm-model NAME    model name at that endpoint
              --once              ingest, query, print and exit 0
            """;

    static final List<String> SAMPLE_QUERIES = List.of(
            "Why is Xodar given to Carter as a slave?",
            "Who is Issus, the goddess of life eternal?",
            "What happens in the depths of Omean?");

    record Args(Path data, String host, int boltPort, int httpPort, Path corpus, String corpusName, List<String> queries,
                String llmEndpoint, String llmModel, boolean once, Path importDir, boolean asked) {}

    /** --help: the usage on standard output and exit 0, as a request and not a mistake. */
    static final class HelpAsked extends RuntimeException {
        HelpAsked() { super(null, null, false, false); }
    }

    public static void main(String[] argv) throws Exception {
        Args a;
        try {
            a = parse(argv);
        } catch (HelpAsked e) {
            System.out.print(USAGE);
            System.exit(0);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        try {
            System.exit(run(a, System.out));
        } catch (DemoException e) {
            System.err.println("demo failed: " + e.getMessage()); // a problem the user can fix: no stack trace
            System.exit(1);
        } catch (Exception e) {
            System.err.println("demo failed: " + rootMessage(e));
            e.printStackTrace();
            System.exit(1);
        }
    }

    static Args parse(String[] argv) {
        Path data = null, corpus = null, importDir = null;
        String host = "127.0.0.1", corpusName = "default", llmEndpoint = null, llmModel = null;
        int bolt = 7687, http = 7474;
        boolean once = false;
        List<String> queries = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String k = argv[i];
            switch (k) {
                case "--once" -> once = true;
                case "--help", "-h" -> throw new HelpAsked();
                default -> {
                    if (i + 1 >= argv.length) throw new IllegalArgumentException("missing value for " + k);
                    String v = argv[++i];
                    switch (k) {
                        case "--data" -> data = Path.of(v);
                        case "--host" -> host = v;
                        case "--bolt-port" -> bolt = port(k, v);
                        case "--http-port" -> http = port(k, v);
                        case "--corpus" -> corpus = Path.of(v);
                        case "--corpus-name" -> corpusName = v;
                        case "--query" -> queries.add(v);
                        case "--llm-endpoint" -> llmEndpoint = v;
                        case "--llm-model" -> llmModel = v;
                        case "--import-dir" -> importDir = Path.of(v);
                        default -> throw new IllegalArgumentException("unknown option " + k);
                    }
                }
            }
        }
        if (corpus != null && !Files.exists(corpus)) throw new IllegalArgumentException("corpus not found: " + corpus);
        if (importDir != null && !Files.isDirectory(importDir)) throw new IllegalArgumentException("import directory not found: " + importDir);
        return new Args(data, host, bolt, http, corpus, corpusName, queries.isEmpty() ? SAMPLE_QUERIES : queries,
                llmEndpoint, llmModel, once, importDir, !queries.isEmpty());
    }

    private static int port(String k, String v) {
        try {
            int p = Integer.parseInt(v);
            if (p < -1 || p > 65535) throw new NumberFormatException();
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(k + " must be a port number, got " + v);
        }
    }

    /** A failure the user can fix from the message alone (printed without a stack trace). */
    static final class DemoException extends RuntimeException {
        DemoException(String message) { super(message); }
    }

    static int run(Args a, PrintStream out) throws Exception {
        return run(a, out, neo4j -> {});
    }

    /** As above, {@code whileUp} called with the server once the demo has printed its results (tests run their Cypher there). */
    static int run(Args a, PrintStream out, java.util.function.Consumer<Neo4j> whileUp) throws Exception {
        checkPortFree(a.host(), a.boltPort(), "Bolt", "--bolt-port");
        checkPortFree(a.host(), a.httpPort(), "HTTP", "--http-port");
        Path work = Files.createTempDirectory("graphrag-demo");
        if (a.data() != null) Files.createDirectories(a.data());
        out.println("Starting embedded Neo4j with the graphrag plugin, GDS and APOC ...");
        Neo4j neo4j;
        try {
            EmbeddedNeo4j.Options options = new EmbeddedNeo4j.Options(work, a.data(), a.host(), a.boltPort(), a.httpPort(),
                    settings(a), a.importDir());
            // the user's own folder is read, never written; the temporary one gets the sample files
            if (a.importDir() == null) SampleFiles.copyTo(options.importDirectory());
            neo4j = EmbeddedNeo4j.start(options);
        } catch (RuntimeException e) {
            deleteTree(work);
            if (String.valueOf(rootMessage(e)).contains("Address already in use")) {
                throw new DemoException("a port is already in use on " + a.host() + " (Bolt " + a.boltPort() + ", HTTP " + a.httpPort()
                        + "): pick others with --bolt-port N and --http-port N (0 = any free port, -1 = off)");
            }
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (stopped.getCount() > 0) {
                neo4j.close();
                deleteTree(work);
                stopped.countDown();
            }
        }));
        try {
            return serve(neo4j, stopped, a, out, whileUp);
        } catch (Exception e) {
            neo4j.close();
            stopped.countDown();
            throw e;
        } finally {
            if (stopped.getCount() == 0) deleteTree(work); // closed (--once, a failure, or the hook, which deletes it too)
        }
    }

    /**
     * The server's graphrag.conf: any endpoint a caller names (a single-user server), and --llm-endpoint and --llm-model
     * as the server's own LLM, so that every LLM procedure works without an {@code llm} key, as on a configured server.
     */
    static Map<String, String> settings(Args a) {
        Map<String, String> settings = new LinkedHashMap<>(EmbeddedNeo4j.SINGLE_USER);
        if (a.llmEndpoint() != null) settings.put("graphrag.llm.endpoint", a.llmEndpoint());
        if (a.llmModel() != null) settings.put("graphrag.llm.model", a.llmModel());
        return settings;
    }

    /** Names a busy port and the flag that changes it, before anything is started or written. */
    static void checkPortFree(String host, int port, String what, String flag) {
        if (port <= 0) return;
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.bind(new java.net.InetSocketAddress(host, port));
        } catch (java.io.IOException e) {
            throw new DemoException(what + " port " + port + " on " + host + " is already in use (" + e.getMessage()
                    + "): stop what holds it, or start with " + flag + " N (0 = any free port, -1 = off)");
        }
    }

    /** The embedded server's temporary directory (store, logs) goes when the demo stops; --data is never touched. */
    static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("demo: could not remove " + dir + ": " + e.getMessage());
        }
    }

    private static int serve(Neo4j neo4j, CountDownLatch stopped, Args a, PrintStream out, java.util.function.Consumer<Neo4j> whileUp) throws Exception {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        if (a.boltPort() >= 0) out.println("Bolt:  " + neo4j.boltURI() + "   (no authentication; any Neo4j driver, Browser below, or cypher-shell -a "
                + neo4j.boltURI() + " with cypher-shell from https://neo4j.com/deployment-center/)");
        if (a.httpPort() >= 0) {
            out.println("HTTP:  " + neo4j.httpURI());
            out.println("Browser: " + neo4j.httpURI() + "browser/  (connect with \"No authentication\"; for readable captions run :style"
                    + " and drop docs/browser-style.grass onto that frame)");
        }
        out.println("LLM:   callers may name any endpoint (graphrag.llm.allowedEndpoints=*): this demo is a single-user server;"
                + " a shared server keeps the default, its configured endpoint only (docs/security.md)");

        List<Map<String, Object>> docs = a.corpus() == null ? sample() : CorpusFiles.read(a.corpus());
        List<String> unread = a.corpus() == null ? List.of() : CorpusFiles.unread(a.corpus());
        if (!unread.isEmpty()) {
            out.printf("--corpus reads .txt and .md files only; %d other files left out (%s%s): put them in a folder given to --import-dir,"
                    + " where rag.ingest.files reads PDF, Office, HTML, EPUB and more%n", unread.size(), String.join(", ", unread.subList(0, Math.min(5, unread.size()))),
                    unread.size() > 5 ? ", ..." : "");
        }
        out.printf("Ingesting %d documents into corpus '%s' ...%n", docs.size(), a.corpusName());
        long t0 = System.nanoTime();
        Map<String, Long> statuses = new LinkedHashMap<>();
        long chunks = db.executeTransactionally(
                "CALL rag.ingest($docs, {corpus: $corpus}) YIELD chunks, status RETURN status, sum(chunks) AS chunks, count(*) AS docs",
                Map.of("docs", docs, "corpus", a.corpusName()), r -> {
                    long c = 0;
                    while (r.hasNext()) {
                        Map<String, Object> row = r.next();
                        statuses.put((String) row.get("status"), (Long) row.get("docs"));
                        c += (Long) row.get("chunks");
                    }
                    return c;
                });
        out.printf("Ingested in %.1f s: documents by status %s, %d chunks written%n", (System.nanoTime() - t0) / 1e9, statuses, chunks);
        db.executeTransactionally("CALL rag.info()", Map.of(), r -> {
            Map<String, Object> row = r.next();
            out.printf("Model %s (%s dims) on %s; corpora %s%n", row.get("model"), row.get("dimensions"), row.get("device"), row.get("corpora"));
            return null;
        });
        for (String q : a.queries()) {
            out.println();
            out.println("Q: " + q);
            for (String mode : List.of("dense", "bm25", "hybrid")) {
                db.executeTransactionally("CALL rag.search($q, {k: 3, mode: $mode, corpus: $corpus})",
                        Map.of("q", q, "mode", mode, "corpus", a.corpusName()), r -> print(out, mode, r));
            }
        }
        out.println();
        files(db, a, neo4j.config().get(org.neo4j.configuration.GraphDatabaseSettings.load_csv_file_url_root), out);
        out.println();
        agrag(db, a, out);
        out.println();
        if (a.llmEndpoint() == null) {
            out.println("""
                    No LLM configured. To also answer questions with an LLM, start one, e.g. Ollama:
                      ollama pull qwen2.5:3b-instruct && ollama serve
                    then rerun with --llm-endpoint http://localhost:11434/v1 --llm-model qwen2.5:3b-instruct""");
        } else {
            answer(db, a, out);
        }
        whileUp.accept(neo4j);
        if (a.once()) {
            neo4j.close();
            stopped.countDown();
            return 0;
        }
        out.println();
        out.println("Ready. Try from any client:  CALL rag.search('" + a.queries().get(0).replace("'", "\\'") + "', {k: 5})");
        out.println("Press Ctrl-C to stop.");
        stopped.await();
        return 0;
    }

    /**
     * The import directory's files into corpus "files", and a search whose rows cite file, page and section: the sample's
     * question over the sample files, the user's --query over their own folder (none asked: how to ask is printed).
     */
    static void files(GraphDatabaseService db, Args a, Path importDir, PrintStream out) throws java.io.IOException {
        String source = a.importDir() == null ? SampleFiles.FOLDER + "/*" : "**";
        String q = a.importDir() == null ? "How is the pump mounted?" : a.asked() ? a.queries().get(0) : null;
        out.printf("Import directory (rag.ingest.files reads here): %s%s%n", importDir.toAbsolutePath(),
                a.importDir() == null ? "  (a temporary one with the sample files; --import-dir DIR makes it yours)" : "");
        try (java.util.stream.Stream<Path> files = Files.walk(importDir)) {
            List<String> held = files.filter(Files::isRegularFile).map(f -> importDir.relativize(f).toString().replace('\\', '/')).sorted().toList();
            out.printf("  it holds %d files%s%n", held.size(), held.isEmpty() ? "" : ": " + String.join(", ", held.subList(0, Math.min(8, held.size())))
                    + (held.size() > 8 ? ", ..." : ""));
        }
        out.printf("Files: CALL rag.ingest.files('%s', {corpus: 'files'})%n", source);
        long t0 = System.nanoTime();
        db.executeTransactionally("CALL rag.ingest.files($source, {corpus: 'files'})", Map.of("source", source), r -> {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                out.printf("  %-8s %s (%s%s, %s chunks)%s%n", row.get("status"), row.get("documentId"), row.get("contentType"),
                        row.get("pages") == null ? "" : ", " + row.get("pages") + " pages", row.get("chunks"),
                        row.get("error") == null ? "" : ": " + row.get("error"));
            }
            return null;
        });
        out.printf("  in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        if (q == null) {
            out.println("Ask your files: CALL rag.search('your question', {corpus: 'files', k: 5}) YIELD documentId, pages, section, text"
                    + "  (or rerun with --query TEXT)");
            return;
        }
        out.println("Q: " + q);
        db.executeTransactionally("CALL rag.search($q, {corpus: 'files', k: 3}) YIELD rank, documentId, pages, section, text RETURN *",
                Map.of("q", q), r -> {
                    while (r.hasNext()) {
                        Map<String, Object> row = r.next();
                        String text = ((String) row.get("text")).replaceAll("\\s+", " ");
                        out.printf("  %d. %s%s%s  %s%n", row.get("rank"), row.get("documentId"),
                                row.get("pages") instanceof List<?> p && !p.isEmpty() ? ", p. " + pages(p) : "",
                                row.get("section") == null ? "" : ", " + row.get("section"), text.substring(0, Math.min(90, text.length())));
                    }
                    return null;
                });
    }

    private static String pages(List<?> p) {
        return p.size() == 1 ? String.valueOf(p.get(0)) : p.get(0) + "-" + p.get(p.size() - 1);
    }

    /** The AGRAG layer of the corpus (LLM-free here) and the reasoning subgraph of the first question. */
    static void agrag(GraphDatabaseService db, Args a, PrintStream out) {
        long t0 = System.nanoTime();
        Map<String, Object> stats = db.executeTransactionally("CALL agrag.index({corpus: $corpus, relations: 'cooccurrence'})",
                Map.of("corpus", a.corpusName()), r -> r.next());
        out.printf("AGRAG index in %.1f s: %s entities, %s facts, %s synonym edges, %s title links%n", (System.nanoTime() - t0) / 1e9,
                stats.get("entities"), stats.get("facts"), stats.get("synonymEdges"), stats.get("titleLinks"));
        String q = a.queries().get(0);
        db.executeTransactionally("CALL agrag.mcmi($q, {corpus: $corpus}) YIELD terminals, graphStrings, pathChunkIds, nodeCount, edgeCount RETURN *",
                Map.of("q", q, "corpus", a.corpusName()), r -> {
                    Map<String, Object> row = r.next();
                    out.printf("MCMI subgraph of \"%s\": %s nodes, %s edges; terminals %s%n", q, row.get("nodeCount"), row.get("edgeCount"), row.get("terminals"));
                    for (Object g : (List<?>) row.get("graphStrings")) {
                        // the strings as the LLM reads them join a path's parts with [SEP]; a person reads arrows
                        String s = String.valueOf(g).replace(" [SEP] ", " -> ");
                        out.println("  " + (s.length() > 300 ? s.substring(0, 300) + "..." : s));
                    }
                    out.println("  path chunks: " + row.get("pathChunkIds"));
                    return null;
                });
        db.executeTransactionally("CALL agrag.retrieve($q, {corpus: $corpus, k: 3, mode: 'ppr'})", Map.of("q", q, "corpus", a.corpusName()),
                r -> print(out, "agrag.retrieve ppr", r));
        out.println("Draw it in Neo4j Browser: CALL agrag.mcmi('" + q.replace("'", "\\'") + "', {corpus: '" + a.corpusName() + "'})");
    }

    static void answer(GraphDatabaseService db, Args a, PrintStream out) {
        String q = a.queries().get(0);
        Map<String, Object> llm = new LinkedHashMap<>();
        llm.put("endpoint", a.llmEndpoint());
        if (a.llmModel() != null) llm.put("model", a.llmModel());
        try {
            db.executeTransactionally("""
                    CALL rag.search($q, {k: 5, corpus: $corpus}) YIELD text
                    WITH $q AS q, collect(text) AS passages
                    CALL rag.llm.chat([
                      {role: 'system', content: 'Answer the question from the passages only. Be brief.'},
                      {role: 'user', content: 'Passages:\\n' + reduce(s = '', p IN passages | s + CASE s WHEN '' THEN '' ELSE '\\n---\\n' END + p)
                        + '\\n\\nQuestion: ' + q}
                    ], {llm: $llm}) YIELD content, promptTokens, completionTokens, ms
                    RETURN content, promptTokens, completionTokens, ms""",
                    Map.of("q", q, "corpus", a.corpusName(), "llm", llm), r -> {
                        Map<String, Object> row = r.next();
                        out.printf("LLM answer to \"%s\" (%s prompt + %s completion tokens, %s ms):%n  %s%n", q,
                                row.get("promptTokens"), row.get("completionTokens"), row.get("ms"), row.get("content"));
                        return null;
                    });
        } catch (RuntimeException e) {
            out.println("LLM call failed: " + rootMessage(e));
        }
    }

    private static Object print(PrintStream out, String mode, Result r) {
        out.println("  [" + mode + "]");
        while (r.hasNext()) {
            Map<String, Object> row = r.next();
            String text = ((String) row.get("text")).replaceAll("\\s+", " ");
            // agrag.retrieve mixes sources (dense, named, link, graph, ppr) whose scores are on different scales: its score is
            // 1/rank, and each row names its source and what the source measured
            String source = row.get("source") instanceof String src ? String.format(" (%s %.3f)", src, (Double) row.get("sourceScore")) : "";
            out.printf("    %d. %.3f%s %s  %s%n", row.get("rank"), row.get("score"), source, row.get("chunkId"),
                    text.substring(0, Math.min(100, text.length())) + (text.length() > 100 ? "..." : ""));
        }
        return null;
    }

    static List<Map<String, Object>> sample() throws java.io.IOException {
        try (InputStream in = DemoServer.class.getResourceAsStream("/sample/gods-of-mars.json")) {
            return CorpusFiles.fromJson(new ObjectMapper().readTree(in));
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) t = t.getCause();
        return t.getMessage();
    }
}
