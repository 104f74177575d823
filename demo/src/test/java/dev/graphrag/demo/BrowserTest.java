package dev.graphrag.demo;

import org.junit.jupiter.api.Test;
import org.neo4j.harness.Neo4j;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedded server's HTTP connector serves Neo4j Browser at /browser/, as the demo promises. */
class BrowserTest {
    @Test
    void browserIsServed() throws Exception {
        Path work = Files.createDirectories(BuildLayout.here().resolve("neo4j-browser-test"));
        try (Neo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(work, null, "127.0.0.1", -1, 0))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(neo4j.httpURI() + "browser/")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertTrue(r.body().toLowerCase().contains("<html"), r.body().substring(0, Math.min(200, r.body().length())));
        }
    }
}
