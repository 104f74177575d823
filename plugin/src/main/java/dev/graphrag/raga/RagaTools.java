package dev.graphrag.raga;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.llm.JsonSchemaCheck;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Runs RAGA's tools (spec §2.11) in one transaction, for the agent and for people curating by hand alike: arguments
 * checked against the tool's schema, names resolved through the alias registry, evidence verified, the quality gate
 * and schema applied, all before the first write; then the writes, each with its provenance and, for entities, its
 * vector. A refusal writes nothing and comes back as a failure envelope with a code and a hint.
 */
public final class RagaTools {
    private final Transaction tx;
    private final EmbeddingService embeddings;
    private final ToolContext ctx;
    private final KnowledgeStore store;
    private final RagaSchema schema;

    public RagaTools(Transaction tx, EmbeddingService embeddings, ToolContext ctx) {
        this.tx = tx;
        this.embeddings = embeddings;
        this.ctx = ctx;
        this.store = new KnowledgeStore(tx, embeddings, ctx);
        this.schema = new RagaSchema(store);
    }

    public KnowledgeStore store() {
        return store;
    }

    /** Runs a tool by name on JSON arguments; never throws for a refusal. */
    public ToolResult execute(String name, JsonNode args) {
        ToolSchemas.Spec spec = name.equals(ToolSchemas.CHUNK_COMPLETE.name()) ? ToolSchemas.CHUNK_COMPLETE : ToolSchemas.byName(name);
        if (spec == null) return ToolResult.failure(name, new ToolError("UNKNOWN_TOOL", "no tool named '" + name + "'; tools are " + ToolSchemas.names()));
        if (args == null || !args.isObject()) {
            return ToolResult.failure(spec.name(), new ToolError("INVALID_ARGUMENTS", "arguments must be a JSON object", "", null, null));
        }
        String problem = JsonSchemaCheck.problem(spec.parameters(), args);
        if (problem != null) {
            return ToolResult.failure(spec.name(), new ToolError("INVALID_ARGUMENTS", "invalid arguments: " + problem, JsonSchemaCheck.pointer(problem),
                    "fix the arguments to match the tool's schema", null));
        }
        List<String> warnings = new ArrayList<>();
        try {
            if (spec.name().equals("batch_kg_ops")) return batch(args);
            return ToolResult.success(spec.name(), run(spec.name(), args, warnings), warnings);
        } catch (ToolError e) {
            return ToolResult.failure(spec.name(), e);
        }
    }

    private Map<String, Object> run(String name, JsonNode a, List<String> warnings) {
        return switch (name) {
            case "read_paragraph" -> readParagraph(a);
            case "browse_context" -> browseContext(a);
            case "search_kg" -> searchKg(a);
            case "explore_fusion" -> exploreFusion(a);
            case "create_entity" -> createEntity(a, "", warnings);
            case "create_relation" -> createRelation(a, "");
            case "update_entity" -> updateEntity(a);
            case "update_relation" -> updateRelation(a);
            case "merge_entity" -> mergeEntity(a);
            case "merge_relation" -> mergeRelation(a);
            case "delete_entity" -> deleteEntity(a);
            case "delete_relation" -> deleteRelation(a);
            case "mark_for_review" -> markForReview(a);
            case "create_todo" -> createTodo(a);
            case "get_progress" -> progress();
            case "chunk_complete" -> Map.of("status", "chunk_complete", "summary", a.path("summary").asText());
            default -> throw new IllegalStateException(name);
        };
    }

    static String opt(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    static List<String> list(JsonNode a, String key) {
        List<String> out = new ArrayList<>();
        JsonNode v = a.get(key);
        if (v != null && v.isArray()) v.forEach(x -> out.add(x.asText()));
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(JsonNode a, String key) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? null : KnowledgeStore.JSON.convertValue(v, Map.class);
    }

    static int clamp(JsonNode a, String key, int dflt) {
        JsonNode v = a.get(key);
        return v == null || v.isNull() ? dflt : Math.max(1, Math.min(50, v.asInt()));
    }

    // ---- read and search

    private Map<String, Object> chunkView(Node c, boolean withText) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("chunk_id", c.getProperty("id"));
        m.put("doc_id", c.getProperty("documentId"));
        m.put("index", c.getProperty("index"));
        m.put("state", c.getProperty("ragaState", "PENDING"));
        if (withText) m.put("text", c.getProperty("text"));
        return m;
    }

    private String currentDoc() {
        if (ctx.currentChunkId == null) return null;
        return (String) store.chunk(ctx.currentChunkId, null).getProperty("documentId");
    }

    private Map<String, Object> readParagraph(JsonNode a) {
        String doc = opt(a, "doc_id") != null ? opt(a, "doc_id") : currentDoc();
        if (doc == null) throw new ToolError("INVALID_ARGUMENTS", "doc_id is required outside a reading session", "/doc_id", null, null);
        int idx = a.get("paragraph_idx").asInt();
        Node c = tx.findNode(LexicalGraph.CHUNK, "id", LexicalGraph.chunkId(ctx.corpus, doc, idx));
        if (c == null) throw new ToolError("CHUNK_NOT_FOUND", "document '" + doc + "' has no paragraph " + idx, "/paragraph_idx", "get_progress gives the paragraph count", null);
        ctx.see((String) c.getProperty("id"));
        Map<String, Object> m = chunkView(c, true);
        m.put("total", (long) documentChunks(doc).size());
        return m;
    }

    private List<Node> documentChunks(String doc) {
        List<Node> out = new ArrayList<>();
        try (Result r = tx.execute("MATCH (c:Chunk {corpus: $corpus, documentId: $doc}) RETURN c ORDER BY c.index", Map.of("corpus", ctx.corpus, "doc", doc))) {
            while (r.hasNext()) out.add((Node) r.next().get("c"));
        }
        return out;
    }

    private Map<String, Object> browseContext(JsonNode a) {
        String mode = a.get("mode").asText();
        String chunkId = opt(a, "chunk_id") != null ? opt(a, "chunk_id") : ctx.currentChunkId;
        if (chunkId == null && !mode.equals("kg_neighbors")) throw new ToolError("INVALID_ARGUMENTS", "chunk_id is required outside a reading session", "/chunk_id", null, null);
        Node c = chunkId == null ? null : store.chunk(chunkId, "/chunk_id");
        List<Map<String, Object>> snippets = new ArrayList<>();
        switch (mode) {
            case "local" -> {
                int radius = a.has("radius") ? Math.max(1, Math.min(5, a.get("radius").asInt())) : 1;
                long idx = ((Number) c.getProperty("index")).longValue();
                for (Node o : documentChunks((String) c.getProperty("documentId"))) {
                    long i = ((Number) o.getProperty("index")).longValue();
                    if (Math.abs(i - idx) <= radius && i != idx) {
                        ctx.see((String) o.getProperty("id"));
                        snippets.add(chunkView(o, true));
                    }
                }
            }
            case "document_overview" -> {
                for (Node o : documentChunks((String) c.getProperty("documentId"))) {
                    Map<String, Object> m = chunkView(o, false);
                    m.put("struct", o.getProperty("kind", "body"));
                    String t = (String) o.getProperty("text");
                    m.put("preview", t.length() <= 120 ? t : t.substring(0, 120));
                    snippets.add(m);
                }
            }
            default -> {
                Set<Node> entities = new LinkedHashSet<>();
                if (c != null) for (Relationship r : c.getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) entities.add(r.getEndNode());
                String q = opt(a, "query");
                if (q != null && !q.isBlank()) {
                    Node exact = store.resolve(q);
                    if (exact != null) entities.add(exact);
                    entities.addAll(store.fullText(q, 5, false).keySet());
                }
                for (Node e : entities) {
                    Map<String, Object> m = store.brief(e);
                    List<Map<String, Object>> rels = new ArrayList<>();
                    for (Relationship r : e.getRelationships(RagaGraph.REL)) {
                        if (!Boolean.TRUE.equals(r.getProperty("deleted", false)) && rels.size() < 10) rels.add(store.relationBrief(r));
                    }
                    m.put("relations", rels);
                    snippets.add(m);
                    if (snippets.size() >= 20) break;
                }
            }
        }
        return Map.of("mode", mode, "snippets", snippets);
    }

    private Map<String, Object> searchKg(JsonNode a) {
        String q = a.get("query").asText();
        String type = a.has("search_type") ? a.get("search_type").asText() : "fuzzy";
        int limit = clamp(a, "limit", 10);
        ctx.searched(q);
        if (type.equals("relation")) return Map.of("relations", searchRelations(q, limit));
        Map<String, Double> score = new LinkedHashMap<>();
        Map<String, Node> nodes = new HashMap<>();
        Map<String, List<String>> reasons = new HashMap<>();
        Node exact = store.resolve(q);
        Map<Node, Double> ft = store.fullText(q, limit * 2, type.equals("fuzzy"));
        double max = ft.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        if (type.equals("fuzzy")) {
            int r = 0;
            for (Node n : ft.keySet()) add(score, nodes, reasons, n, 1.0 / (60 + ++r), "fulltext");
            r = 0;
            float[] v = store.embed(q);
            try (Result res = tx.execute("CALL db.index.vector.queryNodes($index, $n, $v) YIELD node, score WHERE node.corpus = $corpus RETURN node",
                    Map.of("index", RagaGraph.ENTITY_VECTOR_INDEX, "n", (long) limit * 4, "v", v, "corpus", ctx.corpus))) {
                while (res.hasNext() && r < limit * 2) add(score, nodes, reasons, (Node) res.next().get("node"), 1.0 / (60 + ++r), "vector");
            }
        } else {
            ft.forEach((n, s) -> add(score, nodes, reasons, n, s / max, "fulltext"));
        }
        List<String> order = new ArrayList<>(score.keySet());
        order.sort((x, y) -> Double.compare(score.get(y), score.get(x)));
        if (exact != null) {
            order.remove(exact.getElementId());
            order.add(0, exact.getElementId());
            nodes.put(exact.getElementId(), exact);
            reasons.computeIfAbsent(exact.getElementId(), k -> new ArrayList<>()).add(0, "exact");
            score.put(exact.getElementId(), 1.0);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : order.subList(0, Math.min(limit, order.size()))) {
            Node e = nodes.get(id);
            Map<String, Object> m = store.brief(e);
            m.put("aliases", KnowledgeStore.aliases(e));
            String d = (String) e.getProperty("description", "");
            m.put("description", d.length() <= 200 ? d : d.substring(0, 200));
            m.put("score", Math.round(score.get(id) * 1e6) / 1e6);
            m.put("reasons", reasons.get(id));
            List<String> quotes = new ArrayList<>();
            for (Relationship r : e.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY)) {
                if (r.getEndNode().hasProperty("quote")) quotes.add((String) r.getEndNode().getProperty("quote"));
            }
            m.put("evidence_count", (long) quotes.size());
            m.put("sample_evidence", quotes.isEmpty() ? null : quotes.get(0).length() <= 200 ? quotes.get(0) : quotes.get(0).substring(0, 200));
            out.add(m);
        }
        return Map.of("entities", out);
    }

    private static void add(Map<String, Double> score, Map<String, Node> nodes, Map<String, List<String>> reasons, Node n, double s, String why) {
        score.merge(n.getElementId(), s, Double::sum);
        nodes.put(n.getElementId(), n);
        reasons.computeIfAbsent(n.getElementId(), k -> new ArrayList<>()).add(why);
    }

    private List<Map<String, Object>> searchRelations(String q, int limit) {
        Map<String, Relationship> found = new LinkedHashMap<>();
        Node endpoint = store.resolve(q);
        if (endpoint != null) {
            for (Relationship r : endpoint.getRelationships(RagaGraph.REL)) found.putIfAbsent(r.getElementId(), r);
        }
        String lq = KnowledgeStore.luceneQuery(q, false);
        if (!lq.isBlank()) {
            try (Result res = tx.execute("CALL db.index.fulltext.queryRelationships($index, $q, {limit: $n}) YIELD relationship, score"
                    + " WHERE startNode(relationship).corpus = $corpus RETURN relationship",
                    Map.of("index", RagaGraph.RELATION_TEXT_INDEX, "q", lq, "n", (long) limit * 4, "corpus", ctx.corpus))) {
                while (res.hasNext()) {
                    Relationship r = (Relationship) res.next().get("relationship");
                    found.putIfAbsent(r.getElementId(), r);
                }
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Relationship r : found.values()) {
            if (Boolean.TRUE.equals(r.getProperty("deleted", false))) continue;
            out.add(store.relationBrief(r));
            if (out.size() >= limit) break;
        }
        return out;
    }

    private Map<String, Object> exploreFusion(JsonNode a) {
        String q = a.get("query").asText();
        String mode = a.has("mode") ? a.get("mode").asText() : "parallel";
        int topK = clamp(a, "top_k", 8);
        RagaRetriever.Settings s = RagaRetriever.Settings.defaults(switch (mode) {
            case "vector_first" -> RagaRetriever.Mode.VECTOR_FIRST;
            case "graph_first" -> RagaRetriever.Mode.GRAPH_FIRST;
            default -> RagaRetriever.Mode.FUSION;
        }).withTopK(topK);
        RagaRetriever.Retrieval r = new RagaRetriever(tx, embeddings, ctx.corpus).retrieve(q, s, () -> false);
        List<Map<String, Object>> candidates = new ArrayList<>();
        for (RagaRetriever.Hit h : r.hits()) {
            ctx.see(h.chunkId());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("chunk_id", h.chunkId());
            m.put("score", Math.round(h.score() * 1e6) / 1e6);
            m.put("vec_rank", (long) h.vecRank());
            m.put("kg_rank", (long) h.kgRank());
            m.put("text", h.text().length() <= 500 ? h.text() : h.text().substring(0, 500));
            candidates.add(m);
        }
        return Map.of("candidates", candidates, "anchors", r.anchors(), "degraded", r.degraded());
    }

    // ---- construct

    private void gate(String name, String field) {
        if (!ctx.settings.qualityGate()) return;
        QualityGate.Rule rule = QualityGate.check(name, ctx.settings.maxNameChars(), ctx.settings.minPrintableRatio());
        if (rule != null) {
            throw new ToolError("QUALITY_GATE_REJECTED", "'" + name + "' is not a durable entity name (rule " + rule + ")", field,
                    "keep it as an observation, create a todo, or drop the candidate", List.of(Map.of("rule", rule.name())));
        }
    }

    private static boolean typesConflict(String a, String b) {
        return !a.equalsIgnoreCase(b) && !a.equalsIgnoreCase("Concept") && !b.equalsIgnoreCase("Concept");
    }

    Map<String, Object> createEntity(JsonNode a, String at, List<String> warnings) {
        String name = a.get("name").asText().trim();
        String type = a.get("entity_type").asText().trim();
        String description = opt(a, "description");
        List<String> aliases = list(a, "aliases");
        gate(name, at + "/name");
        schema.checkEntityType(type, at + "/entity_type");
        KnowledgeStore.Evidence ev = store.verify(a.get("evidence").asText(), opt(a, "source_chunk_id"), at + "/evidence");
        String certainty = opt(a, "certainty") == null ? "medium" : opt(a, "certainty");
        double conf = store.certainty(certainty, at + "/certainty");
        Map<String, Object> attrs = KnowledgeStore.attributes(map(a, "properties"), at + "/properties");
        Node existing = store.resolve(name);
        for (String al : aliases) {
            if (existing == null) existing = store.resolve(al);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        if (existing != null) {
            String oldType = (String) existing.getProperty("entityType");
            if (typesConflict(oldType, type)) {
                throw new ToolError("ENTITY_TYPE_CONFLICT", "'" + name + "' already names an entity of type " + oldType + ", not " + type, at + "/entity_type",
                        "if it is a different thing, use a qualified name such as '" + name + " (" + type + ")'", List.of(store.brief(existing)));
            }
            List<String> add = new ArrayList<>(aliases);
            add.add(0, name);
            store.requireAliasesFree(existing, add, at + "/aliases");
            if (ctx.replay(ToolContext.writeKey("ENTITY", (String) existing.getProperty("entityId"), ev.chunkId(), ev.start(), ev.end()))) {
                return replayed(existing.getProperty("entityId"), existing.getProperty("name"), ev);
            }
            List<String> fresh = KnowledgeStore.newAliases(existing, add);
            List<String> all = KnowledgeStore.aliases(existing);
            all.addAll(fresh);
            String desc = KnowledgeStore.appendDescription((String) existing.getProperty("description", ""), description);
            String text = KnowledgeStore.embedText((String) existing.getProperty("name"), oldType, desc, all);
            boolean reembed = !KnowledgeStore.sha1(text).equals(existing.getProperty("embeddingTextHash", ""));
            float[] v = reembed ? store.embed(text) : null;
            // writes
            if (!fresh.isEmpty()) {
                store.setAliases(existing, all);
                for (String f : fresh) store.addAlias(existing, f, "ALIAS");
            }
            existing.setProperty("description", desc);
            for (Map.Entry<String, Object> e : attrs.entrySet()) if (!existing.hasProperty(e.getKey())) existing.setProperty(e.getKey(), e.getValue());
            existing.setProperty("confidence", Math.max(conf, ((Number) existing.getProperty("confidence", 0.0)).doubleValue()));
            existing.setProperty("updatedAt", ZonedDateTime.now());
            if (v != null) store.setVector(existing, text, v);
            store.provenance("ENTITY", (String) existing.getProperty("entityId"), existing, "REUSE", "create_entity", ev, certainty, conf, null, null);
            store.mention(ev.chunk(), existing, 1);
            ctx.counters.entitiesReused++;
            out.put("entity_id", existing.getProperty("entityId"));
            out.put("name", existing.getProperty("name"));
            out.put("reused", true);
            out.put("evidence_span", ev.span());
            return out;
        }
        if (ctx.inSession() && ctx.settings.strictPhaseGuard() && !ctx.searchCovers(name)) {
            throw new ToolError("SEARCH_REQUIRED", "search the KG for '" + name + "' before creating it (phaseGuard strict)", at + "/name",
                    "call search_kg with the name first", null);
        }
        List<String> fresh = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>(List.of(NameKey.of(name)));
        for (String al : aliases) if (!NameKey.of(al).isEmpty() && keys.add(NameKey.of(al))) fresh.add(al.trim());
        String desc = description == null ? "" : KnowledgeStore.cap(description.trim());
        String text = KnowledgeStore.embedText(name, type, desc, fresh);
        float[] v = store.embed(text);
        List<Map<String, Object>> dups = store.nearDuplicates(v, ctx.settings.dupHintThreshold(), null);
        // writes
        Node e = tx.createNode(RagaGraph.ENTITY);
        String id = UUID.randomUUID().toString();
        e.setProperty("entityId", id);
        e.setProperty("corpus", ctx.corpus);
        e.setProperty("name", name);
        e.setProperty("nameKey", NameKey.of(name));
        e.setProperty("entityType", type);
        e.setProperty("description", desc);
        store.setAliases(e, fresh);
        e.setProperty("confidence", conf);
        e.setProperty("mergeCount", 0L);
        attrs.forEach(e::setProperty);
        ZonedDateTime now = ZonedDateTime.now();
        e.setProperty("createdAt", now);
        e.setProperty("updatedAt", now);
        store.setVector(e, text, v);
        store.addAlias(e, name, "NAME");
        for (String f : fresh) store.addAlias(e, f, "ALIAS");
        schema.registerEntityType(type, null);
        store.provenance("ENTITY", id, e, "CREATE", "create_entity", ev, certainty, conf, null, null);
        store.mention(ev.chunk(), e, 1);
        ctx.counters.entitiesCreated++;
        out.put("entity_id", id);
        out.put("name", name);
        out.put("reused", false);
        out.put("evidence_span", ev.span());
        if (!dups.isEmpty()) {
            out.put("possible_duplicates", dups);
            warnings.add("possible duplicates: " + dups.stream().map(d -> String.valueOf(d.get("name"))).toList() + "; merge_entity if they are the same");
        }
        return out;
    }

    /** The answer to a call an interrupted reading of this chunk already carried out: what it answered, nothing written. */
    private static Map<String, Object> replayed(Object id, Object name, KnowledgeStore.Evidence ev) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("entity_id", id);
        out.put("name", name);
        out.put("reused", true);
        out.put("replayed", true);
        out.put("evidence_span", ev.span());
        return out;
    }

    Map<String, Object> createRelation(JsonNode a, String at) {
        Node head = store.requireEntity(a.get("head").asText(), at + "/head");
        Node tail = store.requireEntity(a.get("tail").asText(), at + "/tail");
        if (head.getElementId().equals(tail.getElementId())) {
            throw new ToolError("SELF_RELATION", "head and tail are the same entity '" + head.getProperty("name") + "'", at + "/tail", null, null);
        }
        String type = a.get("relation_type").asText().trim();
        String description = opt(a, "description");
        boolean force = a.path("force_new_type").asBoolean(false);
        float[] typeVector = schema.checkRelationType(type, description, force, at + "/relation_type");
        KnowledgeStore.Evidence ev = store.verify(a.get("evidence").asText(), opt(a, "source_chunk_id"), at + "/evidence");
        String certainty = opt(a, "certainty") == null ? "medium" : opt(a, "certainty");
        double conf = store.certainty(certainty, at + "/certainty");
        Map<String, Object> attrs = KnowledgeStore.attributes(map(a, "properties"), at + "/properties");
        Relationship r = store.twin(head, type, tail, null);
        Map<String, Object> out = new LinkedHashMap<>();
        if (r != null && ctx.replay(ToolContext.writeKey("RELATION", (String) r.getProperty("relId"), ev.chunkId(), ev.start(), ev.end()))) {
            out.put("reused", true);
            out.put("replayed", true);
            out.put("relation_id", r.getProperty("relId"));
            out.put("evidence_span", ev.span());
            return out;
        }
        // writes
        if (r != null) {
            KnowledgeStore.addEvidenceChunk(r, ev.chunkId());
            r.setProperty("confidence", Math.max(conf, ((Number) r.getProperty("confidence", 0.0)).doubleValue()));
            if (description != null && !description.isBlank()) r.setProperty("description", KnowledgeStore.appendDescription((String) r.getProperty("description", ""), description));
            store.provenance("RELATION", (String) r.getProperty("relId"), null, "EVIDENCE_ADD", "create_relation", ev, certainty, conf, null, null);
            ctx.counters.relationsReused++;
            out.put("reused", true);
        } else {
            if (typeVector != null) schema.registerRelationType(type, description, (String) head.getProperty("entityType"), (String) tail.getProperty("entityType"), typeVector, "PROPOSED");
            r = head.createRelationshipTo(tail, RagaGraph.REL);
            r.setProperty("relId", UUID.randomUUID().toString());
            r.setProperty("relType", type);
            r.setProperty("description", description == null ? "" : KnowledgeStore.cap(description.trim()));
            r.setProperty("confidence", conf);
            r.setProperty("evidenceChunkIds", new String[] {ev.chunkId()});
            r.setProperty("deleted", false);
            r.setProperty("createdAt", ZonedDateTime.now());
            attrs.forEach(r::setProperty);
            store.provenance("RELATION", (String) r.getProperty("relId"), null, "CREATE", "create_relation", ev, certainty, conf, null, null);
            ctx.counters.relationsCreated++;
            out.put("reused", false);
        }
        store.mention(ev.chunk(), head, 1);
        store.mention(ev.chunk(), tail, 1);
        out.put("relation_id", r.getProperty("relId"));
        out.put("evidence_span", ev.span());
        return out;
    }

    // ---- verify: updates, merges, deletes, reviews, todos

    Map<String, Object> updateEntity(JsonNode a) {
        Node e = store.requireEntity(a.get("entity_name").asText(), "/entity_name");
        JsonNode u = a.get("updates");
        String reason = a.get("reason").asText();
        List<String> changed = new ArrayList<>();
        Map<String, Object> diff = new LinkedHashMap<>();
        String name = (String) e.getProperty("name");
        String type = (String) e.getProperty("entityType");
        String desc = (String) e.getProperty("description", "");
        List<String> aliases = KnowledgeStore.aliases(e);
        List<String> newNames = new ArrayList<>();
        if (u.hasNonNull("name") && !u.get("name").asText().trim().equals(name)) {
            String nn = u.get("name").asText().trim();
            gate(nn, "/updates/name");
            store.requireAliasesFree(e, List.of(nn), "/updates/name");
            diff.put("name", List.of(name, nn));
            newNames.add(nn);
            if (KnowledgeStore.newAliases(e, List.of(name)).isEmpty() && !aliases.contains(name)) aliases.add(name);
            aliases.removeIf(x -> NameKey.of(x).equals(NameKey.of(nn)));
            name = nn;
            changed.add("name");
        }
        if (u.hasNonNull("entity_type") && !u.get("entity_type").asText().equals(type)) {
            schema.checkEntityType(u.get("entity_type").asText(), "/updates/entity_type");
            diff.put("entity_type", List.of(type, u.get("entity_type").asText()));
            type = u.get("entity_type").asText();
            changed.add("entity_type");
        }
        if (u.hasNonNull("description")) {
            diff.put("description", List.of(desc, u.get("description").asText()));
            desc = KnowledgeStore.cap(u.get("description").asText().trim());
            changed.add("description");
        }
        List<String> addAliases = list(u, "aliases");
        if (!addAliases.isEmpty()) {
            store.requireAliasesFree(e, addAliases, "/updates/aliases");
            List<String> fresh = KnowledgeStore.newAliases(e, addAliases);
            fresh.removeIf(x -> NameKey.of(x).equals(NameKey.of((String) u.path("name").asText(""))));
            if (!fresh.isEmpty()) {
                aliases.addAll(fresh);
                diff.put("aliasesAdded", fresh);
                changed.add("aliases");
            }
        }
        List<String> removed = new ArrayList<>();
        for (String r : list(u, "remove_aliases")) {
            String k = NameKey.of(r);
            if (k.equals(NameKey.of(name))) throw new ToolError("INVALID_ARGUMENTS", "'" + r + "' is the entity's name, not an alias", "/updates/remove_aliases", null, null);
            if (aliases.removeIf(x -> NameKey.of(x).equals(k))) removed.add(r);
            else throw new ToolError("INVALID_ARGUMENTS", "'" + r + "' is not an alias of '" + name + "'", "/updates/remove_aliases", null, null);
        }
        if (!removed.isEmpty()) {
            diff.put("aliasesRemoved", removed);
            changed.add("remove_aliases");
        }
        Map<String, Object> attrs = KnowledgeStore.attributes(map(u, "properties"), "/updates/properties");
        if (!attrs.isEmpty()) changed.add("properties");
        KnowledgeStore.Evidence ev = null;
        String quote = opt(a, "evidence");
        if (quote != null) ev = store.verify(quote, opt(a, "source_chunk_id"), "/evidence");
        else if (ctx.settings.requireEvidenceOnUpdate()) throw new ToolError("INVALID_ARGUMENTS", "evidence is required on updates (requireEvidenceOnUpdate)", "/evidence", null, null);
        if (changed.isEmpty() && ev == null) throw new ToolError("INVALID_ARGUMENTS", "updates change nothing", "/updates", null, null);
        String text = KnowledgeStore.embedText(name, type, desc, aliases);
        boolean reembed = !KnowledgeStore.sha1(text).equals(e.getProperty("embeddingTextHash", ""));
        float[] v = reembed ? store.embed(text) : null;
        // writes
        if (!newNames.isEmpty()) {
            e.setProperty("name", name);
            e.setProperty("nameKey", NameKey.of(name));
            store.addAlias(e, name, "NAME");
        }
        if (changed.contains("entity_type")) schema.registerEntityType(type, null);
        e.setProperty("entityType", type);
        e.setProperty("description", desc);
        for (String r : removed) {
            Node al = tx.findNode(RagaGraph.ALIAS, "aliasUid", RagaGraph.uid(ctx.corpus, NameKey.of(r)));
            if (al != null) al.getRelationships().forEach(Relationship::delete);
            if (al != null) al.delete();
        }
        store.setAliases(e, aliases);
        for (String al : aliases) store.addAlias(e, al, "ALIAS");
        attrs.forEach(e::setProperty);
        e.setProperty("updatedAt", ZonedDateTime.now());
        if (v != null) store.setVector(e, text, v);
        store.provenance("ENTITY", (String) e.getProperty("entityId"), e, "UPDATE", "update_entity", ev, null, Double.NaN, reason, diff);
        if (ev != null) store.mention(ev.chunk(), e, 1);
        ctx.counters.updates++;
        return Map.of("status", "updated", "entity_id", e.getProperty("entityId"), "changed", changed);
    }

    Map<String, Object> updateRelation(JsonNode a) {
        Relationship r = store.relation(a.get("relation_id").asText(), "/relation_id", false);
        String quote = opt(a, "evidence");
        if (quote == null && !a.hasNonNull("confidence")) {
            throw new ToolError("INVALID_ARGUMENTS", "update_relation needs evidence or confidence", "/evidence", null, null);
        }
        KnowledgeStore.Evidence ev = quote == null ? null : store.verify(quote, opt(a, "source_chunk_id"), "/evidence");
        double old = ((Number) r.getProperty("confidence", 0.0)).doubleValue();
        double conf = a.hasNonNull("confidence") ? a.get("confidence").asDouble() : Math.max(old, ctx.settings.certainty().get("medium"));
        // writes
        r.setProperty("confidence", conf);
        if (ev != null) {
            KnowledgeStore.addEvidenceChunk(r, ev.chunkId());
            store.mention(ev.chunk(), r.getStartNode(), 1);
            store.mention(ev.chunk(), r.getEndNode(), 1);
        }
        store.provenance("RELATION", (String) r.getProperty("relId"), null, ev == null ? "UPDATE" : "EVIDENCE_ADD", "update_relation", ev, null, conf, null,
                Map.of("confidence", List.of(old, conf)));
        ctx.counters.updates++;
        return Map.of("status", "updated", "relation_id", r.getProperty("relId"), "confidence", conf);
    }

    /** Spec §2.11.1: S's names, relations, evidence, mentions and links move to T; S is deleted. */
    Map<String, Object> mergeEntity(JsonNode a) {
        Node t = store.requireEntity(a.get("target_name").asText(), "/target_name");
        Node s = store.requireEntity(a.get("source_name").asText(), "/source_name");
        if (t.getElementId().equals(s.getElementId())) {
            throw new ToolError("INVALID_ARGUMENTS", "'" + a.get("source_name").asText() + "' and '" + a.get("target_name").asText() + "' are already one entity", "/source_name", null, null);
        }
        String reason = opt(a, "reason");
        List<String> add = new ArrayList<>();
        add.add((String) s.getProperty("name"));
        add.addAll(KnowledgeStore.aliases(s));
        List<String> aliases = KnowledgeStore.aliases(t);
        aliases.addAll(KnowledgeStore.newAliases(t, add));
        String desc = KnowledgeStore.appendDescription((String) t.getProperty("description", ""), (String) s.getProperty("description", ""));
        String text = KnowledgeStore.embedText((String) t.getProperty("name"), (String) t.getProperty("entityType"), desc, aliases);
        float[] v = store.embed(text);
        // writes
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("mergedId", s.getProperty("entityId"));
        details.put("mergedName", s.getProperty("name"));
        Map<String, Object> conflicts = new LinkedHashMap<>();
        for (String k : s.getPropertyKeys()) {
            if (!k.startsWith("attr_")) continue;
            if (!t.hasProperty(k)) t.setProperty(k, s.getProperty(k));
            else if (!String.valueOf(t.getProperty(k)).equals(String.valueOf(s.getProperty(k)))) conflicts.put(k, String.valueOf(s.getProperty(k)));
        }
        if (!conflicts.isEmpty()) details.put("attributeConflicts", conflicts);
        for (Relationship al : s.getRelationships(Direction.INCOMING, RagaGraph.ALIAS_OF)) {
            Node alias = al.getStartNode();
            al.delete();
            alias.setProperty("kind", "ALIAS");
            alias.createRelationshipTo(t, RagaGraph.ALIAS_OF);
        }
        long moved = 0, selfLoops = 0, merged = 0;
        for (Relationship r : List.copyOf(toList(s.getRelationships(RagaGraph.REL)))) {
            Node from = r.getStartNode().getElementId().equals(s.getElementId()) ? t : r.getStartNode();
            Node to = r.getEndNode().getElementId().equals(s.getElementId()) ? t : r.getEndNode();
            Relationship n = repoint(r, from, to);
            moved++;
            if (from.getElementId().equals(to.getElementId())) {
                softDelete(n, "merge self-loop");
                store.provenance("RELATION", (String) n.getProperty("relId"), null, "SOFT_DELETE", "merge_entity", null, null, Double.NaN, "merge self-loop", null);
                selfLoops++;
            } else if (!Boolean.TRUE.equals(n.getProperty("deleted", false))) {
                Relationship twin = store.twin(from, (String) n.getProperty("relType"), to, n);
                if (twin != null) {
                    absorb(twin, n, "merge_entity");
                    merged++;
                }
            }
        }
        long provenance = 0;
        for (Relationship p : List.copyOf(toList(s.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY)))) {
            Node pn = p.getEndNode();
            p.delete();
            pn.setProperty("targetId", t.getProperty("entityId"));
            t.createRelationshipTo(pn, RagaGraph.EVIDENCED_BY);
            provenance++;
        }
        long mentions = 0;
        for (Relationship m : List.copyOf(toList(s.getRelationships(Direction.INCOMING, RagaGraph.MENTIONS)))) {
            store.mention(m.getStartNode(), t, ((Number) m.getProperty("count", 0L)).longValue());
            m.delete();
            mentions++;
        }
        for (Relationship ab : List.copyOf(toList(s.getRelationships(Direction.INCOMING, RagaGraph.ABOUT)))) {
            ab.getStartNode().createRelationshipTo(t, RagaGraph.ABOUT);
            ab.delete();
        }
        store.setAliases(t, aliases);
        t.setProperty("description", desc);
        t.setProperty("confidence", Math.max(((Number) t.getProperty("confidence", 0.0)).doubleValue(), ((Number) s.getProperty("confidence", 0.0)).doubleValue()));
        t.setProperty("mergeCount", ((Number) t.getProperty("mergeCount", 0L)).longValue() + 1 + ((Number) s.getProperty("mergeCount", 0L)).longValue());
        t.setProperty("updatedAt", ZonedDateTime.now());
        store.setVector(t, text, v);
        store.provenance("ENTITY", (String) t.getProperty("entityId"), t, "MERGE", "merge_entity", null, null, Double.NaN, reason, details);
        s.getRelationships().forEach(Relationship::delete);
        s.delete();
        ctx.counters.merges++;
        return Map.of("status", "merged", "entity_id", t.getProperty("entityId"),
                "moved", Map.of("relations", moved, "provenance", provenance, "mentions", mentions, "selfLoops", selfLoops, "relationsMerged", merged));
    }

    private static <T> List<T> toList(Iterable<T> it) {
        List<T> out = new ArrayList<>();
        it.forEach(out::add);
        return out;
    }

    /** The same relationship between other endpoints: its properties (relId included) carried over. */
    private static Relationship repoint(Relationship r, Node from, Node to) {
        if (r.getStartNode().getElementId().equals(from.getElementId()) && r.getEndNode().getElementId().equals(to.getElementId())) return r;
        Map<String, Object> props = r.getAllProperties();
        r.delete();
        Relationship n = from.createRelationshipTo(to, RagaGraph.REL);
        props.forEach(n::setProperty);
        return n;
    }

    private static void softDelete(Relationship r, String reason) {
        r.setProperty("deleted", true);
        r.setProperty("deletedAt", ZonedDateTime.now());
        r.setProperty("deleteReason", reason);
    }

    /** merge_relation's effect: source's evidence and provenance move to target, confidence max, source soft-deleted. */
    private void absorb(Relationship target, Relationship source, String tool) {
        for (String c : (String[]) source.getProperty("evidenceChunkIds", new String[0])) KnowledgeStore.addEvidenceChunk(target, c);
        target.setProperty("confidence", Math.max(((Number) target.getProperty("confidence", 0.0)).doubleValue(), ((Number) source.getProperty("confidence", 0.0)).doubleValue()));
        String sid = (String) source.getProperty("relId"), tid = (String) target.getProperty("relId");
        try (var it = tx.findNodes(RagaGraph.PROVENANCE, "targetId", sid)) {
            it.forEachRemaining(p -> {
                if (p.hasProperty("quote")) p.setProperty("targetId", tid);
            });
        }
        softDelete(source, "merged into " + tid);
        source.setProperty("mergedInto", tid);
        store.provenance("RELATION", tid, null, "MERGE", tool, null, null, Double.NaN, null, Map.of("mergedId", sid));
        // the source keeps a record of where it went, so every relation, live or not, has provenance
        store.provenance("RELATION", sid, null, "SOFT_DELETE", tool, null, null, Double.NaN, "merged into " + tid, Map.of("mergedInto", tid));
    }

    Map<String, Object> mergeRelation(JsonNode a) {
        Relationship t = store.relation(a.get("target_id").asText(), "/target_id", false);
        Relationship s = store.relation(a.get("source_id").asText(), "/source_id", false);
        if (t.getElementId().equals(s.getElementId())) throw new ToolError("INVALID_ARGUMENTS", "target and source are the same relation", "/source_id", null, null);
        Set<String> te = Set.of(t.getStartNode().getElementId(), t.getEndNode().getElementId());
        Set<String> se = Set.of(s.getStartNode().getElementId(), s.getEndNode().getElementId());
        if (!te.equals(se)) {
            throw new ToolError("RELATION_ENDPOINT_MISMATCH", "the two relations do not join the same two entities", "/source_id", null, null);
        }
        absorb(t, s, "merge_relation");
        if (opt(a, "reason") != null) s.setProperty("deleteReason", opt(a, "reason"));
        ctx.counters.merges++;
        return Map.of("status", "merged", "relation_id", t.getProperty("relId"));
    }

    Map<String, Object> deleteEntity(JsonNode a) {
        Node e = store.requireEntity(a.get("entity_name").asText(), "/entity_name");
        String reason = a.get("reason").asText();
        Map<String, Object> snapshot = new LinkedHashMap<>(e.getAllProperties());
        snapshot.remove("embedding");
        snapshot.replaceAll((k, v) -> v instanceof String[] arr ? List.of(arr) : String.valueOf(v));
        List<Map<String, Object>> rels = new ArrayList<>();
        List<Relationship> kg = toList(e.getRelationships(RagaGraph.REL));
        for (Relationship r : kg) rels.add(store.relationBrief(r));
        // writes
        for (Relationship al : toList(e.getRelationships(Direction.INCOMING, RagaGraph.ALIAS_OF))) {
            Node alias = al.getStartNode();
            al.delete();
            alias.delete();
        }
        for (Relationship r : kg) {
            store.provenance("RELATION", (String) r.getProperty("relId"), null, "DELETE", "delete_entity", null, null, Double.NaN, reason, Map.of("snapshot", store.relationBrief(r)));
            r.delete();
        }
        store.provenance("ENTITY", (String) e.getProperty("entityId"), null, "DELETE", "delete_entity", null, null, Double.NaN, reason,
                Map.of("snapshot", snapshot, "relations", rels));
        e.getRelationships().forEach(Relationship::delete);
        e.delete();
        ctx.counters.deletes++;
        return Map.of("status", "deleted", "deleted_relations", (long) kg.size());
    }

    Map<String, Object> deleteRelation(JsonNode a) {
        Relationship r = store.relation(a.get("relation_id").asText(), "/relation_id", false);
        String reason = a.get("reason").asText();
        boolean soft = a.path("soft").asBoolean(true);
        String id = (String) r.getProperty("relId");
        // writes
        if (soft) {
            softDelete(r, reason);
            store.provenance("RELATION", id, null, "SOFT_DELETE", "delete_relation", null, null, Double.NaN, reason, null);
        } else {
            store.provenance("RELATION", id, null, "DELETE", "delete_relation", null, null, Double.NaN, reason, Map.of("snapshot", store.relationBrief(r)));
            r.delete();
        }
        ctx.counters.deletes++;
        return Map.of("status", soft ? "soft_deleted" : "deleted", "relation_id", id);
    }

    private Node item(org.neo4j.graphdb.Label label, String idKey, String prefix) {
        Node n = tx.createNode(label);
        n.setProperty(idKey, prefix + UUID.randomUUID());
        n.setProperty("corpus", ctx.corpus);
        n.setProperty("status", "OPEN");
        if (ctx.currentChunkId != null) n.setProperty("chunkId", ctx.currentChunkId);
        if (ctx.sessionId != null) n.setProperty("sessionId", ctx.sessionId);
        n.setProperty("createdAt", ZonedDateTime.now());
        return n;
    }

    Map<String, Object> markForReview(JsonNode a) {
        String subject = a.get("subject").asText();
        if (ctx.replay("REVIEW|" + subject + "|" + a.get("reason").asText())) return Map.of("replayed", true, "linked_entity", "");
        Node about = store.resolve(subject);
        Node n = item(RagaGraph.REVIEW, "reviewId", "review-");
        n.setProperty("subject", subject);
        n.setProperty("reason", a.get("reason").asText());
        n.setProperty("priority", a.has("priority") ? a.get("priority").asText() : "medium");
        if (about != null) n.createRelationshipTo(about, RagaGraph.ABOUT);
        ctx.counters.reviews++;
        return Map.of("review_id", n.getProperty("reviewId"), "linked_entity", about == null ? "" : about.getProperty("name"));
    }

    Map<String, Object> createTodo(JsonNode a) {
        String related = opt(a, "related_entity");
        if (ctx.replay("FOLLOW_UP|" + a.get("task").asText())) return Map.of("replayed", true, "linked_entity", "");
        Node about = related == null ? null : store.resolve(related);
        Node n = item(RagaGraph.FOLLOW_UP, "todoId", "todo-");
        n.setProperty("task", a.get("task").asText());
        n.setProperty("todoType", a.get("todo_type").asText());
        n.setProperty("priority", a.has("priority") ? a.get("priority").asText() : "medium");
        if (related != null) n.setProperty("relatedEntity", related);
        if (about != null) n.createRelationshipTo(about, RagaGraph.ABOUT);
        if (ctx.currentChunkId != null) {
            Node c = tx.findNode(LexicalGraph.CHUNK, "id", ctx.currentChunkId);
            if (c != null) n.createRelationshipTo(c, RagaGraph.RAISED_IN);
        }
        ctx.counters.todos++;
        return Map.of("todo_id", n.getProperty("todoId"), "linked_entity", about == null ? "" : about.getProperty("name"));
    }

    Map<String, Object> progress() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (ctx.currentChunkId != null) {
            Node c = store.chunk(ctx.currentChunkId, null);
            m.put("paragraph_index", c.getProperty("index"));
            m.put("total_paragraphs", (long) documentChunks((String) c.getProperty("documentId")).size());
        }
        try (Result r = tx.execute("RETURN COUNT { (e:RagaEntity {corpus: $c}) } AS entities,"
                + " COUNT { (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE NOT r.deleted } AS relations,"
                + " COUNT { (p:RagaProvenance {corpus: $c}) WHERE p.op = 'MERGE' } AS merges,"
                + " COUNT { (t:RagaTodo {corpus: $c, status: 'OPEN'}) } AS todos_open,"
                + " COUNT { (t:RagaReviewItem {corpus: $c, status: 'OPEN'}) } AS reviews_open", Map.of("c", ctx.corpus))) {
            m.putAll(r.next());
        }
        return m;
    }

    // ---- batch

    private static final String[][] BATCH_ORDER = {
            {"creates", "entities", "create_entity"}, {"creates", "relations", "create_relation"}, {"updates", "entities", "update_entity"},
            {"updates", "relations", "update_relation"}, {"merges", "entities", "merge_entity"}, {"merges", "relations", "merge_relation"},
            {"deletes", "entities", "delete_entity"}, {"deletes", "relations", "delete_relation"}};

    private ToolResult batch(JsonNode a) {
        boolean atomic = a.path("atomic").asBoolean(false);
        Map<String, Long> counters = new LinkedHashMap<>();
        for (String k : List.of("searched", "created", "reused", "updated", "merged", "deleted", "failed")) counters.put(k, 0L);
        List<Map<String, Object>> results = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        JsonNode searches = a.path("searches");
        for (int i = 0; i < searches.size(); i++) {
            results.add(Map.of("op", "search_kg", "index", (long) i, "ok", true, "result", searchKg(searches.get(i))));
            counters.merge("searched", 1L, Long::sum);
        }
        for (String[] o : BATCH_ORDER) {
            JsonNode ops = a.path(o[0]).path(o[1]);
            for (int i = 0; i < ops.size(); i++) {
                String at = "/" + o[0] + "/" + o[1] + "/" + i;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("op", o[2]);
                r.put("index", (long) i);
                try {
                    Map<String, Object> out = switch (o[2]) {
                        case "create_entity" -> createEntity(ops.get(i), at, warnings);
                        case "create_relation" -> createRelation(ops.get(i), at);
                        case "update_entity" -> updateEntity(ops.get(i));
                        case "update_relation" -> updateRelation(ops.get(i));
                        case "merge_entity" -> mergeEntity(ops.get(i));
                        case "merge_relation" -> mergeRelation(ops.get(i));
                        case "delete_entity" -> deleteEntity(ops.get(i));
                        default -> deleteRelation(ops.get(i));
                    };
                    r.put("ok", true);
                    r.put("result", out);
                    String counter = o[2].startsWith("create") ? (Boolean.TRUE.equals(out.get("reused")) ? "reused" : "created")
                            : o[2].startsWith("update") ? "updated" : o[2].startsWith("merge") ? "merged" : "deleted";
                    counters.merge(counter, 1L, Long::sum);
                } catch (ToolError e) {
                    if (atomic) {
                        ToolError f = new ToolError(e.code(), "atomic batch: " + o[2] + " " + at + " failed, nothing written: " + e.getMessage(),
                                e.field() == null ? at : e.field(), e.hint(), e.candidates());
                        return new ToolResult(false, "batch_kg_ops", Map.of(), List.of(), f, true);
                    }
                    r.put("ok", false);
                    r.put("error", ToolResult.failure(o[2], e).envelope().get("error"));
                    counters.merge("failed", 1L, Long::sum);
                }
                results.add(r);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("counters", counters);
        out.put("results", results);
        if (counters.get("failed") > 0) warnings.add(counters.get("failed") + " operation(s) failed and wrote nothing; the others were written");
        return ToolResult.success("batch_kg_ops", out, warnings);
    }

    /** Arguments as JSON for {@link #execute}: a Cypher map, or the agent's JSON text. */
    public static JsonNode arguments(Object args) {
        if (args instanceof String s) {
            try {
                return KnowledgeStore.JSON.readTree(s);
            } catch (JsonProcessingException e) {
                return null;
            }
        }
        return KnowledgeStore.JSON.valueToTree(args);
    }
}
