package dev.graphrag.agrag;

import java.util.Arrays;

/**
 * Dense local ids 0, 1, 2, ... for the graph ids (nodes or edges) a query touches, in the order it first touches
 * them: an open-addressing hash table that grows with what is touched. A query's searches keep their per-node and
 * per-edge state in arrays indexed by these ids, so their memory and set-up follow the part of the graph they reach
 * instead of the corpus (a per-query array over every edge of a 100k-chunk corpus is tens of MB to allocate and fill).
 */
final class LocalIds {
    private int[] slots; // graph id + 1 per slot, 0 when empty
    private int[] local;
    private int[] global = new int[16];
    private int size;

    LocalIds() {
        slots = new int[64];
        local = new int[64];
    }

    int size() { return size; }

    /** The graph id of local id {@code i}. */
    int global(int i) { return global[i]; }

    /** The local id of graph id {@code x}, or -1 when it was never added. */
    int get(int x) {
        int mask = slots.length - 1;
        for (int s = hash(x) & mask; ; s = (s + 1) & mask) {
            int k = slots[s];
            if (k == 0) return -1;
            if (k == x + 1) return local[s];
        }
    }

    /** The local id of graph id {@code x}, the next free one ({@link #size()} before the call) when it is new. */
    int add(int x) {
        if (x < 0) throw new IllegalArgumentException("graph id must be >= 0, got " + x);
        int mask = slots.length - 1;
        for (int s = hash(x) & mask; ; s = (s + 1) & mask) {
            int k = slots[s];
            if (k == x + 1) return local[s];
            if (k == 0) {
                slots[s] = x + 1;
                local[s] = size;
                if (size == global.length) global = Arrays.copyOf(global, size * 2);
                global[size] = x;
                if (++size * 2 > slots.length) grow();
                return size - 1;
            }
        }
    }

    /** Doubles the table once half full, so a probe sequence stays short. */
    private void grow() {
        int[] oldSlots = slots, oldLocal = local;
        slots = new int[oldSlots.length * 2];
        local = new int[oldSlots.length * 2];
        int mask = slots.length - 1;
        for (int i = 0; i < oldSlots.length; i++) {
            if (oldSlots[i] == 0) continue;
            int s = hash(oldSlots[i] - 1) & mask;
            while (slots[s] != 0) s = (s + 1) & mask;
            slots[s] = oldSlots[i];
            local[s] = oldLocal[i];
        }
    }

    private static int hash(int x) {
        int h = x * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** {@code a} grown, when needed, to hold index {@code i}. */
    static double[] room(double[] a, int i) {
        return i < a.length ? a : Arrays.copyOf(a, Math.max(i + 1, a.length * 2));
    }

    static int[] room(int[] a, int i) {
        return i < a.length ? a : Arrays.copyOf(a, Math.max(i + 1, a.length * 2));
    }

    static boolean[] room(boolean[] a, int i) {
        return i < a.length ? a : Arrays.copyOf(a, Math.max(i + 1, a.length * 2));
    }
}
