package dev.graphrag.agrag;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LocalIdsTest {

    @Test
    void idsAreDenseInFirstTouchOrderAndAgreeWithAMapThroughManyGrowths() {
        Random rnd = new Random(5);
        for (int round = 0; round < 20; round++) {
            LocalIds ids = new LocalIds();
            Map<Integer, Integer> reference = new HashMap<>();
            int range = 1 + rnd.nextInt(round < 10 ? 100 : Integer.MAX_VALUE);
            for (int k = 0; k < 20_000; k++) {
                int x = rnd.nextInt(range);
                if (rnd.nextBoolean()) {
                    Integer expected = reference.computeIfAbsent(x, key -> reference.size());
                    assertEquals(expected, ids.add(x), "add " + x);
                } else {
                    assertEquals(reference.getOrDefault(x, -1), ids.get(x), "get " + x);
                }
            }
            assertEquals(reference.size(), ids.size());
            for (Map.Entry<Integer, Integer> e : reference.entrySet()) assertEquals(e.getKey(), ids.global(e.getValue()));
        }
        // ids that collide in the table's low bits, and the largest graph id
        LocalIds ids = new LocalIds();
        for (int i = 0; i < 1000; i++) assertEquals(i, ids.add(i << 16));
        assertEquals(1000, ids.add(Integer.MAX_VALUE - 1));
        for (int i = 0; i < 1000; i++) assertEquals(i, ids.get(i << 16));
        assertEquals(-1, ids.get(3));
        assertThrows(IllegalArgumentException.class, () -> ids.add(-1));
    }
}
