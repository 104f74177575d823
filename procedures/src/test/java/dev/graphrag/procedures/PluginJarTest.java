package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deployable jar as a server's plugin loader sees it: Neo4j scans every .class entry of a plugin jar, so a class
 * outside our own and the relocated packages (a multi-release copy of Jackson, say) is a warning at every start or a
 * clash with the server's own libraries.
 */
class PluginJarTest {
    static Path pluginJar() throws IOException {
        // this line's jar (graphrag-neo4j-<version>.jar for 5.26, ...-neo4j-2026.jar for the calendar line)
        Path jar = BuildLayout.here().resolve(BuildLayout.pluginJarName());
        if (!Files.isRegularFile(jar)) throw new AssertionError("no plugin jar " + jar + ": run the build's package phase first");
        return jar;
    }

    /** Apache POI with XMLBeans and the OOXML schema types it compiled (procedures/pom.xml says why they keep their names). */
    static final List<String> UNRELOCATABLE = List.of("org/apache/poi/", "org/apache/xmlbeans/", "org/openxmlformats/schemas/",
            "com/microsoft/schemas/", "org/etsi/uri/", "org/w3/x2000/");

    @Test
    void everyClassIsOursRelocatedOrOnnxRuntime() throws IOException {
        List<String> strays = new ArrayList<>(), debug = new ArrayList<>();
        Map<String, java.util.Set<String>> platforms = new java.util.TreeMap<>();
        int classes = 0;
        try (JarFile jar = new JarFile(pluginJar().toFile())) {
            for (var it = jar.entries(); it.hasMoreElements(); ) {
                String name = it.nextElement().getName();
                assertFalse(name.startsWith("META-INF/versions/"), "a multi-release entry the loader would warn about: " + name);
                if (name.contains(".dSYM/") || name.endsWith(".pdb") || name.endsWith(".debug")) debug.add(name);
                Matcher nativeLibrary = NATIVE_DIRECTORY.matcher(name);
                if (nativeLibrary.matches()) platforms.computeIfAbsent(nativeLibrary.group(1), k -> new java.util.TreeSet<>()).add(nativeLibrary.group(2));
                if (!name.endsWith(".class")) continue;
                classes++;
                // ONNX Runtime and DJL's Hugging Face tokenizers stay unrelocated: their JNI symbols are bound to their class names;
                // Apache POI and its XMLBeans schemas too: XMLBeans finds compiled schema types by names stored in its .xsb files
                if (!name.startsWith("dev/graphrag/") && !name.startsWith("ai/onnxruntime/") && !name.startsWith("ai/djl/")
                        && UNRELOCATABLE.stream().noneMatch(name::startsWith)) {
                    strays.add(name);
                }
            }
            assertEquals(null, jar.getManifest().getMainAttributes().getValue("Multi-Release"));
        }
        assertTrue(classes > 1000, "the jar holds the plugin and its bundled libraries: " + classes + " classes");
        assertEquals(List.of(), debug, "debug symbols no server loads");
        assertEquals(List.of(), strays, "classes outside dev.graphrag, ai.onnxruntime, ai.djl and Apache POI's (Neo4j, Lucene, GDS and APOC are the server's)");
        // natives for the platforms Neo4j servers run on, named as each library names them, and no other (README's install section)
        assertEquals(Map.of("ai/onnxruntime/native/", java.util.Set.of("linux-x64", "linux-aarch64", "osx-aarch64", "win-x64"),
                "native/lib/", java.util.Set.of("linux-x86_64", "linux-aarch64", "osx-aarch64", "win-x86_64")), platforms);
    }

    /** A native library's directory: ONNX Runtime's and the Hugging Face tokenizers', then the platform. */
    private static final Pattern NATIVE_DIRECTORY = Pattern.compile("(ai/onnxruntime/native/|native/lib/)([^/]+)/.+");

    @Test
    void nothingBesideThePluginJarLooksLikeAnotherOne() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(BuildLayout.here())) {
            List<String> originals = files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("original-")).toList();
            assertEquals(List.of(), originals, "the shade plugin's input left beside the plugin jar");
        }
    }
}
