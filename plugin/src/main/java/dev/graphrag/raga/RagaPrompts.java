package dev.graphrag.raga;

import dev.graphrag.core.llm.Prompts;
import dev.graphrag.core.llm.StructuredOutput;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.graphrag.core.llm.Prompts.arrayOf;
import static dev.graphrag.core.llm.Prompts.object;
import static dev.graphrag.core.llm.Prompts.string;
import static dev.graphrag.core.llm.Prompts.strings;

/**
 * RAGA's prompts our own wording (the paper gives none): L2 schema discovery, L3 the per-chunk ReAct reader, L4 todo handling, L5
 * deep query analysis, L6 answer. Structured input goes in one fenced JSON block (core.llm.Prompts); the step names are
 * what the client sends as X-Rag-Step and what tokensByStep reports.
 */
public final class RagaPrompts {
    public static final String SCHEMA = "raga.L2";
    public static final String READ = "raga.L3";
    public static final String FOLLOW_UPS = "raga.L4"; // handling open tasks
    public static final String ANALYSE = "raga.L5";
    public static final String ANSWER = "raga.L6";

    private RagaPrompts() {}

    static final String READER = """
            You are a careful reader building an evidence-grounded knowledge graph, one paragraph at a time, with tools.
            READ: find durable knowledge objects in the paragraph (methods, algorithms, datasets, metrics, systems, theories, problems, \
            definitions, named people, places, organisations and works). Ignore tables of contents, boilerplate, one-off narration and PDF \
            noise. If nothing is worth keeping, call chunk_complete at once.
            SEARCH: call search_kg before every create; browse_context for neighbouring text; explore_fusion for links to other paragraphs.
            VERIFY: create when the evidence is clear and there is no duplicate; update or merge_entity when it duplicates what exists; \
            mark_for_review when unsure about a fact, a boundary or a direction; create_todo when context is missing.
            CONSTRUCT: entities before relations. Evidence is copied verbatim from the paragraph. Names are short canonical full forms, \
            abbreviations go in aliases. Relation types are UPPER_SNAKE_CASE, from the schema when one fits. Prefer batch_kg_ops for \
            several operations when you have it.
            Names must not be sentences, code, formulas, punctuation runs, garbled text or generic headings such as "Introduction".
            When a tool returns ok:false, read its code and hint and fix the call; never repeat an identical failed call.
            Finish with chunk_complete and a one-sentence summary.""";

    /**
     * L3: the fixed instructions as the system message, the same bytes for every chunk and every round (with the tool
     * schemas, the prefix a server's cache reuses), then one user message: the schema in force, the working memory and
     * the paragraph, with its document's title when it has one.
     */
    public static List<Map<String, Object>> read(Map<String, Object> schema, Map<String, Object> workingMemory, String chunkId, String title, long index,
                                                 long total, String text, String before, String after) {
        Map<String, Object> paragraph = new LinkedHashMap<>();
        paragraph.put("chunk_id", chunkId);
        if (title != null) paragraph.put("title", title);
        paragraph.put("index", index);
        paragraph.put("total", total);
        paragraph.put("text", text);
        Map<String, Object> user = new LinkedHashMap<>();
        user.put("active_schema", schema);
        user.put("working_memory", workingMemory);
        user.put("current_paragraph", paragraph);
        if (!before.isEmpty() || !after.isEmpty()) {
            Map<String, Object> adjacent = new LinkedHashMap<>();
            adjacent.put("previous_end", before);
            adjacent.put("next_start", after);
            user.put("adjacent_context", adjacent);
        }
        return List.of(Prompts.system(READER), Prompts.user(Prompts.inputBlock(user)));
    }

    static final String FOLLOW_UPS_READER = READER + "\nYou are now resolving open todos. Use the tools, then answer with the JSON "
            + "{\"status\":\"todos_complete\",\"resolved\":[{\"todo_id\":...,\"outcome\":\"DONE\" or \"DROPPED\",\"resolution\":...}],"
            + "\"summary\":...}; todos you do not list stay open.";

    /** L4: the open todos this paragraph triggered, after the same fixed instructions. */
    public static List<Map<String, Object>> todos(Map<String, Object> schema, List<Map<String, Object>> todos) {
        return List.of(Prompts.system(FOLLOW_UPS_READER), Prompts.user(Prompts.inputBlock(Prompts.fields("active_schema", schema, "todos", todos))));
    }

    /** L2: schema discovery from sample text. */
    public record SchemaReply(String domain, List<TypeReply> entity_types, List<RelationReply> relation_types) {}

    public record TypeReply(String name, String description) {}

    public record RelationReply(String name, String description, String domain, String range, Double quality) {}

    public static final StructuredOutput<SchemaReply> SCHEMA_OUT = StructuredOutput.of("raga_schema",
            object(List.of("domain", "entity_types", "relation_types"), Map.of("domain", string(),
                    "entity_types", arrayOf(object(List.of("name"), Map.of("name", string(), "description", string()))),
                    "relation_types", arrayOf(object(List.of("name"), Map.of("name", string(), "description", string(), "domain", string(),
                            "range", string(), "quality", Map.of("type", "number")))))),
            SchemaReply.class, null);

    public static List<Map<String, Object>> schema(List<String> samples) {
        return List.of(Prompts.system("Propose the schema of a knowledge graph for these documents: the domain, 5-15 entity types (CamelCase, with a"
                        + " description) and 5-20 relation types (UPPER_SNAKE_CASE, with description, domain and range entity types or Any, and your"
                        + " quality estimate 0-1). Answer with JSON {\"domain\", \"entity_types\": [{name, description}], \"relation_types\":"
                        + " [{name, description, domain, range, quality}]}."),
                Prompts.user(Prompts.inputBlock(Map.of("samples", samples))));
    }

    /** L5: the entities, keywords and sub-questions of a query. */
    public record Analysis(List<String> entities, List<String> keywords, List<String> sub_questions) {}

    public static final StructuredOutput<Analysis> ANALYSE_OUT = StructuredOutput.of("raga_query_analysis",
            object(List.of("entities"), Map.of("entities", strings(), "keywords", strings(), "sub_questions", strings())), Analysis.class, null);

    public static List<Map<String, Object>> analyse(String query) {
        return List.of(Prompts.system("List the named entities a question is about (at most 5), its keywords (at most 5) and, if it has several"
                        + " steps, its sub-questions (at most 5). Answer with JSON {\"entities\": [], \"keywords\": [], \"sub_questions\": []}."),
                Prompts.user(Prompts.inputBlock(Map.of("question", query))));
    }

    /** L6: the answer from the evidence only, listing the chunk ids used. */
    public record AnswerReply(String answer, String answer_type, List<String> evidence_chunk_ids) {}

    public static final StructuredOutput<AnswerReply> ANSWER_OUT = StructuredOutput.of("raga_answer",
            object(List.of("answer", "answer_type", "evidence_chunk_ids"), Map.of("answer", string(),
                    "answer_type", Map.of("type", "string", "enum", List.of("extractive", "abstractive", "yes_no", "unanswerable")),
                    "evidence_chunk_ids", strings())), AnswerReply.class, null);

    public static List<Map<String, Object>> answer(String query, List<Map<String, Object>> chunks, List<Map<String, Object>> facts) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("question", query);
        block.put("chunks", chunks);
        block.put("facts", facts);
        return List.of(Prompts.system("Answer the question concisely from the evidence only. Yes/no questions start with \"Yes\" or \"No\"."
                        + " If the evidence does not support an answer, answer \"Unanswerable\" with answer_type unanswerable. List the ids of the"
                        + " chunks you actually used in evidence_chunk_ids. Answer with JSON {\"answer\", \"answer_type\", \"evidence_chunk_ids\"}."),
                Prompts.user(Prompts.inputBlock(block)));
    }
}
