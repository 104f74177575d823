package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.graphrag.raga.ToolArgs.opt;

/** RAGA's tools that read the corpus's chunks and the reading state: read_paragraph, browse_context, get_progress. */
final class ReadingTools extends ToolGroup {
    ReadingTools(ToolGroup.Scope scope) {
        super(scope);
    }

    private Map<String, Object> chunkView(Node c, boolean withText) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("chunk_id", c.getProperty("id"));
        m.put("doc_id", c.getProperty("documentId"));
        m.put("index", c.getProperty("index"));
        m.put("state", c.getProperty("ragaState", "PENDING"));
        if (withText) m.put("text", c.getProperty("text"));
        return m;
    }

    private String currentDoc() {
        if (ctx.currentChunkId == null) return null;
        return (String) store.chunk(ctx.currentChunkId, null).getProperty("documentId");
    }

    Map<String, Object> readParagraph(JsonNode a) {
        String doc = opt(a, "doc_id") != null ? opt(a, "doc_id") : currentDoc();
        if (doc == null) throw new ToolError("INVALID_ARGUMENTS", "doc_id is required outside a reading session", "/doc_id", null, null);
        int idx = a.get("paragraph_idx").asInt();
        Node c = tx.findNode(LexicalGraph.CHUNK, "id", LexicalGraph.chunkId(ctx.corpus, doc, idx));
        if (c == null) throw new ToolError("CHUNK_NOT_FOUND", "document '" + doc + "' has no paragraph " + idx, "/paragraph_idx", "get_progress gives the paragraph count", null);
        ctx.see((String) c.getProperty("id"));
        Map<String, Object> m = chunkView(c, true);
        m.put("total", (long) documentChunks(doc).size());
        return m;
    }

    private List<Node> documentChunks(String doc) {
        List<Node> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (:Document {corpus: $corpus, id: $doc})-[:HAS_CHUNK]->(c:Chunk) RETURN c ORDER BY c.index", Map.of("corpus", ctx.corpus, "doc", doc))) {
            while (r.hasNext()) out.add((Node) r.next().get("c"));
        }
        return out;
    }

    Map<String, Object> browseContext(JsonNode a) {
        String mode = a.get("mode").asText();
        String chunkId = opt(a, "chunk_id") != null ? opt(a, "chunk_id") : ctx.currentChunkId;
        if (chunkId == null && !mode.equals("kg_neighbors")) throw new ToolError("INVALID_ARGUMENTS", "chunk_id is required outside a reading session", "/chunk_id", null, null);
        Node c = chunkId == null ? null : store.chunk(chunkId, "/chunk_id");
        List<Map<String, Object>> snippets = new ArrayList<>();
        switch (mode) {
            case "local" -> {
                int radius = a.has("radius") ? Math.max(1, Math.min(5, a.get("radius").asInt())) : 1;
                long idx = ((Number) c.getProperty("index")).longValue();
                for (Node o : documentChunks((String) c.getProperty("documentId"))) {
                    long i = ((Number) o.getProperty("index")).longValue();
                    if (Math.abs(i - idx) <= radius && i != idx) {
                        ctx.see((String) o.getProperty("id"));
                        snippets.add(chunkView(o, true));
                    }
                }
            }
            case "document_overview" -> {
                for (Node o : documentChunks((String) c.getProperty("documentId"))) {
                    Map<String, Object> m = chunkView(o, false);
                    m.put("struct", o.getProperty("kind", "body"));
                    String t = (String) o.getProperty("text");
                    m.put("preview", t.length() <= 120 ? t : t.substring(0, 120));
                    snippets.add(m);
                }
            }
            default -> {
                Set<Node> entities = new LinkedHashSet<>();
                if (c != null) for (Relationship r : c.getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) entities.add(r.getEndNode());
                String q = opt(a, "query");
                if (q != null && !q.isBlank()) {
                    Node exact = store.resolve(q);
                    if (exact != null) entities.add(exact);
                    entities.addAll(store.fullText(q, 5, false).keySet());
                }
                for (Node e : entities) {
                    Map<String, Object> m = store.brief(e);
                    List<Map<String, Object>> rels = new ArrayList<>();
                    // the first 10 live relations: the walk stops there rather than reading every relation of a hub
                    for (Relationship r : e.getRelationships(RagaGraph.REL)) {
                        if (rels.size() >= 10) break;
                        if (!Boolean.TRUE.equals(r.getProperty("deleted", false))) rels.add(store.relationBrief(r));
                    }
                    m.put("relations", rels);
                    snippets.add(m);
                    if (snippets.size() >= 20) break;
                }
            }
        }
        return Map.of("mode", mode, "snippets", snippets);
    }

    Map<String, Object> progress() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (ctx.currentChunkId != null) {
            Node c = store.chunk(ctx.currentChunkId, null);
            m.put("paragraph_index", c.getProperty("index"));
            m.put("total_paragraphs", (long) documentChunks((String) c.getProperty("documentId")).size());
        }
        try (Result r = tx.execute("RETURN COUNT { (e:RagaEntity {corpus: $c}) } AS entities,"
                + " COUNT { (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE NOT r.deleted } AS relations,"
                + " COUNT { (p:RagaProvenance {corpus: $c}) WHERE p.op = 'MERGE' } AS merges,"
                + " COUNT { (t:RagaTodo {corpus: $c, status: 'OPEN'}) } AS todos_open,"
                + " COUNT { (t:RagaReviewItem {corpus: $c, status: 'OPEN'}) } AS reviews_open", Map.of("c", ctx.corpus))) {
            m.putAll(r.next());
        }
        return m;
    }
}
