package dev.graphrag.oracle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.raga.NameKey;
import dev.graphrag.raga.QualityGate;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * RAGA's construction agent as fixed rules (docs/evaluation.md#raga-the-construction-agent-then-llm-free-retrieval): an index-time stand-in that reads only the
 * chunk in the prompt and the results of its own calls, never a question or a gold id. Per chunk, in rounds:
 * search_kg for each candidate name ({@link RuleExtractor}: the document title when the chunk mentions it, then the
 * capitalised spans that pass the quality gate); create_entity for each, the evidence the shortest sentence holding the
 * mention; create_relation for entities that share a sentence, the type derived from the words between them (RELATED_TO
 * when none), the sentence as evidence; merge_entity of an acronym into the name it abbreviates when a search found that
 * name; then chunk_complete. The batch toolset does the same in two batch_kg_ops calls. A pure function of the request.
 *
 * <p>With {@code faults}, about one planned call in four is preceded by a corrupted one the tools must refuse (so about 20%
 * of all calls are corrupted): a search with an invalid search_type, a quote that is not in the chunk, a create without
 * evidence, a relation to an entity that does not exist, an invalid relation type, or arguments that are not JSON. The valid call still follows, as an agent retries after reading the error, so
 * a faulty run must build exactly the graph of a clean one.
 */
public final class RagaConstructionPolicy implements Policy {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int MAX_NAMES = 10, MAX_RELATIONS = 10;

    private final boolean batch;
    private final boolean faults;

    public RagaConstructionPolicy(boolean batch, boolean faults) {
        this.batch = batch;
        this.faults = faults;
    }

    /** Whether this policy answers with batch_kg_ops (the batch toolset). */
    public boolean batch() {
        return batch;
    }

    /** The calls one chunk plans, by round; what the policy answers is a function of these and the results so far. */
    record Plan(List<String> names, Map<String, String> evidence, List<RuleExtractor.Relation> relations) {}

    @Override
    public PolicyReply reply(PolicyRequest r) {
        JsonNode para = RemindExtractionPolicies.block(r).path("current_paragraph");
        String chunk = para.path("chunk_id").asText();
        String text = para.path("text").asText();
        String title = para.path("title").asText(null);
        int round = 0;
        Map<String, JsonNode> results = new HashMap<>();
        for (JsonNode m : r.body().path("messages")) {
            if ("assistant".equals(m.path("role").asText())) round++;
            if ("tool".equals(m.path("role").asText())) {
                try {
                    results.put(m.path("tool_call_id").asText(), JSON.readTree(m.path("content").asText()));
                } catch (JsonProcessingException e) {
                    results.put(m.path("tool_call_id").asText(), JSON.createObjectNode());
                }
            }
        }
        Plan plan = plan(title, text);
        if (plan.names().isEmpty()) return complete("nothing durable");
        return batch ? batchRound(round, chunk, plan, results) : fullRound(round, chunk, plan, results);
    }

    static Plan plan(String title, String text) {
        List<String> candidates = RuleExtractor.entities(title != null && text.toLowerCase(Locale.ROOT).contains(title.toLowerCase(Locale.ROOT)) ? title : null, text);
        List<String> names = new ArrayList<>();
        Map<String, String> evidence = new LinkedHashMap<>();
        Set<String> keys = new LinkedHashSet<>();
        for (String c : candidates) {
            if (names.size() >= MAX_NAMES) break;
            if (QualityGate.check(c, 60, 0.7) != null || !keys.add(NameKey.of(c))) continue;
            String ev = evidence(text, c);
            if (ev == null) continue;
            names.add(c);
            evidence.put(c, ev);
        }
        List<RuleExtractor.Relation> rels = new ArrayList<>();
        for (RuleExtractor.Relation rel : RuleExtractor.relations(text, names)) {
            if (rels.size() >= MAX_RELATIONS) break;
            if (NameKey.of(rel.subject()).equals(NameKey.of(rel.object())) || rel.sentence().length() < 8 || rel.sentence().length() > 600) continue;
            rels.add(rel);
        }
        return new Plan(names, evidence, rels);
    }

    /** The shortest sentence holding the mention (8-600 characters), else a window around it; null when neither fits. */
    static String evidence(String text, String name) {
        String best = null;
        for (String s : RuleExtractor.sentences(text)) {
            if (s.toLowerCase(Locale.ROOT).contains(name.toLowerCase(Locale.ROOT)) && s.length() >= 8 && s.length() <= 600 && (best == null || s.length() < best.length())) best = s;
        }
        if (best != null) return best;
        int at = text.toLowerCase(Locale.ROOT).indexOf(name.toLowerCase(Locale.ROOT));
        if (at < 0) return null;
        String w = text.substring(Math.max(0, at - 60), Math.min(text.length(), at + name.length() + 60)).trim();
        return w.length() >= 8 ? w : null;
    }

    /** UPPER_SNAKE_CASE from the words between two names: ASCII letters only, at most three words; RELATED_TO otherwise. */
    static String relationType(String predicate) {
        String ascii = Normalizer.normalize(predicate, Normalizer.Form.NFD).replaceAll("\\p{M}", "");
        List<String> words = new ArrayList<>();
        for (String w : ascii.split("\\s+")) {
            if (w.matches("[A-Za-z]+") && words.size() < 3) words.add(w.toUpperCase(Locale.ROOT));
        }
        return words.isEmpty() || predicate.equals("related to") ? "RELATED_TO" : String.join("_", words);
    }

    static boolean acronymOf(String acronym, String name) {
        if (!acronym.matches("[A-Z]{2,6}")) return false;
        StringBuilder initials = new StringBuilder();
        for (String w : name.split("\\s+")) if (!w.isEmpty() && Character.isUpperCase(w.charAt(0))) initials.append(w.charAt(0));
        return initials.toString().equals(acronym) && !name.equals(acronym);
    }

    // ---- the full toolset

    private PolicyReply fullRound(int round, String chunk, Plan p, Map<String, JsonNode> results) {
        List<Map<String, Object>> calls = new ArrayList<>();
        switch (round) {
            case 0 -> {
                for (int i = 0; i < p.names().size(); i++) {
                    Map<String, Object> args = new LinkedHashMap<>(Map.of("query", p.names().get(i), "search_type", "fuzzy"));
                    if (faults && Math.floorMod((chunk + "#s" + i).hashCode(), 100) < 25) {
                        Map<String, Object> bad = new LinkedHashMap<>(args);
                        bad.put("search_type", "everything");
                        calls.add(PolicyReply.toolCall("xs" + i, "search_kg", bad));
                    }
                    calls.add(PolicyReply.toolCall("s" + i, "search_kg", args));
                }
                return PolicyReply.tools(calls);
            }
            case 1 -> {
                for (int i = 0; i < p.names().size(); i++) {
                    String n = p.names().get(i);
                    Map<String, Object> args = new LinkedHashMap<>();
                    args.put("name", n);
                    args.put("entity_type", "Concept");
                    args.put("evidence", p.evidence().get(n));
                    fault(chunk, "e" + i, args, calls, false);
                    calls.add(PolicyReply.toolCall("e" + i, "create_entity", args));
                }
                return PolicyReply.tools(calls);
            }
            case 2 -> {
                Set<String> created = created(p, results);
                int i = 0;
                for (RuleExtractor.Relation rel : p.relations()) {
                    if (!created.contains(rel.subject()) || !created.contains(rel.object())) continue;
                    Map<String, Object> args = new LinkedHashMap<>();
                    args.put("head", rel.subject());
                    args.put("relation_type", relationType(rel.predicate()));
                    args.put("tail", rel.object());
                    args.put("evidence", rel.sentence());
                    fault(chunk, "r" + i, args, calls, true);
                    calls.add(PolicyReply.toolCall("r" + i++, "create_relation", args));
                }
                if (!calls.isEmpty()) return PolicyReply.tools(calls);
                return merges(p, results);
            }
            case 3 -> {
                return merges(p, results);
            }
            default -> {
                return complete(p.names().size() + " entities");
            }
        }
    }

    /** Names whose create_entity call succeeded in round 1. */
    private static Set<String> created(Plan p, Map<String, JsonNode> results) {
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < p.names().size(); i++) {
            JsonNode r = results.get("e" + i);
            if (r != null && r.path("ok").asBoolean()) out.add(p.names().get(i));
        }
        return out;
    }

    /** An acronym merged into the name it abbreviates, when a search of this chunk returned that name; else complete. */
    private PolicyReply merges(Plan p, Map<String, JsonNode> results) {
        List<Map<String, Object>> calls = new ArrayList<>();
        Set<String> created = created(p, results);
        for (int i = 0; i < p.names().size(); i++) {
            String acronym = p.names().get(i);
            if (!created.contains(acronym) || !acronym.matches("[A-Z]{2,6}")) continue;
            for (JsonNode r : results.values()) {
                for (JsonNode e : r.path("result").path("entities")) {
                    String name = e.path("name").asText();
                    if (acronymOf(acronym, name)) {
                        calls.add(PolicyReply.toolCall("m" + i, "merge_entity", Map.of("target_name", name, "source_name", acronym, "reason", "acronym")));
                        break;
                    }
                }
                if (calls.size() > 0 && calls.get(calls.size() - 1).get("id").equals("m" + i)) break;
            }
        }
        return calls.isEmpty() ? complete(p.names().size() + " entities") : PolicyReply.tools(calls);
    }

    // ---- the batch toolset

    private PolicyReply batchRound(int round, String chunk, Plan p, Map<String, JsonNode> results) {
        if (round == 0) {
            List<Map<String, Object>> searches = new ArrayList<>();
            for (String n : p.names()) searches.add(Map.of("query", n, "search_type", "fuzzy"));
            return PolicyReply.tools(List.of(PolicyReply.toolCall("b0", "batch_kg_ops", Map.of("searches", searches))));
        }
        if (round == 1) {
            List<Map<String, Object>> entities = new ArrayList<>();
            for (String n : p.names()) entities.add(Map.of("name", n, "entity_type", "Concept", "evidence", p.evidence().get(n)));
            List<Map<String, Object>> relations = new ArrayList<>();
            for (RuleExtractor.Relation rel : p.relations()) {
                relations.add(Map.of("head", rel.subject(), "relation_type", relationType(rel.predicate()), "tail", rel.object(), "evidence", rel.sentence()));
            }
            return PolicyReply.tools(List.of(PolicyReply.toolCall("b1", "batch_kg_ops", Map.of("creates", Map.of("entities", entities, "relations", relations)))));
        }
        return complete(p.names().size() + " entities");
    }

    // ---- faults

    /** About one call in four gets a corrupted twin before it, of a kind that fits the call. */
    private void fault(String chunk, String id, Map<String, Object> valid, List<Map<String, Object>> calls, boolean relation) {
        if (!faults) return;
        int h = Math.floorMod((chunk + "#" + id).hashCode(), 100);
        if (h >= 25) return;
        Map<String, Object> bad = new LinkedHashMap<>(valid);
        int kind = h % 3;
        if (kind == 2) {
            calls.add(PolicyReply.rawToolCall("x" + id, relation ? "create_relation" : "create_entity", "{\"name\": "));
            return;
        }
        if (relation) {
            if (kind == 0) bad.put("tail", "No Such Entity Anywhere");
            else bad.put("relation_type", "related to");
        } else {
            if (kind == 0) bad.put("evidence", "a sentence that this chunk never contained");
            else bad.remove("evidence");
        }
        calls.add(PolicyReply.toolCall("x" + id, relation ? "create_relation" : "create_entity", bad));
    }

    static PolicyReply complete(String summary) {
        return PolicyReply.jsonOf(Map.of("status", "chunk_complete", "summary", summary));
    }
}
