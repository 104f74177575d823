package dev.graphrag.agrag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Serialisation of the MCMI subgraph (paper Eq. 18): one string per connected component with at least two
 * nodes (components by total influence, descending), its entity-entity edges by ascending cost as
 * "(s [SEP] p [SEP] o)" joined by " [SEP_REC] "; chunk nodes become the path chunks, by influence.
 */
public final class SubgraphText {
    public record Rendered(List<String> graphStrings, List<Integer> pathChunks) {}

    private SubgraphText() {}

    public static Rendered render(Set<Integer> nodes, List<CostGraph.Edge> edges, double[] s, IntPredicate isEntity, IntFunction<String> name) {
        Map<Integer, Integer> parent = new HashMap<>();
        for (int v : nodes) parent.put(v, v);
        for (CostGraph.Edge e : edges) union(parent, e.u(), e.v());
        Map<Integer, List<Integer>> members = new HashMap<>();
        for (int v : nodes) members.computeIfAbsent(find(parent, v), k -> new ArrayList<>()).add(v);
        List<List<Integer>> components = new ArrayList<>();
        for (List<Integer> m : members.values()) if (m.size() >= 2) components.add(m);
        components.sort(Comparator.<List<Integer>>comparingDouble(m -> -m.stream().mapToDouble(v -> s[v]).sum())
                .thenComparingInt(m -> m.stream().mapToInt(Integer::intValue).min().orElse(0)));
        List<String> out = new ArrayList<>();
        for (List<Integer> m : components) {
            Set<Integer> in = new LinkedHashSet<>(m);
            List<CostGraph.Edge> rendered = new ArrayList<>();
            for (CostGraph.Edge e : edges) {
                if (in.contains(e.u()) && isEntity.test(e.u()) && isEntity.test(e.v())
                        && (e.type() == CostGraph.EdgeType.REL || e.type() == CostGraph.EdgeType.SYNONYM)) {
                    rendered.add(e);
                }
            }
            rendered.sort(Comparator.comparingDouble(CostGraph.Edge::cost).thenComparing(e -> subject(e, name)));
            List<String> parts = new ArrayList<>();
            for (CostGraph.Edge e : rendered) {
                if (e.type() == CostGraph.EdgeType.REL) {
                    parts.add("(" + e.subject() + " [SEP] " + e.predicate() + " [SEP] " + e.object() + ")");
                } else {
                    String a = name.apply(e.u()), b = name.apply(e.v());
                    parts.add("(" + (a.compareTo(b) <= 0 ? a : b) + " [SEP] synonym [SEP] " + (a.compareTo(b) <= 0 ? b : a) + ")");
                }
            }
            if (!parts.isEmpty()) out.add(String.join(" [SEP_REC] ", parts));
        }
        List<Integer> chunks = new ArrayList<>();
        for (int v : nodes) if (!isEntity.test(v)) chunks.add(v);
        chunks.sort(Comparator.<Integer>comparingDouble(v -> -s[v]).thenComparingInt(v -> v));
        return new Rendered(out, chunks);
    }

    private static String subject(CostGraph.Edge e, IntFunction<String> name) {
        return e.subject() != null ? e.subject() : name.apply(Math.min(e.u(), e.v()));
    }

    private static int find(Map<Integer, Integer> p, int x) {
        while (p.get(x) != x) x = p.get(x);
        return x;
    }

    private static void union(Map<Integer, Integer> p, int a, int b) {
        if (!p.containsKey(a) || !p.containsKey(b)) return;
        int ra = find(p, a), rb = find(p, b);
        if (ra != rb) p.put(Math.max(ra, rb), Math.min(ra, rb));
    }
}
