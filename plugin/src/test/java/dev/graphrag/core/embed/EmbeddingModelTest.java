package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class EmbeddingModelTest {

    @Test
    void miniLmHelloWorldMatchesTheReferenceVector() {
        try (EmbeddingModel m = EmbeddingModel.load(TestModels.miniLm(false), s -> {})) {
            float[] v = m.embedIds(new int[][] {m.tokenizer().encode("hello world", 256)})[0];
            assertEquals(384, v.length);
            assertEquals(-0.0344773, v[0], 1e-5);
            assertEquals(0.0310232, v[1], 1e-5);
            assertEquals(0.0067350, v[2], 1e-5);
            assertEquals(1.0, norm(v), 1e-5);
        }
    }

    @Test
    void bgeIsNormalisedAndRanksParaphrasesAboveUnrelatedText() {
        EmbeddingService s = new EmbeddingService(TestModels.bge(), 100);
        float[] a = s.embed("Who wrote the novel The Gods of Mars?");
        float[] b = s.embed("The Gods of Mars is a novel by Edgar Rice Burroughs.");
        float[] c = s.embed("Quarterly revenue of the semiconductor company rose by ten percent.");
        assertEquals(384, a.length);
        assertEquals(1.0, norm(a), 1e-4);
        assertTrue(EmbeddingService.cosine(a, b) > EmbeddingService.cosine(a, c) + 0.1);
    }

    static final List<String> MIXED_LENGTHS = List.of("short", "a somewhat longer sentence about graphs and retrieval",
            "mid length text here", "x y z ".repeat(40));

    @Test
    void fp32BatchedEmbeddingsEqualOneByOne() {
        try (EmbeddingModel m = EmbeddingModel.load(TestModels.miniLm(false), s -> {})) {
            EmbeddingService s = new EmbeddingService(m, 0);
            float[][] batch = s.embedAll(MIXED_LENGTHS, false);
            for (int i = 0; i < MIXED_LENGTHS.size(); i++) {
                float[] single = s.embedAll(List.of(MIXED_LENGTHS.get(i)), false)[0];
                assertArrayEquals(single, batch[i], 1e-4f, "text " + i + " differs when batched with padding");
            }
        }
    }

    @Test
    void int8BatchedEmbeddingsStayCloseToOneByOne() {
        // dynamic int8 quantisation scales activations per batch tensor, padding included: close, not equal
        EmbeddingService s = new EmbeddingService(TestModels.bge(), 0);
        float[][] batch = s.embedAll(MIXED_LENGTHS, false);
        for (int i = 0; i < MIXED_LENGTHS.size(); i++) {
            float[] single = s.embedAll(List.of(MIXED_LENGTHS.get(i)), false)[0];
            double cos = EmbeddingService.cosine(single, batch[i]);
            System.out.println("int8 batched vs single cosine, text " + i + ": " + cos);
            assertTrue(cos > 0.98, "text " + i + ": cosine " + cos);
        }
    }

    static final List<String> ENTITY_NAMES = List.of("Edgar Rice Burroughs", "Mars", "John Carter", "Barsoom", "Dejah Thoris",
            "Tars Tarkas", "Helium", "the Gods of Mars", "A Princess of Mars", "Chicago", "Tarzan", "Virginia");

    @Test
    void batchInvarianceIsProbedNotAssumed() {
        try (EmbeddingModel fp32 = EmbeddingModel.load(TestModels.miniLm(false), s -> {})) {
            assertTrue(fp32.batchInvariant(), "fp32 MiniLM gives the same vector alone and in a batch");
        }
        assertFalse(TestModels.bge().batchInvariant(), "int8 bge quantises activations per batch");
    }

    @Test
    void embedEachEqualsOneCallPerTextForBothKindsOfModel() {
        try (EmbeddingModel fp32 = EmbeddingModel.load(TestModels.miniLm(false), s -> {})) {
            for (EmbeddingModel m : List.of(fp32, TestModels.bge())) {
                float[][] each = new EmbeddingService(m, 0).embedEach(ENTITY_NAMES);
                for (int i = 0; i < ENTITY_NAMES.size(); i++) {
                    float[] alone = m.embedIds(new int[][] {m.tokenizer().encode(ENTITY_NAMES.get(i), m.spec().maxLength())})[0];
                    assertArrayEquals(alone, each[i], EmbeddingModel.BATCH_INVARIANCE_TOLERANCE,
                            m.spec().name() + ": " + ENTITY_NAMES.get(i) + " depends on what it was embedded with");
                }
            }
        }
    }

    @Test
    void cudaOnACpuBuildIsAClearError() {
        var e = assertThrows(RagException.class, () -> EmbeddingModel.load(ModelSpec.defaults().withDevice(Device.CUDA), s -> {}));
        assertTrue(e.getMessage().contains("cuda"), e.getMessage());
    }

    @Test
    void autoFallsBackToCpuAndSaysSo() {
        StringBuilder log = new StringBuilder();
        try (EmbeddingModel m = EmbeddingModel.load(TestModels.miniLm(true).withDevice(Device.AUTO), log::append)) {
            assertEquals("cpu", m.device());
            assertTrue(log.toString().contains("CPU"), log.toString());
        }
    }

    @Test
    void missingModelFileIsNamed() {
        ModelSpec spec = new ModelSpec("x", "/nonexistent/model.onnx", ModelSpec.DEFAULT_TOKENIZER, Pooling.CLS, 512, true, Device.CPU, 0, 32);
        var e = assertThrows(RagException.class, () -> EmbeddingModel.load(spec, s -> {}));
        assertTrue(e.getMessage().contains("/nonexistent/model.onnx"), e.getMessage());
    }

    @Test
    void emptyTextIsRejected() {
        EmbeddingService s = new EmbeddingService(TestModels.bge(), 10);
        assertThrows(RagException.class, () -> s.embed(" "));
        assertThrows(RagException.class, () -> s.embed(null));
    }

    @Test
    void poolingByHand() {
        float[][] hidden = {{3, 4}, {1, 0}, {100, 100}};
        assertArrayEquals(new float[] {0.6f, 0.8f}, Pooling.CLS.pool(hidden, 2, true), 1e-6f);
        assertArrayEquals(new float[] {2f, 2f}, Pooling.MEAN.pool(hidden, 2, false), 1e-6f); // padding row ignored
    }

    static double norm(float[] v) {
        double s = 0;
        for (float x : v) s += x * x;
        return Math.sqrt(s);
    }
}
