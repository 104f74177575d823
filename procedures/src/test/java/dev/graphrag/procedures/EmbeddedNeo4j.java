package dev.graphrag.procedures;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.UserAggregationFunction;
import org.neo4j.procedure.UserFunction;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * An embedded Neo4j 5.26 with this plugin, GDS and APOC registered as a server would have them: the
 * demo's server and the integration tests' (one per test JVM).
 */
public final class EmbeddedNeo4j {
    /**
     * Where and how to start. A negative port disables that connector, 0 picks a free one. {@code settings} are
     * graphrag.conf defaults for this server; a graphrag.conf the user points to (-Dgraphrag.conf.dir or
     * $NEO4J_CONF) and GRAPHRAG_* variables still win.
     */
    public record Options(Path workDir, Path dataDir, String host, int boltPort, int httpPort, Map<String, String> settings, Path importDir) {
        /** A single-user server (the demo, the benchmark): callers may name any LLM endpoint. */
        public Options(Path workDir, Path dataDir, String host, int boltPort, int httpPort) {
            this(workDir, dataDir, host, boltPort, httpPort, SINGLE_USER);
        }

        /** The import directory (rag.ingest.files, LOAD CSV) is workDir/import. */
        public Options(Path workDir, Path dataDir, String host, int boltPort, int httpPort, Map<String, String> settings) {
            this(workDir, dataDir, host, boltPort, httpPort, settings, null);
        }

        /** The import directory this server reads files from: the one given, else workDir/import. */
        public Path importDirectory() {
            return (importDir != null ? importDir : workDir.resolve("import")).toAbsolutePath().normalize();
        }
    }

    /** The demo is one person's server: the LLM endpoint is theirs to name per call (the server warns at start). */
    public static final Map<String, String> SINGLE_USER = Map.of("graphrag.llm.allowedEndpoints", "*");

    private static final List<String> OUR_CLASSES = List.of(
            "dev.graphrag.procedures.RagProcedures", "dev.graphrag.procedures.LlmProcedures",
            "dev.graphrag.procedures.AgragProcedures", "dev.graphrag.procedures.RemindProcedures",
            "dev.graphrag.procedures.HgmemProcedures", "dev.graphrag.procedures.RagaFunctions",
            "dev.graphrag.procedures.RagaProcedures");

    private EmbeddedNeo4j() {}

    public static Neo4j start(Options o) {
        Neo4jBuilder b = Neo4jBuilders.newInProcessBuilder(o.workDir())
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("gds.*", "apoc.*"))
                .withConfig(BoltConnector.enabled, o.boltPort() >= 0)
                .withConfig(HttpConnector.enabled, o.httpPort() >= 0);
        if (o.boltPort() >= 0) b = withoutBoltQuietPeriod(b.withConfig(BoltConnector.listen_address, new SocketAddress(o.host(), o.boltPort())));
        // Browser reads bolt_direct from the HTTP discovery document, which is the advertised address (7687 unless set)
        if (o.boltPort() > 0) b = b.withConfig(BoltConnector.advertised_address, new SocketAddress(o.host(), o.boltPort()));
        if (o.httpPort() >= 0) b = b.withConfig(HttpConnector.listen_address, new SocketAddress(o.host(), o.httpPort()));
        else b = b.withDisabledServer();
        if (o.dataDir() != null) b = b.withConfig(GraphDatabaseSettings.data_directory, o.dataDir().toAbsolutePath());
        try {
            b = b.withConfig(GraphDatabaseSettings.load_csv_file_url_root, Files.createDirectories(o.importDirectory()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the import directory " + o.importDirectory() + ": " + e.getMessage(), e);
        }
        for (Class<?> c : procedureClasses()) {
            b = register(b, c);
        }
        // the plugin reads graphrag.conf when the server starts: point it at this server's merged file meanwhile
        String previous = System.getProperty(CONF_DIR_PROPERTY);
        System.setProperty(CONF_DIR_PROPERTY, writeSettings(o, previous).toString());
        try {
            return b.build();
        } finally {
            if (previous == null) System.clearProperty(CONF_DIR_PROPERTY);
            else System.setProperty(CONF_DIR_PROPERTY, previous);
        }
    }

    /**
     * Netty waits a quiet period (5 s on each of its two event loop groups) for tasks still arriving before it lets
     * Bolt go; a test or demo server is closed by its only user, so it goes at once (10 s less per close). The setting
     * is an Integer of seconds on 5.26 and a Duration on the calendar line.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Neo4jBuilder withoutBoltQuietPeriod(Neo4jBuilder b) {
        org.neo4j.graphdb.config.Setting quiet = org.neo4j.configuration.GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period;
        return b.withConfig(quiet, quiet.defaultValue() instanceof java.time.Duration ? java.time.Duration.ZERO : (Object) 0);
    }

    static final String CONF_DIR_PROPERTY = "graphrag.conf.dir";

    /** The user's graphrag.conf, if any, with this server's defaults for the keys it does not set. */
    private static Path writeSettings(Options o, String userConfDir) {
        try {
            Properties merged = new Properties();
            merged.putAll(o.settings());
            String dir = userConfDir != null ? userConfDir : System.getenv("NEO4J_CONF");
            if (dir != null && Files.isRegularFile(Path.of(dir, "graphrag.conf"))) {
                try (var in = Files.newBufferedReader(Path.of(dir, "graphrag.conf"), StandardCharsets.UTF_8)) {
                    Properties user = new Properties();
                    user.load(in);
                    merged.putAll(user);
                }
            }
            Path confDir = Files.createDirectories(o.workDir().toAbsolutePath().resolve("graphrag-conf"));
            try (var out = Files.newBufferedWriter(confDir.resolve("graphrag.conf"), StandardCharsets.UTF_8)) {
                merged.store(out, "written by EmbeddedNeo4j for this server");
            }
            return confDir;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the embedded server's graphrag.conf: " + e.getMessage(), e);
        }
    }

    private static Neo4jBuilder register(Neo4jBuilder b, Class<?> c) {
        boolean proc = false, func = false, agg = false;
        for (Method m : c.getDeclaredMethods()) {
            proc |= m.isAnnotationPresent(Procedure.class);
            func |= m.isAnnotationPresent(UserFunction.class);
            agg |= m.isAnnotationPresent(UserAggregationFunction.class);
        }
        if (proc) b = b.withProcedure(c);
        if (func) b = b.withFunction(c);
        if (agg) b = b.withAggregationFunction(c);
        return b;
    }

    /** Ours, GDS's (listed in its META-INF/services files) and APOC core's (found by scanning its jar). */
    static Set<Class<?>> procedureClasses() {
        Set<Class<?>> out = new LinkedHashSet<>();
        ClassLoader cl = EmbeddedNeo4j.class.getClassLoader();
        try {
            for (String name : OUR_CLASSES) out.add(Class.forName(name));
            for (String service : List.of("org.neo4j.procedure.Procedure", "org.neo4j.procedure.UserFunction",
                    "org.neo4j.procedure.UserAggregationFunction")) {
                Enumeration<URL> urls = cl.getResources("META-INF/services/" + service);
                while (urls.hasMoreElements()) {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(urls.nextElement().openStream(), StandardCharsets.UTF_8))) {
                        for (String line = r.readLine(); line != null; line = r.readLine()) {
                            line = line.trim();
                            if (!line.isEmpty() && !line.startsWith("#")) out.add(Class.forName(line, false, cl));
                        }
                    }
                }
            }
            out.addAll(apocClasses(cl));
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot list procedure classes: " + e.getMessage(), e);
        }
        return out;
    }

    private static List<Class<?>> apocClasses(ClassLoader cl) throws IOException {
        List<Class<?>> out = new ArrayList<>();
        URL anchor = cl.getResource("apoc/help/Help.class");
        if (anchor == null || !"jar".equals(anchor.getProtocol())) return out;
        String path = anchor.getPath();
        String jar = path.substring("file:".length(), path.indexOf("!/"));
        try (JarFile jf = new JarFile(java.net.URLDecoder.decode(jar, StandardCharsets.UTF_8))) {
            for (Enumeration<JarEntry> en = jf.entries(); en.hasMoreElements(); ) {
                String n = en.nextElement().getName();
                if (!n.startsWith("apoc/") || !n.endsWith(".class") || n.contains("$")) continue;
                try {
                    Class<?> c = Class.forName(n.substring(0, n.length() - 6).replace('/', '.'), false, cl);
                    for (Method m : c.getDeclaredMethods()) {
                        if (m.isAnnotationPresent(Procedure.class) || m.isAnnotationPresent(UserFunction.class)
                                || m.isAnnotationPresent(UserAggregationFunction.class)) {
                            out.add(c);
                            break;
                        }
                    }
                } catch (LinkageError | ClassNotFoundException ignored) {
                    // a class needing an optional dependency APOC core does not ship: not a procedure we can offer
                }
            }
        }
        return out;
    }
}
