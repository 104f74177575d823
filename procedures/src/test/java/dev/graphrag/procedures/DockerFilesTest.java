package dev.graphrag.procedures;

import dev.graphrag.core.config.ServerSettings;
import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The docker/ files, checked as far as this machine can (no image can be pulled or built here): the compose file
 * parses and refers only to things that exist; healthchecks; the model pulled by a one-shot service Neo4j waits for;
 * no password in any committed file; exactly one plugin jar, the one the build produced; memory, volumes and ports
 * set from the env file, whose example defines every variable the compose file needs.
 */
@LineIndependent
class DockerFilesTest {
    static final Path DOCKER = Path.of("..", "docker");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z_][A-Z0-9_]*)(:?[-?][^}]*)?}");

    @SuppressWarnings("unchecked")
    static Map<String, Object> compose(String file) throws IOException {
        return (Map<String, Object>) new Yaml().load(Files.readString(DOCKER.resolve(file)));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o, String what) {
        assertTrue(o instanceof Map, what + " is a map: " + o);
        return (Map<String, Object>) o;
    }

    @Test
    void composeServicesHealthchecksAndStartOrder() throws IOException {
        Map<String, Object> services = map(compose("docker-compose.yml").get("services"), "services");
        assertEquals(Set.of("neo4j", "ollama", "ollama-pull", "mcp"), services.keySet());
        Map<String, Object> mcp = map(services.get("mcp"), "mcp");
        assertEquals("service_healthy", map(map(mcp.get("depends_on"), "depends_on").get("neo4j"), "").get("condition"), "the MCP server waits for Neo4j");
        assertTrue(String.valueOf(mcp.get("command")).contains("--transport, http"), "the service speaks Streamable HTTP: " + mcp.get("command"));
        for (Object v : (List<?>) mcp.get("volumes")) {
            String jar = v.toString().substring(0, v.toString().indexOf(':'));
            assertTrue(jar.startsWith("../integrations/mcp-server/target/graphrag-mcp-server-") && jar.endsWith("-all.jar"), "the runnable jar the build makes: " + v);
        }
        assertTrue(String.valueOf(map(mcp.get("environment"), "mcp environment").get("NEO4J_PASSWORD")).startsWith("${MCP_NEO4J_PASSWORD:?"),
                "no password in the compose file");
        Map<String, Object> neo4j = map(services.get("neo4j"), "neo4j"), ollama = map(services.get("ollama"), "ollama"),
                pull = map(services.get("ollama-pull"), "ollama-pull");
        assertNotNull(neo4j.get("healthcheck"), "neo4j has a healthcheck");
        assertNotNull(ollama.get("healthcheck"), "ollama has a healthcheck");
        assertEquals("service_completed_successfully", map(map(neo4j.get("depends_on"), "depends_on").get("ollama-pull"), "").get("condition"),
                "Neo4j starts once the model is pulled");
        assertEquals("service_healthy", map(map(pull.get("depends_on"), "depends_on").get("ollama"), "").get("condition"));
        assertTrue(pull.get("entrypoint").toString().contains("pull"), "the one-shot service pulls the model");
        assertEquals(ollama.get("image"), pull.get("image"), "the pull uses the server's own CLI");

        Map<String, Object> env = map(neo4j.get("environment"), "neo4j environment");
        for (String k : List.of("NEO4J_server_memory_heap_initial__size", "NEO4J_server_memory_heap_max__size", "NEO4J_server_memory_pagecache_size")) {
            assertTrue(env.containsKey(k), "memory setting " + k);
        }
        // Ollama cuts longer prompts silently: its window and the plugin's must be the same setting, at the plugin's default
        String window = "${LLM_CONTEXT_TOKENS:-" + dev.graphrag.core.config.PluginSettings.defaults().get(ServerSettings.LLM_CONTEXT_TOKENS) + "}";
        assertEquals(window, String.valueOf(env.get("GRAPHRAG_LLM_CONTEXT_TOKENS")), "the plugin's window");
        assertEquals(window, String.valueOf(map(ollama.get("environment"), "ollama environment").get("OLLAMA_CONTEXT_LENGTH")), "Ollama's window");
        List<String> volumes = (List<String>) neo4j.get("volumes");
        assertTrue(volumes.stream().anyMatch(v -> v.endsWith(":/data")) && volumes.stream().anyMatch(v -> v.endsWith(":/logs"))
                && volumes.stream().anyMatch(v -> v.contains(":/conf")), "data, logs and conf volumes: " + volumes);
        for (String v : volumes) {
            if (v.startsWith("./")) assertTrue(Files.isDirectory(DOCKER.resolve(v.substring(2, v.indexOf(':')))), "bind mount source exists: " + v);
        }
        assertTrue(Files.isRegularFile(DOCKER.resolve("conf/graphrag.conf")));
        for (Object port : (List<?>) neo4j.get("ports")) assertTrue(port.toString().startsWith("${"), "host ports come from the env file: " + port);
        Map<String, Object> build = map(neo4j.get("build"), "build");
        assertTrue(Files.isRegularFile(DOCKER.resolve(build.get("context").toString()).resolve(build.get("dockerfile").toString())), "the Dockerfile exists");

        Map<String, Object> gpu = map(map(compose("docker-compose.gpu.yml").get("services"), "gpu services").get("neo4j"), "gpu neo4j");
        assertEquals("cuda", map(gpu.get("environment"), "gpu environment").get("GRAPHRAG_EMBEDDING_DEVICE"));
    }

    @Test
    void noPasswordAndExactlyThePluginJarTheBuildMade() throws IOException {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        assertFalse(dockerfile.contains("NEO4J_AUTH="), "no password baked into the image");
        assertTrue(dockerfile.contains("COPY ${PLUGIN_JAR} /plugins/"), "one named jar, not a glob that would take the CPU and GPU builds together");
        String composeText = Files.readString(DOCKER.resolve("docker-compose.yml"));
        assertTrue(composeText.contains("NEO4J_AUTH: ${NEO4J_AUTH:?"), "compose refuses to start without a password from the env file");

        Properties example = new Properties();
        try (var in = Files.newInputStream(DOCKER.resolve(".env.example"))) {
            example.load(in);
        }
        Set<String> used = new LinkedHashSet<>();
        for (String f : List.of("docker-compose.yml", "docker-compose.gpu.yml")) {
            Matcher m = VARIABLE.matcher(Files.readString(DOCKER.resolve(f)));
            while (m.find()) used.add(m.group(1));
        }
        for (String v : used) assertTrue(example.containsKey(v), ".env.example defines " + v);
        // the jar the env file names for this build's line is the one this build packaged (a version bump that forgets
        // docker/ fails here): the default for 5.26, the commented alternative, with its image, for the calendar line
        String jar = example.getProperty("GRAPHRAG_PLUGIN_JAR");
        assertTrue(composeText.contains("PLUGIN_JAR: ${GRAPHRAG_PLUGIN_JAR:-" + jar + "}"), "compose and the env example agree on the default jar");
        assertTrue(composeText.contains("NEO4J_IMAGE: ${GRAPHRAG_NEO4J_IMAGE:-" + example.getProperty("GRAPHRAG_NEO4J_IMAGE") + "}"), "and on the default image");
        assertTrue(dockerfile.contains("ARG NEO4J_IMAGE=" + example.getProperty("GRAPHRAG_NEO4J_IMAGE")), "and the Dockerfile");
        if ("2026".equals(System.getProperty("graphrag.neo4j.line"))) {
            String text = Files.readString(DOCKER.resolve(".env.example"));
            Matcher alt = Pattern.compile("(?m)^# GRAPHRAG_PLUGIN_JAR=(\\S+)$").matcher(text);
            assertTrue(alt.find(), "the env example names the calendar line's jar");
            jar = alt.group(1);
            assertTrue(text.contains("# GRAPHRAG_NEO4J_IMAGE=neo4j:2026."), "with a calendar-release image");
        }
        assertTrue(Files.isRegularFile(Path.of("..").resolve(jar)), "the plugin jar the env file names exists after package: " + jar);
        assertEquals(PluginJarTest.pluginJar().getFileName().toString(), Path.of(jar).getFileName().toString());
        assertTrue(Files.readString(Path.of("..", ".gitignore")).lines().anyMatch("docker/.env"::equals), "the real env file is never committed");

        List<String> ignore = Files.readAllLines(Path.of("..", ".dockerignore"));
        assertEquals("*", ignore.stream().filter(l -> !l.isBlank() && !l.startsWith("#")).findFirst().orElse(null), "the build context starts empty");
        assertTrue(ignore.contains("!procedures/target/graphrag-neo4j-*.jar") && ignore.contains("!procedures/target-neo4j-2026/graphrag-neo4j-*.jar")
                && ignore.contains("!docker/conf/"), "and lets in only the jars and the conf");
    }
}
