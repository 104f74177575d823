package dev.graphrag.hgmem;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToIntFunction;

/**
 * The chunks the final answer (E6) reads (paper §3.6, following the reference code): per active unit, its vertices'
 * chunks and then its vertices' graph neighbours' chunks (neighbours outside memory), each restricted to chunks some
 * step already retrieved and ranked by similarity to the unit's description; capped overall by similarity to all the
 * subqueries, put back in document order and cut to a token budget. A memory with no point (no step found anything
 * worth keeping) has no entities to reach chunks through; the answer then reads the {@code emptyMemoryChunks} retrieved
 * chunks nearest all the subqueries rather than nothing (the paper and the reference code leave that case empty).
 */
public final class FinalContext {
    public record Settings(int innerPerUnit, int outerPerUnit, int maxChunks, int tokenBudget, int emptyMemoryChunks) {
        public static final Settings DEFAULTS = new Settings(5, 5, 50, 10_000, 5);
    }

    /** What the selection reads of the graph and the session, as functions (Neo4j, or maps in tests). */
    public record Sources(Function<String, ? extends Iterable<String>> neighbours, Function<String, ? extends Iterable<String>> chunksOf,
                          Set<String> history, ToDoubleBiFunction<MemoryUnit, String> unitSimilarity, ToDoubleBiFunction<String, String> querySimilarity,
                          Comparator<String> documentOrder, ToIntFunction<String> tokens) {}

    private FinalContext() {}

    /** The chunk ids, in document order; {@code allSubqueries} is the text the overall cap ranks by. */
    public static List<String> chunks(HypergraphMemory memory, Sources src, String allSubqueries, Settings s) {
        Set<String> memoryVertices = new LinkedHashSet<>(memory.vertices());
        Set<String> picked = new LinkedHashSet<>();
        for (MemoryUnit u : memory.listing()) {
            Set<String> inner = new LinkedHashSet<>();
            for (String v : u.vertices()) for (String c : src.chunksOf().apply(v)) if (src.history().contains(c)) inner.add(c);
            List<String> selInner = top(inner, c -> src.unitSimilarity().applyAsDouble(u, c), s.innerPerUnit());
            Set<String> outer = new LinkedHashSet<>();
            for (String v : u.vertices()) {
                for (String w : src.neighbours().apply(v)) {
                    if (memoryVertices.contains(w)) continue;
                    for (String c : src.chunksOf().apply(w)) if (src.history().contains(c) && !selInner.contains(c)) outer.add(c);
                }
            }
            picked.addAll(selInner);
            picked.addAll(top(outer, c -> src.unitSimilarity().applyAsDouble(u, c), s.outerPerUnit()));
        }
        if (memory.listing().isEmpty()) picked.addAll(top(src.history(), c -> src.querySimilarity().applyAsDouble(allSubqueries, c), s.emptyMemoryChunks()));
        List<String> out = picked.size() > s.maxChunks() ? top(picked, c -> src.querySimilarity().applyAsDouble(allSubqueries, c), s.maxChunks())
                : new ArrayList<>(picked);
        out.sort(src.documentOrder());
        List<String> kept = new ArrayList<>();
        int used = 0;
        for (String c : out) {
            int t = src.tokens().applyAsInt(c);
            if (used + t > s.tokenBudget()) break;
            used += t;
            kept.add(c);
        }
        return kept;
    }

    /** The first {@code n} by score, ties by id. */
    private static List<String> top(Set<String> ids, java.util.function.ToDoubleFunction<String> score, int n) {
        List<String> sorted = new ArrayList<>(ids);
        sorted.sort(Comparator.comparingDouble((String c) -> -score.applyAsDouble(c)).thenComparing(Comparator.naturalOrder()));
        return new ArrayList<>(sorted.subList(0, Math.min(n, sorted.size())));
    }
}
