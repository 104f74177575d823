package dev.graphrag.raga;

import com.fasterxml.jackson.databind.JsonNode;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static dev.graphrag.raga.ToolArgs.list;
import static dev.graphrag.raga.ToolArgs.map;
import static dev.graphrag.raga.ToolArgs.opt;

/** RAGA's tools that write the knowledge graph, each with its evidence and provenance: create, update, merge and delete of entities and relations. */
final class GraphTools extends ToolGroup {
    GraphTools(ToolGroup.Scope scope) {
        super(scope);
    }

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

    // ---- verify: updates, merges, deletes

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

    /** merge_entity (docs/raga.md#our-own-rules-where-the-paper-gives-none): S's names, relations, evidence, mentions and links move to T; S is deleted. */
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
        tx.acquireWriteLock(t);
        long provenance = 0, quoted = KnowledgeStore.quotedEvidence(t) + KnowledgeStore.quotedEvidence(s);
        for (Relationship p : List.copyOf(toList(s.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY)))) {
            Node pn = p.getEndNode();
            p.delete();
            pn.setProperty("targetId", t.getProperty("entityId"));
            t.createRelationshipTo(pn, RagaGraph.EVIDENCED_BY);
            provenance++;
        }
        t.setProperty(KnowledgeStore.QUOTED_EVIDENCE, quoted);
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
}
