package dev.graphrag.hgmem;

import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.text.Verbatim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.graphrag.core.llm.Prompts.arrayOf;
import static dev.graphrag.core.llm.Prompts.integer;
import static dev.graphrag.core.llm.Prompts.fields;
import static dev.graphrag.core.llm.Prompts.inputBlock;
import static dev.graphrag.core.llm.Prompts.object;
import static dev.graphrag.core.llm.Prompts.string;
import static dev.graphrag.core.llm.Prompts.strings;
import static dev.graphrag.core.llm.Prompts.system;
import static dev.graphrag.core.llm.Prompts.user;

/**
 * HGMem's query-time LLM calls (paper Figs. 4-7), each with its step name, its
 * messages and its typed reply. The paper's delimiter records become JSON; every prompt ends with one JSON input
 * block in which memory points appear by their listing index, the only handle the LLM uses for them.
 */
public final class HgmemPrompts {
    public static final String EVOLVE = "hgmem evolve";
    public static final String MERGE = "hgmem merge";
    public static final String PLAN = "hgmem plan";
    public static final String SUBQUERIES = "hgmem subqueries";
    public static final String DESCRIBE = "hgmem describe absent";
    public static final String ANSWER = "hgmem answer";

    private HgmemPrompts() {}

    public record Point(List<String> entities, String description) {}

    public record UpdatedPoint(Integer index, List<String> entities, String description) {}

    public record EvolveReply(List<Point> inserted, List<UpdatedPoint> updated) {}

    public record Group(List<Integer> indices, String description) {}

    public record MergeReply(List<Group> merges) {}

    public record ConcernReply(String concern, List<Integer> memoryPointIndices) {}

    public record PlanReply(String judgement, List<ConcernReply> concerns) {}

    public record SubqueriesReply(List<String> subqueries) {}

    public record DescribedEntity(String name, String type, String description) {}

    public record DescribedRelation(String source, String target, String description, String keywords) {}

    public record DescribeReply(List<DescribedEntity> entities, List<DescribedRelation> relationships) {}

    public record AnswerReply(String answer, List<String> citedSources) {}

    private static final Map<String, Object> POINT = object(List.of("entities", "description"), Map.of("entities", strings(), "description", string()));

    static final StructuredOutput<EvolveReply> EVOLVE_OUT = StructuredOutput.of("hgmem_evolve",
            object(List.of("inserted", "updated"), Map.of("inserted", arrayOf(POINT), "updated",
                    arrayOf(object(List.of("index", "entities", "description"), Map.of("index", integer(), "entities", strings(), "description", string()))))),
            EvolveReply.class, r -> {
                for (Point p : r.inserted()) if (p.description() == null || p.description().isBlank()) return "an inserted point has no description";
                for (UpdatedPoint u : r.updated()) if (u.index() == null) return "an updated point has no index";
                return null;
            });
    static final StructuredOutput<MergeReply> MERGE_OUT = StructuredOutput.of("hgmem_merge",
            object(List.of("merges"), Map.of("merges", arrayOf(object(List.of("indices", "description"), Map.of("indices", arrayOf(integer()), "description", string()))))),
            MergeReply.class, null);
    static final StructuredOutput<PlanReply> PLAN_OUT = StructuredOutput.of("hgmem_plan",
            object(List.of("judgement", "concerns"), Map.of("judgement", Map.of("type", "string", "enum", List.of("1", "2.1", "2.2")),
                    "concerns", arrayOf(object(List.of("concern"), Map.of("concern", string(), "memoryPointIndices", arrayOf(integer())))))),
            PlanReply.class, null);
    static final StructuredOutput<SubqueriesReply> SUBQUERIES_OUT = StructuredOutput.of("hgmem_subqueries",
            object(List.of("subqueries"), Map.of("subqueries", strings())), SubqueriesReply.class, null);

    static final StructuredOutput<DescribeReply> DESCRIBE_OUT = StructuredOutput.of("hgmem_describe",
            object(List.of("entities", "relationships"), Map.of(
                    "entities", arrayOf(object(List.of("name", "type", "description"), Map.of("name", string(), "type", string(), "description", string()))),
                    "relationships", arrayOf(object(List.of("source", "target", "description"),
                            Map.of("source", string(), "target", string(), "description", string(), "keywords", string()))))),
            DescribeReply.class, null);
    static final StructuredOutput<AnswerReply> ANSWER_OUT = StructuredOutput.of("hgmem_answer",
            object(List.of("answer", "citedSources"), Map.of("answer", string(), "citedSources", strings())),
            AnswerReply.class, r -> r.answer() == null || r.answer().isBlank() ? "the answer is empty" : null);

    /** The memory listing as the blocks show it: index (the handle), entities, description. */
    static List<Map<String, Object>> memory(List<MemoryUnit> listing) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < listing.size(); i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", (long) i);
            m.put("entities", listing.get(i).vertices());
            m.put("description", listing.get(i).description());
            out.add(m);
        }
        return out;
    }

    static List<Map<String, Object>> evolve(String query, List<MemoryUnit> listing, List<String> subqueries, Evolution.Tables tables) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("mainQuery", query);
        block.put("memory", memory(listing));
        block.put("currentSubqueries", subqueries);
        block.put("retrieved", tables(tables));
        return List.of(system("""
                You are resolving the main query with the help of external knowledge. Your memory holds points about what you
                already know; the retrieved tables hold entities, relationships and source passages (with the title of the document
                a passage comes from, when it has one) found for the main query and the current subqueries. Keep what is worth remembering for the main query, with two operations:
                - insert: new memory points;
                - update: absorb new facts into existing points, giving the point's index and its full rewritten description.
                Rules: keep only information that enriches knowledge about the main query; summarise rather than copy the tables;
                a point may link several closely associated entities, so it can express a higher-order relation, but do not force
                unrelated entities into one point; do not insert or update without need; name entities exactly as the tables do,
                introducing a new name only when needed. Empty lists are allowed.
                Reply with JSON {"inserted": [{"entities": ["..."], "description": "..."}], "updated": [{"index": 0, "entities": ["..."], "description": "..."}]}.
                Example: {"inserted": [{"entities": ["XODAR", "ISSUS"], "description": "Issus degrades Xodar to a slave of slaves."}], "updated": []}"""),
                user(inputBlock(block)));
    }

    static List<Map<String, Object>> merge(String query, List<MemoryUnit> listing) {
        return List.of(system("""
                Some memory points may together form one semantically or logically cohesive unit for the main query. Pick such
                groups (by index) and write for each a new description that builds the higher-order association while keeping the
                details the main query needs. Points should cover distinct aspects; remove redundancy; leave standalone points out;
                do not merge a point that already has far more entities than the others; never merge by force.
                Reply with JSON {"merges": [{"indices": [1, 2], "description": "..."}]} ({"merges": []} when nothing should merge)."""),
                user(inputBlock(fields("mainQuery", query, "memory", memory(listing)))));
    }

    static List<Map<String, Object>> plan(String query, List<MemoryUnit> listing, String hint, int n, Evolution.Strategy strategy) {
        List<String> cases = switch (strategy) {
            case ADAPTIVE -> List.of("1", "2.1", "2.2");
            case LOCAL_ONLY -> List.of("1", "2.1");
            case GLOBAL_ONLY -> List.of("1", "2.2");
        };
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("mainQuery", query);
        block.put("memory", memory(listing));
        block.put("extendedInfo", hint == null ? "" : hint);
        block.put("maxConcerns", (long) n);
        block.put("allowedJudgements", cases);
        return List.of(system("""
                Decide whether your memory already resolves the main query completely (judgement "1"). If it does not, choose
                "2.1" when specific memory points need more detail (each concern names the indices of the points it targets in
                memoryPointIndices) or "2.2" when aspects lie outside memory (free concerns, no indices), and give at most
                maxConcerns short concerns; fewer when memory already covers most perspectives. Use only the allowedJudgements.
                The extended info lists entities near memory: a suggestion only.
                Reply with JSON {"judgement": "1"|"2.1"|"2.2", "concerns": [{"concern": "...", "memoryPointIndices": [0]}]}."""),
                user(inputBlock(block)));
    }

    static List<Map<String, Object>> subqueries(String query, List<MemoryUnit> listing, List<Evolution.Concern> concerns, List<String> previous, String hint) {
        List<Map<String, Object>> cs = new ArrayList<>();
        for (int i = 0; i < concerns.size(); i++) {
            cs.add(Map.of("number", (long) i + 1, "concern", concerns.get(i).text(), "memoryPointIndices", concerns.get(i).indices()));
        }
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("mainQuery", query);
        block.put("memory", memory(listing));
        block.put("concerns", cs);
        block.put("previousSubqueries", previous);
        block.put("extendedInfo", hint == null ? "" : hint);
        return List.of(system("""
                Write one concise subquery per concern, in the concerns' order, to retrieve what the concern lacks. Each must be
                relevant to the main query and different in meaning from the main query and from the previous subqueries; plain
                text, no markup. Reply with JSON {"subqueries": ["...", "..."]}."""), user(inputBlock(block)));
    }

    /**
     * The retrieved tables as E1 and E2 show them: descriptions without the sentences the sources shown already hold,
     * and sources as title and content (no reply of theirs cites a source; E6, which does, gets the ids).
     */
    static Map<String, Object> tables(Evolution.Tables t) {
        List<Map<String, Object>> sources = new ArrayList<>(t.sources().size());
        for (Map<String, Object> src : t.sources()) {
            Map<String, Object> row = new LinkedHashMap<>(src);
            row.remove("id");
            sources.add(row);
        }
        return fields("entities", withoutQuoted(t.entities(), t.sources()), "relationships", withoutQuoted(t.relationships(), t.sources()), "sources", sources);
    }

    /**
     * Rows whose description sentences appear word for word in a source of the same prompt lose those sentences (a
     * description written from a passage often quotes it, and the passage is in the prompt); a row whose description
     * is then empty keeps its names alone.
     */
    static List<Map<String, Object>> withoutQuoted(List<Map<String, Object>> rows, List<Map<String, Object>> sources) {
        if (sources.isEmpty()) return rows;
        List<String> contents = new ArrayList<>();
        for (Map<String, Object> src : sources) contents.add(String.valueOf(src.getOrDefault("content", "")));
        Verbatim shown = new Verbatim(contents);
        List<Map<String, Object>> out = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
            if (!(row.get("description") instanceof String d) || d.isBlank()) {
                out.add(row);
                continue;
            }
            String kept = unquoted(d, shown);
            if (kept == null) {
                out.add(row);
                continue;
            }
            Map<String, Object> r = new LinkedHashMap<>(row);
            if (kept.isEmpty()) r.remove("description");
            else r.put("description", kept);
            out.add(r);
        }
        return out;
    }

    /** A description without the sentences {@code shown} holds word for word (at least 20 characters), or null when it holds none. */
    static String unquoted(String description, Verbatim shown) {
        StringBuilder kept = new StringBuilder();
        boolean removed = false;
        for (String sentence : description.split("<SEP>|(?<=[.!?])\\s+")) { // <SEP>: between descriptions merged at index time
            boolean quoted = Verbatim.spaced(sentence).length() >= 20 && shown.holds(sentence);
            removed |= quoted;
            if (!quoted && !sentence.isBlank()) kept.append(kept.length() == 0 ? "" : " ").append(sentence.strip());
        }
        return removed ? kept.toString() : null;
    }

    static List<Map<String, Object>> describe(List<String> names, List<List<String>> pairs, List<String> entityTypes, Evolution.Tables context) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("entities", names);
        block.put("pairs", pairs);
        block.put("entityTypes", entityTypes);
        block.put("context", tables(context));
        return List.of(system("""
                Some names in memory are missing from the knowledge graph. For each target entity give a type from entityTypes and
                a description drawn from the context; for each target pair, describe how the two relate, with a few keywords. Use
                only the context. Reply with JSON {"entities": [{"name": "...", "type": "...", "description": "..."}],
                "relationships": [{"source": "...", "target": "...", "description": "...", "keywords": "..."}]}."""),
                user(inputBlock(block)));
    }

    static List<Map<String, Object>> answer(String query, List<MemoryUnit> listing, List<Map<String, Object>> entities, List<Map<String, Object>> sources,
                                            String responseType) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("mainQuery", query);
        block.put("memory", memory(listing));
        block.put("entities", withoutQuoted(entities, sources));
        block.put("sources", sources);
        block.put("responseType", responseType);
        return List.of(system("""
                Answer the main query using your memory and these data tables (a source's title is that of its document), in the
                form responseType asks for. Cite the ids of
                the sources you used in citedSources, and only those. If they do not answer the query, say so; do not invent
                facts they do not support. Reply with JSON {"answer": "...", "citedSources": ["..."]}."""), user(inputBlock(block)));
    }
}
