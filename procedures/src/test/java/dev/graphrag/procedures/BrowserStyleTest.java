package dev.graphrag.procedures;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/browser-style.grass, the Browser style the demo and the docs point to: every label and relationship type a
 * procedure draws has a caption, and each caption names a property that the graph this plugin writes really holds
 * (checked on a corpus built by rag.ingest, agrag.index, remind.index and hgmem.index, with an HGMem session and RAGA entities, in the shared server).
 */
@LineIndependent
class BrowserStyleTest {
    private static final Pattern RULE = Pattern.compile("(node|relationship)\\.([A-Za-z_]+)\\s*\\{[^}]*?caption:\\s*\"\\{([A-Za-z]+)}\"", Pattern.DOTALL);

    @Test
    void everyDrawnElementIsCaptionedByAPropertyItHas() throws Exception {
        String grass = Files.readString(Path.of("..", "docs", "browser-style.grass"));
        Map<String, String> nodes = new LinkedHashMap<>(), rels = new LinkedHashMap<>();
        Matcher m = RULE.matcher(grass);
        while (m.find()) (m.group(1).equals("node") ? nodes : rels).put(m.group(2), m.group(3));
        assertEquals(Map.of("Document", "id", "Chunk", "id", "AgEntity", "name", "RmEntity", "name", "RmAnchor", "title", "HgEntity", "name",
                "HgUnit", "description", "HgSession", "query", "RagaEntity", "name"), nodes);
        assertEquals(Map.of("AG_REL", "predicate", "RM_RELATION", "text", "RM_HAS_CHUNK", "text", "HG_RELATED", "keywords", "RAGA_REL", "relType"), rels);

        RemindProceduresTest.start(); // the rule extractor answering remind.index's calls
        try {
            RemindProceduresTest.build("style");
        } finally {
            RemindProceduresTest.stop();
        }
        HgmemProceduresTest.start(); // the scripted Xodar case: base graph, memory points, a session
        try {
            HgmemProceduresTest.build("style");
            TestServer.rows("CALL hgmem.answer($q, $cfg)", Map.of("q", HgmemProceduresTest.QUESTION, "cfg", HgmemProceduresTest.cfg("style", Map.of())));
        } finally {
            HgmemProceduresTest.stop();
        }
        TestServer.rows("CALL agrag.index({corpus: 'style', relations: 'cooccurrence'})");
        // RAGA's graph, curated by hand with the agent's tools
        TestServer.rows("CALL raga.setup({corpus: 'style'})");
        for (String name : List.of("Xodar", "Issus")) {
            TestServer.rows("CALL raga.entity.create({name: $n, entity_type: 'Person', evidence: 'Issus degraded Xodar', source_chunk_id: 'style:xodar:0'},"
                    + " {corpus: 'style', failOnError: true})", Map.of("n", name));
        }
        TestServer.rows("CALL raga.relation.create({head: 'Issus', relation_type: 'DEGRADED', tail: 'Xodar', evidence: 'Issus degraded Xodar',"
                + " source_chunk_id: 'style:xodar:0'}, {corpus: 'style', failOnError: true})");
        for (Map.Entry<String, String> e : nodes.entrySet()) {
            Map<String, Object> r = TestServer.rows("MATCH (n:" + e.getKey() + " {corpus: 'style'}) RETURN count(n) AS all, count(n[$p]) AS captioned",
                    Map.of("p", e.getValue())).get(0);
            assertTrue((Long) r.get("all") > 0, "the corpus has " + e.getKey() + " nodes");
            assertEquals(r.get("all"), r.get("captioned"), e.getKey() + " nodes all hold " + e.getValue());
        }
        for (Map.Entry<String, String> e : rels.entrySet()) {
            Map<String, Object> r = TestServer.rows("MATCH (a {corpus: 'style'})-[x:" + e.getKey() + "]->() RETURN count(x) AS all, count(x[$p]) AS captioned",
                    Map.of("p", e.getValue())).get(0);
            assertTrue((Long) r.get("all") > 0, "the corpus has " + e.getKey() + " relationships");
            assertEquals(r.get("all"), r.get("captioned"), e.getKey() + " relationships all hold " + e.getValue());
        }
    }
}
