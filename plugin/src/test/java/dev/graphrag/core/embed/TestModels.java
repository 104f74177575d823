package dev.graphrag.core.embed;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The model jars on the test classpath, and their resources copied to files where a file path is needed. */
public final class TestModels {
    private static EmbeddingModel bge;

    private TestModels() {}

    public static synchronized EmbeddingModel bge() {
        if (bge == null) bge = EmbeddingModel.load(ModelSpec.defaults().withDevice(Device.CPU), s -> {});
        return bge;
    }

    public static ModelSpec miniLm(boolean quantized) {
        String base = quantized ? "all-minilm-l6-v2-q" : "all-minilm-l6-v2";
        return new ModelSpec(base, "classpath:" + base + ".onnx", "classpath:" + base + "-tokenizer.json", Pooling.MEAN, 256, true,
                Device.CPU, 0, 32);
    }

    public static Path resourceFile(String name) throws IOException {
        Path dir = Path.of("target", "test-resources-extracted");
        Files.createDirectories(dir);
        Path out = dir.resolve(name);
        if (!Files.exists(out)) {
            try (InputStream in = TestModels.class.getClassLoader().getResourceAsStream(name)) {
                if (in == null) throw new IOException("no resource " + name);
                Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return out;
    }
}
