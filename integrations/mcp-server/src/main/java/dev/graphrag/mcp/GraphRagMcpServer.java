package dev.graphrag.mcp;

import dev.graphrag.client.GraphRagClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The MCP server: one Bolt connection (the user's credentials) and the tool catalogue, over stdio (the client starts
 * this jar) or Streamable HTTP at /mcp (a service clients connect to). Logs go to stderr; stdout carries only the
 * stdio transport's messages.
 */
public final class GraphRagMcpServer {
    static final String NAME = "graphrag-neo4j";
    static final String INSTRUCTIONS = "Graph-RAG over a Neo4j database: call list_corpora first to see the corpora and which methods' layers are built,"
            + " then search or a method's *_retrieve for passages, or a method's *_answer for an answer with citations. Cite the sources"
            + " (document, pages, section) the tools return.";

    private GraphRagMcpServer() {}

    public static void main(String[] args) throws Exception {
        McpSettings settings;
        try {
            settings = McpSettings.from(args, System.getenv());
        } catch (McpSettings.HelpAsked help) {
            System.out.println(help.getMessage());
            return;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        GraphRagClient client;
        try {
            client = GraphRagClient.connect(settings.uri(), settings.username(), settings.password(), settings.database());
        } catch (RuntimeException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        System.err.println(NAME + ": " + settings);
        McpJsonMapper json = McpJsonDefaults.getMapper();
        ToolCatalog catalog = new ToolCatalog(client, settings.corpus());
        McpSchema.ServerCapabilities capabilities = McpSchema.ServerCapabilities.builder().tools(false).build();
        String version = GraphRagMcpServer.class.getPackage().getImplementationVersion();
        if (settings.transport().equals("stdio")) {
            McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(json)).serverInfo(NAME, version == null ? "dev" : version)
                    .instructions(INSTRUCTIONS).capabilities(capabilities).tools(catalog.tools(settings.allowWrites())).build();
            // the transport reads stdin on its own threads; end when it closes
            CountDownLatch forever = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.closeGracefully();
                client.close();
                forever.countDown();
            }));
            forever.await();
            return;
        }
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder().jsonMapper(json).mcpEndpoint("/mcp").build();
        McpSyncServer server = McpServer.sync(transport).serverInfo(NAME, version == null ? "dev" : version)
                .instructions(INSTRUCTIONS).capabilities(capabilities).tools(catalog.tools(settings.allowWrites())).build();
        Tomcat tomcat = http(transport, settings.host(), settings.port());
        System.err.println(NAME + ": Streamable HTTP at http://" + settings.host() + ":" + tomcat.getConnector().getLocalPort() + "/mcp");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.closeGracefully();
            try {
                tomcat.stop();
            } catch (Exception ignored) {
                // stopping anyway
            }
            client.close();
        }));
        tomcat.getServer().await();
    }

    /** An embedded Tomcat with the transport's servlet at /mcp (async, as Streamable HTTP streams its replies). */
    static Tomcat http(HttpServletStreamableServerTransportProvider transport, String host, int port) throws Exception {
        Tomcat tomcat = new Tomcat();
        Path base = Files.createTempDirectory("graphrag-mcp-tomcat");
        base.toFile().deleteOnExit();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname(host);
        tomcat.setPort(port);
        tomcat.getConnector().setProperty("address", host);
        Context context = tomcat.addContext("", base.toString());
        Wrapper servlet = Tomcat.addServlet(context, "mcp", transport);
        servlet.setAsyncSupported(true);
        context.addServletMappingDecoded("/mcp", "mcp");
        tomcat.start();
        return tomcat;
    }
}
