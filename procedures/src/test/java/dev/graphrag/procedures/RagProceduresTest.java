package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RagProceduresTest {
    static final String INGEST = "CALL rag.ingest($docs, $config) YIELD documentId, chunks, status RETURN documentId, chunks, status";

    static Map<String, Object> doc(String id, String text) {
        return Map.of("id", id, "text", text);
    }

    static List<Map<String, Object>> sampleDocs() {
        return List.of(
                Map.of("id", "carter", "title", "John Carter", "text",
                        "John Carter is a Virginian soldier transported to Mars. He fights beside Tars Tarkas, the green Martian jeddak. "
                                .repeat(6), "metadata", Map.of("source", "test", "year", 1913L, "tags", List.of("mars", "pulp"))),
                doc("xodar", "Xodar is a dator of the First Born, the black pirates of Barsoom. Issus gave Xodar to Carter as a slave after Carter defeated him."),
                doc("issus", "Issus is worshipped as the goddess of life eternal; she rules the First Born from her temple on the Valley Dor."));
    }

    static Map<String, Object> cfg(String corpus) {
        return Map.of("corpus", corpus, "chunkSize", 32L, "chunkOverlap", 4L);
    }

    @Test
    void ingestBuildsTheLexicalGraphWithOffsetsAndEmbeddings() {
        List<Map<String, Object>> out = rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("lex")));
        assertEquals(3, out.size());
        out.forEach(r -> assertEquals("created", r.get("status")));
        long chunks = out.stream().mapToLong(r -> (Long) r.get("chunks")).sum();
        assertTrue((Long) out.get(0).get("chunks") > 1, "the long document is split");
        assertEquals(chunks, count("MATCH (:Document {corpus:'lex'})-[:HAS_CHUNK]->(c:Chunk {corpus:'lex'}) RETURN count(c)", Map.of()));
        assertEquals(chunks - 3, count("MATCH (a:Chunk {corpus:'lex'})-[:NEXT_CHUNK]->(b:Chunk) RETURN count(*)", Map.of()));
        List<Map<String, Object>> check = rows("""
                MATCH (d:Document {corpus:'lex'})-[:HAS_CHUNK]->(c:Chunk)
                RETURN d.id AS doc, c.index AS index, c.text AS text, substring(d.text, c.start, c.end - c.start) AS span,
                       size(c.embedding) AS dims, c.id AS id, d.source AS source, d.year AS year, d.tags AS tags, d.title AS title
                ORDER BY doc, index""");
        for (Map<String, Object> r : check) {
            assertEquals(r.get("span"), r.get("text"), "offsets point at the chunk text");
            assertEquals(384L, r.get("dims"));
            assertEquals("lex:" + r.get("doc") + ":" + r.get("index"), r.get("id"));
        }
        Map<String, Object> carter = check.get(0);
        assertEquals("test", carter.get("source"));
        assertEquals(1913L, carter.get("year"));
        assertEquals(List.of("mars", "pulp"), List.of((String[]) carter.get("tags")));
        assertEquals("John Carter", carter.get("title"));
    }

    @Test
    void sameContentIsUnchangedAndChangedContentReplacesChunks() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("idem")));
        long nodes = count("MATCH (n) RETURN count(n)", Map.of());
        List<Map<String, Object>> again = rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("idem")));
        again.forEach(r -> assertEquals("unchanged", r.get("status")));
        assertEquals(nodes, count("MATCH (n) RETURN count(n)", Map.of()));

        List<Map<String, Object>> changed = rows(INGEST, Map.of("docs", List.of(doc("xodar", "Xodar later became a loyal friend of John Carter.")),
                "config", cfg("idem")));
        assertEquals("updated", changed.get(0).get("status"));
        List<Map<String, Object>> texts = rows("MATCH (:Document {corpus:'idem', id:'xodar'})-[:HAS_CHUNK]->(c) RETURN c.text AS t");
        assertEquals(1, texts.size());
        assertEquals("Xodar later became a loyal friend of John Carter.", texts.get(0).get("t"));
        assertEquals(0, count("MATCH (c:Chunk {corpus:'idem', documentId:'xodar'}) WHERE NOT (:Document)-[:HAS_CHUNK]->(c) RETURN count(c)", Map.of()));
    }

    @Test
    void interruptedIngestResumesWithoutDuplicates() {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < 12; i++) docs.add(doc("d" + i, "Passage number " + i + " tells of Barsoom and its " + i + " moons."));
        // the first run "dies" after half of the documents were committed
        rows(INGEST, Map.of("docs", docs.subList(0, 6), "config", Map.of("corpus", "resume", "batchSize", 2L)));
        List<Map<String, Object>> rerun = rows(INGEST, Map.of("docs", docs, "config", Map.of("corpus", "resume", "batchSize", 2L)));
        Map<String, Long> byStatus = new HashMap<>();
        rerun.forEach(r -> byStatus.merge((String) r.get("status"), 1L, Long::sum));
        assertEquals(Map.of("unchanged", 6L, "created", 6L), byStatus);
        assertEquals(12, count("MATCH (d:Document {corpus:'resume'}) RETURN count(d)", Map.of()));
        assertEquals(12, count("MATCH (c:Chunk {corpus:'resume'}) RETURN count(DISTINCT c.id)", Map.of()));
        assertEquals(12, count("MATCH (c:Chunk {corpus:'resume'}) RETURN count(c)", Map.of()));
    }

    @Test
    void searchModesRankTheRightDocumentsWithinTheCorpus() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("search")));
        rows(INGEST, Map.of("docs", List.of(doc("decoy", "Xodar Xodar Xodar slave slave of the First Born")), "config", cfg("other")));
        String q = "CALL rag.search($q, $c) YIELD rank, chunkId, documentId, score, denseScore, bm25Score RETURN *";
        for (String mode : List.of("dense", "bm25", "hybrid", "rrf")) {
            List<Map<String, Object>> hits = rows(q, Map.of("q", "Why did Issus give Xodar to Carter as a slave?",
                    "c", Map.of("corpus", "search", "k", 3L, "mode", mode)));
            assertFalse(hits.isEmpty(), mode);
            assertEquals("xodar", hits.get(0).get("documentId"), mode + " ranks the Xodar passage first");
            for (int i = 0; i < hits.size(); i++) {
                Map<String, Object> h = hits.get(i);
                assertEquals((long) i + 1, h.get("rank"));
                assertTrue(((String) h.get("chunkId")).startsWith("search:"), "corpus isolation: " + h);
                double dense = (Double) h.get("denseScore");
                assertTrue(mode.equals("bm25") || (dense > -1.0001 && dense < 1.0001), "cosine range");
                if (i > 0) assertTrue((Double) hits.get(i - 1).get("score") >= (Double) h.get("score"), "ordered by score");
            }
        }
        List<Map<String, Object>> bm25 = rows(q, Map.of("q", "Valley Dor temple", "c", Map.of("corpus", "search", "k", 1L, "mode", "bm25")));
        assertEquals("issus", bm25.get(0).get("documentId"));
        assertTrue((Double) bm25.get(0).get("bm25Score") > 0);
        // Lucene syntax in user text is searched as words, not parsed
        assertFalse(rows(q, Map.of("q", "Issus AND (goddess OR \"eternal\") -life^2 title:x/y?*", "c", Map.of("corpus", "search", "mode", "bm25"))).isEmpty());
        assertEquals(2, rows(q, Map.of("q", "Mars", "c", Map.of("corpus", "search", "k", 2L))).size());
    }

    @Test
    void hybridIsTheWeightedSumOfMinMaxCosineAndBm25OverTheCandidates() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("weighted")));
        String q = "CALL rag.search('Why did Issus give Xodar to Carter as a slave?', $c) YIELD chunkId, score, fusedScore, denseScore, bm25Score RETURN *";
        for (Double w : java.util.Arrays.asList(null, 0.3, 0.9, 1.0)) {
            Map<String, Object> c = new java.util.HashMap<>(Map.of("corpus", "weighted", "k", 50L, "mode", "hybrid"));
            if (w != null) c.put("denseWeight", w);
            List<Map<String, Object>> hits = rows(q, Map.of("c", c)); // k covers every candidate, so the ranges are the procedure's
            double dMin = hits.stream().mapToDouble(h -> (Double) h.get("denseScore")).min().orElseThrow();
            double dMax = hits.stream().mapToDouble(h -> (Double) h.get("denseScore")).max().orElseThrow();
            double bMin = hits.stream().mapToDouble(h -> (Double) h.get("bm25Score")).min().orElseThrow();
            double bMax = hits.stream().mapToDouble(h -> (Double) h.get("bm25Score")).max().orElseThrow();
            double weight = w == null ? 0.9 : w;
            assertTrue(bMax > bMin && dMax > dMin, "both signals vary over the candidates");
            for (Map<String, Object> h : hits) {
                double expected = weight * ((Double) h.get("denseScore") - dMin) / (dMax - dMin) + (1 - weight) * ((Double) h.get("bm25Score") - bMin) / (bMax - bMin);
                assertEquals(expected, (Double) h.get("fusedScore"), 1e-9, "denseWeight " + w + ": " + h.get("chunkId"));
                assertTrue((Double) h.get("score") >= (Double) h.get("fusedScore"), "a head chunk's score is raised, never lowered: " + h);
            }
            for (int i = 1; i < hits.size(); i++) assertTrue((Double) hits.get(i - 1).get("score") >= (Double) hits.get(i).get("score"), "score falls with rank: " + hits);
        }
        assertFailsCleanly("CALL rag.search('x', {corpus: 'weighted', denseWeight: 1.5})", Map.of(), "denseWeight");
    }

    @Test
    void deleteRemovesDocumentsWithTheirChunks() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("del")));
        List<Map<String, Object>> out = rows("CALL rag.delete(['carter', 'nope'], {corpus: 'del'}) YIELD documentId, chunks, status RETURN *");
        assertEquals("deleted", out.get(0).get("status"));
        assertTrue((Long) out.get(0).get("chunks") > 1);
        assertEquals("missing", out.get(1).get("status"));
        assertEquals(0, count("MATCH (c:Chunk {corpus:'del', documentId:'carter'}) RETURN count(c)", Map.of()));
        assertEquals(2, count("MATCH (d:Document {corpus:'del'}) RETURN count(d)", Map.of()));
    }

    @Test
    void infoEmbedAndSetup() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("info")));
        Map<String, Object> info = rows("CALL rag.info()").get(0);
        assertEquals("bge-small-en-v1.5-q", info.get("model"));
        assertEquals(384L, info.get("dimensions"));
        assertEquals("cpu", info.get("device"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> corpora = (List<Map<String, Object>>) info.get("corpora");
        Map<String, Object> mine = corpora.stream().filter(c -> c.get("name").equals("info")).findFirst().orElseThrow();
        assertEquals(3L, mine.get("documents"));
        assertEquals(count("MATCH (c:Chunk {corpus:'info'}) RETURN count(c)", Map.of()), mine.get("chunks"));

        @SuppressWarnings("unchecked")
        List<Double> v = (List<Double>) rows("RETURN rag.embed('hello world') AS v").get(0).get("v");
        assertEquals(384, v.size());
        List<Map<String, Object>> batch = rows("CALL rag.embed.batch(['hello world', 'a much longer second text about Mars']) YIELD index, embedding RETURN index, embedding");
        assertEquals(2, batch.size());
        @SuppressWarnings("unchecked")
        List<Double> first = (List<Double>) batch.get(0).get("embedding");
        double dot = 0;
        for (int i = 0; i < v.size(); i++) dot += v.get(i) * first.get(i);
        assertTrue(dot > 0.98, "batch and single embeddings agree: " + dot);

        List<Map<String, Object>> setup = rows("CALL rag.setup() YIELD name, created RETURN name, created");
        assertEquals(6, setup.size());
        setup.forEach(r -> assertEquals(false, r.get("created"), "already there: " + r));
        assertEquals(1, count("SHOW VECTOR INDEXES YIELD name WHERE name = 'rag_chunk_embedding' RETURN count(*)", Map.of()));
    }

    @Test
    void badInputIsNamedAndWritesNothing() {
        rows(INGEST, Map.of("docs", sampleDocs(), "config", cfg("bad")));
        Map<String, Object> ok = cfg("bad");
        assertFailsCleanly(INGEST, params(null, ok), "documents must be a list");
        assertFailsCleanly(INGEST, params(List.of(), ok), "documents is empty");
        assertFailsCleanly(INGEST, params(List.of(Map.of("text", "x")), ok), "document 0 needs a non-empty STRING id");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "x"), doc("a", "y")), ok), "duplicate document id 'a'");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "   ")), ok), "document 'a' has empty text");
        assertFailsCleanly(INGEST, params(List.of(Map.of("id", "a", "text", 42L)), ok), "document 'a' needs a STRING text, got INTEGER");
        assertFailsCleanly(INGEST, params(List.of(Map.of("id", "a", "text", "x", "body", "y")), ok), "unknown key 'body'");
        assertFailsCleanly(INGEST, params(List.of(Map.of("id", "a", "text", "x", "metadata", Map.of("id", "z"))), ok), "metadata key 'id'");
        assertFailsCleanly(INGEST, params(List.of(doc("new", "a".repeat(50)), doc("big", "b".repeat(200))), Map.of("corpus", "bad", "maxDocumentChars", 100L)),
                "document 'big' has 200 characters, over maxDocumentChars=100");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "x")), Map.of("corpus", "bad", "chunkSise", 10L)), "unknown config key 'chunkSise'");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "x")), Map.of("corpus", "bad", "chunkSize", "big")), "'chunkSize' must be INTEGER, got STRING");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "x")), Map.of("corpus", "bad", "chunkSize", 100000L)), "'chunkSize' must be between 16 and 510");
        assertFailsCleanly(INGEST, params(List.of(doc("a", "x")), Map.of("corpus", "no spaces please")), "invalid corpus name");

        String search = "CALL rag.search($q, $c) YIELD rank RETURN rank";
        assertFailsCleanly(search, Map.of("q", "x", "c", Map.of("corpus", "nowhere")), "unknown corpus 'nowhere'", "known corpora");
        assertFailsCleanly(search, Map.of("q", " ", "c", Map.of("corpus", "bad")), "query must not be empty");
        Map<String, Object> nullQuery = new HashMap<>(Map.of("c", Map.of("corpus", "bad")));
        nullQuery.put("q", null);
        assertFailsCleanly(search, nullQuery, "query must not be null");
        assertFailsCleanly(search, Map.of("q", "x".repeat(20_000), "c", Map.of("corpus", "bad")), "the limit is 10000");
        assertFailsCleanly(search, Map.of("q", "x", "c", Map.of("corpus", "bad", "k", 0L)), "'k' must be between 1 and 1000");
        assertFailsCleanly(search, Map.of("q", "x", "c", Map.of("corpus", "bad", "mode", "magic")), "'mode' must be one of");
        assertFailsCleanly("CALL rag.delete($ids, {corpus: 'bad'})", Map.of("ids", List.of()), "non-empty list");
        assertFailsCleanly("CALL rag.delete(['x'], {corpus: 'nowhere'})", Map.of(), "unknown corpus 'nowhere'");
        assertFailsCleanly("RETURN rag.embed('') AS v", Map.of(), "cannot embed an empty text");
        assertFailsCleanly("CALL rag.embed.batch(['x'], {cache: true})", Map.of(), "unknown config key 'cache'");
        assertEquals(3, count("MATCH (d:Document {corpus:'bad'}) RETURN count(d)", Map.of()));
    }

    private static Map<String, Object> params(Object docs, Map<String, Object> config) {
        Map<String, Object> p = new HashMap<>();
        p.put("docs", docs);
        p.put("config", config);
        return p;
    }

    @Test
    void chunkIdsAreUniqueAcrossCorpora() {
        rows(INGEST, Map.of("docs", List.of(doc("same", "Shared id in two corpora.")), "config", cfg("c1")));
        rows(INGEST, Map.of("docs", List.of(doc("same", "Shared id in two corpora.")), "config", cfg("c2")));
        List<Map<String, Object>> ids = rows("MATCH (c:Chunk {documentId:'same'}) RETURN c.id AS id");
        assertEquals(2, new HashSet<>(ids.stream().map(r -> r.get("id")).toList()).size());
    }

    @Test
    void theChunkerChoiceShapesTheChunksWithExactOffsets() {
        String markdown = "# Barsoom\n\nBarsoom is Mars.\n\n```\ncode here\n```\n\n| a | b |\n|---|---|\n\n## Helium\n\nHelium is a city. It is red.";
        rows(INGEST, Map.of("docs", List.of(doc("md", markdown)), "config", Map.of("corpus", "chunkers", "chunker", "structural")));
        List<Map<String, Object>> chunks = rows("""
                MATCH (d:Document {corpus: 'chunkers', id: 'md'})-[:HAS_CHUNK]->(c:Chunk)
                RETURN c.kind AS kind, c.text AS text, substring(d.text, c.start, c.end - c.start) AS span, d.chunker AS chunker ORDER BY c.index""");
        assertEquals(List.of("body", "code", "table", "body"), chunks.stream().map(r -> r.get("kind")).toList());
        chunks.forEach(r -> assertEquals(r.get("span"), r.get("text")));
        assertEquals("structural", chunks.get(0).get("chunker"));

        String story = "Carter reached Mars. He met Tars Tarkas. The Tharks took him to their city. Dejah Thoris was a prisoner there.";
        rows(INGEST, Map.of("docs", List.of(doc("s", story)), "config", Map.of("corpus", "chunkers", "chunker", "sentences", "chunkSize", 20L)));
        List<Map<String, Object>> sentences = rows("MATCH (c:Chunk {corpus: 'chunkers', documentId: 's'}) RETURN c.text AS text ORDER BY c.index");
        assertTrue(sentences.size() >= 2);
        assertTrue(((String) sentences.get(0).get("text")).endsWith(((String) sentences.get(1).get("text")).split("(?<=\\.) ")[0]),
                "one overlap sentence by default: " + sentences);

        assertFailsCleanly(INGEST, Map.of("docs", List.of(doc("z", "x")), "config", Map.of("corpus", "chunkers", "chunker", "paragraphs")),
                "'chunker' must be one of [tokens, sentences, structural]");
        assertFailsCleanly(INGEST, Map.of("docs", List.of(doc("z", "x")), "config", Map.of("corpus", "chunkers", "chunker", "structural", "sentenceBoundaries", true)),
                "sentenceBoundaries belongs to the tokens chunker");
        assertFailsCleanly(INGEST, Map.of("docs", List.of(doc("z", "x")), "config", Map.of("corpus", "chunkers", "chunker", "structural", "chunkSize", 50L)),
                "'chunkSize' must be between 100 and");
    }
}
