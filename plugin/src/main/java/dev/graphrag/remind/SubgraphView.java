package dev.graphrag.remind;

import dev.graphrag.core.graph.Displayed;
import dev.graphrag.core.llm.Usage;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A walk's subgraph S as the remind.* procedures show it, read in the caller's transaction: its nodes and chunks for
 * Browser to draw, chunk ids, the path's relationships and their weights, the trace, and the tokens the traversal cost.
 */
public final class SubgraphView {
    private SubgraphView() {}

    public static List<Node> seeds(RemindEngine.Traversal t) {
        return t.seeds().stream().map(seed -> Displayed.node(seed.node())).toList();
    }

    /** S's nodes, then (with chunks) its chunk nodes. */
    public static List<Node> nodes(Transaction tx, Subgraph s, boolean withChunks) {
        List<Node> out = new ArrayList<>();
        for (String n : s.nodes()) out.add(Displayed.node(tx.getNodeByElementId(n)));
        if (withChunks) for (String c : s.chunks()) out.add(Displayed.node(tx.getNodeByElementId(c)));
        return out;
    }

    public static List<String> chunkIds(Transaction tx, Subgraph s) {
        return s.chunks().stream().map(c -> (String) tx.getNodeByElementId(c).getProperty("id")).toList();
    }

    /** The path's relationships in path order (a relationship walked twice appears twice). */
    public static List<Relationship> relationships(Transaction tx, Subgraph s) {
        return s.path().stream().map(e -> Displayed.relationship(tx.getRelationshipByElementId(e.edge()))).toList();
    }

    /** Each path edge: relId, from, to, type, origin (replay or walk) and weight. */
    public static List<Map<String, Object>> path(Transaction tx, Subgraph s) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Subgraph.PathEdge e : s.path()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("relId", e.edge());
            m.put("from", e.from());
            m.put("to", e.to());
            m.put("type", tx.getRelationshipByElementId(e.edge()).getType().name());
            m.put("origin", e.origin().name().toLowerCase(Locale.ROOT));
            m.put("weight", e.weight());
            out.add(m);
        }
        return out;
    }

    /** The chunk summaries the walk made, by chunk id. */
    public static Map<String, Object> summaries(Transaction tx, Subgraph s) {
        Map<String, Object> out = new LinkedHashMap<>();
        s.summaries().forEach((chunk, text) -> out.put((String) tx.getNodeByElementId(chunk).getProperty("id"), text));
        return out;
    }

    public static List<Map<String, Object>> trace(Walk.Outcome o) {
        return o.trace().stream().map(Walk.TraceStep::toMap).toList();
    }

    /** Prompt and completion tokens of the traversal's steps (summaries, sufficiency, next node, filter): the paper's traversal cost. */
    public static long traversalTokens(Usage u) {
        long n = 0;
        for (String step : RemindPrompts.TRAVERSAL_STEPS) {
            Usage.Step s = u.byStep().get(step);
            if (s != null) n += s.promptTokens() + s.completionTokens();
        }
        return n;
    }
}
