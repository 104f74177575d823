package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ONNX Runtime 1.29.0's native library kills the JVM with SIGSEGV (no hs_err file) when it loads in a process whose
 * command line is longer than about 4 KB: a plain {@code java -cp <jars>} launch of an embedded Neo4j, or a server
 * started with many JVM options. 1.28.0 loads. This runs the bundled model in a child JVM with a 6 KB command line.
 */
@LineIndependent
class LongCommandLineTest {

    /** The child: load the default model on the CPU, embed one text, print its dimensions. */
    public static void main(String[] args) {
        try (EmbeddingModel m = EmbeddingModel.load(ModelSpec.defaults().withDevice(Device.CPU), s -> {})) {
            System.out.println("dimensions=" + m.embedIds(new int[][] {m.tokenizer().encode("hello world", 32)})[0].length);
        }
    }

    @Test
    void theModelLoadsInAJvmWithALongCommandLine() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-Dgraphrag.test.padding=" + "x".repeat(6000),
                "-cp", System.getProperty("java.class.path"), LongCommandLineTest.class.getName()))
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "child JVM exit " + p.exitValue() + " (139 = SIGSEGV in ONNX Runtime's native load):\n" + out);
        assertTrue(out.contains("dimensions=384"), out);
    }
}
