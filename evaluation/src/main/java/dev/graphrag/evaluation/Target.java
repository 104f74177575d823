package dev.graphrag.evaluation;

import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.harness.Neo4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the evaluation's Cypher runs: an embedded server of this JVM, or a running Neo4j with the plugin installed,
 * over Bolt. Each call is one auto-committed statement, as a user's own client would send it; rows come back as
 * plain Java values (String, Long, Double, Boolean, List, Map) either way.
 */
public interface Target extends AutoCloseable {
    List<Map<String, Object>> rows(String cypher, Map<String, Object> params);

    /** What the report's heading says about the database (never a password). */
    String describe();

    @Override
    void close();

    /** The embedded server; closing the target stops it. */
    static Target embedded(Neo4j neo4j, String label) {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        return new Target() {
            @Override
            public List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
                return db.executeTransactionally(cypher, params, r -> {
                    List<Map<String, Object>> out = new ArrayList<>();
                    r.forEachRemaining(out::add);
                    return out;
                });
            }

            @Override
            public String describe() { return label; }

            @Override
            public void close() { neo4j.close(); }
        };
    }

    /** A running server; the password (when the server wants one) is the value of {@code passwordEnv}. */
    static Target bolt(String uri, String user, String passwordEnv, String database) {
        String password = passwordEnv == null ? null : System.getenv(passwordEnv);
        if (passwordEnv != null && password == null) throw new IllegalArgumentException("--password-env " + passwordEnv + ": that environment variable is not set");
        Driver driver = GraphDatabase.driver(uri, password == null ? AuthTokens.none() : AuthTokens.basic(user, password));
        try {
            driver.verifyConnectivity();
        } catch (RuntimeException e) {
            driver.close();
            throw new IllegalArgumentException("cannot reach Neo4j at " + uri + ": " + e.getMessage());
        }
        SessionConfig sessions = database == null ? SessionConfig.defaultConfig() : SessionConfig.forDatabase(database);
        return new Target() {
            @Override
            public List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
                try (Session s = driver.session(sessions)) {
                    return s.run(cypher, params).list(r -> r.asMap());
                }
            }

            @Override
            public String describe() { return "Neo4j at " + uri + (database == null ? "" : ", database " + database); }

            @Override
            public void close() { driver.close(); }
        };
    }
}
