package dev.graphrag.hgmem;

import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.embed.ModelIdentity;
import dev.graphrag.core.embed.TextTokenizer;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.search.VectorIndexQuery;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The evolution loop's graph side on a corpus's HGMem base graph: per subquery the candidate set (global: every entity
 * outside memory through the entity vector index; local: anchors, memory neighbours and k-hop graph neighbours, scored
 * in Java), Eq. 1, then the entities' relations and chunks and the dense passages (paper Eq. 1), as the tables E1 reads.
 * Reads in the caller's transaction; absent names are described here (E2) but written only when the step commits
 * ({@link #pendingEntities()}, {@link #pendingRelations()}), so a failed step leaves the graph as it was.
 */
public final class Neo4jHypergraph implements Evolution.Graph {
    /** An item of a retrieval, with its cosine to the subquery (NaN where it was not ranked by one). */
    public record Scored(String kind, String id, String name, double score, String text) {}

    /** One subquery's retrieval: its mode, the candidate-set size, what it found. */
    public record TaskRetrieval(String subquery, String mode, long candidates, List<Scored> entities, List<Scored> relations, List<Scored> chunks) {}

    /** An absent name to create: its type and description, and the step's retrieved chunks that name it (its D_v). */
    public record PendingEntity(String name, String type, String description, List<String> chunkIds) {}

    public record PendingRelation(String source, String target, String description, String keywords) {}

    private final Transaction tx;
    private final String corpus;
    private final EmbeddingService embeddings;
    private final HgmemConfig.Retrieval cfg;
    private final List<String> entityTypes;
    private final Describer describer;
    private final List<TaskRetrieval> lastRetrieval = new ArrayList<>();
    private final Map<String, PendingEntity> pendingEntities = new LinkedHashMap<>();
    private final Map<String, PendingRelation> pendingRelations = new LinkedHashMap<>();

    /** E2 (LlmPlanner.describeAbsent), null where the policy never describes. */
    @FunctionalInterface
    public interface Describer {
        LlmPlanner.Described describe(List<String> names, List<List<String>> pairs, List<String> entityTypes, Evolution.Tables context);
    }

    /** Document ids whose chunks retrieval may return; null: all (no where filter). */
    private final java.util.Set<String> admittedDocuments;

    public Neo4jHypergraph(Transaction tx, String corpus, EmbeddingService embeddings, HgmemConfig.Retrieval cfg, List<String> entityTypes, Describer describer,
                           java.util.Set<String> admittedDocuments) {
        this.admittedDocuments = admittedDocuments;
        this.tx = tx;
        this.corpus = corpus;
        this.embeddings = embeddings;
        this.cfg = cfg;
        this.entityTypes = entityTypes;
        this.describer = describer;
    }

    public List<TaskRetrieval> lastRetrieval() { return List.copyOf(lastRetrieval); }
    public List<PendingEntity> pendingEntities() { return List.copyOf(pendingEntities.values()); }
    public List<PendingRelation> pendingRelations() { return List.copyOf(pendingRelations.values()); }

    @Override
    public Evolution.Retrieved retrieve(List<Evolution.Task> tasks, HypergraphMemory memory) {
        lastRetrieval.clear();
        Map<String, Scored> entities = new LinkedHashMap<>(), relations = new LinkedHashMap<>(), chunks = new LinkedHashMap<>();
        for (Evolution.Task t : tasks) {
            TaskRetrieval r = retrieveOne(t.subquery(), t.targets(), memory);
            lastRetrieval.add(r);
            r.entities().forEach(e -> entities.putIfAbsent(e.id(), e));
            r.relations().forEach(e -> relations.putIfAbsent(e.id(), e));
            r.chunks().forEach(e -> chunks.putIfAbsent(e.id(), e));
        }
        List<String> chunkIds = new ArrayList<>(chunks.keySet());
        chunkIds.sort(documentOrder());
        return new Evolution.Retrieved(List.copyOf(entities.keySet()), chunkIds, tables(entities.keySet(), relations.keySet(), chunkIds));
    }

    /** §2.3 for one subquery; {@code targets} null = global exploration, else the ids of the units investigated. */
    public TaskRetrieval retrieveOne(String subquery, List<String> targets, HypergraphMemory memory) {
        float[] q = embeddings.embed(subquery);
        List<String> anchors = targets == null ? List.of() : memory.anchors(targets);
        List<Scored> found;
        long candidates;
        String mode;
        if (anchors.isEmpty()) { // global, or local whose units are gone: explore outside memory
            mode = "global";
            Set<String> exclude = cfg.excludeMemoryInGlobal() ? new LinkedHashSet<>(memory.vertices()) : Set.of();
            Map<Node, Double> hits = VectorIndexQuery.topNodes(tx, HgmemGraph.ENTITY_INDEX, q, cfg.entityPool() + exclude.size(),
                    n -> corpus.equals(n.getProperty("corpus", null)) && servable(n), this::entityCount);
            List<Scored> pool = new ArrayList<>();
            hits.forEach((n, s) -> {
                String name = (String) n.getProperty("name");
                if (!exclude.contains(name) && s >= cfg.minSim()) pool.add(new Scored("entity", name, name, s, description(n)));
            });
            pool.sort(Comparator.comparingDouble((Scored s) -> -s.score()).thenComparing(Scored::id));
            found = pool.subList(0, Math.min(cfg.entitiesPerQuery(), Math.min(pool.size(), cfg.entityPool())));
            candidates = entityCount() - exclude.stream().filter(n -> entity(n) != null).count();
        } else {
            mode = "local";
            Set<String> cand = Candidates.local(anchors, memory, this::neighbourNames, cfg.localHops());
            Map<String, float[]> vectors = new HashMap<>();
            for (String c : cand) {
                Node n = entity(c);
                float[] v = n == null || !servable(n) ? null : ModelIdentity.floats(n.getProperty("embedding", null));
                if (v != null) vectors.put(c, v);
            }
            List<String> names = Candidates.retrieve(q, cand, vectors, Math.min(cfg.entitiesPerQuery(), cfg.entityPool()), cfg.minSim());
            found = new ArrayList<>();
            for (String n : names) found.add(new Scored("entity", n, n, EmbeddingService.cosine(q, vectors.get(n)), description(entity(n))));
            candidates = cand.size();
        }
        return new TaskRetrieval(subquery, mode, candidates, found, relations(q, found), chunks(q, found));
    }

    /** The relations of the found entities: top n_e by cosine, then by degree and weight, within the description budget. */
    private List<Scored> relations(float[] q, List<Scored> found) {
        Map<String, Relationship> incident = new LinkedHashMap<>();
        for (Scored e : found) {
            for (Relationship r : entity(e.id()).getRelationships(HgmemGraph.RELATED)) if (servable(r)) incident.putIfAbsent(r.getElementId(), r);
        }
        List<Map.Entry<Relationship, Double>> scored = new ArrayList<>();
        for (Relationship r : incident.values()) {
            float[] v = ModelIdentity.floats(r.getProperty("embedding", null));
            double s = v == null ? Double.NEGATIVE_INFINITY : EmbeddingService.cosine(q, v);
            if (s >= cfg.minSim()) scored.add(Map.entry(r, s));
        }
        scored.sort(Comparator.comparingDouble((Map.Entry<Relationship, Double> e) -> -e.getValue()).thenComparing(e -> e.getKey().getElementId()));
        List<Map.Entry<Relationship, Double>> top = new ArrayList<>(scored.subList(0, Math.min(cfg.relationsPerQuery(), scored.size())));
        top.sort(Comparator.comparingLong((Map.Entry<Relationship, Double> e) -> -rank(e.getKey()))
                .thenComparingDouble(e -> -((Number) e.getKey().getProperty("weight", 1.0)).doubleValue()));
        List<Scored> out = new ArrayList<>();
        int used = 0;
        for (Map.Entry<Relationship, Double> e : top) {
            String d = description(e.getKey());
            used += tokens(d);
            if (used > cfg.relTokenBudget()) break;
            Relationship r = e.getKey();
            out.add(new Scored("relation", r.getElementId(), r.getStartNode().getProperty("name") + " -- " + r.getEndNode().getProperty("name"), e.getValue(),
                    cut(d)));
        }
        return out;
    }

    /** The found entities' chunks (top n_d by cosine) and the dense passages (top n_d of the corpus), in document order within the budget. */
    private List<Scored> chunks(float[] q, List<Scored> found) {
        Map<String, Node> linked = new LinkedHashMap<>();
        for (Scored e : found) {
            for (Relationship m : entity(e.id()).getRelationships(org.neo4j.graphdb.Direction.INCOMING, HgmemGraph.MENTIONS)) {
                Node c = m.getStartNode();
                if (admitted(c)) linked.putIfAbsent((String) c.getProperty("id"), c);
            }
        }
        List<Scored> ranked = new ArrayList<>();
        linked.forEach((id, c) -> {
            float[] v = ModelIdentity.floats(c.getProperty("embedding", null));
            double s = v == null ? Double.NEGATIVE_INFINITY : EmbeddingService.cosine(q, v);
            if (s >= cfg.minSim()) ranked.add(new Scored("chunk", id, (String) c.getProperty("documentId", ""), s, (String) c.getProperty("text", "")));
        });
        ranked.sort(Comparator.comparingDouble((Scored s) -> -s.score()).thenComparing(Scored::id));
        Map<String, Scored> picked = new LinkedHashMap<>();
        for (Scored s : ranked.subList(0, Math.min(cfg.chunksPerQuery(), ranked.size()))) picked.put(s.id(), s);
        if (cfg.passageRetrieval() && cfg.chunksPerQuery() > 0) {
            (admittedDocuments == null ? VectorIndexQuery.topInCorpus(tx, LexicalGraph.VECTOR_INDEX, q, corpus, cfg.chunksPerQuery(), this::chunkCount)
                    : VectorIndexQuery.topNodes(tx, LexicalGraph.VECTOR_INDEX, q, cfg.chunksPerQuery(),
                            c -> corpus.equals(c.getProperty("corpus", null)) && admitted(c), this::chunkCount)).forEach((c, s) -> {
                String id = (String) c.getProperty("id");
                picked.putIfAbsent(id, new Scored("chunk", id, (String) c.getProperty("documentId", ""), s, (String) c.getProperty("text", "")));
            });
        }
        List<Scored> ordered = new ArrayList<>(picked.values());
        Comparator<String> order = documentOrder(); // one comparator: its (docId, index) lookups are cached per sort
        ordered.sort((a, b) -> order.compare(a.id(), b.id()));
        List<Scored> out = new ArrayList<>();
        long used = 0;
        for (Scored s : ordered) {
            used += chunkTokens(s.id());
            if (used > cfg.chunkTokenBudget()) break;
            out.add(s);
        }
        return out;
    }

    /**
     * retrievedInfo: the Entities, Relationships and Sources tables of the reference code (descriptions cut to
     * descriptionTokens), in rank order. Rows carry what the reader uses: names, type, description, keywords when there
     * are any; the code's row number, rank and weight columns are not sent (the order already is the rank, and no reply
     * refers to a row by number), which is a fifth of an entity or relationship row.
     */
    Evolution.Tables tables(Iterable<String> entityNames, Iterable<String> relIds, List<String> chunkIds) {
        List<Map<String, Object>> ents = new ArrayList<>(), rels = new ArrayList<>(), sources = new ArrayList<>();
        for (String name : entityNames) {
            Node n = entity(name);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("entity", name);
            row.put("type", n.getProperty("type", "UNKNOWN"));
            row.put("description", cut(description(n)));
            ents.add(row);
        }
        for (String id : relIds) {
            Relationship r = tx.getRelationshipByElementId(id);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("source", r.getStartNode().getProperty("name"));
            row.put("target", r.getEndNode().getProperty("name"));
            row.put("description", cut(description(r)));
            Object keywords = r.getProperty("keywords", "");
            if (keywords instanceof String k && !k.isBlank()) row.put("keywords", k);
            rels.add(row);
        }
        for (String c : chunkIds) sources.add(source(c));
        return new Evolution.Tables(ents, rels, sources);
    }

    @Override
    public Set<String> absent(List<String> names) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : names) if (!pendingEntities.containsKey(n) && entity(n) == null) out.add(n);
        return out;
    }

    /**
     * Footnote 2 of the paper: each absent name is described by E2 from the step's retrieved tables (with
     * its pairs to the other members of its units) or, under policy bare, created without description or relations.
     */
    @Override
    public void createAbsent(Set<String> names, List<MemoryUnit> units, Evolution.Retrieved context, boolean describe) {
        List<List<String>> pairs = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        if (describe) {
            for (MemoryUnit u : units) {
                for (String a : u.vertices()) {
                    if (!names.contains(a)) continue;
                    for (String b : u.vertices()) {
                        if (a.equals(b)) continue;
                        String key = a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a;
                        if (seen.add(key)) pairs.add(List.of(a, b));
                    }
                }
            }
        }
        Map<String, HgmemPrompts.DescribedEntity> described = new HashMap<>();
        Map<String, HgmemPrompts.DescribedRelation> relDescribed = new HashMap<>();
        if (describe && describer != null) {
            // only the step's rows that name a target: E1 has just read the whole tables, and a row that names none of the
            // absent names cannot describe them or their pairs (each pair holds one of them)
            Evolution.Tables t = naming(context.tables(), names);
            LlmPlanner.Described d = describer.describe(List.copyOf(names), pairs, entityTypes, t);
            for (HgmemPrompts.DescribedEntity e : d.entities()) described.put(e.name(), e);
            for (HgmemPrompts.DescribedRelation r : d.relations()) {
                List<String> p = HypergraphMemory.resolve(java.util.Arrays.asList(r.source(), r.target()));
                if (p.size() == 2) relDescribed.put(p.get(0).compareTo(p.get(1)) < 0 ? p.get(0) + "\u0000" + p.get(1) : p.get(1) + "\u0000" + p.get(0), r);
            }
        }
        for (String n : names) {
            HgmemPrompts.DescribedEntity e = described.get(n);
            // the step's sources that name it become its chunks, so the final context can reach them through it (paper §3.6)
            List<String> mentioned = new ArrayList<>();
            String lower = n.toLowerCase(java.util.Locale.ROOT);
            for (Map<String, Object> src : context.tables().sources()) {
                String text = src.getOrDefault("title", "") + "\n" + src.get("content");
                if (text.toLowerCase(java.util.Locale.ROOT).contains(lower)) mentioned.add(String.valueOf(src.get("id")));
            }
            pendingEntities.put(n, new PendingEntity(n, e == null || e.type() == null ? "UNKNOWN" : e.type().trim().toLowerCase(java.util.Locale.ROOT),
                    e == null || e.description() == null ? "" : e.description().trim(), mentioned));
        }
        for (List<String> p : pairs) {
            String a = p.get(0).compareTo(p.get(1)) < 0 ? p.get(0) : p.get(1), b = a.equals(p.get(0)) ? p.get(1) : p.get(0);
            HgmemPrompts.DescribedRelation r = relDescribed.get(a + "\u0000" + b);
            pendingRelations.putIfAbsent(a + "\u0000" + b, new PendingRelation(a, b, r == null || r.description() == null ? "" : r.description().trim(),
                    r == null || r.keywords() == null ? "" : r.keywords().trim()));
        }
    }

    /** The rows of the tables whose text names one of {@code names} (as whole words, case, accents and articles aside). */
    static Evolution.Tables naming(Evolution.Tables t, Set<String> names) {
        List<String> keys = names.stream().map(WholeWords::folded).toList();
        java.util.function.Predicate<Map<String, Object>> names0 = row -> WholeWords.namesAny(String.join(" ", row.values().stream().map(String::valueOf).toList()), keys);
        return new Evolution.Tables(t.entities().stream().filter(names0).toList(), t.relationships().stream().filter(names0).toList(),
                t.sources().stream().filter(names0).toList());
    }

    /** The extended-info hint (the reference code's): graph neighbours of memory outside it, nearest the question, rendered for E4 and E5. */
    @Override
    public String hint(HypergraphMemory memory, String query) {
        if (cfg.hintK() == 0) return "";
        Set<String> inMemory = new LinkedHashSet<>(memory.vertices());
        Set<String> around = new LinkedHashSet<>();
        for (String v : inMemory) for (String w : neighbourNames(v)) if (!inMemory.contains(w)) around.add(w);
        if (around.isEmpty()) return "";
        float[] q = embeddings.embed(query);
        Map<String, float[]> vectors = new HashMap<>();
        for (String w : around) {
            Node n = entity(w);
            float[] v = servable(n) ? ModelIdentity.floats(n.getProperty("embedding", null)) : null;
            if (v != null) vectors.put(w, v);
        }
        List<String> top = Candidates.retrieve(q, around, vectors, Math.min(cfg.hintPool(), cfg.hintK()), cfg.minSim());
        // the plan and subqueries prompts show memory beside the hint: a description sentence memory already quotes is left out
        dev.graphrag.core.text.Verbatim remembered = new dev.graphrag.core.text.Verbatim(memory.listing().stream().map(MemoryUnit::description).toList());
        StringBuilder b = new StringBuilder();
        for (String w : top) {
            Node n = entity(w);
            String d = description(n);
            String unquoted = HgmemPrompts.unquoted(d, remembered);
            b.append("****").append(w).append("****\nEntity_Type: ").append(n.getProperty("type", "UNKNOWN")).append("\nDescription: ")
                    .append(cut(unquoted == null ? d : unquoted, cfg.hintDescriptionTokens())).append('\n');
        }
        return b.toString();
    }

    // ---- graph access

    Node entity(String name) {
        return tx.findNode(HgmemGraph.ENTITY, "key", HgmemGraph.entityKey(corpus, name));
    }

    Node chunk(String id) {
        return tx.findNode(LexicalGraph.CHUNK, "id", id);
    }

    /**
     * A row of the Sources table: id, the title of the chunk's document when it has one, content. A chunk cut from a
     * titled document often names its subject only in the title (a Wikipedia paragraph says "He was born ..."), so the
     * reader of the table gets it beside the text.
     */
    Map<String, Object> source(String id) {
        Node c = chunk(id);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        String title = LexicalGraph.documentTitle(c);
        if (title != null) row.put("title", title);
        row.put("content", c == null ? "" : c.getProperty("text", ""));
        return row;
    }

    List<String> neighbourNames(String name) {
        Node n = entity(name);
        if (n == null) return List.of();
        List<String> out = new ArrayList<>();
        for (Relationship r : n.getRelationships(HgmemGraph.RELATED)) if (servable(r)) out.add((String) r.getOtherNode(n).getProperty("name"));
        return out;
    }

    /**
     * Whether retrieval may return the entity (docs/hgmem.md#updates-and-deletes): not one a build marked stale (no
     * chunk names it any more: it stays only while a session's memory holds it), nor one no present chunk names (its
     * chunks were removed or replaced since the build), unless a session made it from no chunk at all.
     */
    static boolean servable(Node e) {
        if (Boolean.TRUE.equals(e.getProperty("stale", false))) return false;
        if (e.hasRelationship(org.neo4j.graphdb.Direction.INCOMING, HgmemGraph.MENTIONS)) return true;
        return Boolean.TRUE.equals(e.getProperty("provisional", false)) && ((Number) e.getProperty("sourceChunks", 0L)).longValue() == 0;
    }

    /**
     * A relation is served while both its entities are and, once chunks changed since the build, while a chunk it came
     * from is there and names both (a replaced chunk under the same id names what its new text names, from the next
     * build on). A relation a session made is served with its entities.
     */
    private boolean servable(Relationship r) {
        if (!servable(r.getStartNode()) || !servable(r.getEndNode())) return false;
        if (!chunksChanged() || Boolean.TRUE.equals(r.getProperty("provisional", false))) return true;
        for (String id : (String[]) r.getProperty("chunkIds", new String[0])) {
            Node c = chunk(id);
            if (c == null) continue;
            boolean start = false, end = false;
            for (Relationship m : c.getRelationships(org.neo4j.graphdb.Direction.OUTGOING, HgmemGraph.MENTIONS)) {
                start |= m.getEndNode().equals(r.getStartNode());
                end |= m.getEndNode().equals(r.getEndNode());
            }
            if (start && end) return true;
        }
        return false;
    }

    private Boolean chunksChanged;
    private final Map<String, String> servedDescriptions = new HashMap<>();

    /**
     * What retrieval shows of an entity or relation (docs/hgmem.md#updates-and-deletes): its stored description, or,
     * once chunks changed since the build and its present chunks no longer give the descriptions it was made from (its
     * {@code descriptionSource}), theirs, joined as a build joins them, so no removed or replaced text reaches a table
     * before the next build describes it again. A description a session wrote (no chunk's extraction names it) is shown
     * as stored.
     */
    String description(org.neo4j.graphdb.Entity item) {
        String stored = (String) item.getProperty("description", "");
        if (!chunksChanged()) return stored;
        return servedDescriptions.computeIfAbsent(item.getElementId(), k -> {
            Map<String, BaseGraphExtraction.Extraction> byChunk = new LinkedHashMap<>();
            String name;
            if (item instanceof Relationship r) {
                name = null;
                for (String id : (String[]) r.getProperty("chunkIds", new String[0])) {
                    Node c = chunk(id);
                    if (c != null) addExtraction(byChunk, c);
                }
            } else {
                name = (String) item.getProperty("name", "");
                for (Relationship m : ((Node) item).getRelationships(org.neo4j.graphdb.Direction.INCOMING, HgmemGraph.MENTIONS)) addExtraction(byChunk, m.getStartNode());
            }
            BaseGraphExtraction.Merged merged = BaseGraphExtraction.merge(byChunk);
            String present;
            if (item instanceof Relationship r) {
                String a = (String) r.getStartNode().getProperty("name"), b = (String) r.getEndNode().getProperty("name");
                BaseGraphExtraction.MergedRelation m = merged.relations().get(a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a);
                present = m == null ? null : m.description();
            } else {
                BaseGraphExtraction.MergedEntity m = merged.entities().get(name);
                present = m == null ? null : m.description();
            }
            if (present == null) return stored;
            return HgmemIndexer.hash(present).equals(item.getProperty("descriptionSource", null)) ? stored : present;
        });
    }

    private static void addExtraction(Map<String, BaseGraphExtraction.Extraction> byChunk, Node chunk) {
        Object stored = chunk.getProperty(HgmemGraph.STORE, null);
        if (stored != null) byChunk.put((String) chunk.getProperty("id"), HgmemIndexer.EXTRACTIONS.decode().apply(stored));
    }

    private boolean chunksChanged() {
        if (chunksChanged == null) {
            Node meta = tx.findNode(HgmemGraph.META, "corpus", corpus);
            chunksChanged = meta == null || HgmemLayer.SPEC.chunksChangedSinceBuild(tx, corpus, meta);
        }
        return chunksChanged;
    }

    /** The chunk ids an entity is mentioned in (its D_v). */
    List<String> chunksOf(String name) {
        Node n = entity(name);
        if (n == null) return List.of();
        List<String> out = new ArrayList<>();
        for (Relationship m : n.getRelationships(org.neo4j.graphdb.Direction.INCOMING, HgmemGraph.MENTIONS)) {
            if (admitted(m.getStartNode())) out.add((String) m.getStartNode().getProperty("id"));
        }
        return out;
    }

    private boolean admitted(Node chunk) {
        return admittedDocuments == null || admittedDocuments.contains((String) chunk.getProperty("documentId", null));
    }

    /** (documentId, index) order of chunk ids. */
    Comparator<String> documentOrder() {
        Map<String, Object[]> keys = new HashMap<>();
        return Comparator.comparing((String id) -> (String) keys.computeIfAbsent(id, this::orderKey)[0])
                .thenComparingLong(id -> (Long) keys.computeIfAbsent(id, this::orderKey)[1]).thenComparing(Comparator.naturalOrder());
    }

    private Object[] orderKey(String id) {
        Node c = chunk(id);
        return new Object[] {c == null ? "" : (String) c.getProperty("documentId", ""), c == null ? 0L : ((Number) c.getProperty("index", 0L)).longValue()};
    }

    int chunkTokens(String id) {
        Node c = chunk(id);
        if (c == null) return 0;
        Object t = c.getProperty("tokens", null);
        return t instanceof Number n ? n.intValue() : tokens((String) c.getProperty("text", ""));
    }

    private long rank(Relationship r) {
        return (long) r.getStartNode().getDegree(HgmemGraph.RELATED) + r.getEndNode().getDegree(HgmemGraph.RELATED);
    }

    private long entityCount() {
        try (var r = tx.execute("RETURN COUNT { (:HgEntity {corpus: $c}) } AS n", Map.of("c", corpus))) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    private long chunkCount() {
        try (var r = tx.execute("RETURN COUNT { (:Chunk {corpus: $c}) } AS n", Map.of("c", corpus))) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    int tokens(String text) {
        return text == null ? 0 : embeddings.tokenizer().tokenize(text).size();
    }

    /** A description cut to descriptionTokens word pieces (at a token boundary of the original text). */
    String cut(String text) {
        return cut(text, cfg.descriptionTokens());
    }

    String cut(String text, int tokens) {
        if (text == null) return "";
        List<TextTokenizer.Token> t = embeddings.tokenizer().tokenize(text);
        return t.size() <= tokens ? text : text.substring(0, t.get(tokens - 1).end()) + " ...";
    }
}
