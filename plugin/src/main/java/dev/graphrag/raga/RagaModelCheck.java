package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.llm.CheckSample;
import dev.graphrag.core.llm.ModelCheck;
import dev.graphrag.core.llm.ToolLoop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RAGA's LLM steps as rag.llm.check tries them: L2 schema discovery, the L3 reading of one paragraph as an agent with
 * RAGA's own toolset (sandbox handlers: the arguments are checked against the real schemas, a create needs evidence
 * quoted from the paragraph, nothing is written), L5 query analysis and L6 the answer. The reading is usable when the
 * agent ends it with chunk_complete within the rounds, and wrong when it creates nothing or names what the paragraph
 * does not.
 */
public final class RagaModelCheck {
    public static final String METHOD = "raga";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    /** The reading's bound in the check: rounds, tool calls, tokens. */
    public static final ToolLoop.Budget READ_BUDGET = new ToolLoop.Budget(8, 24, 200_000);

    private RagaModelCheck() {}

    public static List<ModelCheck.Probe> probes() {
        return List.of(
                ModelCheck.structured(METHOD, RagaPrompts.SCHEMA, c -> RagaPrompts.schema(List.of(CheckSample.of(c).text())), RagaPrompts.SCHEMA_OUT,
                        (c, s) -> s.entity_types() == null || s.entity_types().isEmpty() ? "proposed no entity type" : null),
                ModelCheck.toolLoop(METHOD, RagaPrompts.READ, RagaModelCheck::readPrompt, RagaModelCheck::sandbox, READ_BUDGET, (c, o) -> {
                    List<String> created = new ArrayList<>();
                    for (ToolLoop.Call call : o.calls()) {
                        if (call.ok() && call.tool().equals("create_entity")) created.add(argument(call, "name"));
                    }
                    return created.isEmpty() ? "created no entity from a paragraph that names three" : CheckSample.invented(CheckSample.of(c), created, "entity");
                }),
                ModelCheck.structured(METHOD, RagaPrompts.ANALYSE, c -> RagaPrompts.analyse(CheckSample.of(c).question()), RagaPrompts.ANALYSE_OUT,
                        (c, a) -> a.entities() == null || a.entities().isEmpty() ? "found no entity in a question that names one"
                                : CheckSample.names(CheckSample.of(c).question(), a.entities().get(0)) ? null
                                : "entity '" + a.entities().get(0) + "' is not in the question"),
                ModelCheck.structured(METHOD, RagaPrompts.ANSWER, c -> RagaPrompts.answer(CheckSample.of(c).question(), chunks(c), List.of()),
                        RagaPrompts.ANSWER_OUT, (c, a) -> CheckSample.wrongAnswer(CheckSample.of(c), a.answer())));
    }

    private static List<Map<String, Object>> chunks(int c) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (CheckSample.Passage p : CheckSample.of(c).passages()) out.add(Map.of("id", p.id(), "text", p.text()));
        return out;
    }

    /** L3 for the case's middle paragraph, between the other two, under a small open schema. */
    static List<Map<String, Object>> readPrompt(int c) {
        CheckSample.Case k = CheckSample.of(c);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("entity_types", List.of("Person", "Organization", "Place", "Work", "Structure", "Vessel"));
        schema.put("relation_types", List.of("FOUNDED", "MADE", "LOCATED_IN", "WROTE", "DESIGNED", "BUILT_AT", "CAPTAINED", "PREMIERED_AT"));
        schema.put("mode", "open");
        CheckSample.Passage p = k.passages().get(1);
        return RagaPrompts.read(schema, Map.of("recent_entities", List.of()), "check:" + p.id(), p.title(), 1, 3, p.text(),
                k.passages().get(0).text(), k.passages().get(2).text());
    }

    /**
     * RAGA's tools with handlers that write nothing: creates need their evidence quoted from the paragraph (as the
     * real tools require), lookups find nothing, chunk_complete ends the reading.
     */
    static List<ToolLoop.Tool> sandbox(int c) {
        String paragraph = CheckSample.of(c).passages().get(1).text();
        List<ToolLoop.Tool> tools = new ArrayList<>();
        List<Toolbox.Tool> specs = new ArrayList<>(Toolbox.ALL);
        specs.add(Toolbox.CHUNK_COMPLETE);
        for (Toolbox.Tool s : specs) {
            tools.add(new ToolLoop.Tool(s.name(), s.description(), s.parameters(), args -> switch (s.name()) {
                case "chunk_complete" -> new ToolLoop.Finished(Map.of("ok", true, "status", "chunk_complete"));
                case "create_entity", "create_relation" -> {
                    String evidence = args.path("evidence").asText("");
                    if (evidence.isBlank() || !CheckSample.names(paragraph, evidence)) {
                        yield new ToolLoop.Refused(Map.of("ok", false, "code", "EVIDENCE_NOT_FOUND",
                                "message", "evidence must be quoted word for word from the current paragraph"));
                    }
                    yield Map.of("ok", true, "result", Map.of("created", true));
                }
                default -> Map.of("ok", true, "result", Map.of("items", List.of()));
            }).shownAs(s.name().equals("batch_kg_ops") ? Toolbox.BATCH_BY_REFERENCE : null));
        }
        return tools;
    }

    private static String argument(ToolLoop.Call call, String field) {
        try {
            JsonNode n = JSON.readTree(call.arguments());
            return n.path(field).asText("");
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
