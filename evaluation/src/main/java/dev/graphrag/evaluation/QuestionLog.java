package dev.graphrag.evaluation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-question JSON Lines log (OUT/results.jsonl): one line per event (run, ingest, index, question), each
 * written and flushed as it happens, so the log is also the checkpoint a resumed run reads. A line cut by a kill is
 * skipped on reading (its question is asked again). Later lines win: a question that failed is retried on resume, and
 * its new line replaces the failure in the report.
 */
final class QuestionLog implements AutoCloseable {
    static final String RUN = "run", INGEST = "ingest", INDEX = "index", QUESTION = "question";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final List<JsonNode> entries = new ArrayList<>();
    private final int skipped;
    private final BufferedWriter writer;

    QuestionLog(Path file) {
        this.file = file;
        int bad = 0;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            boolean endsCut = false;
            if (Files.exists(file)) {
                String all = Files.readString(file, StandardCharsets.UTF_8);
                endsCut = !all.isEmpty() && !all.endsWith("\n");
                for (String line : all.split("\n")) {
                    if (line.isBlank()) continue;
                    try {
                        entries.add(JSON.readTree(line));
                    } catch (IOException e) {
                        bad++;
                    }
                }
            }
            writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            if (endsCut) writer.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the log " + file + ": " + e.getMessage(), e);
        }
        skipped = bad;
    }

    Path file() { return file; }

    /** Lines that were not JSON (a line cut by a kill), skipped. */
    int skippedLines() { return skipped; }

    /** Every entry read at start and written since, in order. */
    synchronized List<JsonNode> entries() { return List.copyOf(entries); }

    synchronized void append(Map<String, Object> entry) {
        JsonNode node = JSON.valueToTree(entry);
        try {
            writer.write(JSON.writeValueAsString(node));
            writer.write('\n');
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the log " + file + ": " + e.getMessage(), e);
        }
        entries.add(node);
    }

    /** The first run line: what produced this log (a resumed run must match it). */
    synchronized JsonNode firstRun() {
        return entries.stream().filter(e -> RUN.equals(e.path("type").asText())).findFirst().orElse(null);
    }

    /** The latest line per (method, pass, question id): the outcomes the report reads. */
    synchronized Map<String, JsonNode> latestQuestions() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode e : entries) {
            if (QUESTION.equals(e.path("type").asText())) out.put(key(e.path("method").asText(), e.path("pass").asText(), e.path("id").asText()), e);
        }
        return out;
    }

    /** Whether a question was answered without failure (a failed one is asked again). */
    synchronized boolean done(String method, String pass, String id) {
        JsonNode e = latestQuestions().get(key(method, pass, id));
        return e != null && e.path("failure").isNull();
    }

    /** The index lines of a method, in order (a resumed build adds one per run). */
    synchronized List<JsonNode> builds(String method) {
        return entries.stream().filter(e -> INDEX.equals(e.path("type").asText()) && method.equals(e.path("method").asText())).toList();
    }

    static String key(String method, String pass, String id) {
        return method + "\u0000" + pass + "\u0000" + id;
    }

    @Override
    public synchronized void close() {
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
