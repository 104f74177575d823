package dev.graphrag.remind;

import dev.graphrag.core.llm.StructuredOutput;

import static dev.graphrag.core.llm.Prompts.object;
import static dev.graphrag.core.llm.Prompts.strings;
import static dev.graphrag.core.llm.Prompts.system;
import static dev.graphrag.core.llm.Prompts.fields;
import static dev.graphrag.core.llm.Prompts.inputBlock;
import static dev.graphrag.core.llm.Prompts.user;

import java.util.List;
import java.util.Map;

/**
 * ReMindRAG's LLM calls (paper Tables 12, 13, 18, 19), each with its step name, its messages and its typed
 * reply. Every query-time prompt carries one JSON input block (fenced, after "Input:") holding the question and the
 * collected subgraph by short handles (E entities, A anchors, C chunks, R path edges), so small models, tests and the
 * evaluation's policies read the same structure.
 */
public final class RemindPrompts {
    public static final String ENTITIES = "remind.index entities";
    public static final String TRIPLES = "remind.index triples";
    public static final String TITLE = "remind.index title";
    public static final String SUMMARY = "remind chunk summary";
    public static final String SUFFICIENT = "remind sufficiency";
    public static final String NEXT = "remind next node";
    public static final String FILTER = "remind filter";
    public static final String ANSWER = "remind answer";
    /** The steps whose tokens count as traversal tokens (L6-L9: docs/remind.md#memory-and-replay). */
    public static final List<String> TRAVERSAL_STEPS = List.of(SUMMARY, SUFFICIENT, NEXT, FILTER);


    private RemindPrompts() {}

    public record Entities(List<String> entities) {}

    public record Triple(String subject, String sentence, String object) {}

    public record Triples(List<Triple> triples) {}

    public record Title(String title) {}

    public record Summary(String summary) {}

    public record Sufficiency(String reasoning, boolean sufficient) {}

    public record NextNode(String reasoning, String type, String id) {}

    public record Filter(String reasoning, List<String> edges, List<String> chunks) {}

    public record Answer(String reasoning, String answer, List<String> citedChunks) {}



    static final StructuredOutput<Entities> ENTITIES_OUT = StructuredOutput.of("remind_entities",
            object(List.of("entities"), Map.of("entities", strings())), Entities.class,
            e -> e.entities().stream().anyMatch(x -> x == null || x.isBlank()) ? "an entity is empty" : null);
    static final StructuredOutput<Triples> TRIPLES_OUT = StructuredOutput.of("remind_triples",
            object(List.of("triples"), Map.of("triples", Map.of("type", "array", "items", object(List.of("subject", "sentence", "object"),
                    Map.of("subject", Map.of("type", "string"), "sentence", Map.of("type", "string"), "object", Map.of("type", "string")))))),
            Triples.class, t -> t.triples().stream().anyMatch(x -> x.subject().isBlank() || x.object().isBlank() || x.sentence().isBlank())
                    ? "every triple needs a non-empty subject, sentence and object" : null);
    static final StructuredOutput<Title> TITLE_OUT = StructuredOutput.of("remind_title",
            object(List.of("title"), Map.of("title", Map.of("type", "string"))), Title.class, t -> t.title().isBlank() ? "the title is empty" : null);
    static final StructuredOutput<Summary> SUMMARY_OUT = StructuredOutput.of("remind_summary",
            object(List.of("summary"), Map.of("summary", Map.of("type", "string"))), Summary.class, null);
    static final StructuredOutput<Sufficiency> SUFFICIENT_OUT = StructuredOutput.of("remind_sufficiency",
            object(List.of("reasoning", "sufficient"), Map.of("reasoning", Map.of("type", "string"), "sufficient", Map.of("type", "boolean"))),
            Sufficiency.class, null);
    static final StructuredOutput<NextNode> NEXT_OUT = StructuredOutput.of("remind_next_node",
            object(List.of("reasoning", "type", "id"), Map.of("reasoning", Map.of("type", "string"),
                    "type", Map.of("type", "string", "enum", List.of("entity", "chunk")), "id", Map.of("type", "string"))),
            NextNode.class, null);
    static final StructuredOutput<Filter> FILTER_OUT = StructuredOutput.of("remind_filter",
            object(List.of("reasoning", "edges", "chunks"), Map.of("reasoning", Map.of("type", "string"), "edges", strings(), "chunks", strings())),
            Filter.class, null);
    static final StructuredOutput<Answer> ANSWER_OUT = StructuredOutput.of("remind_answer",
            object(List.of("reasoning", "answer", "citedChunks"), Map.of("reasoning", Map.of("type", "string"), "answer", Map.of("type", "string"),
                    "citedChunks", strings())), Answer.class, null);

    static List<Map<String, Object>> entities(String chunk) {
        return List.of(system("""
                Extract the named concepts of the passage: precise, standalone and lasting names of people, organisations, places,
                events, works, objects and technical concepts, written as in the passage. No quantities, ages or amounts, and no
                compounds joined by "and" or "or". An empty list is allowed. Reply with JSON {"entities": ["..."]}.
                Example: "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie." ->
                {"entities": ["Marie Curie", "Nobel Prize in Physics", "Pierre Curie"]}"""), user(inputBlock(Map.of("passage", chunk))));
    }

    static List<Map<String, Object>> triples(String chunk, List<String> entities) {
        return List.of(system("""
                For the given entities, extract the relations the passage states between them. Each relation is one full sentence
                (subject, predicate, object) whose subject and object are taken from the entity list. Reply with JSON
                {"triples": [{"subject": "...", "sentence": "...", "object": "..."}]}.
                Example: passage "Marie Curie won the Nobel Prize in Physics with Pierre Curie.", entities ["Marie Curie",
                "Nobel Prize in Physics", "Pierre Curie"] -> {"triples": [{"subject": "Marie Curie", "sentence": "Marie Curie won the
                Nobel Prize in Physics.", "object": "Nobel Prize in Physics"}, {"subject": "Marie Curie", "sentence": "Marie Curie shared
                the prize with Pierre Curie.", "object": "Pierre Curie"}]}"""), user(inputBlock(fields("passage", chunk, "entities", entities))));
    }

    static List<Map<String, Object>> title(String chunk) {
        return List.of(system("""
                Write a short table-of-contents style title that tells a reader what the passage covers. Reply with JSON {"title": "..."}."""),
                user(inputBlock(Map.of("passage", chunk))));
    }

    static List<Map<String, Object>> summary(Map<String, Object> block) {
        return List.of(system("""
                Summarise the new chunk for the question, in the context of the path collected so far. Keep what bears on the
                question; no inference or speculation. Reply with JSON {"summary": "..."}."""), user(inputBlock(block)));
    }

    static List<Map<String, Object>> sufficiency(Map<String, Object> block) {
        return List.of(system("""
                You judge whether the collected knowledge-graph subgraph is enough to answer the question. Break the question into
                the pieces of information it needs and check each against the chunk texts and the edges. Answer false if a key
                point or an intermediate reasoning step is missing, or if texts conflict; common sense counts only if the texts
                confirm it. Take care with temporal, causal and comparative questions. Reply with JSON {"reasoning": "...", "sufficient": true|false}."""),
                user(inputBlock(block)));
    }

    static List<Map<String, Object>> next(Map<String, Object> block) {
        return List.of(system("""
                You walk a knowledge graph to answer the question. Entities (E...) are linked by relations; anchors (A...) stand for
                passages: an entity is linked to the anchors of the passages that mention it, anchors are linked in document order,
                and an anchor leads to its chunk (C...), the passage text (with the title of its document, when it has one). Pick
                the best next node: one of the candidates of the current node (use the relation texts and the edge weights,
                where a higher weight means the edge helped similar questions before), or, if no candidate is useful, go back to
                a node already collected and continue from there, or enter the unvisited chunk of a collected anchor. Never pick
                a visited chunk, and avoid repeating moves. An edge "R1 A1>C1" links A1 to C1 (its text is shown elsewhere or empty);
                a relation written "same as R4" has the text of that edge or candidate.
                Reply with JSON {"reasoning": "...", "type": "entity"|"chunk", "id": "E7"} (anchors count as type entity)."""),
                user(inputBlock(block)));
    }

    static List<Map<String, Object>> filter(Map<String, Object> block) {
        return List.of(system("""
                Mark which of the path edges and chunks directly support or refute the answer to the question, or give key evidence
                for it. Redundant, off-topic or superseded items are irrelevant. Prefer chunks. Reply with JSON
                {"reasoning": "...", "edges": ["R3"], "chunks": ["C2"]}."""), user(inputBlock(block)));
    }

    static List<Map<String, Object>> answer(String systemPrompt, Map<String, Object> block) {
        return List.of(system((systemPrompt == null ? "You are a concise database question-answering assistant." : systemPrompt) + """

                Work out the core question, take the evidence from the chunk texts and the edges, cite the chunk ids you used, and use
                only these references; if they do not answer the question, say so. Reply with JSON {"reasoning": "...", "answer": "...",
                "citedChunks": ["C2"]}."""), user(inputBlock(block)));
    }

    /**
     * The most any query prompt (L6-L10) holds besides its input block: instructions, framing and output schema, counted
     * as the client counts them, plus room for the walk's corrections turns. The block gets the window less this.
     */
    static long fixedTokens(String systemPrompt) {
        Map<String, Object> empty = Map.of();
        long most = 0;
        most = Math.max(most, fixed(summary(empty), SUMMARY_OUT));
        most = Math.max(most, fixed(sufficiency(empty), SUFFICIENT_OUT));
        most = Math.max(most, fixed(next(empty), NEXT_OUT));
        most = Math.max(most, fixed(filter(empty), FILTER_OUT));
        most = Math.max(most, fixed(answer(systemPrompt, empty), ANSWER_OUT));
        return most + CORRECTIONS_RESERVE;
    }

    /** Room for the correction turns L8 may add after a reply it could not use. */
    static final long CORRECTIONS_RESERVE = 200;

    private static long fixed(List<Map<String, Object>> messages, StructuredOutput<?> out) {
        return dev.graphrag.core.llm.TokenCounter.messages(messages) + dev.graphrag.core.llm.PromptFit.overhead(out);
    }
}
