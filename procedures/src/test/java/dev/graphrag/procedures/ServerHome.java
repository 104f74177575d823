package dev.graphrag.procedures;

import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Neo4j server home assembled the way an administrator installs a plugin, started in a child JVM by Neo4j's own
 * bootloader (what `bin/neo4j console` runs): lib/ is the runtime closure of org.neo4j:neo4j from Maven Central
 * (server-home/target/lib, optionally filtered), plugins/ holds the shaded plugin jar and any other plugin jars,
 * conf/ holds neo4j.conf and graphrag.conf, and java.io.tmpdir is the home's tmp/.
 */
public final class ServerHome implements AutoCloseable {
    static final Path LIB = BuildLayout.of("../server-home").resolve("lib");
    static final Path APOC = BuildLayout.of("../server-home").resolve("apoc");

    public final Path home;
    final Process server;
    public final int boltPort;
    final Path console;

    private ServerHome(Path home, Process server, int boltPort, Path console) {
        this.home = home;
        this.server = server;
        this.boltPort = boltPort;
        this.console = console;
    }

    /** Starts a server and waits until it logs "Started."; lib/ keeps the jars libFilter accepts. */
    public static ServerHome start(Predicate<Path> libFilter, List<Path> otherPlugins, List<String> neo4jConf, List<String> graphragConf) throws Exception {
        assertTrue(Files.isDirectory(LIB), "no server lib/ in " + LIB + ": run the build's package phase first (mvn -B verify does)");
        Path home = Files.createTempDirectory("graphrag-real-server");
        Files.createDirectories(home.resolve("lib"));
        try (Stream<Path> jars = Files.list(LIB)) {
            for (Path j : jars.filter(libFilter).toList()) Files.createSymbolicLink(home.resolve("lib").resolve(j.getFileName()), j.toAbsolutePath());
        }
        Files.createDirectories(home.resolve("plugins"));
        List<Path> plugins = new ArrayList<>(otherPlugins);
        plugins.add(PluginJarTest.pluginJar());
        for (Path jar : plugins) Files.copy(jar, home.resolve("plugins").resolve(jar.getFileName()));
        int boltPort = freePort();
        Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("tmp"));
        List<String> conf = new ArrayList<>(List.of(
                "server.bolt.listen_address=127.0.0.1:" + boltPort,
                "server.http.enabled=false",
                "server.https.enabled=false",
                "dbms.security.auth_enabled=false",
                "dbms.usage_report.enabled=false",
                "server.memory.heap.initial_size=256m",
                "server.memory.heap.max_size=768m",
                "server.memory.pagecache.size=64m",
                // no 5 s quiet period per Netty event loop group at stop (EmbeddedNeo4j says why): seconds on 5.26, a duration
                // under a new name on the calendar line (the old name is migrated there and must then be a number)
                "2026".equals(System.getProperty("graphrag.neo4j.line")) ? "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=0s"
                        : "internal.dbms.bolt.netty_server_shutdown_quiet_period=0",
                "server.jvm.additional=-Djava.io.tmpdir=" + home.resolve("tmp").toAbsolutePath()));
        for (String flag : TestJvm.jitFlags()) conf.add("server.jvm.additional=" + flag);
        conf.addAll(neo4jConf);
        Files.writeString(home.resolve("conf/neo4j.conf"), String.join("\n", conf) + "\n");
        Files.writeString(home.resolve("conf/graphrag.conf"), String.join("\n", graphragConf) + "\n");
        Path console = home.resolve("console.log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", home.resolve("lib") + "/*",
                "org.neo4j.server.startup.Neo4jCommand", "console")
                .directory(home.toFile()).redirectErrorStream(true).redirectOutput(console.toFile());
        pb.environment().put("NEO4J_HOME", home.toAbsolutePath().toString());
        pb.environment().put("NEO4J_CONF", home.resolve("conf").toAbsolutePath().toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        ServerHome started = new ServerHome(home, pb.start(), boltPort, console);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!Files.readString(console).contains("Started.")) {
            if (!started.server.isAlive() || System.nanoTime() > deadline) {
                String why = started.server.isAlive() ? "the server did not start within 180 s: " : "the server exited: ";
                String tail = started.tail();
                started.close();
                throw new AssertionError(why + tail);
            }
            Thread.sleep(250);
        }
        return started;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public Driver driver() {
        return GraphDatabase.driver("bolt://127.0.0.1:" + boltPort, AuthTokens.none(),
                org.neo4j.driver.Config.builder().withConnectionTimeout(30, TimeUnit.SECONDS).build());
    }

    public String log() throws IOException {
        return Files.readString(console);
    }

    String tail() throws IOException {
        String out = log();
        return out.substring(Math.max(0, out.length() - 3000));
    }

    /** Stops the server cleanly; what ONNX Runtime left in java.io.tmpdir is listed before the home is deleted. */
    List<String> stop() throws Exception {
        List<ProcessHandle> all = Stream.concat(server.descendants(), Stream.of(server.toHandle())).toList();
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle p : all) p.onExit().get(60, TimeUnit.SECONDS);
        try (Stream<Path> tmp = Files.list(home.resolve("tmp"))) {
            return tmp.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("onnxruntime-java")).toList();
        } finally {
            try (Stream<Path> files = Files.walk(home)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    @Override
    public void close() throws Exception {
        if (Files.exists(home)) stop();
    }
}
