package dev.graphrag.oracle;

import org.neo4j.graphdb.GraphDatabaseService;

import java.util.List;
import java.util.Map;

/**
 * The extension point a method's evaluation plugs into (docs/evaluation.md#adding-a-method). The harness ingests
 * the corpus, registers the method's policies on the evaluation LLM server, runs {@link #indexCalls()}, then
 * {@link #run} per question; it scores the output against the controls at the same per-question budget and checks
 * that the usage the procedure yielded equals what the server logged for those calls.
 */
public interface MethodEvaluation {
    /** The row name, e.g. "agrag.answer (oracle reader)". */
    String name();

    /**
     * Registers a policy for each step the method's procedures send. Query-time policies may read {@code gold};
     * index-time ones (extraction, construction) must not: build them from {@link RuleExtractor} alone.
     */
    void register(EvalLlmServer server, OracleGold gold);

    /** Cypher run once after rag.ingest, with parameters $corpus and $llm (the server's llm config map). */
    default List<String> indexCalls() { return List.of(); }

    /** One question through the method's procedure. */
    Output run(GraphDatabaseService db, String corpus, String question, Map<String, Object> llm);

    /**
     * What one question produced: passage (document) ids, ranked or a set; the answer when the method answers (else
     * null); and the usage the procedure yielded, per step.
     */
    record Output(List<String> documentIds, boolean ranked, String answer, long llmCalls, long promptTokens, long completionTokens,
                  Map<String, Map<String, Long>> tokensByStep) {}
}
