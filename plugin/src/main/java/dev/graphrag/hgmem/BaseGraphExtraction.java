package dev.graphrag.hgmem;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.core.llm.StructuredOutput;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.graphrag.core.llm.Prompts.arrayOf;
import static dev.graphrag.core.llm.Prompts.fields;
import static dev.graphrag.core.llm.Prompts.inputBlock;
import static dev.graphrag.core.llm.Prompts.object;
import static dev.graphrag.core.llm.Prompts.string;
import static dev.graphrag.core.llm.Prompts.strings;
import static dev.graphrag.core.llm.Prompts.system;
import static dev.graphrag.core.llm.Prompts.user;

/**
 * HGMem's base graph from chunk extractions (paper §4.2, LightRAG style): the X1 call per chunk with its reader for the
 * paper's delimiter records, and the merge of all chunks' records into one entity per name (most frequent type,
 * distinct descriptions sorted and joined, union of chunks) and one undirected relation per pair (strengths summed,
 * keywords and descriptions joined, union of chunks; an endpoint never extracted as an entity becomes UNKNOWN).
 * Knows nothing of Neo4j.
 */
public final class BaseGraphExtraction {
    public static final String EXTRACT = "hgmem extract";
    public static final String SUMMARISE = "hgmem summarise";
    public static final String SEP = "<SEP>";
    public static final List<String> DEFAULT_TYPES = List.of("organization", "person", "geo", "event", "role", "concept");

    private BaseGraphExtraction() {}

    public record Entity(String name, String type, String description) {}

    public record Relationship(String source, String target, String description, String keywords, Double strength) {}

    /** One chunk's X1 reply, as stored on the chunk. */
    public record Extraction(List<Entity> entities, List<Relationship> relationships, List<String> contentKeywords) {}

    public record Summary(String summary) {}

    static final StructuredOutput<Extraction> EXTRACT_OUT = StructuredOutput.of("hgmem_extract",
            object(List.of("entities", "relationships"), Map.of(
                    "entities", arrayOf(object(List.of("name", "type", "description"), Map.of("name", string(), "type", string(), "description", string()))),
                    "relationships", arrayOf(object(List.of("source", "target", "description"), Map.of("source", string(), "target", string(),
                            "description", string(), "keywords", string(), "strength", Map.of("type", "number")))),
                    "contentKeywords", strings())),
            Extraction.class, null).withTextFallback(BaseGraphExtraction::fromRecords);
    static final StructuredOutput<Summary> SUMMARY_OUT = StructuredOutput.of("hgmem_summary",
            object(List.of("summary"), Map.of("summary", string())), Summary.class, s -> s.summary() == null || s.summary().isBlank() ? "the summary is empty" : null);

    /**
     * X1: entities of the given types, then every clearly related pair, then the chunk's keywords. {@code title} is the
     * chunk's document title (null when it has none): a passage often names its subject only there ("He was born ..."),
     * so the extractor is told whom the text speaks of.
     */
    public static List<Map<String, Object>> extract(String text, String title, List<String> types) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("entityTypes", types);
        if (title != null && !title.isBlank()) block.put("title", title);
        block.put("text", text);
        return List.of(system("""
                Find every entity in the text whose type is one of entityTypes: its name as written, its type and a description
                of its attributes and activities as the text states them. The title, when given, is that of the document the text
                comes from: the text often speaks of it without naming it, so treat it as named. Then find every pair of those entities that are clearly
                related: source, target, a description of how they relate, a few keywords and a strength from 1 to 10. Last, a
                few keywords for the main ideas of the whole text. Use only what the text says.
                Reply with JSON {"entities": [{"name": "...", "type": "...", "description": "..."}], "relationships": [{"source": "...",
                "target": "...", "description": "...", "keywords": "...", "strength": 7}], "contentKeywords": ["..."]}.
                Example: for "Carter defeated Xodar in the pits of Issus." {"entities": [{"name": "CARTER", "type": "person",
                "description": "Carter defeated Xodar."}, {"name": "XODAR", "type": "person", "description": "Xodar was defeated by Carter."}],
                "relationships": [{"source": "CARTER", "target": "XODAR", "description": "Carter defeated Xodar in combat.",
                "keywords": "combat, defeat", "strength": 8}], "contentKeywords": ["combat"]}"""),
                user(inputBlock(block)));
    }

    /** X2: one coherent third-person description from several. */
    public static List<Map<String, Object>> summarise(String name, List<String> descriptions) {
        return List.of(system("""
                Merge the descriptions of the named entity (or pair of entities) into one coherent description in the third
                person, keeping every fact and resolving contradictions. Reply with JSON {"summary": "..."}."""),
                user(inputBlock(fields("name", name, "descriptions", descriptions))));
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The paper's record format (seed Fig. 8; LightRAG): records separated by {@code ##}, fields by {@code <|>}, each
     * record in parentheses, {@code ("entity"<|>name<|>type<|>description)},
     * {@code ("relationship"<|>source<|>target<|>description<|>keywords<|>strength)},
     * {@code ("content_keywords"<|>keywords)}, ending with {@code <|COMPLETE|>}. Null when no record is found.
     */
    static JsonNode fromRecords(String text) {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode entities = out.putArray("entities"), rels = out.putArray("relationships"), keywords = out.putArray("contentKeywords");
        int found = 0;
        for (String raw : text.replace("<|COMPLETE|>", "").split("##|\\n")) {
            String r = raw.trim();
            if (r.startsWith("(") && r.endsWith(")")) r = r.substring(1, r.length() - 1);
            String[] f = r.split("<\\|>", -1);
            if (f.length < 2) continue;
            String kind = unquote(f[0]).toLowerCase(java.util.Locale.ROOT);
            if (kind.equals("entity") && f.length >= 4) {
                entities.addObject().put("name", unquote(f[1])).put("type", unquote(f[2])).put("description", unquote(f[3]));
                found++;
            } else if (kind.equals("relationship") && f.length >= 4) {
                ObjectNode o = rels.addObject().put("source", unquote(f[1])).put("target", unquote(f[2])).put("description", unquote(f[3]));
                if (f.length >= 5) o.put("keywords", unquote(f[4]));
                if (f.length >= 6) {
                    try {
                        o.put("strength", Double.parseDouble(unquote(f[5])));
                    } catch (NumberFormatException e) {
                        // a strength that is no number counts as missing (1.0 when merged)
                    }
                }
                found++;
            } else if (kind.equals("content_keywords")) {
                for (String k : unquote(f[1]).split(",")) if (!k.isBlank()) keywords.add(k.trim());
                found++;
            }
        }
        return found == 0 ? null : out;
    }

    private static String unquote(String s) {
        String t = s.trim();
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1).trim() : t;
    }

    /** A merged entity: name (normalised), type, the distinct descriptions (sorted), its chunks in first-seen order. */
    public record MergedEntity(String name, String type, List<String> descriptions, List<String> chunks) {
        public String description() { return String.join(SEP, descriptions); }
    }

    /** A merged relation over the sorted pair (source &lt; target). */
    public record MergedRelation(String source, String target, double weight, List<String> keywords, List<String> descriptions, List<String> chunks) {
        public String description() { return String.join(SEP, descriptions); }
        public String keywordText() { return String.join(SEP, keywords); }
    }

    public record Merged(Map<String, MergedEntity> entities, Map<String, MergedRelation> relations) {}

    /** Merges every chunk's extraction (chunk id to extraction, in chunk order). */
    public static Merged merge(Map<String, Extraction> byChunk) {
        Map<String, Map<String, Integer>> types = new LinkedHashMap<>();
        Map<String, TreeSet<String>> descriptions = new LinkedHashMap<>();
        Map<String, List<String>> chunks = new LinkedHashMap<>();
        Map<String, double[]> weights = new LinkedHashMap<>();
        Map<String, TreeSet<String>> relKeywords = new LinkedHashMap<>(), relDescriptions = new LinkedHashMap<>();
        Map<String, List<String>> relChunks = new LinkedHashMap<>();
        Map<String, String[]> pairs = new LinkedHashMap<>();
        byChunk.forEach((chunk, x) -> {
            for (Entity e : x.entities() == null ? List.<Entity>of() : x.entities()) {
                String n = name(e.name());
                if (n == null) continue;
                String type = e.type() == null || e.type().isBlank() ? "UNKNOWN" : e.type().trim().toLowerCase(java.util.Locale.ROOT);
                types.computeIfAbsent(n, k -> new LinkedHashMap<>()).merge(type, 1, Integer::sum);
                if (e.description() != null && !e.description().isBlank()) descriptions.computeIfAbsent(n, k -> new TreeSet<>()).add(e.description().trim());
                addOnce(chunks.computeIfAbsent(n, k -> new ArrayList<>()), chunk);
            }
            for (Relationship r : x.relationships() == null ? List.<Relationship>of() : x.relationships()) {
                String a = name(r.source()), b = name(r.target());
                if (a == null || b == null || a.equals(b)) continue;
                String[] p = a.compareTo(b) < 0 ? new String[] {a, b} : new String[] {b, a};
                String key = p[0] + "\u0000" + p[1];
                pairs.putIfAbsent(key, p);
                weights.computeIfAbsent(key, k -> new double[1])[0] += r.strength() == null || !Double.isFinite(r.strength()) ? 1.0 : r.strength();
                if (r.keywords() != null && !r.keywords().isBlank()) relKeywords.computeIfAbsent(key, k -> new TreeSet<>()).add(r.keywords().trim());
                if (r.description() != null && !r.description().isBlank()) relDescriptions.computeIfAbsent(key, k -> new TreeSet<>()).add(r.description().trim());
                addOnce(relChunks.computeIfAbsent(key, k -> new ArrayList<>()), chunk);
                for (String end : p) { // an endpoint never extracted as an entity: created with type UNKNOWN
                    types.computeIfAbsent(end, k -> new LinkedHashMap<>());
                    addOnce(chunks.computeIfAbsent(end, k -> new ArrayList<>()), chunk);
                }
            }
        });
        Map<String, MergedEntity> entities = new LinkedHashMap<>();
        types.forEach((n, counts) -> entities.put(n, new MergedEntity(n, mostFrequent(counts),
                List.copyOf(descriptions.getOrDefault(n, new TreeSet<>())), List.copyOf(chunks.get(n)))));
        Map<String, MergedRelation> relations = new LinkedHashMap<>();
        pairs.forEach((key, p) -> relations.put(key, new MergedRelation(p[0], p[1], weights.get(key)[0],
                List.copyOf(relKeywords.getOrDefault(key, new TreeSet<>())), List.copyOf(relDescriptions.getOrDefault(key, new TreeSet<>())),
                List.copyOf(relChunks.get(key)))));
        return new Merged(entities, relations);
    }

    /** The most frequent type, ties to the first seen; UNKNOWN when there is none. */
    private static String mostFrequent(Map<String, Integer> counts) {
        String best = "UNKNOWN";
        int n = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (e.getValue() > n) {
                best = e.getKey();
                n = e.getValue();
            }
        }
        return best;
    }

    private static String name(String raw) {
        List<String> n = HypergraphMemory.resolve(Collections.singletonList(raw));
        return n.isEmpty() ? null : n.get(0);
    }

    private static void addOnce(List<String> list, String v) {
        if (!list.contains(v)) list.add(v);
    }
}
