package dev.graphrag.hgmem;

import dev.graphrag.core.embed.EmbeddingService;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The candidate sets and entity retrieval of HGMem (paper Eq. 1, §3.4), over the base graph given as adjacency:
 * global exploration searches every entity not yet in memory (Eq. 7); local investigation searches the anchors,
 * their memory neighbours and the graph nodes within {@code localHops} of the anchors (Eq. 6, resolved per §7.3).
 * Eq. 1 then keeps the first n_v candidates by cosine at or above {@code minSim}, ties by name.
 */
public final class Candidates {
    private Candidates() {}

    /** C(M) = V_G − V_M (or all of V_G when {@code excludeMemory} is false). */
    public static Set<String> global(Iterable<String> entities, HypergraphMemory memory, boolean excludeMemory) {
        Set<String> out = new LinkedHashSet<>();
        for (String e : entities) out.add(e);
        if (excludeMemory) memory.vertices().forEach(out::remove);
        return out;
    }

    /** A ∪ N_M(A) ∪ the graph nodes within {@code hops} of A. */
    public static Set<String> local(List<String> anchors, HypergraphMemory memory, Function<String, ? extends Iterable<String>> neighbours, int hops) {
        Set<String> out = new LinkedHashSet<>(anchors);
        for (String a : anchors) out.addAll(memory.memoryNeighbours(a));
        Set<String> frontier = new LinkedHashSet<>(anchors);
        for (int h = 0; h < hops && !frontier.isEmpty(); h++) {
            Set<String> next = new LinkedHashSet<>();
            for (String v : frontier) {
                for (String w : neighbours.apply(v)) if (out.add(w)) next.add(w);
            }
            frontier = next;
        }
        return out;
    }

    /** Eq. 1 for one query: the first {@code n} candidates by cosine with {@code q}, those below {@code minSim} left out, ties by name. */
    public static List<String> retrieve(float[] q, Set<String> candidates, Map<String, float[]> vectors, int n, double minSim) {
        List<Map.Entry<String, Double>> scored = new ArrayList<>();
        for (String c : candidates) {
            float[] v = vectors.get(c);
            if (v == null) continue;
            double s = EmbeddingService.cosine(q, v);
            if (s >= minSim) scored.add(Map.entry(c, s));
        }
        scored.sort(Comparator.comparingDouble((Map.Entry<String, Double> e) -> -e.getValue()).thenComparing(Map.Entry::getKey));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(n, scored.size()); i++) out.add(scored.get(i).getKey());
        return out;
    }
}
