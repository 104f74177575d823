package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * agrag.util.mcmi: the Steiner tree and MCMI expansion (paper Alg. 3) on a graph given as values, nodes named by
 * strings: for trying the rules on hand-made graphs, e.g. the cases of docs/agrag.md#hand-worked-cases. No Neo4j.
 */
public final class McmiOnGraph {
    /** Edges as {u, v, cost} maps; node lists in the algorithms' order. */
    public record Result(List<String> mcstNodes, List<Map<String, Object>> mcstEdges, List<String> nodes, List<Map<String, Object>> selectedEdges,
                         List<Map<String, Object>> edges, double ratio, long expansions) {}

    /** Edges per call: the graph is held as Java objects. */
    static final int MAX_EDGES = 1_000_000;

    private McmiOnGraph() {}

    public static Result run(Map<String, Object> scores, List<Map<String, Object>> edges, List<String> terminals, Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("agrag.util.mcmi", config);
        // the expansion keys of agrag.mcmi, declared there
        boolean expansion = AgragQueryConfig.Subgraph.EXPANSION.read(r);
        McmiExpansion.Rule rule = AgragQueryConfig.Subgraph.EXPANSION_RULE.read(r);
        int maxExpansions = AgragQueryConfig.Subgraph.MAX_EXPANSIONS.read(r);
        AgragQueryConfig.OutputEdges output = AgragQueryConfig.Subgraph.OUTPUT_EDGES.read(r);
        r.finish();
        if (edges == null) throw new RagException("agrag.util.mcmi: edges must be a list of {u, v, cost} maps");
        if (edges.size() > MAX_EDGES) throw new RagException("agrag.util.mcmi: " + edges.size() + " edges, at most " + MAX_EDGES);
        if (terminals == null || terminals.isEmpty()) throw new RagException("agrag.util.mcmi: terminals must be a non-empty list of node names");
        Map<String, Integer> id = new HashMap<>();
        List<String> names = new ArrayList<>();
        int[][] ends = new int[edges.size()][];
        double[] cost = new double[edges.size()];
        for (int i = 0; i < edges.size(); i++) {
            Map<String, Object> e = edges.get(i);
            if (e == null || !(e.get("u") instanceof String u) || !(e.get("v") instanceof String v) || !(e.get("cost") instanceof Number c)) {
                throw new RagException("agrag.util.mcmi: edge " + i + " must be a map {u: STRING, v: STRING, cost: FLOAT}, got " + e);
            }
            if (!e.keySet().stream().allMatch(k -> k.equals("u") || k.equals("v") || k.equals("cost"))) {
                throw new RagException("agrag.util.mcmi: edge " + i + " has keys other than u, v, cost: " + e.keySet());
            }
            cost[i] = c.doubleValue();
            if (!(cost[i] >= 0) || Double.isInfinite(cost[i])) throw new RagException("agrag.util.mcmi: edge " + i + " cost must be finite and >= 0, got " + c);
            ends[i] = new int[] {id.computeIfAbsent(u, k -> { names.add(k); return names.size() - 1; }),
                    id.computeIfAbsent(v, k -> { names.add(k); return names.size() - 1; })};
        }
        Set<Integer> terms = new LinkedHashSet<>();
        for (String t : terminals) {
            Integer x = t == null ? null : id.get(t);
            if (x == null) throw new RagException("agrag.util.mcmi: terminal '" + t + "' is on no edge");
            terms.add(x);
        }
        double[] s = new double[names.size()];
        if (scores == null) throw new RagException("agrag.util.mcmi: scores must be a map of node name to influence");
        for (Map.Entry<String, Object> e : scores.entrySet()) {
            Integer x = id.get(e.getKey());
            if (x == null) throw new RagException("agrag.util.mcmi: scores name '" + e.getKey() + "', which is on no edge");
            if (!(e.getValue() instanceof Number n) || !(n.doubleValue() >= 0)) {
                throw new RagException("agrag.util.mcmi: score of '" + e.getKey() + "' must be a number >= 0, got " + e.getValue());
            }
            s[x] = n.doubleValue();
        }
        CostGraph.Builder b = CostGraph.builder(names.size());
        for (int i = 0; i < ends.length; i++) b.add(ends[i][0], ends[i][1], cost[i], CostGraph.EdgeType.OTHER);
        CostGraph g = b.build();
        SteinerTree.Tree tree = SteinerTree.mehlhorn(g, terms);
        McmiExpansion.Result res = McmiExpansion.expand(g, s, tree, rule, expansion, maxExpansions, output == AgragQueryConfig.OutputEdges.INDUCED, -1);
        return new Result(named(res.mcstNodes(), names), edgeMaps(res.mcstEdges(), names), named(res.nodes(), names),
                edgeMaps(res.selected(), names), edgeMaps(res.output(), names), res.ratio(), res.expansions());
    }

    private static List<String> named(Set<Integer> nodes, List<String> names) {
        return nodes.stream().map(names::get).toList();
    }

    private static List<Map<String, Object>> edgeMaps(List<CostGraph.Edge> edges, List<String> names) {
        return edges.stream().<Map<String, Object>>map(e -> Map.of("u", names.get(e.u()), "v", names.get(e.v()), "cost", e.cost())).toList();
    }
}
