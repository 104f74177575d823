package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.graphrag.raga.ToolArgs.clamp;

/** RAGA's tools that search the knowledge graph and the corpus without writing: search_kg, explore_fusion. */
final class SearchTools extends ToolGroup {
    SearchTools(ToolGroup.Scope scope) {
        super(scope);
    }

    Map<String, Object> searchKg(JsonNode a) {
        String q = a.get("query").asText();
        String type = a.has("search_type") ? a.get("search_type").asText() : "fuzzy";
        int limit = clamp(a, "limit", 10);
        ctx.searched(q);
        if (type.equals("relation")) return Map.of("relations", searchRelations(q, limit));
        Map<String, Double> score = new LinkedHashMap<>();
        Map<String, Node> nodes = new HashMap<>();
        Map<String, List<String>> reasons = new HashMap<>();
        Node exact = store.resolve(q);
        Map<Node, Double> ft = store.fullText(q, limit * 2, type.equals("fuzzy"));
        double max = ft.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        if (type.equals("fuzzy")) {
            int r = 0;
            for (Node n : ft.keySet()) add(score, nodes, reasons, n, 1.0 / (60 + ++r), "fulltext");
            r = 0;
            float[] v = store.embed(q);
            try (Result res = tx.execute("CALL db.index.vector.queryNodes($index, $n, $v) YIELD node, score WHERE node.corpus = $corpus RETURN node",
                    Map.of("index", RagaGraph.ENTITY_VECTOR_INDEX, "n", (long) limit * 4, "v", v, "corpus", ctx.corpus))) {
                while (res.hasNext() && r < limit * 2) add(score, nodes, reasons, (Node) res.next().get("node"), 1.0 / (60 + ++r), "vector");
            }
        } else {
            ft.forEach((n, s) -> add(score, nodes, reasons, n, s / max, "fulltext"));
        }
        List<String> order = new ArrayList<>(score.keySet());
        order.sort((x, y) -> Double.compare(score.get(y), score.get(x)));
        if (exact != null) {
            order.remove(exact.getElementId());
            order.add(0, exact.getElementId());
            nodes.put(exact.getElementId(), exact);
            reasons.computeIfAbsent(exact.getElementId(), k -> new ArrayList<>()).add(0, "exact");
            score.put(exact.getElementId(), 1.0);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : order.subList(0, Math.min(limit, order.size()))) {
            Node e = nodes.get(id);
            Map<String, Object> m = store.brief(e);
            m.put("aliases", KnowledgeStore.aliases(e));
            String d = (String) e.getProperty("description", "");
            m.put("description", d.length() <= 200 ? d : d.substring(0, 200));
            m.put("score", Math.round(score.get(id) * 1e6) / 1e6);
            m.put("reasons", reasons.get(id));
            m.put("evidence_count", KnowledgeStore.quotedEvidence(e));
            String quote = KnowledgeStore.firstQuote(e);
            m.put("sample_evidence", quote == null || quote.length() <= 200 ? quote : quote.substring(0, 200));
            out.add(m);
        }
        return Map.of("entities", out);
    }

    private static void add(Map<String, Double> score, Map<String, Node> nodes, Map<String, List<String>> reasons, Node n, double s, String why) {
        score.merge(n.getElementId(), s, Double::sum);
        nodes.put(n.getElementId(), n);
        reasons.computeIfAbsent(n.getElementId(), k -> new ArrayList<>()).add(why);
    }

    private List<Map<String, Object>> searchRelations(String q, int limit) {
        Map<String, Relationship> found = new LinkedHashMap<>();
        Node endpoint = store.resolve(q);
        if (endpoint != null) {
            for (Relationship r : endpoint.getRelationships(RagaGraph.REL)) found.putIfAbsent(r.getElementId(), r);
        }
        String lq = KnowledgeStore.luceneQuery(q, false);
        if (!lq.isBlank()) {
            try (Result res = tx.execute("CALL db.index.fulltext.queryRelationships($index, $q, {limit: $n}) YIELD relationship, score"
                    + " WHERE startNode(relationship).corpus = $corpus RETURN relationship",
                    Map.of("index", RagaGraph.RELATION_TEXT_INDEX, "q", lq, "n", (long) limit * 4, "corpus", ctx.corpus))) {
                while (res.hasNext()) {
                    Relationship r = (Relationship) res.next().get("relationship");
                    found.putIfAbsent(r.getElementId(), r);
                }
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Relationship r : found.values()) {
            if (Boolean.TRUE.equals(r.getProperty("deleted", false))) continue;
            out.add(store.relationBrief(r));
            if (out.size() >= limit) break;
        }
        return out;
    }

    Map<String, Object> exploreFusion(JsonNode a) {
        String q = a.get("query").asText();
        String mode = a.has("mode") ? a.get("mode").asText() : "parallel";
        int topK = clamp(a, "top_k", 8);
        RagaRetriever.Settings s = RagaRetriever.Settings.defaults(switch (mode) {
            case "vector_first" -> RagaRetriever.Mode.VECTOR_FIRST;
            case "graph_first" -> RagaRetriever.Mode.GRAPH_FIRST;
            default -> RagaRetriever.Mode.FUSION;
        }).withTopK(topK);
        RagaRetriever.Retrieval r = new RagaRetriever(tx, embeddings, ctx.corpus).retrieve(q, s, () -> false);
        List<Map<String, Object>> candidates = new ArrayList<>();
        for (RagaRetriever.Hit h : r.hits()) {
            ctx.see(h.chunkId());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("chunk_id", h.chunkId());
            m.put("score", Math.round(h.score() * 1e6) / 1e6);
            m.put("vec_rank", (long) h.vecRank());
            m.put("kg_rank", (long) h.kgRank());
            m.put("text", h.text().length() <= 500 ? h.text() : h.text().substring(0, 500));
            candidates.add(m);
        }
        return Map.of("candidates", candidates, "anchors", r.anchors(), "degraded", r.degraded());
    }
}
