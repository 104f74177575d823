package dev.graphrag.raga;

import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What raga.ingest's reading prompt (L3) and follow-up prompt (L4) show besides the paragraph: the schema so far, the
 * neighbouring paragraphs' edges, and the working memory (progress, recent entities, open todos, recent tool errors),
 * each read per chunk with queries that touch only what they return (PerItemQueryPlansTest).
 */
public final class ReadingPrompts {
    /**
     * The reading prompt's most recently touched entities (per chunk): ordered by (corpus, updatedAt) as the
     * raga_entity_recent index is, so that only the n returned are read, not every entity of the corpus.
     */
    public static final String RECENT_ENTITIES = "MATCH (e:RagaEntity {corpus: $c}) WHERE e.updatedAt IS NOT NULL RETURN e.name AS name,"
            + " e.entityType AS type ORDER BY e.corpus DESC, e.updatedAt DESC LIMIT $n";

    /** A document's chunk count (per chunk), through the document's key rather than the corpus's chunks. */
    public static final String DOCUMENT_CHUNK_COUNT = "RETURN COUNT { (:Document {corpus: $c, id: $d})-[:HAS_CHUNK]->(:Chunk) } AS n";

    List<Map<String, Object>> read(Transaction tx, Node c, List<String> errors) {
        String doc = (String) c.getProperty("documentId");
        long idx = ((Number) c.getProperty("index")).longValue();
        long totalChunks = ((Number) tx.execute(DOCUMENT_CHUNK_COUNT, Map.of("c", cfg.corpus(), "d", doc))
                .next().get("n")).longValue();
        Node prev = tx.findNode(LexicalGraph.CHUNK, "id", LexicalGraph.chunkId(cfg.corpus(), doc, (int) idx - 1));
        Node next = tx.findNode(LexicalGraph.CHUNK, "id", LexicalGraph.chunkId(cfg.corpus(), doc, (int) idx + 1));
        int n = cfg.adjacentContextChars();
        String before = prev == null || n == 0 ? "" : tail((String) prev.getProperty("text"), n);
        String after = next == null || n == 0 ? "" : head((String) next.getProperty("text"), n);
        String title = null;
        try (Result r = tx.execute("MATCH (d:Document {corpus: $c, id: $d}) RETURN d.title AS t", Map.of("c", cfg.corpus(), "d", doc))) {
            if (r.hasNext()) title = (String) r.next().get("t");
        }
        return RagaPrompts.read(schemaBlock(tx), workingMemory(tx, idx, totalChunks, errors), (String) c.getProperty("id"), title, idx, totalChunks,
                (String) c.getProperty("text"), before, after);
    }

    private static String tail(String s, int n) {
        return s.length() <= n ? s : s.substring(s.length() - n);
    }

    static String head(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n);
    }

    /**
     * The schema the prompt shows: ACTIVE types first, then the most recently proposed ones, at most {@code promptTypes}
     * of each kind, and how many were left out. Agents propose types freely, so listing them all would grow every
     * prompt with the corpus (thousands of relation types on MuSiQue).
     */
    Map<String, Object> schemaBlock(Transaction tx) {
        Map<String, Object> m = new LinkedHashMap<>();
        int n = cfg.promptTypes();
        for (Label label : List.of(RagaGraph.ENTITY_TYPE, RagaGraph.RELATION_TYPE)) {
            String kind = label.equals(RagaGraph.ENTITY_TYPE) ? "entity_types" : "relation_types";
            // by status, then (relations) by domain -> range: each signature and status is written once, not per type
            List<RagaSchema.TypeRow> listed = RagaSchema.newestTypes(tx, label, cfg.corpus(), n);
            Map<String, ?> byStatus = label.equals(RagaGraph.ENTITY_TYPE)
                    ? listed.stream().collect(Collectors.groupingBy(ReadingPrompts::statusWord, LinkedHashMap::new,
                            Collectors.mapping(RagaSchema.TypeRow::name, Collectors.toList())))
                    : listed.stream().collect(Collectors.groupingBy(ReadingPrompts::statusWord, LinkedHashMap::new,
                            Collectors.groupingBy(ReadingPrompts::signature, LinkedHashMap::new, Collectors.mapping(RagaSchema.TypeRow::name, Collectors.toList()))));
            m.put(kind, byStatus);
            // fewer than n listed is all there are; n listed may leave some out, counted on the index
            long all = listed.size() < n ? listed.size() : RagaSchema.countTypes(tx, label, cfg.corpus());
            if (all > listed.size()) m.put(kind.replace("_types", "_types_not_shown"), all - listed.size());
        }
        return m;
    }

    /** How the prompt names a type's status: "proposed" for the agent's own proposals, "active" for declared ones (ACTIVE and CANDIDATE). */
    private static String statusWord(RagaSchema.TypeRow t) {
        return "PROPOSED".equals(t.status()) ? "proposed" : "active";
    }

    private static String signature(RagaSchema.TypeRow t) {
        return (t.domain() == null ? "Any" : t.domain()) + " -> " + (t.range() == null ? "Any" : t.range());
    }

    private Map<String, Object> workingMemory(Transaction tx, long idx, long totalChunks, List<String> errors) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("progress", "paragraph " + (idx + 1) + " of " + totalChunks);
        // by type, most recent first within each: a type is written once, not after every name
        Map<String, List<String>> recent = new LinkedHashMap<>();
        try (Result r = tx.execute(RECENT_ENTITIES,
                Map.of("c", cfg.corpus(), "n", (long) cfg.recentEntities()))) {
            r.forEachRemaining(row -> recent.computeIfAbsent(String.valueOf(row.get("type")), t -> new ArrayList<>()).add((String) row.get("name")));
        }
        if (!recent.isEmpty()) m.put("recent_entities", recent);
        List<String> todos = new ArrayList<>();
        try (Result r = tx.execute("MATCH (t:RagaTodo {corpus: $c, status: 'OPEN'}) RETURN t.todoId AS id, t.task AS task ORDER BY t.createdAt LIMIT 5",
                Map.of("c", cfg.corpus()))) {
            r.forEachRemaining(row -> todos.add(row.get("id") + ": " + row.get("task")));
        }
        if (!todos.isEmpty()) m.put("open_todos", todos);
        if (!errors.isEmpty()) m.put("recent_errors", List.copyOf(errors.subList(Math.max(0, errors.size() - 3), errors.size())));
        return m;
    }

    private final RagaIngestConfig cfg;

    ReadingPrompts(RagaIngestConfig cfg) {
        this.cfg = cfg;
    }
}
