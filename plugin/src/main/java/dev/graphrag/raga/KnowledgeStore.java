package dev.graphrag.raga;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.search.ChunkSearch;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The agent-built knowledge graph of one corpus, read and written in one transaction: the alias registry (one entity
 * per name key), entities, RAGA_REL relations, evidence checks against chunk text, provenance records and the
 * chunk-to-entity mention counts. Methods that write check everything first and embed before their first write, so a
 * {@link ToolError} always leaves the graph as it was.
 */
public final class KnowledgeStore {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int DESCRIPTION_CAP = 1000;

    /** A verified quote: its chunk and span, chunk-local and in the document. */
    public record Evidence(Node chunk, String chunkId, String docId, String quote, int start, int end, long docStart, long docEnd) {
        Map<String, Object> span() {
            return Map.of("chunk_id", chunkId, "start", (long) start, "end", (long) end);
        }
    }

    final Transaction tx;
    final String corpus;
    final EmbeddingService embeddings;
    final ToolContext ctx;

    public KnowledgeStore(Transaction tx, EmbeddingService embeddings, ToolContext ctx) {
        this.tx = tx;
        this.corpus = ctx.corpus;
        this.embeddings = embeddings;
        this.ctx = ctx;
    }

    // ---- chunks and evidence

    public Node chunk(String chunkId, String field) {
        Node c = chunkId == null ? null : tx.findNode(LexicalGraph.CHUNK, "id", chunkId);
        if (c == null || !corpus.equals(c.getProperty("corpus", null))) {
            throw new ToolError("CHUNK_NOT_FOUND", "no chunk '" + chunkId + "' in corpus '" + corpus + "'", field, null, null);
        }
        return c;
    }

    /** Paper §3.3.4: the quote must occur in a visible chunk; its first occurrence anchors it. */
    public Evidence verify(String quote, String sourceChunkId, String field) {
        String chunkId = sourceChunkId != null ? sourceChunkId : ctx.currentChunkId;
        if (chunkId == null) throw new ToolError("INVALID_ARGUMENTS", "source_chunk_id is required outside a reading session", "/source_chunk_id", null, null);
        if (!ctx.mayQuote(chunkId)) {
            throw new ToolError("EVIDENCE_CHUNK_NOT_VISIBLE", "chunk '" + chunkId + "' has not been read in this chunk's session; visible are " + ctx.visible(),
                    "/source_chunk_id", "read it first with read_paragraph or browse_context", null);
        }
        Node c = chunk(chunkId, "/source_chunk_id");
        String text = (String) c.getProperty("text");
        ToolContext.Settings s = ctx.settings;
        EvidenceAnchor.Result r = EvidenceAnchor.locate(quote, text, s.evidenceMinChars(), s.evidenceMaxChars());
        if (!r.found()) {
            String msg = switch (r.problem()) {
                case EVIDENCE_TOO_SHORT -> "the evidence quote must have at least " + s.evidenceMinChars() + " characters";
                case EVIDENCE_TOO_LONG -> "the evidence quote must have at most " + s.evidenceMaxChars() + " characters";
                case EVIDENCE_NOT_FOUND -> "the evidence quote does not occur in chunk '" + chunkId + "'";
            };
            String hint = null;
            if (r.problem() == EvidenceAnchor.Problem.EVIDENCE_NOT_FOUND) {
                for (String other : ctx.visible()) {
                    if (other.equals(chunkId)) continue;
                    Node o = tx.findNode(LexicalGraph.CHUNK, "id", other);
                    if (o != null && EvidenceAnchor.locate(quote, (String) o.getProperty("text"), s.evidenceMinChars(), s.evidenceMaxChars()).found()) {
                        hint = "found in chunk " + other + "; pass source_chunk_id";
                        break;
                    }
                }
                if (hint == null) hint = "copy the quote verbatim from the chunk text";
            }
            throw new ToolError(r.problem().name(), msg, field, hint, null);
        }
        long base = ((Number) c.getProperty("start", 0L)).longValue();
        return new Evidence(c, chunkId, (String) c.getProperty("documentId"), quote.trim(), r.start(), r.end(), base + r.start(), base + r.end());
    }

    public double certainty(String level, String field) {
        String l = level == null ? "medium" : level;
        Double v = ctx.settings.certainty().get(l);
        if (v == null) throw new ToolError("INVALID_ARGUMENTS", "certainty must be one of " + ctx.settings.certainty().keySet() + ", got '" + l + "'", field, null, null);
        return v;
    }

    // ---- entities and aliases

    public Node resolve(String name) {
        String key = NameKey.of(name);
        if (key.isEmpty()) return null;
        Node alias = tx.findNode(RagaGraph.ALIAS, "aliasUid", RagaGraph.uid(corpus, key));
        if (alias == null) return null;
        Relationship r = alias.getSingleRelationship(RagaGraph.ALIAS_OF, Direction.OUTGOING);
        return r == null ? null : r.getEndNode();
    }

    public Node requireEntity(String name, String field) {
        Node e = resolve(name);
        if (e == null) {
            throw new ToolError("ENTITY_NOT_FOUND", "no entity named '" + name + "' in corpus '" + corpus + "'", field,
                    "search_kg for the right name, or create the entity first", candidates(name, 3));
        }
        return e;
    }

    /** Top full-text matches as {entity_id, name, type}: candidates for a name that resolved to nothing. */
    public List<Map<String, Object>> candidates(String text, int n) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map.Entry<Node, Double> e : fullText(text, n, false).entrySet()) out.add(brief(e.getKey()));
        return out;
    }

    public Map<String, Object> brief(Node e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("entity_id", e.getProperty("entityId"));
        m.put("name", e.getProperty("name"));
        m.put("type", e.getProperty("entityType"));
        return m;
    }

    /** Entities of the corpus by Lucene score on name, aliases and description (fuzzy adds ~1/~2 edit-distance terms). */
    public Map<Node, Double> fullText(String query, int n, boolean fuzzy) {
        String q = luceneQuery(query, fuzzy);
        Map<Node, Double> out = new LinkedHashMap<>();
        if (q.isBlank()) return out;
        try (Result r = tx.execute("CALL db.index.fulltext.queryNodes($index, $q, {limit: $n}) YIELD node, score WHERE node.corpus = $corpus"
                + " RETURN node, score", Map.of("index", RagaGraph.ENTITY_TEXT_INDEX, "q", q, "n", n * 8L, "corpus", corpus))) {
            while (r.hasNext() && out.size() < n) {
                Map<String, Object> row = r.next();
                out.put((Node) row.get("node"), ((Number) row.get("score")).doubleValue());
            }
        }
        return out;
    }

    static String luceneQuery(String text, boolean fuzzy) {
        String escaped = ChunkSearch.bm25Query(text).text();
        if (!fuzzy) return escaped;
        StringBuilder b = new StringBuilder();
        for (String t : escaped.split("\\s+")) {
            if (t.isEmpty()) continue;
            b.append(t).append(' ');
            boolean plain = t.chars().allMatch(Character::isLetterOrDigit);
            if (plain && t.length() >= 4) b.append(t).append(t.length() >= 8 ? "~2 " : "~1 ");
        }
        return b.toString().trim();
    }

    public static String embedText(String name, String type, String description, List<String> aliases) {
        StringBuilder b = new StringBuilder(name).append(" (").append(type).append(')');
        if (description != null && !description.isBlank()) b.append(": ").append(description);
        if (!aliases.isEmpty()) b.append(" Aliases: ").append(String.join(", ", aliases));
        return b.toString();
    }

    public static String embedText(Node e) {
        return embedText((String) e.getProperty("name"), (String) e.getProperty("entityType"), (String) e.getProperty("description", ""), aliases(e));
    }

    public static List<String> aliases(Node e) {
        return new ArrayList<>(Arrays.asList((String[]) e.getProperty("aliases", new String[0])));
    }

    public static String sha1(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    float[] embed(String text) {
        try {
            return embeddings.embed(text);
        } catch (RuntimeException e) {
            throw new ToolError("EMBEDDING_FAILED", "the embedding model failed: " + e.getMessage());
        }
    }

    /** Sets the vector of an entity with what it was made from (paper §3.5, atomic: the same transaction as the write). */
    void setVector(Node e, String text, float[] v) {
        e.setProperty("embedding", v);
        e.setProperty("embeddingModel", embeddings.modelName());
        e.setProperty("embeddingTextHash", sha1(text));
        e.setProperty("vectorSynced", true);
    }

    /** Re-embeds an entity whose text changed. */
    void reembed(Node e) {
        String text = embedText(e);
        setVector(e, text, embed(text));
    }

    /** Entities whose vector is at least {@code threshold} from v (other than {@code except}), best first: duplicate hints. */
    List<Map<String, Object>> nearDuplicates(float[] v, double threshold, Node except) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Result r = tx.execute("CALL db.index.vector.queryNodes($index, 20, $v) YIELD node, score WHERE node.corpus = $corpus"
                + " RETURN node, 2 * score - 1 AS cos", Map.of("index", RagaGraph.ENTITY_VECTOR_INDEX, "v", v, "corpus", corpus))) {
            while (r.hasNext() && out.size() < 5) {
                Map<String, Object> row = r.next();
                Node n = (Node) row.get("node");
                double cos = ((Number) row.get("cos")).doubleValue();
                if (cos < threshold || except != null && n.getElementId().equals(except.getElementId())) continue;
                Map<String, Object> m = brief(n);
                m.put("similarity", Math.round(cos * 1000) / 1000.0);
                out.add(m);
            }
        }
        return out;
    }

    /** Alias keys that are free or already this entity's; otherwise ALIAS_CONFLICT naming the owner. */
    void requireAliasesFree(Node owner, List<String> names, String field) {
        for (String a : names) {
            Node other = resolve(a);
            if (other != null && (owner == null || !other.getElementId().equals(owner.getElementId()))) {
                throw new ToolError("ALIAS_CONFLICT", "the name '" + a + "' already belongs to entity '" + other.getProperty("name") + "'", field,
                        "merge_entity if they are the same thing, or use a qualified name", List.of(brief(other)));
            }
        }
    }

    void addAlias(Node entity, String surface, String kind) {
        String key = NameKey.of(surface);
        if (key.isEmpty()) return;
        String uid = RagaGraph.uid(corpus, key);
        Node a = tx.findNode(RagaGraph.ALIAS, "aliasUid", uid);
        if (a == null) {
            a = tx.createNode(RagaGraph.ALIAS);
            a.setProperty("aliasUid", uid);
            a.setProperty("corpus", corpus);
            a.setProperty("key", key);
            a.setProperty("surface", surface.trim());
            a.setProperty("kind", kind);
            a.createRelationshipTo(entity, RagaGraph.ALIAS_OF);
        }
    }

    void setAliases(Node e, List<String> aliases) {
        e.setProperty("aliases", aliases.toArray(new String[0]));
        List<String> all = new ArrayList<>(aliases);
        e.setProperty("aliasText", String.join(" | ", all));
    }

    /** Aliases of {@code add} not yet names or aliases of e (by key), in order. */
    static List<String> newAliases(Node e, List<String> add) {
        Set<String> keys = new LinkedHashSet<>();
        keys.add(NameKey.of((String) e.getProperty("name")));
        for (String a : aliases(e)) keys.add(NameKey.of(a));
        List<String> out = new ArrayList<>();
        for (String a : add) {
            String k = NameKey.of(a);
            if (!k.isEmpty() && keys.add(k)) out.add(a.trim());
        }
        return out;
    }

    static String appendDescription(String old, String add) {
        if (add == null || add.isBlank()) return old == null ? "" : old;
        if (old == null || old.isBlank()) return cap(add.trim());
        if (old.contains(add.trim())) return old;
        return cap(old + " " + add.trim());
    }

    static String cap(String s) {
        return s.length() <= DESCRIPTION_CAP ? s : s.substring(0, DESCRIPTION_CAP);
    }

    // ---- provenance and mentions

    /** One provenance record (paper §3.3.4); entity targets get RAGA_EVIDENCED_BY, quote-bearing ones RAGA_FROM_CHUNK. */
    Node provenance(String kind, String targetId, Node entity, String op, String tool, Evidence ev, String certainty, double confidence, String reason,
                    Map<String, Object> details) {
        Node p = tx.createNode(RagaGraph.PROVENANCE);
        p.setProperty("provId", UUID.randomUUID().toString());
        p.setProperty("corpus", corpus);
        p.setProperty("targetKind", kind);
        p.setProperty("targetId", targetId);
        p.setProperty("op", op);
        p.setProperty("tool", tool);
        if (ev != null) {
            p.setProperty("chunkId", ev.chunkId());
            if (ev.docId() != null) p.setProperty("docId", ev.docId());
            p.setProperty("quote", ev.quote());
            p.setProperty("start", (long) ev.start());
            p.setProperty("end", (long) ev.end());
            p.setProperty("docStart", ev.docStart());
            p.setProperty("docEnd", ev.docEnd());
            p.createRelationshipTo(ev.chunk(), RagaGraph.FROM_CHUNK);
        }
        if (certainty != null) p.setProperty("certainty", certainty);
        if (!Double.isNaN(confidence)) p.setProperty("confidence", confidence);
        if (reason != null) p.setProperty("reason", reason);
        if (ctx.sessionId != null) p.setProperty("sessionId", ctx.sessionId);
        if (ctx.round > 0) p.setProperty("round", (long) ctx.round);
        if (ctx.toolCallId != null) p.setProperty("toolCallId", ctx.toolCallId);
        p.setProperty("createdAt", ZonedDateTime.now());
        if (details != null && !details.isEmpty()) p.setProperty("details", json(details));
        if (entity != null) {
            entity.createRelationshipTo(p, RagaGraph.EVIDENCED_BY);
            if (ev != null) {
                // read and rewritten under the entity's write lock, so two writers cannot both add to one old value;
                // an entity without the count yet is walked, and the walk already sees this record
                tx.acquireWriteLock(entity);
                Object quoted = entity.getProperty(QUOTED_EVIDENCE, null);
                entity.setProperty(QUOTED_EVIDENCE, quoted != null ? ((Number) quoted).longValue() + 1 : countQuoted(entity));
            }
        }
        return p;
    }

    /**
     * The entity property that counts its quote-bearing provenance records (search_kg's evidence_count), kept by every
     * write that links one, so that a hub's count is one read rather than a walk over thousands of provenance nodes.
     */
    static final String QUOTED_EVIDENCE = "quotedEvidence";

    /** How many of the entity's provenance records carry a quote: the kept count, or a walk for an entity written before it was kept. */
    static long quotedEvidence(Node e) {
        Object n = e.getProperty(QUOTED_EVIDENCE, null);
        return n != null ? ((Number) n).longValue() : countQuoted(e);
    }

    static long countQuoted(Node e) {
        long n = 0;
        for (Relationship r : e.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY)) {
            if (r.getEndNode().hasProperty("quote")) n++;
        }
        return n;
    }

    /** The first quote in the entity's evidence (the order the store lists it), or null: the walk stops there. */
    static String firstQuote(Node e) {
        for (Relationship r : e.getRelationships(Direction.OUTGOING, RagaGraph.EVIDENCED_BY)) {
            Object q = r.getEndNode().getProperty("quote", null);
            if (q != null) return (String) q;
        }
        return null;
    }

    /** Adds to the chunk-to-entity mention count (the chunk-bridge edges retrieval walks). */
    void mention(Node chunk, Node entity, long by) {
        for (Relationship r : chunk.getRelationships(Direction.OUTGOING, RagaGraph.MENTIONS)) {
            if (r.getEndNode().getElementId().equals(entity.getElementId())) {
                r.setProperty("count", ((Number) r.getProperty("count", 0L)).longValue() + by);
                return;
            }
        }
        chunk.createRelationshipTo(entity, RagaGraph.MENTIONS).setProperty("count", by);
    }

    static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- relations

    public Relationship relation(String relId, String field, boolean allowDeleted) {
        Relationship r = relId == null ? null : tx.findRelationship(RagaGraph.REL, "relId", relId);
        if (r == null || !corpus.equals(r.getStartNode().getProperty("corpus", null))) {
            throw new ToolError("RELATION_NOT_FOUND", "no relation '" + relId + "' in corpus '" + corpus + "'", field, "search_kg with search_type relation", null);
        }
        if (!allowDeleted && Boolean.TRUE.equals(r.getProperty("deleted", false))) {
            throw new ToolError("RELATION_DELETED", "relation '" + relId + "' was deleted: " + r.getProperty("deleteReason", ""), field, null, null);
        }
        return r;
    }

    /**
     * The non-deleted relation of this type between these entities in this direction, or null (at most one exists: creates
     * reuse it and merges absorb it). Walked from the end with fewer such relations, since a hub head has thousands.
     */
    Relationship twin(Node head, String type, Node tail, Relationship except) {
        boolean fromHead = head.getDegree(RagaGraph.REL, Direction.OUTGOING) <= tail.getDegree(RagaGraph.REL, Direction.INCOMING);
        Node walked = fromHead ? head : tail, other = fromHead ? tail : head;
        for (Relationship r : walked.getRelationships(fromHead ? Direction.OUTGOING : Direction.INCOMING, RagaGraph.REL)) {
            if (except != null && r.getElementId().equals(except.getElementId())) continue;
            if (r.getOtherNode(walked).getElementId().equals(other.getElementId()) && type.equals(r.getProperty("relType"))
                    && !Boolean.TRUE.equals(r.getProperty("deleted", false))) return r;
        }
        return null;
    }

    public Map<String, Object> relationBrief(Relationship r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("relation_id", r.getProperty("relId"));
        m.put("head", r.getStartNode().getProperty("name"));
        m.put("relation_type", r.getProperty("relType"));
        m.put("tail", r.getEndNode().getProperty("name"));
        m.put("confidence", r.getProperty("confidence", 0.0));
        m.put("evidence_count", (long) ((String[]) r.getProperty("evidenceChunkIds", new String[0])).length);
        return m;
    }

    static void addEvidenceChunk(Relationship r, String chunkId) {
        List<String> ids = new ArrayList<>(Arrays.asList((String[]) r.getProperty("evidenceChunkIds", new String[0])));
        if (!ids.contains(chunkId)) ids.add(chunkId);
        r.setProperty("evidenceChunkIds", ids.toArray(new String[0]));
    }

    /** Property keys an agent may set, stored as attr_&lt;key&gt;; values scalar or lists of scalars. */
    static Map<String, Object> attributes(Map<String, Object> props, String field) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (props == null) return out;
        for (Map.Entry<String, Object> e : props.entrySet()) {
            if (!e.getKey().matches("[a-z][a-z0-9_]{0,39}")) {
                throw new ToolError("INVALID_ARGUMENTS", "property key '" + e.getKey() + "' must match ^[a-z][a-z0-9_]{0,39}$", field + "/" + e.getKey(), null, null);
            }
            Object v = e.getValue();
            if (v instanceof List<?> l) {
                if (l.isEmpty() || !l.stream().allMatch(x -> x instanceof String) && !l.stream().allMatch(x -> x instanceof Number)) {
                    throw new ToolError("INVALID_ARGUMENTS", "property '" + e.getKey() + "' must be a scalar or a non-empty list of strings or of numbers", field + "/" + e.getKey(), null, null);
                }
                v = l.get(0) instanceof String ? l.toArray(new String[0]) : l.stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
            } else if (!(v instanceof String || v instanceof Number || v instanceof Boolean)) {
                throw new ToolError("INVALID_ARGUMENTS", "property '" + e.getKey() + "' must be a scalar or a list", field + "/" + e.getKey(), null, null);
            }
            out.put("attr_" + e.getKey(), v instanceof Integer i ? (long) i : v);
        }
        return out;
    }
}
