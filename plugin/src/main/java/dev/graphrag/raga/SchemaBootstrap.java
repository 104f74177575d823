package dev.graphrag.raga;

import dev.graphrag.core.embed.EmbeddingService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Schema bootstrap (paper §3.3.7; docs/raga.md#our-own-rules-where-the-paper-gives-none): the discovered types validated and activated. Relation names must be
 * UPPER_SNAKE_CASE, quality below 0.5 is dropped, a type whose "name: description" is at cosine 0.90 or more from one
 * already kept is a duplicate, and a relation whose domain or range is not a declared type (or Any) becomes CANDIDATE.
 * Without a reply (discovery off or failed) the bootstrap domain is activated.
 */
public final class SchemaBootstrap {
    public record Outcome(String domain, List<String> entityTypes, List<String> relationTypes, List<String> rejected) {}

    private SchemaBootstrap() {}

    public static Outcome activate(Transaction tx, EmbeddingService embeddings, String corpus, RagaPrompts.SchemaReply reply) {
        KnowledgeStore store = new KnowledgeStore(tx, embeddings, new ToolContext(corpus, null, null, ToolContext.Settings.DEFAULTS));
        RagaSchema schema = new RagaSchema(store);
        List<String> entities = new ArrayList<>(), relations = new ArrayList<>(), rejected = new ArrayList<>();
        String domain = reply == null || reply.domain() == null ? "bootstrap" : reply.domain();
        Map<String, String> entityTypes = new LinkedHashMap<>();
        if (reply == null || reply.entity_types() == null || reply.entity_types().isEmpty()) {
            RagaSchema.DEFAULT_ENTITY_TYPES.forEach(t -> entityTypes.put(t, null));
        } else {
            for (RagaPrompts.TypeReply t : reply.entity_types()) {
                if (t.name() == null || !t.name().matches("[A-Za-z][A-Za-z0-9_ ]{0,59}")) rejected.add("entity type '" + t.name() + "': not a type name");
                else entityTypes.putIfAbsent(t.name().trim(), t.description());
            }
        }
        List<float[]> kept = new ArrayList<>();
        for (Map.Entry<String, String> t : entityTypes.entrySet()) {
            float[] v = embeddings.embed(RagaSchema.typeText(t.getKey(), t.getValue()));
            if (reply != null && duplicate(v, kept)) {
                rejected.add("entity type '" + t.getKey() + "': duplicate");
                continue;
            }
            kept.add(v);
            if (schema.entityType(t.getKey()) == null) schema.create(RagaGraph.ENTITY_TYPE, t.getKey(), t.getKey().toUpperCase(Locale.ROOT), t.getValue(), null, null, "ACTIVE", v);
            entities.add(t.getKey());
        }
        Set<String> declared = new HashSet<>();
        for (String e : entities) declared.add(e.toUpperCase(Locale.ROOT));
        declared.add("ANY");
        List<RagaPrompts.RelationReply> rels = new ArrayList<>();
        if (reply == null || reply.relation_types() == null || reply.relation_types().isEmpty()) {
            for (String r : RagaSchema.DEFAULT_RELATION_TYPES) rels.add(new RagaPrompts.RelationReply(r, null, "Any", "Any", 1.0));
        } else {
            rels.addAll(reply.relation_types());
        }
        kept.clear();
        for (RagaPrompts.RelationReply r : rels) {
            if (r.name() == null || !RagaSchema.RELATION_TYPE.matcher(r.name()).matches()) {
                rejected.add("relation type '" + r.name() + "': not UPPER_SNAKE_CASE");
                continue;
            }
            if (r.quality() != null && r.quality() < 0.5) {
                rejected.add("relation type '" + r.name() + "': quality " + r.quality());
                continue;
            }
            float[] v = embeddings.embed(RagaSchema.typeText(r.name(), r.description()));
            if (reply != null && duplicate(v, kept)) {
                rejected.add("relation type '" + r.name() + "': duplicate");
                continue;
            }
            kept.add(v);
            String dom = r.domain() == null ? "Any" : r.domain(), range = r.range() == null ? "Any" : r.range();
            boolean ok = declared.contains(dom.toUpperCase(Locale.ROOT)) && declared.contains(range.toUpperCase(Locale.ROOT));
            if (schema.relationType(r.name()) == null) schema.create(RagaGraph.RELATION_TYPE, r.name(), r.name(), r.description(), dom, range, ok ? "ACTIVE" : "CANDIDATE", v);
            relations.add(r.name());
        }
        return new Outcome(domain, entities, relations, rejected);
    }

    private static boolean duplicate(float[] v, List<float[]> kept) {
        for (float[] k : kept) if (EmbeddingService.cosine(v, k) >= 0.90) return true;
        return false;
    }
}
