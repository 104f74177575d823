package dev.graphrag.core.embed;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * ONNX Runtime extracts its native libraries (and, on first use, a GPU provider's) into a fresh
 * {@code java.io.tmpdir/onnxruntime-java*} directory and only marks the files deleteOnExit, so every server stop
 * left the directory behind (tens of MB of libraries after a kill). The plugin removes the runtime's own directory
 * when it shuts down, once no session can ask for a provider any more; unlinking loaded libraries is safe on POSIX.
 * (A plugin restarted inside one JVM, as some tests do, keeps its loaded CPU libraries but could not extract a GPU
 * provider again; a server's JVM ends with the plugin.) A kill -9 still leaves the directory: nothing runs then.
 */
public final class OnnxTempDirectory {
    private OnnxTempDirectory() {}

    /** The directory this JVM's ONNX Runtime extracted into, or null when it has not loaded (or keeps none). */
    public static Path current() {
        try {
            Class<?> runtime = Class.forName("ai.onnxruntime.OnnxRuntime", false, OnnxTempDirectory.class.getClassLoader());
            Field f = runtime.getDeclaredField("tempDirectory"); // private static Path in ONNX Runtime 1.x
            f.setAccessible(true);
            return f.get(null) instanceof Path p && p.getFileName() != null && p.getFileName().toString().startsWith("onnxruntime-java") ? p : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Deletes {@link #current()} and its files; failures are logged, never thrown (this runs at shutdown). */
    public static void delete(Consumer<String> log) {
        Path dir = current();
        if (dir == null || !Files.isDirectory(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
            for (Path p : all) Files.deleteIfExists(p);
        } catch (IOException | RuntimeException e) {
            log.accept("graphrag: could not remove ONNX Runtime's temporary directory " + dir + ": " + e.getMessage());
        }
    }
}
