package dev.graphrag.core.layer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configs of a corpus's last builds, stored in the graph so rag.refresh can run them again on any cluster member:
 * each layer's on its meta node ({@code buildConfig}), each rag.ingest.files source's on the corpus node
 * ({@code fileIngests}). Never the {@code llm} map: it may hold an API key, which is never stored; a refresh takes the
 * caller's, or the server's configured endpoint.
 */
public final class BuildConfig {
    public static final String LAYER_PROPERTY = "buildConfig";
    public static final String FILES_PROPERTY = "fileIngests";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Keys a build's config may carry that are never stored (secrets) or that a refresh sets itself. */
    private static final List<String> NOT_STORED = List.of("llm", "deleteMissing", "failOnError");

    /** One recorded rag.ingest.files call: its source (a STRING or a LIST of them) and config. */
    public record FileIngest(Object source, Map<String, Object> config) {}

    private BuildConfig() {}

    /** After a complete build: the call's config, less what is never stored, on the layer's meta node. */
    public static void recordLayer(GraphDatabaseService db, Label meta, String corpus, Map<String, Object> config) {
        try (Transaction tx = db.beginTx()) {
            Node m = tx.findNode(meta, "corpus", corpus);
            String json = write(storable(config));
            if (m == null || json.equals(m.getProperty(LAYER_PROPERTY, null))) return;
            m.setProperty(LAYER_PROPERTY, json);
            tx.commit();
        }
    }

    /** The config the layer's last complete build was called with ({} for a layer built before configs were recorded). */
    public static Map<String, Object> layer(Node meta) {
        Object v = meta.getProperty(LAYER_PROPERTY, null);
        return v instanceof String s ? read(s, new TypeReference<Map<String, Object>>() {}) : new LinkedHashMap<>();
    }

    /**
     * After a rag.ingest.files call: its source and config, replacing an earlier call's with the same source. A call
     * that repeats the recorded one writes nothing (a rerun over unchanged files commits no transaction).
     */
    public static void recordFiles(GraphDatabaseService db, String corpus, Object source, Map<String, Object> config) {
        FileIngest recorded = new FileIngest(read(write(source), new TypeReference<Object>() {}), read(write(storable(config)), new TypeReference<Map<String, Object>>() {}));
        try (Transaction tx = db.beginTx()) {
            Node c = LexicalGraph.requireCorpus(tx, corpus);
            if (files(c).contains(recorded)) return;
            tx.acquireWriteLock(c);
            List<FileIngest> all = new ArrayList<>(files(c));
            all.removeIf(f -> f.source().equals(recorded.source()));
            all.add(recorded);
            c.setProperty(FILES_PROPERTY, write(all));
            tx.commit();
        }
    }

    /** The corpus's recorded rag.ingest.files calls, oldest first. */
    public static List<FileIngest> files(Node corpus) {
        Object v = corpus.getProperty(FILES_PROPERTY, null);
        return v instanceof String s ? read(s, new TypeReference<List<FileIngest>>() {}) : List.of();
    }

    private static Map<String, Object> storable(Map<String, Object> config) {
        Map<String, Object> out = new LinkedHashMap<>(config == null ? Map.of() : config);
        NOT_STORED.forEach(out::remove);
        return out;
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new RagException("a build's config cannot be recorded: " + e.getOriginalMessage());
        }
    }

    /** Read back as Cypher passes values: whole numbers as Long, the others as Double. */
    private static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readerFor(type).with(com.fasterxml.jackson.databind.DeserializationFeature.USE_LONG_FOR_INTS).readValue(json);
        } catch (JsonProcessingException e) {
            throw new RagException("a recorded build config cannot be read (" + e.getOriginalMessage() + "); build the layer again by its own procedure");
        }
    }
}
