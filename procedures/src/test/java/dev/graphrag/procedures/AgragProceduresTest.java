package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** agrag.* end to end on the shared server: LLM-free, and with the stand-in LLM. */
class AgragProceduresTest {
    static final StandInLlm LLM = StandInLlm.start();

    @AfterAll
    static void stop() {
        LLM.close();
    }

    static final List<Map<String, Object>> DOCS = List.of(
            Map.of("id", "carter", "title", "John Carter", "text", "John Carter fought beside Tars Tarkas on Barsoom. John Carter later married Dejah Thoris, the princess of Helium."),
            Map.of("id", "helium", "title", "Helium (Barsoom)", "text", "Helium is a city on Barsoom. Dejah Thoris is the granddaughter of Tardos Mors, the jeddak of Helium."),
            Map.of("id", "tharks", "title", "Tars Tarkas", "text", "Tars Tarkas is the jeddak of the Tharks. The Tharks are green Martians who live on Barsoom."),
            Map.of("id", "xodar", "title", "Xodar", "text", "Xodar is a dator of the First Born. Issus gave Xodar to John Carter as a slave after Carter defeated Xodar."));

    static void ingest(String corpus, List<Map<String, Object>> docs) {
        rows("CALL rag.ingest($docs, {corpus: $c})", Map.of("docs", docs, "c", corpus));
    }

    static Map<String, Object> index(String corpus) {
        return rows("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", corpus)).get(0);
    }

    @Test
    void llmFreeIndexAndRetrieval() {
        ingest("ag1", DOCS);
        Map<String, Object> stats = index("ag1");
        System.out.println("index: " + stats);
        assertEquals(4L, stats.get("chunks"));
        assertEquals(0L, stats.get("llmCalls"));
        assertTrue((Long) stats.get("entities") > 5 && (Long) stats.get("facts") > 5, stats.toString());
        assertEquals(stats.get("facts"), count("MATCH (:AgEntity {corpus:'ag1'})-[r:AG_REL]->() RETURN count(r)", Map.of()));
        assertEquals(0, count("MATCH (:AgEntity {corpus:'ag1'})-[r:AG_REL]->() WHERE size(r.embedding) <> 384 OR r.evidence IS NULL RETURN count(r)", Map.of()));
        Map<String, Object> info = rows("CALL agrag.info({corpus: 'ag1'})").get(0);
        assertEquals(true, info.get("projected"));
        assertEquals("cooccurrence", info.get("relations"));

        Map<String, Object> m = rows("CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'ag1'})").get(0);
        System.out.println("mcmi: " + m);
        @SuppressWarnings("unchecked") List<String> terminals = (List<String>) m.get("terminals");
        @SuppressWarnings("unchecked") List<Node> nodes = (List<Node>) m.get("nodes");
        @SuppressWarnings("unchecked") List<Relationship> rels = (List<Relationship>) m.get("relationships");
        @SuppressWarnings("unchecked") List<String> graph = (List<String>) m.get("graphStrings");
        assertFalse(terminals.isEmpty());
        assertTrue(nodes.size() >= terminals.size());
        assertEquals(((Long) m.get("edgeCount")).intValue(), rels.size());
        assertFalse(graph.isEmpty());
        assertTrue(graph.get(0).startsWith("(") && graph.get(0).contains(" [SEP] "), graph.toString());
        assertTrue((Long) m.get("nodeCount") >= (Long) m.get("mcstNodeCount"));
        // the Steiner search's node budget: the default leaves this small graph's search uncut; a budget of one node
        // cuts it, and the paths it had found still join every terminal
        assertEquals(false, m.get("searchCut"));
        Map<String, Object> cut = rows("CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'ag1', maxSearchNodes: 1})"
                + " YIELD terminals, nodes, searchCut, searchedNodes RETURN terminals, [n IN nodes | n.name] AS names, searchCut, searchedNodes").get(0);
        assertEquals(true, cut.get("searchCut"), cut.toString());
        assertTrue((Long) cut.get("searchedNodes") < (Long) m.get("searchedNodes"), cut + " against " + m);
        assertEquals(terminals, cut.get("terminals"));
        assertTrue(((List<?>) cut.get("names")).containsAll(terminals), cut.toString());
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'ag1', maxSearchNodes: 0})", Map.of(), "maxSearchNodes");

        for (String mode : List.of("mcmi", "hybrid", "ppr")) {
            List<Map<String, Object>> hits = rows("CALL agrag.retrieve($q, {corpus: 'ag1', k: 3, mode: $m})",
                    Map.of("q", "Who is the jeddak of the Tharks?", "m", mode));
            System.out.println(mode + ": " + hits.stream().map(h -> h.get("documentId") + "/" + h.get("source")).toList());
            assertEquals(3, hits.size(), mode);
            assertEquals(3, hits.stream().map(h -> h.get("chunkId")).distinct().count());
            assertTrue(hits.stream().anyMatch(h -> h.get("documentId").equals("tharks")), mode);
            // the ranking's score is its place; what each source measured and the cosine are their own columns
            for (Map<String, Object> h : hits) {
                assertEquals(1.0 / (Long) h.get("rank"), (Double) h.get("score"), 1e-12, mode + " " + h);
                double cosine = (Double) h.get("denseScore");
                assertTrue(cosine > -1.0001 && cosine < 1.0001, h.toString());
                if (List.of("dense", "named", "link").contains(h.get("source"))) assertEquals(cosine, (Double) h.get("sourceScore"), 1e-6, h.toString());
            }
        }
        // denseFirst: the top dense chunks lead (as rag.search ranks them), the graph fills the rest
        String bridge = "Who is the grandfather of the wife of John Carter?";
        List<Object> denseTop = rows("CALL rag.search($q, {corpus: 'ag1', k: 2, mode: 'dense'}) YIELD chunkId RETURN chunkId", Map.of("q", bridge))
                .stream().map(r -> r.get("chunkId")).toList();
        for (String mode : List.of("ppr", "mcmi")) {
            List<Map<String, Object>> hits = rows("CALL agrag.retrieve($q, {corpus: 'ag1', k: 4, mode: $m, denseFirst: 2})", Map.of("q", bridge, "m", mode));
            assertEquals(denseTop, hits.subList(0, 2).stream().map(h -> h.get("chunkId")).toList(), mode);
            assertEquals(List.of("dense", "dense"), hits.subList(0, 2).stream().map(h -> h.get("source")).toList(), mode);
            assertEquals(4, hits.stream().map(h -> h.get("chunkId")).distinct().count(), mode);
            assertTrue(hits.subList(2, 4).stream().noneMatch(h -> h.get("source").equals("dense")), mode);
        }

        // GDS and the native engine compute the same influence, hence the same subgraph
        String q = "Who is the jeddak of the Tharks?";
        Map<String, Object> viaGds = rows("CALL agrag.mcmi($q, {corpus: 'ag1', pprEngine: 'gds'}) YIELD graphStrings, pathChunkIds, nodeCount "
                + "RETURN graphStrings, pathChunkIds, nodeCount", Map.of("q", q)).get(0);
        Map<String, Object> native_ = rows("CALL agrag.mcmi($q, {corpus: 'ag1', pprEngine: 'native'}) YIELD graphStrings, pathChunkIds, nodeCount "
                + "RETURN graphStrings, pathChunkIds, nodeCount", Map.of("q", q)).get(0);
        assertEquals(native_, viaGds);

        // concurrency 2 runs PageRank and the fact scan beside the caller's work; every column but the time is the same
        for (String question : List.of(q, bridge)) {
            Map<String, Object> serial = rows("CALL agrag.mcmi($q, {corpus: 'ag1', concurrency: 1})", Map.of("q", question)).get(0);
            Map<String, Object> parallel = rows("CALL agrag.mcmi($q, {corpus: 'ag1', concurrency: 2})", Map.of("q", question)).get(0);
            serial.remove("ms");
            parallel.remove("ms");
            assertEquals(serial, parallel, question);
            for (String mode : List.of("mcmi", "ppr")) {
                String retrieve = "CALL agrag.retrieve($q, {corpus: 'ag1', k: 4, mode: $m, concurrency: $c})";
                assertEquals(rows(retrieve, Map.of("q", question, "m", mode, "c", 1L)), rows(retrieve, Map.of("q", question, "m", mode, "c", 2L)), mode);
            }
        }
    }

    @Test
    void aLostProjectionIsRecreatedOnDemandAndByAgragProject() {
        ingest("agproj", DOCS);
        index("agproj");
        // projections live in memory: a restart loses them, as this drop does
        rows("CALL gds.graph.drop('agrag_agproj')");
        assertEquals(false, rows("CALL agrag.info({corpus: 'agproj'})").get(0).get("projected"));
        Map<String, Object> m = rows("CALL agrag.mcmi('Who is the jeddak of the Tharks?', {corpus: 'agproj', pprEngine: 'gds'}) YIELD nodeCount RETURN nodeCount").get(0);
        assertTrue((Long) m.get("nodeCount") > 0);
        assertEquals(true, rows("CALL agrag.info({corpus: 'agproj'})").get(0).get("projected"));

        rows("CALL gds.graph.drop('agrag_agproj')");
        Map<String, Object> p = rows("CALL agrag.project({corpus: 'agproj'})").get(0);
        assertEquals("agrag_agproj", p.get("graphName"));
        assertEquals(true, p.get("projected"));
        long entities = count("MATCH (e:AgEntity {corpus: 'agproj'}) RETURN count(e)", Map.of());
        long chunks = count("MATCH (c:Chunk {corpus: 'agproj'}) WHERE (c)-[:AG_CONTAINS]->() RETURN count(c)", Map.of());
        assertEquals(entities + chunks, p.get("nodeCount"), "entities and the chunks that contain them");
        long rels = count("MATCH (:AgEntity {corpus: 'agproj'})<-[r:AG_REL|AG_SYNONYM|AG_CONTAINS]-() RETURN count(r)", Map.of());
        assertEquals(2 * rels, p.get("relationshipCount"), "undirected: each relationship counted both ways");
        assertEquals(true, rows("CALL agrag.info({corpus: 'agproj'})").get(0).get("projected"));
        assertFailsCleanly("CALL agrag.project({corpus: 'nosuchcorpus'})", Map.of(), "nosuchcorpus");
        assertFailsCleanly("CALL agrag.project({corpsu: 'agproj'})", Map.of(), "unknown config key 'corpsu'");
    }

    static Set<String> layer(String corpus) {
        Set<String> out = new TreeSet<>();
        rows("MATCH (e:AgEntity {corpus: $c}) RETURN e.name AS n", Map.of("c", corpus)).forEach(r -> out.add("E " + r.get("n")));
        rows("MATCH (a:AgEntity {corpus: $c})-[r:AG_REL]->(b) RETURN r.subject + '|' + r.predicate + '|' + r.object + '|' + r.pprWeight AS f",
                Map.of("c", corpus)).forEach(r -> out.add("F " + r.get("f")));
        rows("MATCH (c:Chunk {corpus: $c})-[:AG_CONTAINS]->(e) RETURN c.documentId + ':' + c.index + '>' + e.name AS x", Map.of("c", corpus))
                .forEach(r -> out.add("C " + r.get("x")));
        rows("MATCH (a:AgEntity {corpus: $c})-[:AG_SYNONYM]->(b) RETURN a.name + '~' + b.name AS s", Map.of("c", corpus)).forEach(r -> out.add("S " + r.get("s")));
        rows("MATCH (c:Chunk {corpus: $c})-[l:AG_LINKS]->(d:Document) RETURN c.documentId + ':' + c.index + '>' + d.id + '|' + l.anchor AS x", Map.of("c", corpus))
                .forEach(r -> out.add("L " + r.get("x")));
        return out;
    }

    @Test
    void incrementalIndexingEqualsARebuildAndDeletesFollow() {
        ingest("inc", DOCS.subList(0, 2));
        index("inc");
        String q = "Who gave Xodar to John Carter as a slave?";
        assertFalse(retrievedDocuments("inc", q).contains("xodar"), "not ingested yet");
        ingest("inc", DOCS.subList(2, 4));
        index("inc");
        assertEquals("xodar", retrievedDocuments("inc", q).get(0), "queries see the re-indexed layer, not a cached snapshot");
        ingest("full", DOCS);
        index("full");
        assertEquals(layer("full"), layer("inc"));
        assertTrue(layer("inc").contains("E xodar"));
        assertTrue(layer("inc").contains("L carter:0>tharks|tars tarkas"), "a chunk indexed before links to a title ingested after");
        assertTrue(layer("inc").contains("L xodar:0>carter|john carter"));
        rows("CALL rag.delete(['xodar'], {corpus: 'inc'})");
        index("inc");
        ingest("three", DOCS.subList(0, 3));
        index("three");
        assertEquals(layer("three"), layer("inc"), "what only the deleted document supported is gone");
        assertFalse(layer("inc").contains("E xodar"));
        assertFalse(layer("inc").toString().contains(">xodar") || layer("inc").toString().contains("L xodar"));
        assertFalse(retrievedDocuments("inc", q).contains("xodar"), "nor the deleted document");
    }

    @Test
    void titleLinksAndTheDocumentsAQuestionNamesLeadTheRanking() {
        ingest("agtitle", DOCS);
        Map<String, Object> stats = index("agtitle");
        // carter names Tars Tarkas and Helium ("Helium (Barsoom)" without its disambiguator), xodar names John Carter
        assertEquals(3L, stats.get("titleLinks"), stats.toString());
        assertEquals(Set.of("carter>helium|helium", "carter>tharks|tars tarkas", "xodar>carter|john carter"),
                Set.copyOf(rows("MATCH (c:Chunk {corpus: 'agtitle'})-[l:AG_LINKS]->(d:Document) RETURN c.documentId + '>' + d.id + '|' + l.anchor AS x")
                        .stream().map(r -> r.get("x")).toList()));
        assertEquals(3L, rows("CALL agrag.info({corpus: 'agtitle'})").get(0).get("titleLinks"));

        // the question names Tars Tarkas: that article comes first; then a document the densest chunk names, by cosine
        String q = "Whom did the warrior who fought beside Tars Tarkas marry?";
        String densest = (String) rows("CALL rag.search($q, {corpus: 'agtitle', k: 1, mode: 'dense'}) YIELD chunkId RETURN chunkId", Map.of("q", q))
                .get(0).get("chunkId");
        for (String mode : List.of("ppr", "mcmi")) {
            List<Map<String, Object>> hits = rows("CALL agrag.retrieve($q, {corpus: 'agtitle', k: 4, mode: $m, denseFirst: 0})", Map.of("q", q, "m", mode));
            System.out.println(mode + ": " + hits.stream().map(h -> h.get("documentId") + "/" + h.get("source")).toList() + ", densest " + densest);
            assertEquals("tharks", hits.get(0).get("documentId"), mode);
            assertEquals("named", hits.get(0).get("source"), mode);
            List<Object> linked = rows("MATCH (:Chunk {id: $c})-[:AG_LINKS]->(d:Document) RETURN d.id AS d", Map.of("c", densest)).stream()
                    .map(r -> r.get("d")).filter(d -> !d.equals("tharks")).toList();
            List<Map<String, Object>> links = hits.stream().filter(h -> h.get("source").equals("link")).toList();
            assertEquals(linked.isEmpty() ? 0 : 1, links.size(), mode + " " + hits);
            if (!links.isEmpty()) assertTrue(linked.contains(links.get(0).get("documentId")), mode);
            List<Map<String, Object>> plain = rows("CALL agrag.retrieve($q, {corpus: 'agtitle', k: 4, mode: $m, denseFirst: 0, namedPassages: 0, linkedPassages: 0})",
                    Map.of("q", q, "m", mode));
            assertTrue(plain.stream().noneMatch(h -> h.get("source").equals("named") || h.get("source").equals("link")), mode);
        }
        // the densest chunk's own links: carter's, asked about directly
        List<Map<String, Object>> hits = rows("CALL agrag.retrieve('John Carter married Dejah Thoris, princess of Helium', "
                + "{corpus: 'agtitle', k: 3, mode: 'ppr', denseFirst: 1, namedPassages: 0})");
        assertEquals(List.of("carter", "dense"), List.of(hits.get(0).get("documentId"), hits.get(0).get("source")));
        assertEquals("link", hits.get(1).get("source"));
        assertTrue(Set.of("helium", "tharks").contains(hits.get(1).get("documentId")));

        // switching title links off removes them; titles stay on the documents
        assertEquals(0L, rows("CALL agrag.index({corpus: 'agtitle', relations: 'cooccurrence', titleLinks: false})").get(0).get("titleLinks"));
        assertEquals(0, count("MATCH (:Chunk {corpus: 'agtitle'})-[l:AG_LINKS]->() RETURN count(l)", Map.of()));
        assertEquals(3L, index("agtitle").get("titleLinks"));
        Map<String, Object> d = rows("CALL agrag.drop({corpus: 'agtitle'})").get(0);
        assertEquals(0, count("MATCH (:Chunk {corpus: 'agtitle'})-[l:AG_LINKS]->() RETURN count(l)", Map.of()), d.toString());
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agtitle', linkedPassages: -1})", Map.of(), "linkedPassages");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agtitle', namedPassages: 'two'})", Map.of(), "namedPassages");
        assertFailsCleanly("CALL agrag.index({corpus: 'agtitle', titleLinks: 'yes'})", Map.of(), "titleLinks");
    }

    @Test
    void changedSynonymRulesRebuildTheSynonymEdges() {
        ingest("syn", DOCS);
        rows("CALL agrag.index({corpus: 'syn', relations: 'cooccurrence', synonymThreshold: 0.95})");
        Set<String> strict = layer("syn");
        rows("CALL agrag.index({corpus: 'syn', relations: 'cooccurrence', synonymThreshold: 0.6})");
        ingest("synloose", DOCS);
        rows("CALL agrag.index({corpus: 'synloose', relations: 'cooccurrence', synonymThreshold: 0.6})");
        assertEquals(layer("synloose"), layer("syn"), "a re-index with a lower threshold equals a fresh index with it");
        assertTrue(layer("syn").stream().filter(x -> x.startsWith("S ")).count() > strict.stream().filter(x -> x.startsWith("S ")).count(),
                "the lower threshold links more pairs");
        rows("CALL agrag.index({corpus: 'syn', relations: 'cooccurrence', synonymThreshold: 0.95})");
        assertEquals(strict, layer("syn"), "and back");
    }

    /** What a query returns, but its timing column. */
    static List<Map<String, Object>> untimed(String query, Map<String, Object> params) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> row : rows(query, params)) {
            Map<String, Object> copy = new java.util.HashMap<>(row);
            copy.remove("ms");
            out.add(copy);
        }
        return out;
    }

    @Test
    void indexOrCellCandidatesReScoredGiveTheScansSubgraphAndRankings() {
        // a corpus beside the others in the shared chunk and fact indexes (several of them hold the same sentences), so the
        // lookups must find this corpus's rows among theirs: candidates that cover it widen until every row of it is found
        List<Map<String, Object>> docs = new ArrayList<>(DOCS);
        String[][] more = {
                {"sola", "Sola", "Sola is a green Martian woman of the Tharks. Sola cared for Dejah Thoris when the Tharks held Dejah Thoris captive."},
                {"woola", "Woola", "Woola is a calot of Barsoom. Sola gave Woola to John Carter, and Woola guarded John Carter in the Thark city."},
                {"kantos", "Kantos Kan", "Kantos Kan is a padwar of the navy of Helium. Kantos Kan met John Carter in the arena of Warhoon."},
                {"zodanga", "Zodanga", "Zodanga is the rival city of Helium on Barsoom. Than Kosis is the jeddak of Zodanga, and Sab Than is his son."},
                {"ptor", "Thuvan Dihn", "Thuvan Dihn is the jeddak of Ptarth. Thuvia of Ptarth is the daughter of Thuvan Dihn."},
                {"carthoris", "Carthoris", "Carthoris is the son of John Carter and Dejah Thoris. Carthoris loved Thuvia of Ptarth."}};
        for (String[] d : more) docs.add(Map.of("id", d[0], "title", d[1], "text", d[2]));
        ingest("agidx", docs);
        index("agidx");
        List<String> questions = List.of("Who is the grandfather of the wife of John Carter?", "Who is the jeddak of the Tharks?",
                "Whom did the son of John Carter love?", "Who guarded John Carter in the Thark city?");
        Map<String, Object> scan = Map.of("corpus", "agidx");
        // the candidates from the vector indexes, or from the snapshot's own cells with probes that reach every cell
        Map<String, Map<String, Object>> covering = Map.of("index", Map.of("corpus", "agidx", "indexFrom", 0L, "indexCandidates", 1000L),
                "cells", Map.of("corpus", "agidx", "cellsFrom", 0L, "cellProbes", 100_000L, "indexCandidates", 1000L));
        Map<String, Map<String, Object>> few = Map.of("index", Map.of("corpus", "agidx", "indexFrom", 0L, "indexCandidates", 2L),
                "cells", Map.of("corpus", "agidx", "cellsFrom", 0L, "cellProbes", 1L, "indexCandidates", 2L));
        for (String q : questions) {
            for (String source : List.of("index", "cells")) {
                Map<String, Object> index = covering.get(source);
                // candidates that cover the corpus: the candidate path gives exactly what the scan gives, every column
                assertEquals(untimed("CALL agrag.mcmi($q, $cfg)", Map.of("q", q, "cfg", scan)), untimed("CALL agrag.mcmi($q, $cfg)", Map.of("q", q, "cfg", index)),
                        source + ": " + q);
                assertEquals(rows("CALL agrag.mapFacts($q, $cfg)", Map.of("q", q, "cfg", scan)), rows("CALL agrag.mapFacts($q, $cfg)", Map.of("q", q, "cfg", index)),
                        source + ": " + q);
                for (String mode : List.of("mcmi", "ppr", "hybrid")) {
                    Map<String, Object> s = new java.util.HashMap<>(scan), i = new java.util.HashMap<>(index);
                    s.put("mode", mode);
                    i.put("mode", mode);
                    assertEquals(rows("CALL agrag.retrieve($q, $cfg)", Map.of("q", q, "cfg", s)), rows("CALL agrag.retrieve($q, $cfg)", Map.of("q", q, "cfg", i)),
                            source + " " + mode + ": " + q);
                }
                // few candidates (the index's nearest are approximate, and this index holds other corpora's copies of the same
                // sentences; one cell holds a share of the rows): whole answers of the same shape, the question's entities among the terminals
                Map<String, Object> sub = rows("CALL agrag.mcmi($q, $cfg)", Map.of("q", q, "cfg", few.get(source))).get(0);
                @SuppressWarnings("unchecked") List<String> terminals = (List<String>) sub.get("terminals");
                assertFalse(terminals.isEmpty(), source + ": " + q);
                assertEquals(((Long) sub.get("edgeCount")).intValue(), ((List<?>) sub.get("relationships")).size(), source + ": " + q);
                for (String mode : List.of("mcmi", "ppr", "hybrid")) {
                    Map<String, Object> cfg = new java.util.HashMap<>(few.get(source));
                    cfg.put("mode", mode);
                    List<Map<String, Object>> hits = rows("CALL agrag.retrieve($q, $cfg)", Map.of("q", q, "cfg", cfg));
                    assertEquals(5, hits.stream().map(h -> h.get("chunkId")).distinct().count(), source + " " + mode + ": " + q);
                    assertTrue(hits.stream().allMatch(h -> ((String) h.get("chunkId")).startsWith("agidx:")), source + " " + mode + ": " + q);
                }
            }
        }
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agidx', indexCandidates: 0})", Map.of(), "indexCandidates");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agidx', indexFrom: -1})", Map.of(), "indexFrom");
        assertFailsCleanly("CALL agrag.mapFacts('x', {corpus: 'agidx', cellsFrom: -1})", Map.of(), "cellsFrom");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agidx', cellProbes: 0})", Map.of(), "cellProbes");
    }

    static List<Object> retrievedDocuments(String corpus, String q) {
        return rows("CALL agrag.retrieve($q, {corpus: $c, k: 4, mode: 'mcmi'}) YIELD documentId RETURN documentId", Map.of("q", q, "c", corpus))
                .stream().map(r -> r.get("documentId")).toList();
    }

    @Test
    void withTheStandInLlmExtractionFilterAndAnswer() {
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Reasoning subgraph")).replyJson(Map.of("thought", "Carter married Dejah Thoris, granddaughter of Tardos Mors.",
                "answer", "Tardos Mors"));
        LLM.when(StandInLlm.lastUserContains("Candidate facts")).replyJson(Map.of("fact", List.of(
                List.of("john carter", "married", "dejah thoris"), List.of("dejah thoris", "granddaughter of", "tardos mors"))));
        LLM.when(r -> r.lastUserContent().contains("Convert the paragraph") && r.lastUserContent().contains("Tardos Mors")).replyJson(Map.of("triples", List.of(
                List.of("Dejah Thoris", "granddaughter of", "Tardos Mors"), List.of("Tardos Mors", "jeddak of", "Helium"), List.of("bad"))));
        LLM.when(r -> r.lastUserContent().contains("Convert the paragraph") && r.lastUserContent().contains("married Dejah")).replyJson(Map.of("triples", List.of(
                List.of("John Carter", "married", "Dejah Thoris"), List.of("John Carter", "fought beside", "Tars Tarkas"))));
        LLM.when(StandInLlm.lastUserContains("Convert the paragraph")).replyJson(Map.of("triples", List.of()));
        Map<String, Object> llm = Map.of("endpoint", LLM.endpoint(), "model", "stand-in");
        ingest("agllm", DOCS);
        Map<String, Object> stats = rows("CALL agrag.index({corpus: 'agllm', llm: $llm})", Map.of("llm", llm)).get(0);
        assertEquals(4L, stats.get("llmCalls"));
        assertEquals(4L, stats.get("facts"));
        assertTrue((Long) stats.get("promptTokens") > 0);
        // a second run reuses the stored triples: no LLM call
        Map<String, Object> again = rows("CALL agrag.index({corpus: 'agllm', llm: $llm})", Map.of("llm", llm)).get(0);
        assertEquals(0L, again.get("llmCalls"));
        assertEquals(4L, again.get("facts"));

        Map<String, Object> a = rows("CALL agrag.answer('Who is the grandfather of the wife of John Carter?', {corpus: 'agllm', llm: $llm, returnPrompt: true})",
                Map.of("llm", llm)).get(0);
        assertEquals("Tardos Mors", a.get("answer"));
        assertEquals(2L, a.get("llmCalls"), "filter + answer");
        assertEquals(true, a.get("usedGraph"));
        String prompt = (String) a.get("prompt");
        assertTrue(prompt.contains("(john carter [SEP] married [SEP] dejah thoris)"), prompt);
        assertTrue(prompt.contains("Question: Who is the grandfather"), prompt);
        assertTrue(prompt.contains("(dejah thoris [SEP] granddaughter of [SEP] tardos mors)"), prompt);
        @SuppressWarnings("unchecked") List<String> cited = new ArrayList<>((List<String>) a.get("pathChunkIds"));
        @SuppressWarnings("unchecked") List<String> retrieved = (List<String>) a.get("retrievedChunkIds");
        cited.addAll(retrieved);
        assertTrue(cited.contains("agllm:helium:0"), "the passage with the answer is cited: " + cited);
        assertEquals(4, LLM.requests().stream().filter(r -> r.lastUserContent().contains("Convert the paragraph")).count(),
                "each chunk was extracted once across both index runs");

        // the answer's retrieved chunks lead as agrag.retrieve's do: the document the question names, then hybrid
        String named = "Which princess did the man who fought beside Tars Tarkas marry?";
        Map<String, Object> only = Map.of("corpus", "agllm", "llm", llm, "k", 1L, "includePathChunks", false, "denseFirst", 0L, "linkedPassages", 0L);
        assertEquals(List.of("agllm:tharks:0"), rows("CALL agrag.answer($q, $cfg)", Map.of("q", named, "cfg", only)).get(0).get("retrievedChunkIds"));
        Map<String, Object> plain = new java.util.HashMap<>(only);
        plain.put("namedPassages", 0L);
        Object hybridTop = rows("CALL agrag.retrieve($q, {corpus: 'agllm', k: 1, mode: 'hybrid'})", Map.of("q", named)).get(0).get("chunkId");
        assertFalse(hybridTop.equals("agllm:tharks:0"), "the named document is not the hybrid ranking's first");
        assertEquals(List.of(hybridTop), rows("CALL agrag.answer($q, $cfg)", Map.of("q", named, "cfg", plain)).get(0).get("retrievedChunkIds"));

        // agrag.mapFacts shows the same mapping: all 4 facts by cosine, the filter keeping the two it returned
        List<Map<String, Object>> mapped = rows("CALL agrag.mapFacts('Who is the grandfather of the wife of John Carter?', {corpus: 'agllm', llm: $llm})",
                Map.of("llm", llm));
        assertEquals(4, mapped.size());
        assertEquals(Set.of("john carter|married|dejah thoris", "dejah thoris|granddaughter of|tardos mors"), mapped.stream()
                .filter(m -> (Boolean) m.get("kept")).map(m -> m.get("subject") + "|" + m.get("predicate") + "|" + m.get("object")).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void anInterruptedLlmIndexResumesWithoutRepeatingCallsOrDuplicates() {
        LLM.reset();
        LLM.when(r -> r.lastUserContent().contains("Convert the paragraph") && r.lastUserContent().contains("Xodar")).reply("no JSON here");
        LLM.when(StandInLlm.lastUserContains("Convert the paragraph")).replyJson(Map.of("triples", List.of(
                List.of("Barsoom", "has", "Helium"), List.of("Tars Tarkas", "leads", "Tharks"))));
        Map<String, Object> llm = Map.of("endpoint", LLM.endpoint(), "model", "stand-in");
        ingest("agresume", DOCS);
        // the documented resumable state: the triples of the chunks done so far are kept on them, nothing else is written
        java.util.Set<String> resumable = java.util.Set.of("agragTriples", "agragTriplesModel");
        List<Object> before = TestServer.fingerprint(resumable);
        var failure = org.junit.jupiter.api.Assertions.assertThrows(org.neo4j.graphdb.QueryExecutionException.class,
                () -> rows("CALL agrag.index({corpus: 'agresume', llm: $llm})", Map.of("llm", llm)));
        assertTrue(failure.getMessage().contains("agresume:xodar:0") && failure.getMessage().contains("kept for the next run"), failure.getMessage());
        assertEquals(before, TestServer.fingerprint(resumable), "only the extracted triples were kept");
        long extracted = count("MATCH (c:Chunk {corpus: 'agresume'}) WHERE c.agragTriples IS NOT NULL RETURN count(c)", Map.of());
        assertEquals(3, extracted, "chunks go in id order, so the three before xodar were extracted and kept");
        assertEquals(0, count("MATCH (m:AgMeta {corpus: 'agresume'}) RETURN count(m)", Map.of()), "no layer yet");

        // the LLM recovers: only the chunks not yet extracted cost a call, and the layer equals a fresh index
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Convert the paragraph")).replyJson(Map.of("triples", List.of(
                List.of("Barsoom", "has", "Helium"), List.of("Tars Tarkas", "leads", "Tharks"))));
        Map<String, Object> resumed = rows("CALL agrag.index({corpus: 'agresume', llm: $llm})", Map.of("llm", llm)).get(0);
        assertEquals(4 - extracted, resumed.get("llmCalls"));
        ingest("agresume2", DOCS);
        rows("CALL agrag.index({corpus: 'agresume2', llm: $llm})", Map.of("llm", llm));
        assertEquals(layer("agresume2"), layer("agresume"));
        assertEquals(count("MATCH (:AgEntity {corpus: 'agresume'})-[r:AG_REL]->() RETURN count(DISTINCT r.factId)", Map.of()),
                count("MATCH (:AgEntity {corpus: 'agresume'})-[r:AG_REL]->() RETURN count(r)", Map.of()), "no duplicate facts");
    }

    @Test
    void utilMcmiReproducesSpecCaseT6() {
        List<Map<String, Object>> edges = new ArrayList<>();
        Object[][] t6 = {{"A", "B", .10}, {"B", "C", .10}, {"A", "C", .45}, {"B", "D", .30}, {"C", "D", .04}, {"A", "F", .20}, {"C", "E", .10}, {"A", "G", .10}};
        for (Object[] e : t6) edges.add(Map.of("u", e[0], "v", e[1], "cost", e[2]));
        Map<String, Object> scores = Map.of("A", .30, "B", .10, "C", .30, "D", .20, "E", .01, "F", .04, "G", .25);
        String call = "CALL agrag.util.mcmi($s, $e, ['A', 'C'], {expansionRule: $rule})";
        Map<String, Object> mean = rows(call, Map.of("s", scores, "e", edges, "rule", "mean")).get(0);
        assertEquals(Set.of("A", "B", "C"), Set.copyOf((List<?>) mean.get("mcstNodes")));
        assertEquals(List.of("A", "B", "C", "D"), ((List<?>) mean.get("nodes")).stream().sorted().toList());
        assertEquals(1L, mean.get("expansions"));
        assertEquals(0.19333, (Double) mean.get("ratio"), 1e-4);
        assertEquals(5, ((List<?>) mean.get("edges")).size(), "induced output");
        Map<String, Object> sum = rows(call, Map.of("s", scores, "e", edges, "rule", "sum")).get(0);
        assertEquals(List.of("A", "B", "C", "D", "G"), ((List<?>) sum.get("nodes")).stream().sorted().toList());
        assertEquals(0.7618, (Double) sum.get("ratio"), 1e-4);
        Map<String, Object> ref = rows(call, Map.of("s", scores, "e", edges, "rule", "reference")).get(0);
        assertEquals(List.of("D", "G", "F", "E"), ((List<?>) ref.get("nodes")).subList(3, 7));

        assertFailsCleanly("CALL agrag.util.mcmi({}, [{u: 'A', v: 'B'}], ['A'])", Map.of(), "edge 0 must be a map {u: STRING, v: STRING, cost: FLOAT}");
        assertFailsCleanly("CALL agrag.util.mcmi({}, [{u: 'A', v: 'B', cost: -1.0}], ['A'])", Map.of(), "edge 0 cost must be finite and >= 0");
        assertFailsCleanly("CALL agrag.util.mcmi({}, [{u: 'A', v: 'B', cost: 1.0}], ['Z'])", Map.of(), "terminal 'Z' is on no edge");
        assertFailsCleanly("CALL agrag.util.mcmi({Q: 1.0}, [{u: 'A', v: 'B', cost: 1.0}], ['A'])", Map.of(), "scores name 'Q'");
        assertFailsCleanly("CALL agrag.util.mcmi({}, [{u: 'A', v: 'B', cost: 1.0}], ['A'], {rule: 'sum'})", Map.of(), "unknown config key 'rule'");
    }

    @Test
    void extractEntitiesIsSpecCaseT1AndMapFactsRanksByCosine() {
        List<Map<String, Object>> t1 = rows("CALL agrag.extractEntities(['alice bob alice', 'bob carol', 'dave'], {entityThreshold: 0.5})");
        assertEquals(List.of("0 alice", "1 bob carol", "1 carol", "2 dave"), t1.stream().map(r -> r.get("index") + " " + r.get("entity")).toList());
        assertEquals(0.7265, (Double) t1.get(0).get("score"), 1e-4);
        assertEquals(0.6228, (Double) t1.get(1).get("score"), 1e-4);
        assertEquals(2L, t1.get(1).get("ngram"));
        assertFailsCleanly("CALL agrag.extractEntities([])", Map.of(), "texts must be a non-empty list");
        assertFailsCleanly("CALL agrag.extractEntities(['a b', null])", Map.of(), "text 1 is null or blank");
        assertFailsCleanly("CALL agrag.extractEntities(['a b'], {maxNgram: 0})", Map.of(), "'maxNgram' must be between 1 and 10");
        assertFailsCleanly("CALL agrag.extractEntities(['a b'], {threshold: 0.5})", Map.of(), "unknown config key 'threshold'");

        ingest("agmap", DOCS);
        index("agmap");
        List<Map<String, Object>> facts = rows("CALL agrag.mapFacts('Who is the jeddak of the Tharks?', {corpus: 'agmap', factTopK: 3})");
        assertEquals(List.of(1L, 2L, 3L), facts.stream().map(f -> f.get("rank")).toList());
        assertTrue((Double) facts.get(0).get("similarity") >= (Double) facts.get(1).get("similarity")
                && (Double) facts.get(1).get("similarity") >= (Double) facts.get(2).get("similarity"));
        assertTrue(facts.stream().allMatch(f -> (Boolean) f.get("kept")), "no filter without an LLM");
        for (Map<String, Object> f : facts) {
            assertEquals(1L, count("MATCH (:AgEntity {corpus: 'agmap'})-[r:AG_REL {factId: $id}]->() RETURN count(r)", Map.of("id", f.get("factId"))));
        }
        assertFailsCleanly("CALL agrag.mapFacts('', {corpus: 'agmap'})", Map.of(), "query must not be empty");
        assertFailsCleanly("CALL agrag.mapFacts('x', {corpus: 'agmap', factTopK: 0})", Map.of(), "'factTopK' must be between 1 and 1000");
    }

    @Test
    void anUnusableReplySkipsTheChunkByDefaultAndFailsTheBuildWhenAsked() {
        LLM.reset();
        LLM.always().reply("I cannot produce JSON today.");
        ingest("agbad", DOCS.subList(0, 1));
        Map<String, Object> llm = Map.of("endpoint", LLM.endpoint(), "model", "m");
        assertFailsCleanly("CALL agrag.index({corpus: 'agbad', llm: $llm, extractionErrors: 'fail'})", Map.of("llm", llm),
                "agbad:carter:0", "unusable JSON", "model m", "I cannot produce JSON today.");
        Map<String, Object> built = TestServer.rows("CALL agrag.index({corpus: 'agbad', llm: $llm})", Map.of("llm", llm)).get(0);
        assertEquals(1L, built.get("failedChunks"), "skipped, not failed: the model's content, not the endpoint");
        @SuppressWarnings("unchecked")
        Map<String, Object> step = (Map<String, Object>) ((Map<String, Object>) built.get("tokensByStep")).get("agrag.index relation extraction");
        assertEquals(1L, step.get("unusable"), step.toString());
        assertEquals(Map.of(dev.graphrag.core.extract.ChunkExtraction.SKIPPED, 1L), step.get("fallbacks"));
        assertEquals(2L, step.get("calls"), "the reply and the repair turn are paid for and counted");
        // an endpoint fault is not the model's content: it still fails the build
        LLM.reset();
        LLM.always().status(500);
        assertFailsCleanly("CALL agrag.index({corpus: 'agbad', llm: $llm})", Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "m")),
                "agbad:carter:0", "500");
    }

    @Test
    void badInputIsNamed() {
        ingest("agnot", DOCS.subList(0, 1));
        assertFailsCleanly("CALL agrag.index({corpus: 'nowhere'})", Map.of(), "unknown corpus 'nowhere'");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot'})", Map.of(), "has no AGRAG index yet");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'nowhere'})", Map.of(), "unknown corpus 'nowhere'");
        assertFailsCleanly("CALL agrag.retrieve('', {corpus: 'agnot'})", Map.of(), "query must not be empty");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agnot', k: 0})", Map.of(), "'k' must be between 1 and 1000");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', expansionRule: 'max'})", Map.of(), "'expansionRule' must be one of");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agnot', denseFirst: -1})", Map.of(), "'denseFirst' must be between 0 and");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', pprEngine: 'auto'})", Map.of(), "'pprEngine' must be one of [native, push, gds]");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', pushEpsilon: 0.0})", Map.of(), "pushEpsilon");
        assertFailsCleanly("CALL agrag.index({corpus: 'agnot', relation: 'llm'})", Map.of(), "unknown config key 'relation'; did you mean 'relations'?");
        // one config per procedure: keys another agrag procedure reads are unknown here, not silently ignored
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', k: 3})", Map.of(), "agrag.mcmi: unknown config key 'k'");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', denseFirst: 0})", Map.of(), "unknown config key 'denseFirst'");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', returnPrompt: true})", Map.of(), "unknown config key 'returnPrompt'");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agnot', returnPrompt: true})", Map.of(), "agrag.retrieve: unknown config key 'returnPrompt'");
        assertFailsCleanly("CALL agrag.answer('x', {corpus: 'agnot', mode: 'ppr'})", Map.of(), "agrag.answer: unknown config key 'mode'");
        assertFailsCleanly("CALL agrag.mapFacts('x', {corpus: 'agnot', expansion: false})", Map.of(), "agrag.mapFacts: unknown config key 'expansion'");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agnot', denseFrist: 0})", Map.of(), "did you mean 'denseFirst'?");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', outputEdges: 'all'})", Map.of(), "'outputEdges' must be one of [induced, selected]");
        assertFailsCleanly("CALL agrag.mcmi('x', {corpus: 'agnot', concurrency: 4})", Map.of(), "'concurrency' must be between 1 and 2, got 4");
        assertFailsCleanly("CALL agrag.retrieve('x', {corpus: 'agnot', concurrency: 'all'})", Map.of(), "'concurrency' must be");
        assertFailsCleanly("CALL agrag.mapFacts('x', {corpus: 'agnot', concurrency: 2})", Map.of(), "agrag.mapFacts: unknown config key 'concurrency'");
        assertFailsCleanly("CALL agrag.index({corpus: 'agnot', relations: 'llm'})", Map.of(), "no LLM endpoint is configured");
        assertFailsCleanly("CALL agrag.answer('x', {corpus: 'agnot'})", Map.of(), "no LLM endpoint is configured");
        // dropping what is not there is not an error (a layer in any state drops), and writes nothing
        long before = TestServer.lastCommittedTransaction();
        assertEquals(0L, rows("CALL agrag.drop({corpus: 'agnot'})").get(0).get("nodesDeleted"));
        assertEquals(before, TestServer.lastCommittedTransaction());
        assertFailsCleanly("CALL agrag.drop({corpus: 'nowhere'})", Map.of(), "unknown corpus 'nowhere'");
    }

    @Test
    void dropRemovesTheLayerOnly() {
        ingest("agdrop", DOCS);
        index("agdrop");
        Map<String, Object> d = rows("CALL agrag.drop({corpus: 'agdrop'})").get(0);
        assertTrue((Long) d.get("nodesDeleted") > 5);
        assertEquals(0, count("MATCH (e:AgEntity {corpus: 'agdrop'}) RETURN count(e)", Map.of()));
        assertEquals(4, count("MATCH (c:Chunk {corpus: 'agdrop'}) RETURN count(c)", Map.of()));
        assertEquals(0, count("MATCH (m:AgMeta {corpus: 'agdrop'}) RETURN count(m)", Map.of()));
    }
}
