package dev.graphrag.core.embed;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.llm.EmbeddingEndpoint;
import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** graphrag.embedding.provider=openai against the stand-in's /v1/embeddings: batching, order, faults, caps and the key. */
@LineIndependent
class RemoteEmbedderTest {
    @RegisterExtension
    static final StandInLlm SERVER = StandInLlm.start();
    static final StandInLlm OTHER = StandInLlm.start();
    static final ExecutorService POOL = Executors.newCachedThreadPool();

    @AfterAll
    static void stop() {
        OTHER.close();
        POOL.shutdownNow();
    }

    static PluginSettings settings(Map<String, String> extra) {
        Map<String, String> s = new HashMap<>(Map.of("graphrag.embedding.provider", "openai", "graphrag.embedding.endpoint", SERVER.endpoint(),
                "graphrag.embedding.model", "nomic-embed-text", "graphrag.embedding.retryBaseMs", "5", "graphrag.embedding.batchSize", "8"));
        s.putAll(extra);
        return PluginSettings.fromStrings(s, "test");
    }

    static RemoteEmbedder embedder(PluginSettings s) {
        return new RemoteEmbedder(EmbeddingEndpoint.of(s, Map.of(), line -> {}), s.get(ServerSettings.EMBEDDING_TOKENIZER), "nomic-embed-text",
                s.intValue(ServerSettings.EMBEDDING_MAX_LENGTH), s.intValue(ServerSettings.EMBEDDING_BATCH_SIZE),
                s.get(ServerSettings.EMBEDDING_NORMALIZE), POOL);
    }

    static float[] unit(float[] v) {
        double n = Math.sqrt(EmbeddingService.dot(v, v));
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (float) (v[i] / n);
        return out;
    }

    static List<StandInLlm.Request> embeddingRequests(StandInLlm s) {
        return s.requests().stream().filter(r -> r.path().equals("/v1/embeddings")).toList();
    }

    static List<String> texts(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add("passage number " + i + " about topic " + (i % 7));
        return out;
    }

    @Test
    void theFirstReplyGivesTheDimensionAndVectorsComeBackNormalisedInInputOrder() {
        SERVER.embeddingDimensions(48);
        RemoteEmbedder e = embedder(settings(Map.of()));
        assertEquals(48, e.dimensions());
        assertEquals("remote " + SERVER.endpoint().replace("/v1", ""), e.device());
        List<String> texts = texts(21);
        float[][] v = e.embedTexts(texts, false, () -> false);
        for (int i = 0; i < texts.size(); i++) {
            // the stand-in lists each reply's items last to first: only placing by index gives these
            assertArrayEquals(unit(SERVER.vector(texts.get(i))), v[i], 1e-6f, "text " + i);
        }
        List<StandInLlm.Request> sent = embeddingRequests(SERVER);
        // the probe, then 21 texts in requests of 8
        assertEquals(1, sent.get(0).body().path("input").size());
        assertEquals(List.of(5, 8, 8), sent.subList(1, 4).stream().map(r -> r.body().path("input").size()).sorted().toList());
        assertEquals("nomic-embed-text", sent.get(1).body().path("model").asText());
        assertEquals("float", sent.get(1).body().path("encoding_format").asText());
        assertFalse(sent.get(1).body().has("dimensions"), "no dimensions asked unless configured");
        assertEquals(EmbeddingEndpoint.STEP, sent.get(1).step());
        assertNull(sent.get(1).authorization(), "no key configured, none sent");
    }

    @Test
    void aServiceOverTheEndpointCachesQueriesAndEmbedsChunksByTheirTexts() {
        EmbeddingService s = new EmbeddingService(embedder(settings(Map.of())), 100);
        int before = embeddingRequests(SERVER).size();
        float[] q = s.embed("who wrote the novel");
        assertArrayEquals(q, s.embed("who wrote the novel"));
        assertEquals(before + 1, embeddingRequests(SERVER).size(), "the second query came from the cache");
        float[][] chunks = s.embedChunks(List.of("first chunk text", "second chunk text"), List.of(new int[] {1, 2}, new int[] {3}), () -> false);
        assertArrayEquals(unit(SERVER.vector("second chunk text")), chunks[1], 1e-6f);
        assertThrows(RagException.class, () -> s.embed(" "));
    }

    @Test
    void requestsRunAtMostMaxConcurrentAtOnce() {
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.maxConcurrent", "3")));
        StandInLlm.Rule slow = SERVER.onEmbeddings().delay(80);
        float[][] v = e.embedTexts(texts(80), false, () -> false); // 10 requests
        assertEquals(80, v.length);
        assertEquals(3, slow.maxConcurrent(), "three in flight, never more");
    }

    @Test
    void throttlingAndServerErrorsAreRetriedAndARefusalIsNot() {
        RemoteEmbedder e = embedder(settings(Map.of()));
        SERVER.onEmbeddings().once().status(429).retryAfter("0.01");
        SERVER.onEmbeddings().once().status(503);
        int before = embeddingRequests(SERVER).size();
        assertEquals(3, e.embedTexts(texts(3), false, () -> false).length);
        assertEquals(before + 3, embeddingRequests(SERVER).size(), "two failures, then the answer");

        SERVER.onEmbeddings().once().status(400).rawBody("{\"error\":{\"message\":\"Input validation error: `inputs` must have less than 512 tokens. Given: 700\"}}");
        RagException refused = assertThrows(RagException.class, () -> e.embedTexts(texts(3), false, () -> false));
        assertTrue(refused.getMessage().startsWith("embedding request 'embeddings' failed: HTTP 400"), refused.getMessage());
        assertTrue(refused.getMessage().contains("lower graphrag.ingest.chunkSize"), refused.getMessage());

        SERVER.onEmbeddings().status(500);
        RagException down = assertThrows(RagException.class, () -> e.embedTexts(texts(3), false, () -> false));
        assertTrue(down.getMessage().contains("failed after 4 attempts"), down.getMessage());
    }

    @Test
    void oneFailingRequestFailsTheCallAndStopsTheRest() {
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.maxRetries", "0", "graphrag.embedding.maxConcurrent", "2")));
        SERVER.onEmbeddings(r -> r.body().path("input").get(0).asText().startsWith("passage number 16 ")).status(500);
        int before = embeddingRequests(SERVER).size();
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(texts(200), false, () -> false));
        assertTrue(x.getMessage().contains("HTTP 500"), x.getMessage());
        int sent = embeddingRequests(SERVER).size() - before;
        assertTrue(sent < 25, "25 requests would be the whole list; sent " + sent);
    }

    @Test
    void malformedRepliesAreErrorsThatSayWhatIsWrong() {
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.maxRetries", "0")));
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("not json at all", "not JSON");
        bodies.put("{\"object\":\"list\"}", "without a 'data' array");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}", "returned 1 vectors for 2 texts");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":[1,2]},{\"index\":1,\"embedding\":[1,2,3]}]}", "different lengths");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":[1,2]},{\"index\":0,\"embedding\":[1,2]}]}", "missing or repeated index");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":[1,\"x\"]},{\"index\":1,\"embedding\":[1,2]}]}", "not a number");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":{}},{\"index\":1,\"embedding\":[1,2]}]}", "neither an array nor base64");
        bodies.put("{\"data\":[{\"index\":0,\"embedding\":[]},{\"index\":1,\"embedding\":[]}]}", "empty vector");
        for (Map.Entry<String, String> b : bodies.entrySet()) {
            SERVER.onEmbeddings().once().rawBody(b.getKey());
            RagException x = assertThrows(RagException.class, () -> e.embedTexts(List.of("a text", "another"), false, () -> false), b.getKey());
            assertTrue(x.getMessage().contains(b.getValue()), b.getKey() + " -> " + x.getMessage());
            assertTrue(x.getMessage().contains("model 'nomic-embed-text'"), x.getMessage());
        }
    }

    @Test
    void base64VectorsAreReadAsLittleEndianFloats() {
        RemoteEmbedder e = embedder(settings(Map.of()));
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64 * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 64; i++) b.putFloat(i == 5 ? 2f : 0f);
        String encoded = java.util.Base64.getEncoder().encodeToString(b.array());
        SERVER.onEmbeddings().once().rawBody("{\"data\":[{\"index\":0,\"embedding\":\"" + encoded + "\"}]}");
        float[] v = e.embedTexts(List.of("anything"), false, () -> false)[0];
        assertEquals(1f, v[5], 1e-7f);
    }

    @Test
    void aReplyOfAnotherDimensionThanTheFirstIsRefused() {
        RemoteEmbedder e = embedder(settings(Map.of()));
        SERVER.embeddingDimensions(32);
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(List.of("a text"), false, () -> false));
        assertTrue(x.getMessage().contains("returned 32 dimensions where its first reply had 64"), x.getMessage());
    }

    @Test
    void configuredDimensionsAreAskedForAndChecked() {
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.dimensions", "24")));
        assertEquals(24, e.dimensions());
        assertEquals(24, embeddingRequests(SERVER).get(0).body().path("dimensions").asInt());
        SERVER.onEmbeddings().once().rawBody("{\"data\":[{\"index\":0,\"embedding\":[1,2,3]}]}");
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(List.of("a text"), false, () -> false));
        assertTrue(x.getMessage().contains("returned 3 dimensions where graphrag.embedding.dimensions asks 24"), x.getMessage());
    }

    @Test
    void aReplyOverTheCapIsAbandoned() {
        // the probe's reply (one vector, about 400 bytes) fits; eight vectors do not
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.maxReplyBytes", "1200")));
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(texts(8), false, () -> false));
        assertTrue(x.getMessage().contains("passed 1200 bytes (graphrag.embedding.maxReplyBytes)"), x.getMessage());
    }

    @Test
    void aCancelledCallStops() {
        RemoteEmbedder e = embedder(settings(Map.of()));
        SERVER.onEmbeddings().delay(2_000);
        // cancelled only once the stand-in holds the request: one still on its way when the test ends would be
        // recorded in the next test's requests (a loaded machine can take longer than a few polls to deliver it)
        java.util.concurrent.atomic.AtomicLong arrived = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
        java.util.function.BooleanSupplier cancelled = () -> {
            if (arrived.get() == 0 && embeddingRequests(SERVER).size() >= 2) arrived.set(System.nanoTime());
            return arrived.get() != 0 && polls.incrementAndGet() > 3;
        };
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(texts(3), false, cancelled));
        assertTrue(x.getMessage().contains("cancelled"), x.getMessage());
        assertTrue((System.nanoTime() - arrived.get()) / 1e6 < 1_900, "it did not wait for the reply");
    }

    @Test
    void theEmbeddingKeyGoesToItsEndpointAndTheLlmKeyOnlyWhereItBelongs() {
        // its own key
        embedder(settings(Map.of("graphrag.embedding.apiKey", "sk-embed-1", "graphrag.llm.endpoint", OTHER.endpoint(), "graphrag.llm.apiKey", "sk-llm-2")));
        assertEquals("Bearer sk-embed-1", embeddingRequests(SERVER).get(0).authorization());
        // the LLM's key belongs to another endpoint: not sent here
        SERVER.reset();
        embedder(settings(Map.of("graphrag.llm.endpoint", OTHER.endpoint(), "graphrag.llm.apiKey", "sk-llm-2")));
        assertNull(embeddingRequests(SERVER).get(0).authorization());
        // the LLM's endpoint itself (OpenAI for both): its key goes with it
        SERVER.reset();
        embedder(settings(Map.of("graphrag.llm.endpoint", SERVER.endpoint(), "graphrag.llm.apiKey", "sk-llm-2")));
        assertEquals("Bearer sk-llm-2", embeddingRequests(SERVER).get(0).authorization());
        // from the variable graphrag.embedding.apiKeyEnv names
        SERVER.reset();
        PluginSettings s = settings(Map.of("graphrag.embedding.apiKeyEnv", "MY_EMBED_KEY"));
        new RemoteEmbedder(EmbeddingEndpoint.of(s, Map.of("MY_EMBED_KEY", "sk-env-3"), line -> {}), s.get(ServerSettings.EMBEDDING_TOKENIZER), "m",
                512, 8, true, POOL);
        assertEquals("Bearer sk-env-3", embeddingRequests(SERVER).get(0).authorization());
        // a body that echoes the key is quoted redacted
        SERVER.reset();
        RemoteEmbedder e = embedder(settings(Map.of("graphrag.embedding.apiKey", "sk-embed-1")));
        SERVER.onEmbeddings().once().status(401).rawBody("{\"error\":{\"message\":\"bad key sk-embed-1\"}}");
        RagException x = assertThrows(RagException.class, () -> e.embedTexts(List.of("a"), false, () -> false));
        assertFalse(x.getMessage().contains("sk-embed-1"), x.getMessage());
        assertTrue(x.getMessage().contains("check the API key"), x.getMessage());
        assertFalse(EmbeddingEndpoint.of(settings(Map.of("graphrag.embedding.apiKey", "sk-embed-1")), Map.of(), l -> {}).toString().contains("sk-embed-1"));
        assertTrue(OTHER.requests().isEmpty(), "the LLM endpoint saw nothing");
    }

    @Test
    void aMisspeltProviderOrTokenizerEngineFailsAtStartNamingTheSetting() {
        // the settings are read before the runtime starts: a word outside the declared choices stops the start
        RagException provider = assertThrows(RagException.class,
                () -> new dev.graphrag.core.GraphRagRuntime(settings(Map.of("graphrag.embedding.provider", "ollama")), l -> {}));
        assertEquals("test: setting 'graphrag.embedding.provider' must be one of onnx, openai, got 'ollama'", provider.getMessage());
        RagException engine = assertThrows(RagException.class,
                () -> new dev.graphrag.core.GraphRagRuntime(settings(Map.of("graphrag.embedding.tokenizerEngine", "djl")), l -> {}));
        assertEquals("test: setting 'graphrag.embedding.tokenizerEngine' must be one of auto, builtin, huggingface, got 'djl'", engine.getMessage());
    }

    @Test
    void settingsThatCannotWorkAreErrorsNamingTheSetting() {
        RagException noEndpoint = assertThrows(RagException.class,
                () -> EmbeddingEndpoint.of(settings(Map.of("graphrag.embedding.endpoint", "")), Map.of(), l -> {}));
        assertTrue(noEndpoint.getMessage().contains("graphrag.embedding.endpoint is not set"), noEndpoint.getMessage());
        RagException noModel = assertThrows(RagException.class,
                () -> EmbeddingEndpoint.of(settings(Map.of("graphrag.embedding.model", "classpath:bge-small-en-v1.5-q.onnx")), Map.of(), l -> {}));
        assertTrue(noModel.getMessage().contains("set graphrag.embedding.model to the name the endpoint serves"), noModel.getMessage());
        RagException badUrl = assertThrows(RagException.class,
                () -> EmbeddingEndpoint.of(settings(Map.of("graphrag.embedding.endpoint", "ftp://x/v1")), Map.of(), l -> {}));
        assertTrue(badUrl.getMessage().contains("graphrag.embedding.endpoint must be an http(s) URL"), badUrl.getMessage());
        RagException withUser = assertThrows(RagException.class,
                () -> EmbeddingEndpoint.of(settings(Map.of("graphrag.embedding.endpoint", "http://user:secret@x/v1")), Map.of(), l -> {}));
        assertFalse(withUser.getMessage().contains("secret"), withUser.getMessage());
        RagException refused = assertThrows(RagException.class,
                () -> embedder(settings(Map.of("graphrag.embedding.endpoint", "http://127.0.0.1:9/v1"))));
        assertTrue(refused.getMessage().contains("connection refused at http://127.0.0.1:9") && refused.getMessage().contains("graphrag.embedding.endpoint"),
                refused.getMessage());
    }
}
