package dev.graphrag.procedures;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StandInLlm;
import dev.graphrag.core.llm.StructuredOutput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.graphrag.procedures.TestServer.count;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Core's resumable per-chunk extraction on real Chunk nodes, with the stand-in LLM failing at a chosen chunk. */
class ChunkExtractionTest {
    static final StandInLlm LLM = StandInLlm.start();

    @AfterAll
    static void stop() {
        LLM.close();
    }

    record Entities(List<String> entities) {}

    static final StructuredOutput<Entities> OUTPUT = StructuredOutput.of("entities", Map.of("type", "object", "required", List.of("entities"),
            "properties", Map.of("entities", Map.of("type", "array", "items", Map.of("type", "string")))), Entities.class, null);

    static final ChunkExtraction.Store<Entities> STORE = new ChunkExtraction.Store<>("testEntities", "testEntitiesKey",
            e -> e.entities().toArray(new String[0]), v -> new Entities(List.of((String[]) v)));

    static List<ChunkExtraction.Input> chunks(String corpus, int n) {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) docs.add(Map.of("id", String.format("d%02d", i), "text", "Entity" + i + " met Other" + i + " on Barsoom."));
        rows("CALL rag.ingest($docs, {corpus: $c})", Map.of("docs", docs, "c", corpus));
        return rows("MATCH (c:Chunk {corpus: $c}) RETURN c.id AS id, c.text AS text ORDER BY id", Map.of("c", corpus)).stream()
                .map(r -> new ChunkExtraction.Input((String) r.get("id"), (String) r.get("text"))).toList();
    }

    static ChunkExtraction.Result<Entities> run(List<ChunkExtraction.Input> input, String key, int parallelism, ChunkExtraction.OnError onError) {
        PluginSettings s = PluginSettings.fromStrings(Map.of("graphrag.llm.endpoint", LLM.endpoint(), "graphrag.llm.model", key,
                "graphrag.llm.maxRetries", "0"), "test");
        LlmConfig cfg = LlmConfig.resolve(s, null, "test", Map.of());
        LlmClient llm = LlmClient.of(s, m -> {});
        ChunkExtraction.Extractor<Entities> ex = ChunkExtraction.structured(llm, cfg, "test extraction",
                c -> List.of(Map.of("role", "user", "content", "Entities of: " + c.text())), OUTPUT, () -> false);
        return new ChunkExtraction<>(TestServer.db(), STORE, ex, new ChunkExtraction.Settings("test.extract", key, parallelism, 3, onError),
                () -> false, m -> {}).run(input);
    }

    static void answerWithTheChunksEntity() {
        for (int i = 0; i < 40; i++) {
            String e = "Entity" + i;
            LLM.when(StandInLlm.lastUserContains(e + " met")).replyJson(Map.of("entities", List.of(e)));
        }
    }

    @Test
    void aFaultAtChunkNKeepsTheDoneOnesAndTheRerunAsksOnlyForTheRest() {
        List<ChunkExtraction.Input> input = chunks("extract1", 10);
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Entity6 met")).status(400).rawBody("{\"error\": {\"message\": \"bad request\"}}");
        answerWithTheChunksEntity();
        RagException e = assertThrows(RagException.class, () -> run(input, "model-a", 1, ChunkExtraction.OnError.FAIL));
        assertTrue(e.getMessage().contains("extract1:d06:0") && e.getMessage().contains("kept for the next run"), e.getMessage());
        assertEquals(6, count("MATCH (c:Chunk {corpus: 'extract1'}) WHERE c.testEntities IS NOT NULL RETURN count(c)", Map.of()));

        LLM.reset();
        answerWithTheChunksEntity();
        ChunkExtraction.Result<Entities> r = run(input, "model-a", 1, ChunkExtraction.OnError.FAIL);
        assertEquals(6, r.reused());
        assertEquals(4, r.extracted());
        assertEquals(4, LLM.requests().size(), "only the chunks not done were asked for");
        for (int i = 0; i < 10; i++) assertEquals(List.of("Entity" + i), r.byChunk().get(String.format("extract1:d%02d:0", i)).entities());
        assertEquals(4, r.usage().calls());
        assertEquals(LLM.requests().stream().mapToLong(StandInLlm::promptTokens).sum(), r.usage().promptTokens(),
                "usage matches the server's own count");

        // another model is another key: everything is extracted again
        LLM.reset();
        answerWithTheChunksEntity();
        assertEquals(10, run(input, "model-b", 1, ChunkExtraction.OnError.FAIL).extracted());
    }

    @Test
    void parallelExtractionGivesTheSameResultsAndSkipsFailuresWhenAsked() {
        List<ChunkExtraction.Input> input = chunks("extract2", 12);
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Entity3 met")).reply("not json at all");
        LLM.when(r -> r.lastUserContent().startsWith("Your reply could not be used")).reply("still not json");
        answerWithTheChunksEntity();
        ChunkExtraction.Result<Entities> r = run(input, "model-p", 4, ChunkExtraction.OnError.SKIP);
        assertEquals(List.of("extract2:d03:0"), r.failedChunks());
        assertEquals(11, r.extracted());
        assertEquals(List.of("Entity7"), r.byChunk().get("extract2:d07:0").entities());
        assertEquals(11, count("MATCH (c:Chunk {corpus: 'extract2'}) WHERE c.testEntitiesKey = 'model-p' RETURN count(c)", Map.of()));
        assertTrue(LLM.requests().stream().map(StandInLlm.Request::step).allMatch("test extraction"::equals));
    }

    @Test
    void byDefaultAnUnusableReplySkipsItsChunkAnEndpointFaultFailsAndAModelThatIsMostlyUnusableStops() {
        List<ChunkExtraction.Input> input = chunks("extract3", 12);
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Entity3 met")).reply("I'm sorry, I can't do that.");
        LLM.when(r -> r.lastUserContent().startsWith("Your reply could not be used")).reply("Sorry again.");
        answerWithTheChunksEntity();
        ChunkExtraction.Result<Entities> r = run(input, "model-u", 1, ChunkExtraction.OnError.SKIP_UNUSABLE);
        assertEquals(List.of("extract3:d03:0"), r.failedChunks());
        dev.graphrag.core.llm.Usage.Step step = r.usage().byStep().get("test extraction");
        assertEquals(1, step.unusable());
        assertEquals(Map.of(ChunkExtraction.SKIPPED, 1L), step.fallbacks());
        assertEquals(13, step.calls(), "eleven replies, and the unusable one with its repair turn");

        // an endpoint fault is not the model's content: the run fails, the chunks done so far kept
        List<ChunkExtraction.Input> more = chunks("extract4", 4);
        LLM.reset();
        LLM.when(StandInLlm.lastUserContains("Entity2 met")).status(400).rawBody("{\"error\": {\"message\": \"bad request\"}}");
        answerWithTheChunksEntity();
        RagException e = assertThrows(RagException.class, () -> run(more, "model-u", 1, ChunkExtraction.OnError.SKIP_UNUSABLE));
        assertTrue(e.getMessage().contains("extract4:d02:0"), e.getMessage());

        // a model whose every reply is unusable: the run stops at the tenth chunk instead of building an empty layer
        List<ChunkExtraction.Input> many = chunks("extract5", 14);
        LLM.reset();
        LLM.always().reply("I'm sorry, I can't do that.");
        e = assertThrows(RagException.class, () -> run(many, "model-u", 1, ChunkExtraction.OnError.SKIP_UNUSABLE));
        assertTrue(e.getMessage().contains("unusable for " + ChunkExtraction.MIN_SKIPPED_TO_STOP + " of " + ChunkExtraction.MIN_SKIPPED_TO_STOP + " chunks")
                && e.getMessage().contains("rag.llm.check"), e.getMessage());
        assertEquals(2 * ChunkExtraction.MIN_SKIPPED_TO_STOP, LLM.requests().size(), "no chunk after the tenth was asked");
    }
}
