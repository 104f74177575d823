package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
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
        List<String> strays = new ArrayList<>();
        int classes = 0;
        try (JarFile jar = new JarFile(pluginJar().toFile())) {
            for (var it = jar.entries(); it.hasMoreElements(); ) {
                String name = it.nextElement().getName();
                assertFalse(name.startsWith("META-INF/versions/"), "a multi-release entry the loader would warn about: " + name);
                assertFalse(name.contains(".dSYM/"), "debug symbols no server loads: " + name);
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
        assertEquals(List.of(), strays, "classes outside dev.graphrag, ai.onnxruntime, ai.djl and Apache POI's (Neo4j, Lucene, GDS and APOC are the server's)");
    }
}
