package dev.graphrag.core.llm;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A known conflict between plugins that breaks every HTTP call in the JVM, not only ours. apoc-common registers a
 * {@code java.net.spi.URLStreamHandlerProvider}; the first {@code http:} URL the JVM creates (JDK JceSecurity, reached
 * from {@code HttpClient.newBuilder().build()}) runs it, and its {@code SupportedProtocols} initialises hadoop's
 * {@code FileSystem} when that class is on the class path. A server lib/ with hadoop-common but not its dependencies
 * (woodstox first) then fails every TLS, crypto and http URL use with {@code NoClassDefFoundError}. No plugin can route
 * around a JVM-wide URL handler, so this only names the cause and the fix. Detected from class-path resources alone:
 * nothing is loaded or initialised.
 */
public final class UrlHandlerConflict {
    static final String APOC_PROVIDER = "apoc.util.ApocUrlStreamHandlerFactory";
    static final String HADOOP_FILE_SYSTEM = "org/apache/hadoop/fs/FileSystem.class";
    /** Only hadoop-common has it: Neo4j's parquet-floor carries stub hadoop classes (FileSystem included) that initialise fine. */
    static final String HADOOP_COMMON_ONLY = "org/apache/hadoop/fs/FsUrlStreamHandlerFactory.class";
    static final String WOODSTOX = "com/ctc/wstx/io/InputBootstrapper.class";
    static final String SERVICE = "META-INF/services/java.net.spi.URLStreamHandlerProvider";

    static final String EXPLANATION = "this JVM cannot open HTTP connections: apoc-common's URL handler (in plugins/) initialises"
            + " hadoop's FileSystem (lib/hadoop-common-*.jar), whose dependencies (woodstox-core, commons-collections4, ...) are not"
            + " on the class path, so every http(s) URL and TLS set-up in the server fails, APOC's own included. Remove"
            + " lib/hadoop-common-*.jar (only neo4j-admin's Parquet import uses it) or add its dependencies to lib/; see"
            + " docs/operations.md, 'APOC assembled from Maven Central'";

    private UrlHandlerConflict() {
    }

    /**
     * The conflict, explained, when the class path has it. {@code origin} names the jar a resource is loaded from (null
     * when absent): the FileSystem that loads must be hadoop-common's, not a stub that happens to come first.
     */
    static Optional<String> detect(Function<String, String> origin, Predicate<String> providerRegistered) {
        String fileSystem = origin.apply(HADOOP_FILE_SYSTEM);
        boolean conflict = providerRegistered.test(APOC_PROVIDER) && fileSystem != null && fileSystem.equals(origin.apply(HADOOP_COMMON_ONLY))
                && origin.apply(WOODSTOX) == null;
        return conflict ? Optional.of(EXPLANATION) : Optional.empty();
    }

    /** The conflict on this JVM's class path (the system class loader: the JDK looks URL handlers up there). */
    public static Optional<String> detect() {
        ClassLoader cl = ClassLoader.getSystemClassLoader();
        return detect(r -> origin(cl.getResource(r)), provider -> registered(cl, provider));
    }

    /** The jar (or directory) a resource URL comes from. */
    static String origin(URL resource) {
        if (resource == null) return null;
        String u = resource.toString();
        int bang = u.indexOf("!/");
        return bang >= 0 ? u.substring(0, bang) : u.substring(0, Math.max(0, u.lastIndexOf('/')));
    }

    /** What to tell a caller whose HTTP call failed with a linkage error. */
    public static String explain(LinkageError e) {
        return detect().orElse("the JVM's HTTP client failed with " + e.getClass().getSimpleName() + ": " + e.getMessage()
                + " (a class another plugin or lib/ jar needs is missing)");
    }

    private static boolean registered(ClassLoader cl, String provider) {
        try {
            Enumeration<URL> files = cl.getResources(SERVICE);
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                        if (line.strip().equals(provider)) return true;
                    }
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }
}
