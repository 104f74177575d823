package dev.graphrag.springai;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code graphrag.*} in application.properties: the Neo4j server with the plugin, and what the retriever asks. The
 * password is never logged or returned ({@link #toString()} leaves it out).
 */
@ConfigurationProperties(prefix = "graphrag")
public class GraphRagProperties {
    /** Bolt or neo4j URI of a server (or cluster) with the plugin installed. */
    private String uri = "bolt://localhost:7687";
    private String username = "neo4j";
    private String password;
    /** The database; empty: the server's default. */
    private String database;
    /** The corpus the retriever searches and the writer ingests into. */
    private String corpus = "default";
    /** search (rag.search), agrag, hgmem, raga or remind. */
    private String method = "search";
    /** How many passages the retriever returns; 0: the procedure's default. */
    private int k = 5;
    /** rag.search's mode: dense, bm25, hybrid or rrf; empty: the procedure's default. */
    private String mode;
    /** A filter in Spring AI's text form for every retrieval ("team == 'a'"); empty: none. */
    private String filterExpression;

    public String getUri() { return uri; }
    public void setUri(String uri) { this.uri = uri; }
    public String getUsername() { return username; }
    public void setUsername(String username) { this.username = username; }
    public String getPassword() { return password; }
    public void setPassword(String password) { this.password = password; }
    public String getDatabase() { return database; }
    public void setDatabase(String database) { this.database = database; }
    public String getCorpus() { return corpus; }
    public void setCorpus(String corpus) { this.corpus = corpus; }
    public String getMethod() { return method; }
    public void setMethod(String method) { this.method = method; }
    public int getK() { return k; }
    public void setK(int k) { this.k = k; }
    public String getMode() { return mode; }
    public void setMode(String mode) { this.mode = mode; }
    public String getFilterExpression() { return filterExpression; }
    public void setFilterExpression(String filterExpression) { this.filterExpression = filterExpression; }

    @Override
    public String toString() {
        return "GraphRagProperties[uri=" + uri + ", username=" + username + ", database=" + database + ", corpus=" + corpus + ", method=" + method
                + ", k=" + k + ", mode=" + mode + ", filterExpression=" + filterExpression + "]";
    }
}
