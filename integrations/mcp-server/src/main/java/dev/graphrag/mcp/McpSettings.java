package dev.graphrag.mcp;

import java.util.List;
import java.util.Map;

/**
 * How the server is started: the Bolt connection as Neo4j's own MCP servers name it (NEO4J_URI, NEO4J_USERNAME,
 * NEO4J_PASSWORD, NEO4J_DATABASE), the corpus tools use when a call names none, the transport, and whether the
 * ingest tool is offered. Command-line options override the environment; an unknown option is an error naming it.
 */
record McpSettings(String uri, String username, String password, String database, String corpus, String transport, String host, int port,
                   boolean allowWrites) {
    static final List<String> OPTIONS = List.of("--transport", "--host", "--port", "--corpus", "--allow-writes", "--help");

    static final String USAGE = """
            java -jar graphrag-mcp-server.jar [--transport stdio|http] [--host 127.0.0.1] [--port 8080] [--corpus NAME] [--allow-writes]
              environment: NEO4J_URI (bolt://localhost:7687), NEO4J_USERNAME (neo4j), NEO4J_PASSWORD, NEO4J_DATABASE (the server's default),
                           GRAPHRAG_CORPUS (default), GRAPHRAG_MCP_TRANSPORT, GRAPHRAG_MCP_HOST, GRAPHRAG_MCP_PORT, GRAPHRAG_MCP_ALLOW_WRITES (false)
              http serves the Streamable HTTP transport at http://HOST:PORT/mcp; stdio reads JSON-RPC on stdin and writes it on stdout.
              Read-only unless --allow-writes: then the ingest_files tool is offered too.""";

    /** Thrown for --help, so main prints the usage and exits 0. */
    static final class HelpAsked extends RuntimeException {
        HelpAsked() {
            super(USAGE, null, false, false);
        }
    }

    static McpSettings from(String[] args, Map<String, String> env) {
        String transport = env.getOrDefault("GRAPHRAG_MCP_TRANSPORT", "stdio");
        String host = env.getOrDefault("GRAPHRAG_MCP_HOST", "127.0.0.1");
        String port = env.getOrDefault("GRAPHRAG_MCP_PORT", "8080");
        String corpus = env.getOrDefault("GRAPHRAG_CORPUS", "default");
        boolean writes = Boolean.parseBoolean(env.getOrDefault("GRAPHRAG_MCP_ALLOW_WRITES", "false"));
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help", "-h" -> throw new HelpAsked();
                case "--allow-writes" -> writes = true;
                case "--transport", "--host", "--port", "--corpus" -> {
                    if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value\n" + USAGE);
                    String v = args[++i];
                    if (a.equals("--transport")) transport = v;
                    else if (a.equals("--host")) host = v;
                    else if (a.equals("--port")) port = v;
                    else corpus = v;
                }
                default -> throw new IllegalArgumentException("unknown option '" + a + "'; options are " + OPTIONS + "\n" + USAGE);
            }
        }
        if (!transport.equals("stdio") && !transport.equals("http")) {
            throw new IllegalArgumentException("transport must be stdio or http, got '" + transport + "'");
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port must be a number from 1 to 65535, got '" + port + "'");
        }
        if (p < 1 || p > 65535) throw new IllegalArgumentException("port must be a number from 1 to 65535, got " + p);
        return new McpSettings(env.getOrDefault("NEO4J_URI", "bolt://localhost:7687"), env.getOrDefault("NEO4J_USERNAME", "neo4j"),
                env.get("NEO4J_PASSWORD"), env.get("NEO4J_DATABASE"), corpus, transport, host, p, writes);
    }

    @Override
    public String toString() {
        // never the password
        return "McpSettings[uri=" + uri + ", username=" + username + ", database=" + database + ", corpus=" + corpus + ", transport=" + transport
                + (transport.equals("http") ? ", http://" + host + ":" + port + "/mcp" : "") + ", allowWrites=" + allowWrites + "]";
    }
}
