package dev.graphrag.core.lexical;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names and schema of the shared lexical layer (docs/graph-model.md):
 * {@code (:Document {corpus, id})-[:HAS_CHUNK]->(:Chunk)-[:NEXT_CHUNK]->(:Chunk)} plus one
 * {@code (:RagCorpus {name})} per corpus that records the embedding model its vectors came from.
 */
public final class LexicalGraph {
    public static final Label DOCUMENT = Label.label("Document");
    public static final Label CHUNK = Label.label("Chunk");
    public static final Label CORPUS = Label.label("RagCorpus");
    public static final RelationshipType HAS_CHUNK = RelationshipType.withName("HAS_CHUNK");
    public static final RelationshipType NEXT_CHUNK = RelationshipType.withName("NEXT_CHUNK");

    public static final String VECTOR_INDEX = "rag_chunk_embedding";
    public static final String FULLTEXT_INDEX = "rag_chunk_text";
    public static final String DEFAULT_CORPUS = ConfigReader.DEFAULT_CORPUS;

    private LexicalGraph() {}

    public static String checkCorpusName(String corpus) {
        return ConfigReader.checkCorpusName(corpus);
    }

    /**
     * The title of a chunk's document, or null when it has none (or is blank). Methods show it beside the chunk's text:
     * a passage cut from a titled document often names its subject only in the title.
     */
    public static String documentTitle(Node chunk) {
        if (chunk == null) return null;
        org.neo4j.graphdb.Relationship has = chunk.getSingleRelationship(HAS_CHUNK, org.neo4j.graphdb.Direction.INCOMING);
        Object title = has == null ? null : has.getStartNode().getProperty("title", null);
        return title instanceof String t && !t.isBlank() ? t : null;
    }

    /** Chunk id to its document's title, for the chunks of a corpus's titled documents. */
    public static Map<String, String> documentTitles(Transaction tx, String corpus) {
        Map<String, String> out = new java.util.HashMap<>();
        try (Result r = tx.execute("MATCH (d:Document {corpus: $c})-[:HAS_CHUNK]->(ch:Chunk) WHERE d.title IS NOT NULL AND trim(d.title) <> ''"
                + " RETURN ch.id AS id, d.title AS title", Map.of("c", corpus))) {
            r.forEachRemaining(row -> out.put((String) row.get("id"), (String) row.get("title")));
        }
        return out;
    }

    /** A chunk as method indexers read it. */
    public record ChunkRow(String id, String elementId, String documentId, long index, String text, float[] embedding) {}

    /** The chunks of a corpus in document order (documentId, index); embeddings only when asked for (null otherwise). */
    public static java.util.List<ChunkRow> chunks(org.neo4j.graphdb.Transaction tx, String corpus, boolean withEmbeddings) {
        java.util.List<ChunkRow> out = new java.util.ArrayList<>();
        try (Result r = tx.execute("MATCH (c:Chunk {corpus: $corpus}) RETURN c.id AS id, elementId(c) AS eid, c.documentId AS doc,"
                + " c.index AS idx, c.text AS text, CASE WHEN $emb THEN c.embedding END AS embedding ORDER BY doc, idx",
                java.util.Map.of("corpus", corpus, "emb", withEmbeddings))) {
            while (r.hasNext()) {
                java.util.Map<String, Object> row = r.next();
                out.add(new ChunkRow((String) row.get("id"), (String) row.get("eid"), (String) row.get("doc"), ((Number) row.get("idx")).longValue(),
                        (String) row.get("text"), (float[]) row.get("embedding")));
            }
        }
        return out;
    }

    public static String chunkId(String corpus, String documentId, int index) {
        return corpus + ":" + documentId + ":" + index;
    }

    /**
     * Where a chunk is in its file, for a citation: {@code pages} (the 1-based pages or slides it spans, a list) and
     * {@code section} (its heading path), each null when the chunk has none. Every method's answer cites with these.
     */
    public static Map<String, Object> location(Node chunk) {
        Map<String, Object> out = new LinkedHashMap<>();
        Object pages = chunk == null ? null : chunk.getProperty("pages", null);
        List<Long> list = null;
        if (pages instanceof long[] a) {
            list = new ArrayList<>(a.length);
            for (long p : a) list.add(p);
        }
        out.put("pages", list);
        out.put("section", chunk == null ? null : chunk.getProperty("section", null));
        return out;
    }

    /** The citations of chunk ids: {chunkId, documentId, pages, section} each, in order; ids of no chunk are left out. */
    public static List<Map<String, Object>> citations(Transaction tx, List<String> chunkIds) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : chunkIds) {
            Node c = tx.findNode(CHUNK, "id", id);
            if (c == null) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("chunkId", id);
            m.put("documentId", c.getProperty("documentId", null));
            m.putAll(location(c));
            out.add(m);
        }
        return out;
    }

    /** The document id inside a chunk id of the corpus ({@link #chunkId}'s inverse), or null when it is not one. */
    public static String documentIdOf(String corpus, String chunkId) {
        int last = chunkId.lastIndexOf(':');
        if (!chunkId.startsWith(corpus + ":") || last <= corpus.length()) return null;
        return chunkId.substring(corpus.length() + 1, last);
    }

    /** Constraints and indexes; idempotent. Schema changes need their own transaction. */
    public static List<String> setup(GraphDatabaseService db, int dimensions) {
        Map<String, String> statements = new java.util.LinkedHashMap<>();
        statements.put("rag_document_key", "CREATE CONSTRAINT rag_document_key IF NOT EXISTS FOR (d:Document) REQUIRE (d.corpus, d.id) IS UNIQUE");
        statements.put("rag_chunk_id", "CREATE CONSTRAINT rag_chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE");
        statements.put("rag_corpus_name", "CREATE CONSTRAINT rag_corpus_name IF NOT EXISTS FOR (c:RagCorpus) REQUIRE c.name IS UNIQUE");
        statements.put("rag_chunk_corpus", "CREATE INDEX rag_chunk_corpus IF NOT EXISTS FOR (c:Chunk) ON (c.corpus)");
        statements.put(FULLTEXT_INDEX, "CREATE FULLTEXT INDEX " + FULLTEXT_INDEX + " IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]"
                + " OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}");
        // dimensions is the loaded model's integer, never user text
        statements.put(VECTOR_INDEX, VectorIndexes.nodeIndex(VECTOR_INDEX, CHUNK.name(), "embedding", dimensions));
        Integer existing = vectorIndexDimensions(db);
        if (existing != null && existing != dimensions) {
            throw new RagException("vector index " + VECTOR_INDEX + " has " + existing + " dimensions but the embedding model has "
                    + dimensions + "; drop the index and re-ingest, or configure the model the graph was built with");
        }
        return SchemaSetup.ensure(db, statements);
    }

    static Integer vectorIndexDimensions(GraphDatabaseService db) {
        return db.executeTransactionally("SHOW VECTOR INDEXES YIELD name, options WHERE name = $n RETURN options",
                Map.of("n", VECTOR_INDEX), r -> {
                    if (!r.hasNext()) return null;
                    Object options = r.next().get("options");
                    if (options instanceof Map<?, ?> m && m.get("indexConfig") instanceof Map<?, ?> cfg
                            && cfg.get("vector.dimensions") instanceof Number n) {
                        return n.intValue();
                    }
                    return null;
                });
    }

    /** rag.info's corpora: each corpus with its recorded embedding model and its document and chunk counts, by name. */
    public static List<Map<String, Object>> corpora(Transaction tx) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (c:RagCorpus) RETURN c.name AS name, c.embeddingModel AS embeddingModel,"
                + " COUNT { MATCH (d:Document) WHERE d.corpus = c.name } AS documents,"
                + " COUNT { MATCH (k:Chunk) WHERE k.corpus = c.name } AS chunks ORDER BY name")) {
            while (r.hasNext()) out.add(new LinkedHashMap<>(r.next()));
        }
        return out;
    }

    /** The corpus node, or an error naming the corpus and the ones that exist. */
    public static Node requireCorpus(Transaction tx, String corpus) {
        Node n = tx.findNode(CORPUS, "name", checkCorpusName(corpus));
        if (n == null) {
            List<String> known = new ArrayList<>();
            tx.findNodes(CORPUS).forEachRemaining(c -> known.add((String) c.getProperty("name")));
            throw new RagException("unknown corpus '" + corpus + "'" + (known.isEmpty() ? ": nothing has been ingested yet (CALL rag.ingest)"
                    : "; known corpora: " + known));
        }
        return n;
    }
}
