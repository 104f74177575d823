package dev.graphrag.integrations;

import dev.graphrag.core.llm.StandInLlm;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.service.tool.ToolExecutionResult;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.graphrag.integrations.IntegrationServer.CANARY;
import static dev.graphrag.integrations.IntegrationServer.LLM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MCP server jar, started as a client starts it (stdio) and as a service (Streamable HTTP), listed and called by
 * the MCP Java SDK's client and by LangChain4j's MCP client (its own protocol implementation, not the SDK's) against
 * the real server: tools with schemas, answers with citations, where kept, the plugin's errors as tool errors,
 * read-only unless writes are allowed.
 */
class McpServerTest {
    static final List<String> READ_TOOLS = List.of("search", "agrag_retrieve", "agrag_answer", "hgmem_retrieve", "hgmem_answer", "raga_retrieve",
            "raga_answer", "remind_retrieve", "remind_answer", "list_corpora", "check_model");
    static final List<Process> STARTED = new ArrayList<>();

    @BeforeEach
    void reset() {
        IntegrationServer.client();
        LLM.reset();
        LLM.when(r -> "agrag.answer".equals(r.step())).replyJson(Map.of("thought", "stand-in", "answer", "Austin"));
        IntegrationServer.layerRules();
    }

    @AfterAll
    static void stop() {
        STARTED.forEach(Process::destroyForcibly);
    }

    static Path jar() {
        // the tests run in procedures/ (the server home's helpers read from there); the jar is the mcp-server module's
        Path jar = Path.of("../integrations/mcp-server", System.getProperty("graphrag.build.dir", "target"), "graphrag-mcp-server-" + version() + "-all.jar");
        assertTrue(Files.isRegularFile(jar), "no MCP server jar " + jar.toAbsolutePath() + ": run the build's package phase first");
        return jar;
    }

    static String version() {
        String jarName = System.getProperty("graphrag.plugin.jar"); // graphrag-neo4j-<version>.jar
        return jarName.substring("graphrag-neo4j-".length(), jarName.length() - ".jar".length());
    }

    static Map<String, String> env() {
        return Map.of("NEO4J_URI", IntegrationServer.boltUri(), "NEO4J_USERNAME", "neo4j", "NEO4J_PASSWORD", "unused-auth-is-off",
                "GRAPHRAG_CORPUS", IntegrationServer.CORPUS);
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts the jar with --transport http and waits for the line that gives its address. */
    static String startHttp(String... extra) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(java(), "-jar", jar().toString(), "--transport", "http", "--port", String.valueOf(port)));
        command.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env());
        Process p = pb.start();
        STARTED.add(p);
        CompletableFuture<String> ready = new CompletableFuture<>();
        StringBuilder log = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    log.append(line).append('\n');
                    if (line.contains("Streamable HTTP at ")) ready.complete(line.substring(line.indexOf("http://")));
                }
            } catch (Exception ignored) {
                // the process ended
            }
            ready.completeExceptionally(new AssertionError("the MCP server ended before it listened:\n" + log));
        });
        reader.setDaemon(true);
        reader.start();
        return ready.get(60, TimeUnit.SECONDS);
    }

    static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    static String text(McpSchema.CallToolResult r) {
        StringBuilder b = new StringBuilder();
        for (McpSchema.Content c : r.content()) if (c instanceof McpSchema.TextContent t) b.append(t.text());
        return b.toString();
    }

    /** What every client must see: the tools with schemas, search and an answer inside the where, errors as tool errors. */
    static void exercise(McpSyncClient client, boolean writes) {
        client.initialize();
        List<McpSchema.Tool> tools = client.listTools().tools();
        List<String> names = tools.stream().map(McpSchema.Tool::name).toList();
        assertTrue(names.containsAll(READ_TOOLS), names.toString());
        assertEquals(writes, names.contains("ingest_files"), "ingest_files only with writes allowed: " + names);
        for (McpSchema.Tool t : tools) {
            assertTrue(t.description().length() > 40, t.name() + " describes itself");
            assertEquals("object", t.inputSchema().get("type"), t.name());
            assertEquals(Boolean.FALSE, t.inputSchema().get("additionalProperties"), t.name());
            assertTrue(t.inputSchema().get("properties") instanceof Map<?, ?>, t.name());
        }
        McpSchema.CallToolResult search = call(client, "search", Map.of("query", "Where was Ethan Hawke born?", "k", 3, "where", Map.of("team", "a")));
        assertFalse(Boolean.TRUE.equals(search.isError()), text(search));
        assertTrue(text(search).contains("Ethan Hawke was born in Austin, Texas."), text(search));
        assertFalse(text(search).contains(CANARY), text(search));
        assertEquals(3, ((List<?>) ((Map<?, ?>) search.structuredContent()).get("passages")).size(), "k passages");
        McpSchema.CallToolResult answer = call(client, "agrag_answer", Map.of("question", "Where was the star of Sinister born?", "where", Map.of("team", "a")));
        assertFalse(Boolean.TRUE.equals(answer.isError()), text(answer));
        assertTrue(text(answer).startsWith("Austin") && text(answer).contains("Sources:\n[1] "), text(answer));
        assertFalse(((List<?>) ((Map<?, ?>) answer.structuredContent()).get("citations")).isEmpty());
        for (StandInLlm.Request r : LLM.requests()) assertFalse(r.body().toString().contains(CANARY), "the where reached agrag.answer's prompt");
        McpSchema.CallToolResult corpora = call(client, "list_corpora", Map.of());
        assertTrue(text(corpora).contains(IntegrationServer.CORPUS + ": 4 documents") && text(corpora).contains("agrag"), text(corpora));
        int before = LLM.requests().size();
        McpSchema.CallToolResult check = call(client, "check_model", Map.of());
        assertFalse(Boolean.TRUE.equals(check.isError()), text(check));
        assertEquals(before, LLM.requests().size(), "check_model is a dry run unless asked: nothing sent to the model");
        // the plugin's message as a tool error; an argument the schema lacks named
        McpSchema.CallToolResult typo = call(client, "search", Map.of("query", "Austin", "where", Map.of("tema", "a")));
        assertTrue(Boolean.TRUE.equals(typo.isError()) && text(typo).startsWith("rag.search: where") && text(typo).contains("did you mean 'team'?"), text(typo));
        McpSchema.CallToolResult unknown = call(client, "search", Map.of("query", "Austin", "top", 3));
        // the SDK checks the arguments against the schema before the tool runs (the tool's own check names it the same way)
        assertTrue(Boolean.TRUE.equals(unknown.isError()) && text(unknown).contains("'top' is not defined in the schema"), text(unknown));
    }

    @Test
    void theSdkClientListsAndCallsTheToolsOverStdio() {
        ServerParameters params = ServerParameters.builder(java()).args("-jar", jar().toString()).env(env()).build();
        try (McpSyncClient client = McpClient.sync(new StdioClientTransport(params, McpJsonDefaults.getMapper())).requestTimeout(Duration.ofSeconds(120)).build()) {
            exercise(client, false);
        }
    }

    @Test
    void theSdkClientListsAndCallsTheToolsOverStreamableHttpWithWritesAllowed() throws Exception {
        String url = startHttp("--allow-writes");
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(url.substring(0, url.length() - "/mcp".length()))
                .endpoint("/mcp").build();
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120)).build()) {
            exercise(client, true);
            // a write tool answers with the plugin's row for a source that matches nothing (the graph unchanged)
            McpSchema.CallToolResult ingest = call(client, "ingest_files", Map.of("source", "nothing-here-*.md"));
            assertFalse(Boolean.TRUE.equals(ingest.isError()), text(ingest));
            assertTrue(text(ingest).contains("no_match"), text(ingest));
        }
    }

    @Test
    void langChain4jsOwnMcpClientListsAndCallsTheToolsOverBothTransports() throws Exception {
        String url = startHttp();
        StdioMcpTransport stdio = new StdioMcpTransport.Builder().command(List.of(java(), "-jar", jar().toString())).environment(env()).build();
        StreamableHttpMcpTransport http = new StreamableHttpMcpTransport.Builder().url(url).timeout(Duration.ofSeconds(120)).build();
        for (var transport : List.of(stdio, http)) {
            try (DefaultMcpClient client = new DefaultMcpClient.Builder().transport(transport).toolExecutionTimeout(Duration.ofSeconds(120)).build()) {
                List<String> names = client.listTools().stream().map(ToolSpecification::name).toList();
                assertTrue(names.containsAll(READ_TOOLS) && !names.contains("ingest_files"), names.toString());
                ToolExecutionResult search = client.executeTool(ToolExecutionRequest.builder().id("1").name("search")
                        .arguments("{\"query\": \"Where was Ethan Hawke born?\", \"k\": 3, \"where\": {\"not\": {\"team\": \"b\"}}}").build());
                assertFalse(search.isError(), search.resultText());
                assertTrue(search.resultText().contains("Ethan Hawke was born in Austin, Texas.") && !search.resultText().contains(CANARY), search.resultText());
                ToolExecutionResult answer = client.executeTool(ToolExecutionRequest.builder().id("2").name("agrag_answer")
                        .arguments("{\"question\": \"Where was the star of Sinister born?\", \"where\": {\"team\": \"a\"}}").build());
                // LangChain4j's client reads the structured content where a tool gives one
                assertTrue(answer.resultText().contains("\"answer\":\"Austin\"") && answer.resultText().contains("\"chunkId\":\"apps:hawke:0\""),
                        answer.resultText());
            }
        }
    }
}
