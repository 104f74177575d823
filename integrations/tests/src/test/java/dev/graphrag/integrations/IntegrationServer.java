package dev.graphrag.integrations;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.core.llm.StandInLlm;
import dev.graphrag.procedures.ServerHome;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Neo4j server home per test JVM with the plugin jar that ships in plugins/ (as an administrator installs it),
 * its LLM the stand-in OpenAI-compatible server, and one corpus every integration test reads: three documents of
 * team a about Sinister and Ethan Hawke, and a canary document of team b that would rank among them but lies outside
 * every filter the tests give. The AGRAG (co-occurrence relations), ReMind, HGMem and RAGA layers are built
 * over it.
 */
final class IntegrationServer {
    static final String CORPUS = "apps";
    static final String CANARY = "QUOKKACANARY";
    static final StandInLlm LLM = StandInLlm.start();
    private static ServerHome server;
    private static GraphRagClient client;

    private IntegrationServer() {}

    static synchronized GraphRagClient client() {
        if (client == null) {
            try {
                server = ServerHome.start(jar -> true, List.of(), List.of(),
                        List.of("graphrag.llm.endpoint=" + LLM.endpoint(), "graphrag.llm.model=stand-in", "graphrag.llm.retryBaseMs=20"));
            } catch (Exception e) {
                throw new IllegalStateException("the server home did not start", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.close();
                } catch (Exception ignored) {
                    // the JVM is ending; the temp home goes with the machine
                }
            }));
            client = GraphRagClient.connect("bolt://127.0.0.1:" + server.boltPort, "neo4j", "unused-auth-is-off", null);
            List<Map<String, Object>> docs = new ArrayList<>();
            docs.add(doc("derrickson", "Scott Derrickson directed the horror film Sinister. Sinister stars Ethan Hawke.", "a"));
            docs.add(doc("hawke", "Ethan Hawke was born in Austin, Texas. Ethan Hawke starred in Sinister.", "a"));
            docs.add(doc("austin", "Austin is the capital of Texas. Ethan Hawke grew up near Austin.", "a"));
            docs.add(doc("canary", "Ethan Hawke was born in Austin " + CANARY + ". Scott Derrickson directed Sinister " + CANARY + ".", "b"));
            client.ingest(docs, CORPUS, Map.of());
            // the layers' LLM steps answer with the walk-throughs' scripted replies (the procedures' CypherScripts)
            dev.graphrag.procedures.CypherScripts.standInRules(LLM);
            try (var driver = server.driver(); var session = driver.session()) {
                session.run("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", CORPUS)).consume();
                session.run("CALL remind.index({corpus: $c})", Map.of("c", CORPUS)).consume();
                session.run("CALL hgmem.index({corpus: $c})", Map.of("c", CORPUS)).consume();
                session.run("CALL raga.ingest([], {corpus: $c})", Map.of("c", CORPUS)).consume();
            }
            LLM.reset();
        }
        return client;
    }

    static String boltUri() {
        client();
        return "bolt://127.0.0.1:" + server.boltPort;
    }

    private static Map<String, Object> doc(String id, String text, String team) {
        return Map.of("id", id, "text", text, "metadata", Map.of("team", team, "year", team.equals("a") ? 2025L : 2024L));
    }

    /** Scripts the layers' steps again after a test's own rules (the first rule that matches answers). */
    static void layerRules() {
        dev.graphrag.procedures.CypherScripts.standInRules(LLM);
    }

    /** The requests the application's own model got (the plugin's carry an X-Rag-Step header, the app's none). */
    static List<StandInLlm.Request> appRequests() {
        return LLM.requests().stream().filter(r -> r.step() == null && "POST".equals(r.method())).toList();
    }
}
