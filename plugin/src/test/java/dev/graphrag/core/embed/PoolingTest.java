package dev.graphrag.core.embed;

import org.junit.jupiter.api.Test;

import java.nio.FloatBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Pooling from a batch's flat output buffer gives the very vector pooling from nested arrays gives. */
class PoolingTest {
    @Test
    void theBufferAndTheArraysPoolAlike() {
        Random random = new Random(7);
        int batch = 3, tokens = 5, dims = 4;
        float[][][] nested = new float[batch][tokens][dims];
        FloatBuffer flat = FloatBuffer.allocate(batch * tokens * dims);
        for (int b = 0; b < batch; b++) for (int t = 0; t < tokens; t++) for (int d = 0; d < dims; d++) {
            nested[b][t][d] = random.nextFloat() * 2 - 1;
            flat.put(nested[b][t][d]);
        }
        flat.flip();
        int[] lengths = {5, 2, 3}; // padded rows past each length are left out of the mean
        for (Pooling p : Pooling.values()) {
            for (boolean normalize : new boolean[] {false, true}) {
                for (int b = 0; b < batch; b++) {
                    assertArrayEquals(p.pool(nested[b], lengths[b], normalize), p.pool(flat, b * tokens * dims, dims, lengths[b], normalize), 0f,
                            p + " normalize " + normalize + " row " + b);
                }
            }
        }
    }
}
