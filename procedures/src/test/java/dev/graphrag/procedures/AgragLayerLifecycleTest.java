package dev.graphrag.procedures;

import dev.graphrag.oracle.EvalLlmServer;
import dev.graphrag.oracle.PolicyReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AGRAG layer's life around the lexical graph: cached snapshots against deletes and reused node ids, builds that
 * never finished, corpora with nothing to find. Each test is one of the failures the core kit issue found.
 */
class AgragLayerLifecycleTest {
    static final String INGEST = "CALL rag.ingest($docs, {corpus: $c}) YIELD documentId RETURN documentId";
    static final String MCMI = "CALL agrag.mcmi($q, {corpus: $c}) YIELD nodes, pathChunkIds RETURN [n IN nodes | n.corpus] AS corpora, pathChunkIds";

    static List<Map<String, Object>> barsoom(String prefix) {
        return List.of(
                Map.of("id", prefix + "carter", "text", "John Carter fought Tars Tarkas on Barsoom. John Carter married Dejah Thoris of Helium."),
                Map.of("id", prefix + "xodar", "text", "Xodar served Issus on Barsoom. Issus gave Xodar to John Carter as a slave."),
                Map.of("id", prefix + "issus", "text", "Issus ruled the First Born. The First Born worshipped Issus in the Valley Dor."));
    }

    static void build(String corpus, List<Map<String, Object>> docs) {
        rows(INGEST, Map.of("docs", docs, "c", corpus));
        rows("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus));
    }

    /** Every node a query returns belongs to the corpus asked about. */
    static void assertOwnNodes(String corpus, List<Map<String, Object>> out) {
        for (Map<String, Object> row : out) {
            for (Object c : (List<?>) row.get("corpora")) assertEquals(corpus, c, "a node of another corpus came back");
        }
    }

    @Test
    void aDeleteWithoutReindexingNeitherFailsNorLeaksAnotherCorpus() {
        build("lifeA", barsoom("a"));
        String q = "Why did Issus give Xodar to John Carter?";
        assertFalse(((List<?>) rows(MCMI, Map.of("q", q, "c", "lifeA")).get(0).get("corpora")).isEmpty());
        // the snapshot is cached; now chunks go away without agrag.index, and another corpus takes new nodes
        rows("CALL rag.delete(['axodar'], {corpus: 'lifeA'})");
        build("lifeB", barsoom("b"));
        List<Map<String, Object>> after = rows(MCMI, Map.of("q", q, "c", "lifeA"));
        assertOwnNodes("lifeA", after);
        assertTrue(((List<?>) after.get(0).get("pathChunkIds")).stream().noneMatch(id -> String.valueOf(id).contains("axodar")), after.toString());
        assertTrue((Boolean) rows("CALL agrag.info({corpus: 'lifeA'})").get(0).get("chunksChanged"));
        rows("CALL agrag.retrieve($q, {corpus: 'lifeA', k: 3})", Map.of("q", q)).forEach(r -> assertFalse(String.valueOf(r.get("chunkId")).contains("axodar")));
    }

    @Test
    void plainCypherDeletesAreCaughtWhenTheSnapshotHandsOutNodes() {
        build("lifeC", barsoom("c"));
        String q = "Why did Issus give Xodar to John Carter?";
        rows(MCMI, Map.of("q", q, "c", "lifeC"));
        // no procedure involved: no version moves, so only the check of what the snapshot hands out can see it
        rows("MATCH (e:AgEntity {corpus: 'lifeC'}) DETACH DELETE e");
        rows("MATCH (c:Chunk {corpus: 'lifeC'}) DETACH DELETE c");
        rows("UNWIND range(1, 200) AS i CREATE (:Filler {corpus: 'other', i: i})");
        List<Map<String, Object>> out;
        try {
            out = rows(MCMI, Map.of("q", q, "c", "lifeC"));
        } catch (org.neo4j.graphdb.QueryExecutionException e) {
            assertTrue(e.getMessage().contains("no facts") || e.getMessage().contains("changed while it was read"), e.getMessage());
            return;
        }
        assertOwnNodes("lifeC", out);
    }

    static EvalLlmServer llm;

    @BeforeAll
    static void start() {
        llm = EvalLlmServer.start().on("agrag.answer", r -> PolicyReply.jsonOf(Map.of("thought", "from the subgraph", "answer", "as the facts say")));
    }

    @AfterAll
    static void stop() {
        llm.close();
    }

    /**
     * What a question is shown: an MCMI subgraph (its nodes' names and texts, graph strings, facts, path chunks),
     * agrag.retrieve's rows, and agrag.answer's prompt as the endpoint received it.
     */
    static String shown(String corpus, String q) {
        llm.clearLog();
        String answer = rows("CALL agrag.answer($q, {corpus: $c, filter: false, llm: $llm, returnPrompt: true}) YIELD answer, prompt RETURN answer, prompt",
                Map.of("q", q, "c", corpus, "llm", llm.llmConfig())).toString() + llm.log().stream().map(x -> x.body().toString()).toList();
        return rows("CALL agrag.mcmi($q, {corpus: $c}) YIELD nodes, graphStrings, facts, pathChunkIds"
                + " RETURN [n IN nodes | coalesce(n.name, n.text)] AS nodes, graphStrings, facts, pathChunkIds", Map.of("q", q, "c", corpus)).toString()
                + rows("CALL agrag.retrieve($q, {corpus: $c, k: 5})", Map.of("q", q, "c", corpus)) + answer;
    }

    /** The layer by content, chunk ids without the corpus: entities, facts with their chunks, containment, synonyms. */
    static List<Object> census(String corpus) {
        return List.of(
                rows("MATCH (e:AgEntity {corpus: $c}) RETURN e.name AS n ORDER BY n", Map.of("c", corpus)),
                rows("MATCH (a:AgEntity {corpus: $c})-[r:AG_REL]->(b) RETURN a.name AS a, r.predicate AS p, b.name AS b, r.pprWeight AS w,"
                        + " [id IN r.chunkIds | substring(id, size($c) + 1)] AS chunks ORDER BY a, p, b", Map.of("c", corpus)),
                rows("MATCH (k:Chunk {corpus: $c})-[:AG_CONTAINS]->(e) RETURN substring(k.id, size($c) + 1) AS k, e.name AS e ORDER BY k, e", Map.of("c", corpus)),
                synonyms(corpus));
    }

    @Test
    void removedAndChangedTextIsLeftOutAtOnceAndTheRebuildEqualsACleanBuild() {
        List<Map<String, Object>> kept = barsoom("f").subList(0, 1);
        Map<String, Object> canary = Map.of("id", "fteacher", "text", "Zorvath Quill taught Dejah Thoris on Barsoom. Zorvath Quill founded an academy in Helium.");
        Map<String, Object> before = Map.of("id", "ffleet", "text", "Kantos Kan commanded the fleet of Helium. Kantos Kan rescued John Carter on Barsoom.");
        Map<String, Object> after = Map.of("id", "ffleet", "text", "Tardos Mors commanded the fleet of Helium. Tardos Mors rescued John Carter on Barsoom.");
        List<Map<String, Object>> all = new ArrayList<>(kept);
        all.addAll(List.of(canary, before));
        build("lifeF", all);
        String served = shown("lifeF", "Who taught Dejah Thoris on Barsoom?");
        assertTrue(served.contains("zorvath quill") && served.contains("Zorvath Quill taught"), "the canary is served, and prompted, before its removal: " + served);
        rows("CALL rag.delete(['fteacher'], {corpus: 'lifeF'})");
        rows(INGEST, Map.of("docs", List.of(after), "c", "lifeF"));
        assertTrue((Long) rows("CALL agrag.info({corpus: 'lifeF'})").get(0).get("unsupportedEntities") >= 2, "zorvath quill and kantos kan at least");
        for (String q : List.of("Who taught Dejah Thoris on Barsoom?", "Who founded an academy in Helium?", "Who commanded the fleet of Helium?")) {
            String out = shown("lifeF", q).toLowerCase(java.util.Locale.ROOT);
            for (String c : List.of("zorvath", "quill", "kantos")) assertFalse(out.contains(c), "'" + q + "' shows removed text (" + c + "): " + out);
        }
        rows("CALL agrag.index({corpus: 'lifeF', relations: 'cooccurrence'})");
        assertEquals(0L, rows("CALL agrag.info({corpus: 'lifeF'})").get(0).get("unsupportedEntities"));
        List<Map<String, Object>> finalDocs = new ArrayList<>(kept);
        finalDocs.add(after);
        build("lifeFClean", finalDocs);
        assertEquals(census("lifeFClean"), census("lifeF"), "the rebuilt layer equals a clean build of the same documents");
    }

    @Test
    void anInterruptedBuildCanBeDroppedAndResumesToTheRebuild() {
        build("lifeD", barsoom("d"));
        Map<String, Object> reference = rows("CALL agrag.info({corpus: 'lifeD'})").get(0);
        assertEquals("ready", reference.get("state"));
        long version = (Long) reference.get("version");
        // the state a kill -9 leaves after the entities were written: meta marked building, synonyms never searched
        rows("MATCH (m:AgMeta {corpus: 'lifeD'}) SET m.state = 'building' REMOVE m.version");
        rows("MATCH (:AgEntity {corpus: 'lifeD'})-[s:AG_SYNONYM]->() DELETE s");
        assertFailsCleanly(MCMI, Map.of("q", "Issus", "c", "lifeD"), "is being built, or its first build was interrupted", "agrag.index");
        assertEquals("building", rows("CALL agrag.info({corpus: 'lifeD'})").get(0).get("state"));
        Map<String, Object> resumed = rows("CALL agrag.index({corpus: 'lifeD', relations: 'cooccurrence'})").get(0);
        for (String k : List.of("entities", "facts", "containsEdges", "synonymEdges")) {
            assertEquals(reference.get(k), resumed.get(k), k + " after resuming");
        }
        Map<String, Object> info = rows("CALL agrag.info({corpus: 'lifeD'})").get(0);
        assertEquals("ready", info.get("state"));
        assertTrue((Long) info.get("version") > version, "versions never go back");

        // a drop that was interrupted: queries say so, and the next drop finishes it
        rows("MATCH (m:AgMeta {corpus: 'lifeD'}) SET m.state = 'dropping' REMOVE m.version");
        assertFailsCleanly(MCMI, Map.of("q", "Issus", "c", "lifeD"), "is being dropped, or a drop was interrupted", "agrag.drop");
        rows("MATCH (m:AgMeta {corpus: 'lifeD'}) SET m.state = 'ready', m.version = $v", Map.of("v", (Long) info.get("version")));

        // the same half-built state can also be dropped; a rebuild then gets a version above every earlier one
        rows("MATCH (m:AgMeta {corpus: 'lifeD'}) SET m.state = 'building' REMOVE m.version");
        Map<String, Object> dropped = rows("CALL agrag.drop({corpus: 'lifeD'})").get(0);
        assertTrue((Long) dropped.get("nodesDeleted") > 0);
        assertEquals(0, count("MATCH (n) WHERE n.corpus = 'lifeD' AND (n:AgEntity OR n:AgMeta) RETURN count(n)", Map.of()));
        rows("CALL agrag.index({corpus: 'lifeD', relations: 'cooccurrence'})");
        assertTrue((Long) rows("CALL agrag.info({corpus: 'lifeD'})").get(0).get("version") > (Long) info.get("version"));
    }

    @Test
    void aCorpusWithNoEntitiesIndexesAndSaysWhyItHasNoSubgraph() {
        rows(INGEST, Map.of("docs", List.of(Map.of("id", "h", "text", "hello")), "c", "lifeE"));
        Map<String, Object> stats = rows("CALL agrag.index({corpus: 'lifeE'})").get(0);
        assertEquals(0L, stats.get("entities"));
        assertEquals("ready", rows("CALL agrag.info({corpus: 'lifeE'})").get(0).get("state"));
        assertFailsCleanly(MCMI, Map.of("q", "hello", "c", "lifeE"), "has no facts", "agrag.retrieve");
        List<Map<String, Object>> ranked = rows("CALL agrag.retrieve('hello', {corpus: 'lifeE', k: 1})");
        assertEquals("h", ranked.get(0).get("documentId"));
    }

    @Test
    void theFingerprintAndTheCommitMarkSeeAPropertyWrite() {
        List<Object> before = TestServer.fingerprint();
        long mark = TestServer.lastCommittedTransaction();
        rows("MATCH (n) RETURN count(n)");
        assertEquals(mark, TestServer.lastCommittedTransaction(), "a read commits nothing");
        rows("MERGE (n:FingerprintProbe {id: 1})");
        List<Object> created = TestServer.fingerprint();
        assertFalse(before.equals(created));
        long afterCreate = TestServer.lastCommittedTransaction();
        assertTrue(afterCreate > mark, "a write moves the commit mark");
        rows("MATCH (n:FingerprintProbe {id: 1}) SET n.x = 'changed'");
        assertFalse(created.equals(TestServer.fingerprint()), "a property write alone changes it");
        assertTrue(TestServer.lastCommittedTransaction() > afterCreate, "a property write alone moves the commit mark");
        rows("MATCH (n:FingerprintProbe) DELETE n");
        assertEquals(before, TestServer.fingerprint());
        assertFailsCleanly("MATCH (n:FingerprintProbe) WITH count(n) AS c RETURN 1 / c", Map.of(), "/ by zero");
    }

    /** Documents naming members of name families ("Tars Tarkas", "Tarkas", "jeddak Tars Tarkas"), whose embeddings make synonyms. */
    static List<Map<String, Object>> families(int count) {
        String[][] families = {
                {"Tars Tarkas", "Tarkas", "Jeddak Tars Tarkas"}, {"Dejah Thoris", "Princess Dejah Thoris", "Thoris"},
                {"John Carter", "Captain John Carter", "Carter of Virginia"}, {"Helium", "Greater Helium", "Lesser Helium"},
                {"Issus", "Goddess Issus", "Issus of the First Born"}, {"Xodar", "Dator Xodar", "Xodar the First Born"},
                {"Kantos Kan", "Kantos", "Captain Kantos Kan"}, {"Sola", "Sola of the Tharks", "Tharkian Sola"},
                {"Tardos Mors", "Jeddak Tardos Mors", "Mors Kajak"}, {"Zodanga", "Zodangan Navy", "city of Zodanga"}};
        java.util.Random r = new java.util.Random(11);
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < 3; k++) {
                String[] f1 = families[r.nextInt(families.length)], f2 = families[r.nextInt(families.length)];
                b.append(f1[r.nextInt(3)]).append(" met ").append(f2[r.nextInt(3)]).append(" near ")
                        .append(families[r.nextInt(families.length)][r.nextInt(3)]).append(". ");
            }
            docs.add(Map.of("id", String.format("f%03d", i), "text", b.toString()));
        }
        return docs;
    }

    static java.util.Set<String> synonyms(String corpus) {
        return new java.util.TreeSet<>(rows("MATCH (a:AgEntity {corpus: $c})-[s:AG_SYNONYM]->(b) RETURN a.name + '|' + b.name + '|' + s.similarity AS e",
                Map.of("c", corpus)).stream().map(r -> (String) r.get("e")).toList());
    }

    @Test
    void incrementalSynonymEdgesEqualARebuildExactly() {
        List<Map<String, Object>> docs = families(45); // every family member appears well before 45 documents
        for (int part = 0; part < 3; part++) build("synInc", docs.subList(part * 15, part * 15 + 15));
        build("synFull", docs);
        java.util.Set<String> full = synonyms("synFull");
        assertTrue(full.size() >= 20, "the families make synonyms: " + full.size());
        assertEquals(full, synonyms("synInc"), "the same edges with the same similarities");
        // a layer from a release whose synonyms came from the HNSW index: the next index recomputes them exactly
        rows("MATCH (m:AgMeta {corpus: 'synInc'}) REMOVE m.synonymMethod");
        rows("MATCH (:AgEntity {corpus: 'synInc'})-[s:AG_SYNONYM]->() WITH s LIMIT 5 DELETE s");
        rows("CALL agrag.index({corpus: 'synInc', relations: 'cooccurrence'})");
        assertEquals(full, synonyms("synInc"), "an upgraded layer gets the exact edges");
        // deletes follow too
        rows("CALL rag.delete($ids, {corpus: 'synInc'})", Map.of("ids", docs.subList(30, 45).stream().map(d -> d.get("id")).toList()));
        rows("CALL agrag.index({corpus: 'synInc', relations: 'cooccurrence'})");
        build("synTwoThirds", docs.subList(0, 30));
        assertEquals(synonyms("synTwoThirds"), synonyms("synInc"));
    }

    static String synonymMethod(String corpus) {
        return (String) rows("MATCH (m:AgMeta {corpus: $c}) RETURN m.synonymMethod AS m", Map.of("c", corpus)).get(0).get("m");
    }

    @Test
    void theCellSearchAboveExactSynonymsUpToFindsOnlyExactEdgesAndSwitchingPlansSearchesAgain() {
        List<Map<String, Object>> docs = families(45);
        build("synCells", docs);
        java.util.Set<String> exact = synonyms("synCells");
        assertEquals("exact", synonymMethod("synCells"));
        assertTrue(exact.size() >= 20, "the families make synonyms: " + exact.size());
        // one probe: only pairs within a cell are compared, each with its exact similarity
        rows("CALL agrag.index({corpus: 'synCells', relations: 'cooccurrence', exactSynonymsUpTo: 0, synonymProbes: 1})");
        assertEquals("cells, 1 probes", synonymMethod("synCells"));
        java.util.Set<String> oneProbe = synonyms("synCells");
        assertTrue(exact.containsAll(oneProbe) && !oneProbe.isEmpty(), "a subset of the exact edges: " + oneProbe.size() + " of " + exact.size());
        // probes that reach every cell compare every pair: the exact edges
        rows("CALL agrag.index({corpus: 'synCells', relations: 'cooccurrence', exactSynonymsUpTo: 0, synonymProbes: 100000})");
        assertEquals(exact, synonyms("synCells"));
        // back under the limit: the plan changed, so the synonyms are searched again and edges lost since come back
        rows("MATCH (:AgEntity {corpus: 'synCells'})-[s:AG_SYNONYM]->() WITH s LIMIT 5 DELETE s");
        rows("CALL agrag.index({corpus: 'synCells', relations: 'cooccurrence'})");
        assertEquals("exact", synonymMethod("synCells"));
        assertEquals(exact, synonyms("synCells"));
        assertFailsCleanly("CALL agrag.index({corpus: 'synCells', exactSynonymsUpTo: -1})", Map.of(), "exactSynonymsUpTo");
        assertFailsCleanly("CALL agrag.index({corpus: 'synCells', synonymProbes: 0})", Map.of(), "synonymProbes");
        assertFailsCleanly("CALL agrag.index({corpus: 'synCells', synonymProbes: 'many'})", Map.of(), "synonymProbes");
    }
}
