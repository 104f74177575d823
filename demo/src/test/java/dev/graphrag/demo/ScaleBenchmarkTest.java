package dev.graphrag.demo;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scaling report's arithmetic: growth exponents between consecutive sizes and from the first to the last. */
class ScaleBenchmarkTest {
    static ScaleBenchmark.Size size(int copies, long chunks, double indexS, long heap, double p50) {
        Map<String, double[]> latency = new LinkedHashMap<>();
        latency.put("agrag.mcmi", new double[] {p50, 2 * p50});
        return new ScaleBenchmark.Size(copies, chunks, null, null, null, indexS, null, heap, new ScaleBenchmark.Heap(1, heap, 0), 2.5, latency);
    }

    @Test
    void exponentsAreLogRatiosOverTheChunkRatio() {
        // index time linear, heap growing as the square root, latency constant from 1x to 4x and doubling from 4x to 16x
        List<ScaleBenchmark.Size> sizes = List.of(size(1, 1000, 10, 100, 5), size(4, 4000, 40, 200, 5), size(16, 16000, 160, 400, 10));
        String table = ScaleBenchmark.exponents(sizes);
        assertTrue(table.contains("| exponent | 1x to 4x | 4x to 16x | 1x to 16x |"), table);
        assertTrue(table.contains("| agrag.index time | 1.00 | 1.00 | 1.00 |"), table);
        assertTrue(table.contains("| heap, all | 0.50 | 0.50 | 0.50 |"), table);
        assertTrue(table.contains("| agrag.mcmi p50 | 0.00 | 0.50 | 0.25 |"), table);
        String results = ScaleBenchmark.table(sizes);
        assertTrue(results.contains("| agrag.mcmi | 5.0 / 10.0 | 5.0 / 10.0 | 10.0 / 20.0 |"), results);
        assertTrue(results.contains("| 16x | 16000 | - | - | - | 160.0 | - | 0 | 0 | 0 | 0 | 2.5 |"), results);
    }
}
