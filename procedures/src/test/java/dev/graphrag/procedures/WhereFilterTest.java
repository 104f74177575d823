package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The where filter in every method's retrieval and answer: a canary sentence in a document outside the filter never
 * appears in a result row or in any request the stand-in LLM receives, and k rows still come back where k chunks
 * pass. Each method's layer is built over documents of which one holds the canary.
 */
class WhereFilterTest {
    static final String CANARY = "ZEPHYRCANARY";
    static final StandInLlm LLM = StandInLlm.start();

    @BeforeAll
    static void rules() {
        // the first matching rule answers: the steps these tests script come before the walk-throughs' replies
        LLM.when(r -> "agrag.answer".equals(r.step())).replyJson(Map.of("thought", "stand-in", "answer", "Austin"));
        LLM.when(r -> "raga.L6".equals(r.step())).replyJson(Map.of("answer", "Warsaw", "answer_type", "extractive",
                "evidence_chunk_ids", List.of("where-raga:a:0")));
        CypherScripts.standInRules(LLM);
    }

    @AfterAll
    static void stop() {
        LLM.close();
    }

    static Map<String, Object> llm() {
        return Map.of("endpoint", LLM.endpoint(), "model", "stand-in");
    }

    /** Documents of team a by id, and one document of team b, id 'canary', holding the canary. */
    static void ingestTeams(String corpus, Map<String, Object> chunking, Map<String, String> teamA, String canaryText) {
        List<Map<String, Object>> docs = new ArrayList<>();
        teamA.forEach((id, text) -> docs.add(Map.of("id", id, "text", text, "metadata", Map.of("team", "a"))));
        docs.add(Map.of("id", "canary", "text", canaryText, "metadata", Map.of("team", "b")));
        Map<String, Object> cfg = new java.util.HashMap<>(chunking);
        cfg.put("corpus", corpus);
        rows("CALL rag.ingest($docs, $cfg)", Map.of("docs", docs, "cfg", cfg));
    }

    /** Nothing the call returned and nothing the stand-in was sent holds the canary. */
    static void assertNoCanary(String what, List<Map<String, Object>> out) {
        assertFalse(out.isEmpty(), what + " returned rows");
        assertFalse(String.valueOf(out).contains(CANARY), what + " returned the canary: " + out);
        for (StandInLlm.Request r : LLM.requests()) assertFalse(r.body().toString().contains(CANARY), what + " sent the canary to the LLM: " + r.body());
    }

    @Test
    void agragKeepsEveryRankingSubgraphAndPromptInsideTheFilter() {
        rows("CALL rag.ingest($docs, {corpus: 'where-agrag'})", Map.of("docs", List.of(
                Map.of("id", "derrickson", "text", "Scott Derrickson directed the horror film Sinister. Sinister stars Ethan Hawke.", "metadata", Map.of("team", "a")),
                Map.of("id", "hawke", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke starred in Sinister.", "metadata", Map.of("team", "a")),
                Map.of("id", "austin", "text", "Austin is the capital of Texas. Ethan Hawke grew up near Austin.", "metadata", Map.of("team", "a")),
                Map.of("id", "canary", "text", "Ethan Hawke was born in Austin " + CANARY + ". Scott Derrickson directed Sinister " + CANARY + ".",
                        "metadata", Map.of("team", "b")))));
        rows("CALL agrag.index({corpus: 'where-agrag', relations: 'cooccurrence'})");
        String q = "Where was the star of Sinister born?";
        // an or, as LangChain4j's Or and Spring AI's OR arrive (the plain form: IngestFilesTest and DocumentFilterTest)
        Map<String, Object> where = Map.of("$or", List.of(Map.of("team", "a"), Map.of("team", "c")));
        // the control: without the filter the canary's chunk ranks among four
        assertTrue(String.valueOf(rows("CALL agrag.retrieve($q, {corpus: 'where-agrag', k: 4, mode: 'hybrid'})", Map.of("q", q))).contains(CANARY));
        LLM.reset();
        rules();
        for (String mode : List.of("ppr", "mcmi", "hybrid")) {
            List<Map<String, Object>> out = rows("CALL agrag.retrieve($q, {corpus: 'where-agrag', k: 3, mode: $mode, where: $where})",
                    Map.of("q", q, "mode", mode, "where", where));
            assertNoCanary("agrag.retrieve " + mode, out);
            assertEquals(3, out.size(), mode + ": k rows when k chunks pass");
        }
        assertNoCanary("agrag.mcmi", rows("CALL agrag.mcmi($q, {corpus: 'where-agrag', where: $where}) YIELD nodes, pathChunkIds, graphStrings"
                + " RETURN [n IN nodes | coalesce(n.text, n.name)] AS texts, pathChunkIds, graphStrings", Map.of("q", q, "where", where)));
        List<Map<String, Object>> answer = rows("CALL agrag.answer($q, {corpus: 'where-agrag', where: $where, llm: $llm, returnPrompt: true})",
                Map.of("q", q, "where", where, "llm", llm()));
        assertNoCanary("agrag.answer", answer);
        List<?> citations = (List<?>) answer.get(0).get("citations");
        assertFalse(citations.isEmpty());
        assertTrue(citations.stream().allMatch(c -> !String.valueOf(((Map<?, ?>) c).get("documentId")).equals("canary")), citations.toString());
        // a misspelt property or a value of the wrong type is named, not answered with nothing (the method procedures as rag.search)
        TestServer.assertFails("CALL agrag.retrieve($q, {corpus: 'where-agrag', where: {tema: 'a'}})", Map.of("q", q), "agrag.retrieve",
                "matches no document of corpus 'where-agrag'", "no Document has the property 'tema' (did you mean 'team'?)");
        TestServer.assertFails("CALL agrag.mcmi($q, {corpus: 'where-agrag', where: {team: 1}})", Map.of("q", q), "'team' is stored as STRING",
                "compares it with the NUMBER 1");
    }

    @Test
    void ragaStreamsFactsAndAnswersStayInsideTheFilter() {
        RagaProceduresTest.buildRetrievalGraph("where-raga");
        // document e ("Marie Curie was born in Warsaw in 1867.") is the one left out
        Map<String, Object> where = Map.of("not", Map.of("documentId", "e"));
        assertTrue(String.valueOf(rows("CALL raga.retrieve('Where was Marie Curie born?', {corpus: 'where-raga', topK: 4, mode: 'vector'})")).contains("1867"),
                "the control: without the filter the left-out chunk ranks among four");
        LLM.reset();
        rules();
        for (String mode : List.of("vector", "kg", "fusion")) {
            List<Map<String, Object>> out = rows("CALL raga.retrieve('Where was Marie Curie born?', {corpus: 'where-raga', topK: 4, mode: $mode, where: $where})"
                    + " YIELD chunkId, text RETURN chunkId, text", Map.of("mode", mode, "where", where));
            assertFalse(String.valueOf(out).contains("1867"), mode + ": " + out);
            if (!mode.equals("kg")) assertEquals(4, out.size(), mode + ": k rows when k chunks pass");
        }
        List<Map<String, Object>> answer = rows("CALL raga.answer('Where was Marie Curie born?', {corpus: 'where-raga', where: $where, llm: $llm})"
                + " YIELD answer, evidence, facts, retrieved RETURN *", Map.of("where", where, "llm", llm()));
        assertFalse(String.valueOf(answer).contains("1867") || String.valueOf(answer).contains("where-raga:e:0"), answer.toString());
        for (StandInLlm.Request r : LLM.requests()) assertFalse(r.body().toString().contains("1867"), "raga.answer sent the left-out chunk: " + r.body());
        Map<?, ?> evidence = (Map<?, ?>) ((List<?>) answer.get(0).get("evidence")).get(0);
        assertTrue(evidence.containsKey("pages") && evidence.containsKey("section"), "evidence says where the chunk is: " + evidence);
    }

    @Test
    void remindWalksAndAnswersOnlyOverChunksInsideTheFilter() {
        ingestTeams("where-remind", Map.of("chunker", "sentences"),
                Map.of("derrickson", "Scott Derrickson is an American film director. Scott Derrickson directed Sinister.",
                        "hawke", "Ethan Hawke was born in Austin, Texas. Ethan Hawke stars in Sinister."),
                "Ethan Hawke and Scott Derrickson met in " + CANARY + ".");
        rows("CALL remind.index({corpus: 'where-remind', llm: $llm})", Map.of("llm", llm()));
        String q = "Where was the star of the film directed by Scott Derrickson born?";
        Map<String, Object> where = Map.of("and", List.of(Map.of("team", "a"), Map.of("$not", Map.of("team", "b"))));
        LLM.reset();
        rules();
        String seeds = "CALL remind.seeds($q, {corpus: 'where-remind', where: $where, seedCount: 10}) YIELD node RETURN node.documentId AS doc";
        assertTrue(rows(seeds.replace("where: $where, ", ""), Map.of("q", q)).stream().anyMatch(r -> "canary".equals(r.get("doc"))),
                "the control: without the filter the canary chunk's anchor is a seed");
        assertTrue(rows(seeds, Map.of("q", q, "where", where)).stream().noneMatch(r -> "canary".equals(r.get("doc"))));
        for (String proc : List.of("remind.query", "remind.answer")) {
            List<Map<String, Object>> out = rows("CALL " + proc + "($q, {corpus: 'where-remind', where: $where, llm: $llm}) YIELD answer, citedChunks, citations, chunks"
                    + " RETURN *", Map.of("q", q, "where", where, "llm", llm()));
            assertNoCanary(proc, out);
            assertTrue(((List<?>) out.get(0).get("chunks")).stream().noneMatch(c -> String.valueOf(c).contains(":canary:")), out.toString());
        }
    }

    @Test
    void hgmemRetrievesStepsAndAnswersOnlyFromChunksInsideTheFilter() {
        ingestTeams("where-hgmem", Map.of("chunkSize", 200L, "chunkOverlap", 50L),
                Map.of("xodar", "Xodar is a Dator of the First Born. Issus degraded Xodar to a slave.",
                        "issus", "Issus is the goddess of the First Born. Issus gave Xodar to Carter."),
                "Issus and Xodar met in " + CANARY + ".");
        rows("CALL hgmem.index({corpus: 'where-hgmem', llm: $llm})", Map.of("llm", llm()));
        Map<String, Object> where = Map.of("team", Map.of("in", List.of("a")));
        assertTrue(String.valueOf(rows("CALL hgmem.retrieve(null, 'Who are Issus and Xodar?', {corpus: 'where-hgmem'}) YIELD text RETURN text")).contains(CANARY),
                "the control: without the filter the canary chunk is retrieved");
        LLM.reset();
        rules();
        assertNoCanary("hgmem.retrieve", rows("CALL hgmem.retrieve(null, 'Who are Issus and Xodar?', {corpus: 'where-hgmem', where: $where})"
                + " YIELD kind, id, text RETURN *", Map.of("where", where)));
        List<Map<String, Object>> out = rows("CALL hgmem.answer('Why is Xodar given to Carter?', {corpus: 'where-hgmem', where: $where, llm: $llm,"
                + " sessionId: 'where-session'}) YIELD kind, answer, citations, chunks RETURN *", Map.of("where", where, "llm", llm()));
        assertNoCanary("hgmem.answer", out);
        // the session keeps its filter: a later retrieval in it that names none still keeps to it
        assertNoCanary("hgmem.retrieve in the session", rows("CALL hgmem.retrieve('where-session', 'Who are Issus and Xodar?', {corpus: 'where-hgmem'})"
                + " YIELD kind, id, text RETURN *"));
        List<String> chunks = new ArrayList<>();
        for (Map<String, Object> r : out) if (r.get("chunks") instanceof List<?> l) l.forEach(c -> chunks.add(String.valueOf(c)));
        assertFalse(chunks.isEmpty());
        assertTrue(chunks.stream().noneMatch(c -> c.contains(":canary:")), chunks.toString());
    }
}
