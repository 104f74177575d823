package dev.graphrag.procedures;

import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.harness.Neo4j;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server whose graphrag.conf holds an LLM key, as an administrator sets it up: callers reading the database
 * try to get that key sent elsewhere. Its own server (the shared one has no key), started from a graphrag.conf
 * file through the plugin's extension like a real installation.
 */
class LlmKeyIsolationTest {
    static final String SERVER_KEY = "sk-admin-SECRET-31337";
    static final StandInLlm CONFIGURED = StandInLlm.start();
    static final StandInLlm ALLOWED = StandInLlm.start();
    static final StandInLlm ATTACKER = StandInLlm.start();
    static Neo4j neo4j;

    @BeforeAll
    static void start(@TempDir Path dir) {
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, "127.0.0.1", -1, -1, Map.of(
                "graphrag.llm.endpoint", CONFIGURED.endpoint(), "graphrag.llm.model", "admin-model", "graphrag.llm.apiKey", SERVER_KEY,
                "graphrag.llm.allowedEndpoints", ALLOWED.endpoint(), "graphrag.llm.maxRetries", "0")));
        for (StandInLlm s : List.of(CONFIGURED, ALLOWED, ATTACKER)) s.always().reply("ok");
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) neo4j.close();
        CONFIGURED.close();
        ALLOWED.close();
        ATTACKER.close();
    }

    static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return neo4j.defaultDatabaseService().executeTransactionally(cypher, params, r -> r.stream().toList());
    }

    static final String CHAT = "CALL rag.llm.chat([{role: 'user', content: 'hello'}], {llm: $llm, cache: false}) YIELD content RETURN content";

    @Test
    void theConfiguredKeyReachesOnlyTheConfiguredEndpoint() {
        assertEquals("ok", rows(CHAT, Map.of("llm", Map.of())).get(0).get("content"));
        assertEquals("Bearer " + SERVER_KEY, CONFIGURED.requests().get(CONFIGURED.requests().size() - 1).authorization());

        int before = ALLOWED.requests().size();
        rows(CHAT, Map.of("llm", Map.of("endpoint", ALLOWED.endpoint())));
        rows(CHAT, Map.of("llm", Map.of("endpoint", ALLOWED.endpoint(), "apiKey", "sk-callers-own")));
        rows("CALL rag.llm.info({llm: $llm})", Map.of("llm", Map.of("endpoint", ALLOWED.endpoint())));
        List<StandInLlm.Request> got = ALLOWED.requests().subList(before, ALLOWED.requests().size());
        // two chats, then rag.llm.info's look at the server: GET /models, and (stating no window there) GET /props, POST /api/show
        assertEquals(List.of("/v1/chat/completions", "/v1/chat/completions", "/v1/models", "/props", "/api/show"),
                got.stream().map(StandInLlm.Request::path).toList());
        assertNull(got.get(0).authorization(), "an allowed endpoint named per call gets no server key");
        assertEquals("Bearer sk-callers-own", got.get(1).authorization());
        for (StandInLlm.Request r : got.subList(2, got.size())) assertNull(r.authorization(), "nor on " + r.path());

        for (String call : List.of(CHAT, "CALL rag.llm.info({llm: $llm})")) {
            QueryExecutionException e = assertThrows(QueryExecutionException.class,
                    () -> rows(call, Map.of("llm", Map.of("endpoint", ATTACKER.endpoint()))));
            assertTrue(e.getMessage().contains("is not allowed on this server"), e.getMessage());
            assertFalse(e.getMessage().contains(SERVER_KEY));
        }
        assertTrue(ATTACKER.requests().isEmpty(), "the attacker's endpoint saw nothing");
        Map<String, Object> info = rows("CALL rag.llm.info()", Map.of()).get(0);
        assertFalse(info.toString().contains(SERVER_KEY));
    }
}
