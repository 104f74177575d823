package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HGMem's steps answered by fixed rules (docs/evaluation.md#hgmem-the-oracle-planner-and-the-passes). Extraction (X1, index time) reads only the
 * chunk and its document's title: entities are the title (its disambiguator dropped), {@link RuleExtractor}'s names and
 * the parts of names joined by a connector ("Johann Strauss II of Austria" also names "Johann Strauss II" and
 * "Austria"), described by the sentences that mention them (the title, when no sentence does, by the first); relations pair
 * each name with the next name of its sentence, described by the sentence. The planner (query time) is an ORACLE POLICY: it reads the prompt's input
 * block and the question's sanitised hops, and never learns an answer the visible text does not reveal
 * ({@link EvidenceGate}):
 * <ul>
 * <li>E1: for each hop not yet in memory that a retrieved source reveals (gated), insert a point over the source's
 *     table entities (at most 4) and the hop's answer, described "hop i: resolved sub-question → answer. Evidence:
 *     sentence"; a hop already in memory that another source corroborates is updated once with that sentence. The
 *     sources are read to a fixed point, not once in listed order, so hop 2's source listed before hop 1's still
 *     counts in the step that reveals hop 1.</li>
 * <li>E2: type "concept", the context sentence that names the entity; pairs by their co-occurrence sentence.</li>
 * <li>E3: the points of consecutive hops that share an entity merge into one chained point; nothing else merges.</li>
 * <li>E4: "1" once every hop is in memory; else, per unresolved hop whose "#k" are known (up to maxConcerns), a concern
 *     on the point holding its subject (2.1) or, when no point holds it, a global one (2.2).</li>
 * <li>E5: the hop's sub-question with known answers substituted, one per concern.</li>
 * <li>E6: the final answer once the last hop is in memory (else "unknown"), citing the sources that hold a known answer.</li>
 * </ul>
 * Memory points carry their hops as "hop i:" in their descriptions, so the policy stays stateless.
 */
public final class HgmemPolicies {
    public static final String EXTRACT = "hgmem extract", EVOLVE = "hgmem evolve", DESCRIBE = "hgmem describe absent", MERGE = "hgmem merge",
            PLAN = "hgmem plan", SUBQUERIES = "hgmem subqueries", ANSWER = "hgmem answer", SUMMARISE = "hgmem summarise";
    public static final String UNKNOWN = "unknown";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern HOP = Pattern.compile("hop (\\d+):");

    private HgmemPolicies() {}

    public static EvalLlmServer register(EvalLlmServer server, OracleGold gold) {
        return server.on(EXTRACT, HgmemPolicies::extract)
                .on(SUMMARISE, r -> json(Map.of("summary", summary(texts(block(r).path("descriptions"))))))
                .on(EVOLVE, r -> evolve(block(r), gold))
                .on(DESCRIBE, r -> describe(block(r)))
                .on(MERGE, r -> merge(block(r)))
                .on(PLAN, r -> plan(block(r), gold))
                .on(SUBQUERIES, r -> subqueries(block(r), gold))
                .on(ANSWER, r -> answer(block(r), gold));
    }

    /**
     * A SCRIPTED planner for a long single document with no gold (the NarrativeQA book): E1 inserts a point per source
     * (at most two a step) over the table entities the source names, described by its first sentence naming one; E3
     * merges every point into one once there are three; E4 follows {@code judgements} in order (2.1 investigates the
     * last point, 2.2 explores globally, then 1), its concerns the {@code concerns} of that step; E5 copies the
     * concerns; E6 answers "scripted answer", citing the sources. For latency, tokens per step and memory size only.
     */
    public static EvalLlmServer registerScripted(EvalLlmServer server, List<String> judgements, List<List<String>> concerns) {
        java.util.concurrent.atomic.AtomicInteger plans = new java.util.concurrent.atomic.AtomicInteger();
        return server.on(EXTRACT, HgmemPolicies::extract)
                .on(SUMMARISE, r -> json(Map.of("summary", "summary")))
                .on(EVOLVE, r -> {
                    JsonNode b = block(r);
                    List<String> names = new ArrayList<>();
                    b.path("retrieved").path("entities").forEach(e -> names.add(e.path("entity").asText()));
                    List<Map<String, Object>> inserted = new ArrayList<>();
                    for (JsonNode src : b.path("retrieved").path("sources")) {
                        if (inserted.size() == 2) break;
                        String content = sourceText(src), norm = EvidenceGate.normalize(content);
                        List<String> in = names.stream().filter(n -> EvidenceGate.containsPhrase(norm, n)).limit(4).toList();
                        if (!in.isEmpty()) inserted.add(Map.of("entities", in, "description", sentenceWith(content, in.get(0))));
                    }
                    return json(Map.of("inserted", inserted, "updated", List.of()));
                })
                .on(DESCRIBE, r -> describe(block(r)))
                .on(MERGE, r -> {
                    int n = block(r).path("memory").size();
                    List<Integer> all = new ArrayList<>();
                    for (int i = 0; i < n; i++) all.add(i);
                    return json(Map.of("merges", n >= 3 ? List.of(Map.of("indices", all, "description", "everything gathered so far")) : List.of()));
                })
                .on(PLAN, r -> {
                    int t = plans.getAndIncrement();
                    String j = t < judgements.size() ? judgements.get(t) : "1";
                    int last = Math.max(0, block(r).path("memory").size() - 1);
                    List<Map<String, Object>> cs = new ArrayList<>();
                    for (String c : t < concerns.size() ? concerns.get(t) : List.<String>of()) {
                        cs.add(j.equals("2.1") ? Map.of("concern", c, "memoryPointIndices", List.of(last)) : Map.of("concern", c));
                    }
                    return json(Map.of("judgement", j, "concerns", cs));
                })
                .on(SUBQUERIES, r -> json(Map.of("subqueries", block(r).path("concerns").findValuesAsText("concern"))))
                .on(ANSWER, r -> json(Map.of("answer", "scripted answer", "citedSources", block(r).path("sources").findValuesAsText("id"))));
    }

    /** X2's reply: the descriptions joined, cut at 2,000 characters. */
    public static String summary(List<String> descriptions) {
        String joined = String.join(" ", descriptions);
        return joined.substring(0, Math.min(2000, joined.length()));
    }

    static JsonNode block(PolicyRequest r) {
        return RemindExtractionPolicies.block(r);
    }

    static PolicyReply json(Object o) {
        return PolicyReply.jsonOf(o);
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    // ---- X1

    /** X1's rule extraction of a chunk (public so that a test can wrap it, with a delay for instance). */
    public static PolicyReply extract(PolicyRequest r) {
        String text = block(r).path("text").asText();
        ObjectNode reply = JSON.createObjectNode();
        ArrayNode ents = reply.putArray("entities"), rels = reply.putArray("relationships");
        reply.putArray("contentKeywords");
        List<String> names = new ArrayList<>();
        // the document's title names the passage's subject ("Hank Snow (musician)" for "He was born ..."): an entity of
        // the chunk, described by the sentences naming it or else by the first, as an LLM told whom the text is about would
        String title = dev.graphrag.core.lexical.Titles.withoutDisambiguator(block(r).path("title").asText("")).strip();
        if (!title.isEmpty()) {
            names.add(title);
            List<String> sentences = RuleExtractor.sentences(text);
            if (sentences.stream().noneMatch(x -> x.contains(title)) && !sentences.isEmpty()) {
                ents.addObject().put("name", title).put("type", "concept").put("description", sentences.get(0));
            }
        }
        for (String n : RuleExtractor.entities(null, text)) {
            if (!names.contains(n)) names.add(n);
            // a span joined by a connector ("Johann Strauss II of Austria") also names its parts, as an LLM extractor would
            for (String part : n.split("\\s+(?:of|the|de|du|von|van|la|le)\\s+")) if (!part.equals(n) && part.length() > 1 && !names.contains(part)) names.add(part);
        }
        Map<String, List<String>> described = new LinkedHashMap<>();
        for (String s : RuleExtractor.sentences(text)) for (String n : names) if (s.contains(n)) described.computeIfAbsent(n, k -> new ArrayList<>()).add(s);
        described.forEach((n, ss) -> ents.addObject().put("name", n).put("type", "concept").put("description", String.join(" ", ss)));
        // "clearly related" pairs: each name with the next one in its sentence (k-1 pairs a sentence, not all k(k-1)/2)
        Map<String, RuleExtractor.Relation> nearest = new LinkedHashMap<>();
        for (RuleExtractor.Relation rel : RuleExtractor.relations(text, names)) {
            String key = rel.subject() + "\u0000" + rel.sentence();
            RuleExtractor.Relation had = nearest.get(key);
            String lower = rel.sentence().toLowerCase(Locale.ROOT);
            if (had == null || lower.indexOf(rel.object().toLowerCase(Locale.ROOT)) < lower.indexOf(had.object().toLowerCase(Locale.ROOT))) nearest.put(key, rel);
        }
        for (RuleExtractor.Relation rel : nearest.values()) {
            rels.addObject().put("source", rel.subject()).put("target", rel.object()).put("description", rel.sentence())
                    .put("keywords", rel.predicate()).put("strength", 1.0);
        }
        return PolicyReply.json(reply.toString());
    }

    // ---- memory as the policy reads it

    /** Hop number (0-based) to the memory point index holding it, from the "hop i:" markers of the descriptions. */
    static Map<Integer, Integer> hopsInMemory(JsonNode memory) {
        Map<Integer, Integer> out = new TreeMap<>();
        for (JsonNode m : memory) {
            Matcher x = HOP.matcher(m.path("description").asText());
            while (x.find()) out.putIfAbsent(Integer.parseInt(x.group(1)) - 1, m.path("index").asInt());
        }
        return out;
    }

    /** The hop answers memory establishes (null where a hop is not in memory). */
    static String[] knownFromMemory(OracleGold.Question q, JsonNode memory) {
        String[] known = new String[q.hops().size()];
        for (int h : hopsInMemory(memory).keySet()) if (h < known.length) known[h] = q.hops().get(h).answer();
        return known;
    }

    /** A row of a Sources table as its reader sees it: the document's title, when it has one, above the content. */
    static String sourceText(JsonNode src) {
        return EvidenceGate.titled(src.path("title").asText(""), src.path("content").asText());
    }

    /** The sentence of a text that holds a phrase (else the whole text, cut). */
    static String sentenceWith(String text, String phrase) {
        for (String s : RuleExtractor.sentences(text)) if (EvidenceGate.containsPhrase(EvidenceGate.normalize(s), phrase)) return s;
        return text.length() > 300 ? text.substring(0, 300) : text;
    }

    static String upper(String s) {
        return s.trim().toUpperCase(Locale.ROOT);
    }

    // ---- E1

    static PolicyReply evolve(JsonNode b, OracleGold gold) {
        OracleGold.Question q = gold.find(b.path("mainQuery").asText());
        List<Map<String, Object>> inserted = new ArrayList<>(), updated = new ArrayList<>();
        if (q == null || q.hops().isEmpty()) return json(Map.of("inserted", inserted, "updated", updated));
        JsonNode memory = b.path("memory");
        Map<Integer, Integer> inMemory = hopsInMemory(memory);
        List<String> memoryTexts = new ArrayList<>();
        memory.forEach(m -> memoryTexts.add(m.path("description").asText()));
        List<String> tableNames = new ArrayList<>();
        b.path("retrieved").path("entities").forEach(e -> tableNames.add(e.path("entity").asText()));
        List<String> visible = new ArrayList<>(memoryTexts);
        String[] before = EvidenceGate.known(q, visible);
        // passes over the sources until none reveals a new hop: a reader of the whole table is not bound to its order
        // (hop 2's source may be listed before the one that names hop 1's answer, hop 2's subject)
        for (boolean progress = true; progress; ) {
            progress = false;
            for (JsonNode src : b.path("retrieved").path("sources")) {
                String content = sourceText(src);
                List<String> withSource = new ArrayList<>(visible);
                withSource.add(content);
                String[] after = EvidenceGate.known(q, withSource);
                for (int h = 0; h < after.length; h++) {
                    if (after[h] == null || before[h] != null) {
                        // corroboration: a hop in memory whose point this source did not write, updated once
                        Integer at = inMemory.get(h);
                        if (after[h] != null && at != null && updated.size() < 3 && EvidenceGate.containsPhrase(EvidenceGate.normalize(content), q.hops().get(h).answer())) {
                            String d = memory.get(at).path("description").asText();
                            String sentence = sentenceWith(content, q.hops().get(h).answer());
                            if (!d.contains("Also: ") && !d.contains(sentence) && updated.stream().noneMatch(u -> at.equals(u.get("index")))) {
                                updated.add(Map.of("index", at, "entities", texts(memory.get(at).path("entities")), "description", d + " Also: " + sentence));
                            }
                        }
                        continue;
                    }
                    String answer = q.hops().get(h).answer();
                    List<String> names = new ArrayList<>();
                    String norm = EvidenceGate.normalize(content);
                    for (String n : tableNames) if (names.size() < 4 && EvidenceGate.containsPhrase(norm, n)) names.add(n);
                    if (names.stream().noneMatch(n -> upper(n).equals(upper(answer)))) names.add(upper(answer));
                    String[] knownNow = before.clone();
                    inserted.add(Map.of("entities", names, "description", "hop " + (h + 1) + ": " + EvidenceGate.query(q.hops().get(h), knownNow) + " → " + answer
                            + ". Evidence: " + sentenceWith(content, answer)));
                    before[h] = answer;
                    visible.add(content);
                    progress = true;
                }
            }
        }
        return json(Map.of("inserted", inserted, "updated", updated));
    }

    // ---- E2

    static PolicyReply describe(JsonNode b) {
        List<String> contexts = new ArrayList<>();
        b.path("context").path("sources").forEach(s -> contexts.add(sourceText(s)));
        b.path("context").path("entities").forEach(s -> contexts.add(s.path("description").asText()));
        List<Map<String, Object>> ents = new ArrayList<>(), rels = new ArrayList<>();
        for (JsonNode n : b.path("entities")) {
            String name = n.asText();
            String d = "";
            for (String c : contexts) if (EvidenceGate.containsPhrase(EvidenceGate.normalize(c), name)) { d = sentenceWith(c, name); break; }
            ents.add(Map.of("name", name, "type", "concept", "description", d));
        }
        for (JsonNode p : b.path("pairs")) {
            String a = p.get(0).asText(), c = p.get(1).asText(), d = "";
            for (String t : contexts) {
                for (String s : RuleExtractor.sentences(t)) {
                    String n = EvidenceGate.normalize(s);
                    if (EvidenceGate.containsPhrase(n, a) && EvidenceGate.containsPhrase(n, c)) { d = s; break; }
                }
                if (!d.isEmpty()) break;
            }
            rels.add(Map.of("source", a, "target", c, "description", d, "keywords", "co-occurrence"));
        }
        return json(Map.of("entities", ents, "relationships", rels));
    }

    // ---- E3

    static PolicyReply merge(JsonNode b) {
        JsonNode memory = b.path("memory");
        Map<Integer, Integer> hops = hopsInMemory(memory);
        List<Map<String, Object>> merges = new ArrayList<>();
        List<Integer> chain = new ArrayList<>();
        Integer prevHop = null;
        for (Map.Entry<Integer, Integer> e : hops.entrySet()) {
            int idx = e.getValue();
            boolean links = prevHop != null && e.getKey() == prevHop + 1 && !chain.isEmpty() && chain.get(chain.size() - 1) != idx
                    && share(memory.get(chain.get(chain.size() - 1)), memory.get(idx));
            if (!links) {
                flush(memory, chain, merges);
                chain = new ArrayList<>();
            }
            if (!chain.contains(idx)) chain.add(idx);
            prevHop = e.getKey();
        }
        flush(memory, chain, merges);
        return json(Map.of("merges", merges));
    }

    private static boolean share(JsonNode a, JsonNode b) {
        Set<String> x = new LinkedHashSet<>(texts(a.path("entities")));
        for (String e : texts(b.path("entities"))) if (x.contains(e)) return true;
        return false;
    }

    private static void flush(JsonNode memory, List<Integer> chain, List<Map<String, Object>> merges) {
        if (chain.size() < 2) return;
        List<String> parts = new ArrayList<>();
        for (int i : chain) parts.add(memory.get(i).path("description").asText());
        merges.add(Map.of("indices", List.copyOf(chain), "description", String.join(" Then ", parts)));
    }

    // ---- E4, E5

    static PolicyReply plan(JsonNode b, OracleGold gold) {
        OracleGold.Question q = gold.find(b.path("mainQuery").asText());
        if (q == null || q.hops().isEmpty()) return json(Map.of("judgement", "1", "concerns", List.of()));
        JsonNode memory = b.path("memory");
        String[] known = knownFromMemory(q, memory);
        boolean localAllowed = texts(b.path("allowedJudgements")).contains("2.1"), globalAllowed = texts(b.path("allowedJudgements")).contains("2.2");
        int max = b.path("maxConcerns").asInt(3);
        List<Map<String, Object>> concerns = new ArrayList<>();
        boolean anyLocal = false;
        for (int h = 0; h < known.length && concerns.size() < max; h++) {
            if (known[h] != null || !EvidenceGate.refsKnown(q.hops().get(h).question(), known)) continue;
            String subject = EvidenceGate.subject(q.hops().get(h), known);
            Integer at = null;
            if (subject != null) {
                for (JsonNode m : memory) for (String e : texts(m.path("entities"))) if (at == null && e.equals(upper(subject))) at = m.path("index").asInt();
            }
            String text = "hop " + (h + 1) + ": " + EvidenceGate.query(q.hops().get(h), known);
            if (at != null && localAllowed) {
                concerns.add(Map.of("concern", text, "memoryPointIndices", List.of(at)));
                anyLocal = true;
            } else if (globalAllowed || !localAllowed) {
                concerns.add(Map.of("concern", text));
            } else {
                concerns.add(Map.of("concern", text, "memoryPointIndices", memory.size() > 0 ? List.of(memory.size() - 1) : List.of()));
                anyLocal = true;
            }
        }
        if (concerns.isEmpty()) return json(Map.of("judgement", "1", "concerns", List.of()));
        return json(Map.of("judgement", anyLocal ? "2.1" : "2.2", "concerns", concerns));
    }


    static PolicyReply subqueries(JsonNode b, OracleGold gold) {
        OracleGold.Question q = gold.find(b.path("mainQuery").asText());
        List<String> out = new ArrayList<>();
        String[] known = q == null ? new String[0] : knownFromMemory(q, b.path("memory"));
        for (JsonNode c : b.path("concerns")) {
            Matcher m = HOP.matcher(c.path("concern").asText());
            if (q != null && m.find()) {
                int h = Integer.parseInt(m.group(1)) - 1;
                out.add(h < q.hops().size() ? EvidenceGate.query(q.hops().get(h), known) : c.path("concern").asText());
            } else {
                out.add(c.path("concern").asText());
            }
        }
        return json(Map.of("subqueries", out));
    }

    // ---- E6

    static PolicyReply answer(JsonNode b, OracleGold gold) {
        OracleGold.Question q = gold.find(b.path("mainQuery").asText());
        String[] known = q == null ? new String[0] : knownFromMemory(q, b.path("memory"));
        boolean last = known.length > 0 && known[known.length - 1] != null;
        List<String> cited = new ArrayList<>();
        for (JsonNode s : b.path("sources")) {
            String n = EvidenceGate.normalize(sourceText(s));
            for (String k : known) if (k != null && EvidenceGate.containsPhrase(n, k) && !cited.contains(s.path("id").asText())) cited.add(s.path("id").asText());
        }
        return json(Map.of("answer", last ? q.answer() : UNKNOWN, "citedSources", cited));
    }
}
