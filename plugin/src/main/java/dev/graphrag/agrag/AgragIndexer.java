package dev.graphrag.agrag;

import dev.graphrag.core.Progress;
import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.EmbeddingService;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.extract.ExtractionConfig;
import dev.graphrag.core.layer.BatchWriter;
import dev.graphrag.core.layer.LayerBuild;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.llm.ChatRequest;
import dev.graphrag.core.llm.LlmClient;
import dev.graphrag.core.llm.UnusableReply;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * agrag.index: derives the AGRAG layer from the corpus's current chunks and syncs the graph to it.
 * The derived state is a function of the chunks (and of the LLM triples stored on each chunk once
 * extracted), so an incremental run equals a rebuild, deleted documents take away what only they
 * supported, and an interrupted run resumes: LLM triples are committed per batch and reused.
 */
public final class AgragIndexer {
    /** agrag.index's result: counts, and what the LLM relation extraction cost. */
    public record Stats(long chunks, long newChunks, long entities, long facts, long containsEdges, long synonymEdges, long titleLinks, long failedChunks,
                        Usage usage, long ms) {}

    static final String EXTRACTION_STEP = "agrag.index relation extraction";

    static final String COOCCURS = "co-occurs with";

    record ChunkRow(String id, String documentId, String text) {}

    record Fact(String s, String p, String o, String id, Set<String> chunkIds, String evidence) {
        String text() {
            return evidence != null ? evidence : s + " " + p + " " + o;
        }
    }

    private final GraphDatabaseService db;
    private final EmbeddingService embeddings;
    private final LlmClient llm;
    private final LlmConfig llmConfig;
    private final Consumer<String> log;
    private final BooleanSupplier cancelled;
    private final UsageMeter usage = new UsageMeter();
    private long failedChunks, newChunks;

    private final Progress progress;
    private final java.util.concurrent.ExecutorService executor;

    /** {@code llm}: null for an LLM-free index (relations: cooccurrence). */
    public AgragIndexer(RagCall call, RagCall.BoundLlm llm) {
        this.executor = call.executor();
        this.progress = call.progress();
        this.db = call.db();
        this.embeddings = call.embeddings();
        this.llm = llm == null ? null : llm.client();
        this.llmConfig = llm == null ? null : llm.config();
        this.log = call.log();
        this.cancelled = call.cancelled();
    }

    public Stats index(AgragIndexConfig cfg) {
        long t0 = System.nanoTime();
        List<ChunkRow> chunks = new ArrayList<>();
        Map<String, String> titles = new HashMap<>();
        LayerBuild build = AgragLayer.SPEC.begin(db, cfg.corpus(), embeddings);
        try (Transaction tx = db.beginTx()) {
            try (Result r = tx.execute("MATCH (c:Chunk {corpus: $corpus}) RETURN c.id AS id, c.documentId AS doc, c.text AS text ORDER BY id",
                    Map.of("corpus", cfg.corpus()))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    chunks.add(new ChunkRow((String) row.get("id"), (String) row.get("doc"), (String) row.get("text")));
                }
            }
            if (cfg.titleLinks()) {
                try (Result r = tx.execute("MATCH (d:Document {corpus: $corpus}) WHERE d.title IS NOT NULL RETURN d.id AS id, d.title AS title",
                        Map.of("corpus", cfg.corpus()))) {
                    r.forEachRemaining(row -> titles.put((String) row.get("id"), (String) row.get("title")));
                }
            }
        }
        progress.phase("entity statistics", chunks.size());
        // entity candidates with document frequencies over the corpus's current chunks
        List<List<EntityStatistics.Candidate>> extracted = EntityStatistics.extract(chunks.stream().map(ChunkRow::text).toList(), cfg.entities().maxNgram(),
                cfg.entities().entityScoring(), cfg.entities().entityThreshold(), cfg.entities().maxEntitiesPerChunk());
        Map<String, List<String>> candidates = new LinkedHashMap<>();
        for (int i = 0; i < chunks.size(); i++) {
            candidates.put(chunks.get(i).id(), extracted.get(i).stream().map(EntityStatistics.Candidate::term).toList());
        }
        log.accept(String.format("agrag.index corpus=%s: %d chunks, entity candidates ready (%.1f s)", cfg.corpus(), chunks.size(), (System.nanoTime() - t0) / 1e9));
        Map<String, List<List<String>>> triples = cfg.relations() == AgragIndexConfig.Relations.LLM
                ? llmTriples(chunks, candidates, cfg) : cooccurrenceTriples(chunks, candidates, cfg);
        LayerDerivation.Layer layer = LayerDerivation.derive(chunks, triples, titles);
        Map<String, Fact> facts = layer.facts();
        Map<String, Set<String>> contains = layer.contains();
        Map<String, Integer> occurrences = layer.occurrences();
        Map<String, List<TitleLinks.Link>> links = layer.links();
        Set<String> entities = layer.entities();
        if (cancelled.getAsBoolean()) throw new RagException("agrag.index: terminated before writing the graph");
        log.accept(String.format("agrag.index corpus=%s: %d entities, %d facts derived (%.1f s); syncing the graph", cfg.corpus(), entities.size(),
                facts.size(), (System.nanoTime() - t0) / 1e9));
        // schema only once extraction succeeded: a failed run changes nothing of the layer or the schema
        boolean resumed = build.start();
        if (resumed) log.accept("agrag.index corpus=" + cfg.corpus() + ": the last build did not finish; resuming it (synonyms of all entities are searched again)");
        progress.phase("writing the layer", entities.size() + facts.size() + chunks.size());
        long synonyms = sync(cfg, entities, facts, occurrences, contains, resumed);
        long containsEdges = contains.values().stream().mapToLong(Set::size).sum();
        progress.phase("title links", chunks.size());
        long titleLinks = syncTitleLinks(cfg, links);
        Map<String, Object> recorded = new LinkedHashMap<>();
        recorded.put("relations", cfg.relations().name().toLowerCase(Locale.ROOT));
        recorded.put("chunks", (long) chunks.size());
        recorded.put("entities", (long) entities.size());
        recorded.put("facts", (long) facts.size());
        recorded.put("containsEdges", containsEdges);
        recorded.put("titleLinks", titleLinks);
        recorded.put("synonymThreshold", cfg.synonymThreshold());
        recorded.put("maxSynonymsPerNode", (long) cfg.maxSynonymsPerNode());
        recorded.put("synonymMethod", cfg.synonymPlan(entities.size()).recorded());
        build.finish(recorded);
        // without project the old projection would be stale: drop it (queries re-project it on demand)
        if (cfg.project()) AgragProjection.project(db, cfg.corpus());
        else AgragProjection.drop(db, cfg.corpus());
        log.accept(String.format("agrag.index corpus=%s: done in %.1f s (%d synonym edges, %d LLM calls)", cfg.corpus(), (System.nanoTime() - t0) / 1e9,
                synonyms, usage.usage().calls()));
        return new Stats(chunks.size(), newChunks, entities.size(), facts.size(), containsEdges, synonyms, titleLinks, failedChunks, usage.usage(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Entity pairs named in one sentence, the sentence kept as evidence (zero LLM calls). */
    static Map<String, List<List<String>>> cooccurrenceTriples(List<ChunkRow> chunks, Map<String, List<String>> candidates, AgragIndexConfig cfg) {
        Map<String, List<List<String>>> out = new HashMap<>();
        for (ChunkRow c : chunks) {
            List<String> vt = candidates.get(c.id());
            List<List<String>> ts = new ArrayList<>();
            BreakIterator it = BreakIterator.getSentenceInstance(Locale.ROOT);
            it.setText(c.text());
            int start = it.first();
            for (int end = it.next(); end != BreakIterator.DONE; start = end, end = it.next()) {
                String sentence = c.text().substring(start, end).trim();
                Set<String> grams = EntityStatistics.terms(sentence, cfg.entities().maxNgram()).counts().keySet();
                List<String> present = new ArrayList<>();
                for (String v : vt) if (grams.contains(v)) present.add(v);
                // a phrase and its own sub-phrase are one mention, not a relation
                present.removeIf(a -> present.stream().anyMatch(b -> !b.equals(a) && (" " + b + " ").contains(" " + a + " ")));
                for (int i = 0; i < present.size(); i++) {
                    for (int j = i + 1; j < present.size(); j++) {
                        String a = present.get(i), b = present.get(j);
                        String evidence = sentence.length() > 500 ? sentence.substring(0, 500) : sentence;
                        ts.add(List.of(a.compareTo(b) < 0 ? a : b, COOCCURS, a.compareTo(b) < 0 ? b : a, evidence));
                    }
                }
            }
            out.put(c.id(), ts);
        }
        return out;
    }

    /** LLM triples through core's resumable extraction: stored on each chunk under the model's name, reused by later runs. */
    private Map<String, List<List<String>>> llmTriples(List<ChunkRow> chunks, Map<String, List<String>> candidates, AgragIndexConfig cfg) {
        if (llm == null || llmConfig == null) throw new RagException("agrag.index: relations 'llm' needs an LLM: " + LlmConfig.HOW_TO_CONFIGURE);
        ChunkExtraction<List<List<String>>> extraction = new ChunkExtraction<>(db,
                new ChunkExtraction.Store<>(AgragGraph.TRIPLES, AgragGraph.TRIPLES_MODEL, AgragIndexer::encode, v -> decode((String[]) v)),
                (chunk, meter) -> {
                    LlmClient.JsonReply reply;
                    try {
                        reply = llm.chatJson(llmConfig, ChatRequest.of(EXTRACTION_STEP,
                                        AgragPrompts.relationExtraction(chunk.text(), candidates.get(chunk.chunkId()))),
                                j -> AgragPrompts.triples(j, "triples") == null ? "it has no \"triples\" list" : null, true, cancelled);
                    } catch (UnusableReply e) {
                        meter.unusable(e, null); // ChunkExtraction skips the chunk or fails the build
                        throw e;
                    }
                    meter.add(EXTRACTION_STEP, reply.response());
                    return AgragPrompts.triples(reply.json(), "triples");
                },
                // chunks are independent: as many in flight as the server's LLM permits allow (extractionConcurrency)
                new ChunkExtraction.Settings("agrag.index", llmConfig.model(), ExtractionConfig.parallelism(cfg.extractionConcurrency(), llm), 20,
                        cfg.extractionErrors()), cancelled, log)
                .reportingTo(progress);
        ChunkExtraction.Result<List<List<String>>> r = extraction.run(chunks.stream().map(c -> new ChunkExtraction.Input(c.id(), c.text())).toList());
        usage.add(r.usage());
        newChunks += r.extracted();
        failedChunks += r.failedChunks().size();
        Map<String, List<List<String>>> out = new HashMap<>(r.byChunk());
        for (String failed : r.failedChunks()) out.put(failed, List.of());
        return out;
    }

    static String[] encode(List<List<String>> triples) {
        return triples.stream().map(t -> String.join("\u001f", t)).toArray(String[]::new);
    }

    static List<List<String>> decode(String[] stored) {
        List<List<String>> out = new ArrayList<>();
        for (String s : stored) {
            String[] p = s.split("\u001f", -1);
            if (p.length == 3) out.add(List.of(p));
        }
        return out;
    }

    /** Makes the stored layer equal to the desired one; returns the number of synonym edges. */
    private long sync(AgragIndexConfig cfg, Set<String> entities, Map<String, Fact> facts, Map<String, Integer> occurrences,
                      Map<String, Set<String>> contains, boolean resumed) {
        String corpus = cfg.corpus();
        Map<String, String> existingEntities = new HashMap<>(); // name -> elementId
        Map<String, String> existingFacts = new HashMap<>(); // factId -> elementId
        boolean synonymRulesChanged;
        try (Transaction tx = db.beginTx()) {
            // synonym edges of existing entities were found under the stored rules; other rules mean finding them all again
            Node meta = tx.findNode(AgragGraph.META, "corpus", corpus);
            // a resumed build redoes them all too: the interrupted run may have created entities whose synonyms it never searched
            // a layer whose edges came from another synonym method (a release before the exact search, or the cells on the other
            // side of exactSynonymsUpTo) is searched again too
            synonymRulesChanged = resumed || meta != null && meta.hasProperty("version")
                    && (!Double.valueOf(cfg.synonymThreshold()).equals(meta.getProperty("synonymThreshold", null))
                    || !Long.valueOf(cfg.maxSynonymsPerNode()).equals(meta.getProperty("maxSynonymsPerNode", null))
                    || !cfg.synonymPlan(entities.size()).recorded().equals(meta.getProperty("synonymMethod", null)));
            tx.findNodes(AgragGraph.ENTITY, "corpus", corpus).forEachRemaining(n -> existingEntities.put((String) n.getProperty("name"), n.getElementId()));
            try (Result r = tx.execute("MATCH (:AgEntity {corpus: $c})-[r:AG_REL]->() RETURN r.factId AS id, elementId(r) AS eid", Map.of("c", corpus))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    existingFacts.put((String) row.get("id"), (String) row.get("eid"));
                }
            }
        }
        BatchWriter batch = new BatchWriter(db, cfg.batchSize(), cancelled, progress, "agrag.index");
        // stale facts, then stale entities (with their edges)
        Set<String> wantedFacts = new java.util.HashSet<>();
        for (Fact f : facts.values()) wantedFacts.add(f.id());
        for (Map.Entry<String, String> e : existingFacts.entrySet()) {
            if (!wantedFacts.contains(e.getKey())) batch.run(tx -> tx.getRelationshipByElementId(e.getValue()).delete());
        }
        for (Map.Entry<String, String> e : existingEntities.entrySet()) {
            if (!entities.contains(e.getKey())) {
                batch.run(tx -> {
                    Node n = tx.getNodeByElementId(e.getValue());
                    n.getRelationships().forEach(Relationship::delete);
                    n.delete();
                });
            }
        }
        batch.commit();
        // new entities with embeddings
        List<String> newEntities = entities.stream().filter(n -> !existingEntities.containsKey(n)).toList();
        // synonym edges hinge on a threshold, so vectors must not depend on batch neighbours (embedEach)
        float[][] entityVectors = embeddings.embedEach(newEntities);
        Map<String, String> entityIds = new HashMap<>(existingEntities);
        entityIds.keySet().retainAll(entities);
        for (int i = 0; i < newEntities.size(); i++) {
            String name = newEntities.get(i);
            float[] v = entityVectors[i];
            batch.run(tx -> {
                Node n = tx.createNode(AgragGraph.ENTITY);
                n.setProperty("corpus", corpus);
                n.setProperty("name", name);
                n.setProperty("key", AgragGraph.entityKey(corpus, name));
                n.setProperty("embedding", v);
                entityIds.put(name, n.getElementId());
            });
        }
        batch.commit();
        // new facts with embeddings (distinct texts embedded once), changed weights updated
        Set<String> existingFactIds = existingFacts.keySet();
        List<Fact> newFacts = facts.values().stream().filter(f -> !existingFactIds.contains(f.id())).toList();
        List<String> texts = new ArrayList<>(new LinkedHashSet<>(newFacts.stream().map(Fact::text).toList()));
        float[][] textVectors = texts.isEmpty() ? new float[0][] : embeddings.embedAll(texts, false);
        Map<String, float[]> byText = new HashMap<>();
        for (int i = 0; i < texts.size(); i++) byText.put(texts.get(i), textVectors[i]);
        for (Fact f : facts.values()) {
            String key = f.s() + "|" + f.p() + "|" + f.o();
            long weight = occurrences.get(key);
            String[] chunkIds = f.chunkIds().toArray(new String[0]);
            if (existingFactIds.contains(f.id())) {
                String eid = existingFacts.get(f.id());
                batch.run(tx -> {
                    Relationship r = tx.getRelationshipByElementId(eid);
                    r.setProperty("pprWeight", (double) weight);
                    r.setProperty("chunkIds", chunkIds);
                });
            } else {
                float[] v = byText.get(f.text());
                batch.run(tx -> {
                    Relationship r = tx.getNodeByElementId(entityIds.get(f.s())).createRelationshipTo(tx.getNodeByElementId(entityIds.get(f.o())), AgragGraph.REL);
                    r.setProperty("factId", f.id());
                    r.setProperty("subject", f.s());
                    r.setProperty("predicate", f.p());
                    r.setProperty("object", f.o());
                    r.setProperty("text", f.text());
                    if (f.evidence() != null) r.setProperty("evidence", f.evidence());
                    r.setProperty("embedding", v);
                    r.setProperty("pprWeight", (double) weight);
                    r.setProperty("chunkIds", chunkIds);
                });
            }
        }
        batch.commit();
        // chunk -> entity edges
        for (Map.Entry<String, Set<String>> e : contains.entrySet()) {
            batch.run(tx -> {
                Node chunk = tx.findNode(LexicalGraph.CHUNK, "id", e.getKey());
                if (chunk == null) return; // deleted by a concurrent rag.delete; the next run is exact again
                Set<String> want = new TreeSet<>(e.getValue());
                for (Relationship r : chunk.getRelationships(Direction.OUTGOING, AgragGraph.CONTAINS)) {
                    String name = (String) r.getEndNode().getProperty("name");
                    if (!want.remove(name)) r.delete();
                }
                for (String name : want) {
                    chunk.createRelationshipTo(tx.getNodeByElementId(entityIds.get(name)), AgragGraph.CONTAINS).setProperty("pprWeight", 1.0);
                }
            });
        }
        batch.commit();
        // synonyms are a function of the entity set (SynonymSearch), so they need computing only when it or the rules changed,
        // or an interrupted build may have left them partial; then all of them, and the stored edges are brought to the result
        boolean entitiesChanged = !newEntities.isEmpty() || existingEntities.size() != entityIds.size();
        if (entitiesChanged || synonymRulesChanged) {
            syncSynonyms(cfg, entityIds, newEntities, entityVectors, batch);
        }
        try (Transaction tx = db.beginTx(); Result r = tx.execute("MATCH (a:AgEntity {corpus: $c})-[s:AG_SYNONYM]->() RETURN count(s) AS n", Map.of("c", corpus))) {
            return ((Number) r.next().get("n")).longValue();
        }
    }

    /** Computes the synonym edges of the corpus's entities (SynonymSearch, under the config's plan) and writes the difference to the stored ones. */
    private void syncSynonyms(AgragIndexConfig cfg, Map<String, String> entityIds, List<String> newEntities, float[][] newVectors, BatchWriter batch) {
        String corpus = cfg.corpus();
        // forget the stored rules first: a run interrupted from here on redoes the synonyms, whatever its config
        db.executeTransactionally("MATCH (m:AgMeta {corpus: $c}) REMOVE m.synonymThreshold", Map.of("c", corpus));
        List<String> names = new ArrayList<>(new TreeSet<>(entityIds.keySet()));
        Map<String, float[]> fresh = new HashMap<>();
        for (int i = 0; i < newEntities.size(); i++) fresh.put(newEntities.get(i), newVectors[i]);
        List<float[]> vectors = new ArrayList<>(names.size());
        Map<String, Object[]> stored = new HashMap<>(); // "lo|hi" -> {elementId, similarity}
        try (Transaction tx = db.beginTx()) {
            for (String name : names) {
                float[] v = fresh.get(name);
                vectors.add(v != null ? v : (float[]) tx.getNodeByElementId(entityIds.get(name)).getProperty("embedding"));
            }
            try (Result r = tx.execute("MATCH (a:AgEntity {corpus: $c})-[s:AG_SYNONYM]->(b) RETURN a.name AS a, b.name AS b, elementId(s) AS id,"
                    + " s.similarity AS sim", Map.of("c", corpus))) {
                r.forEachRemaining(row -> stored.put(row.get("a") + "|" + row.get("b"), new Object[] {row.get("id"), row.get("sim")}));
            }
        }
        progress.phase("synonym search", names.size());
        long t0 = System.nanoTime();
        SynonymSearch.Plan plan = cfg.synonymPlan(names.size());
        List<SynonymSearch.Edge> edges = SynonymSearch.edges(names, vectors, cfg.synonymThreshold(), cfg.maxSynonymsPerNode(), plan, executor,
                SynonymSearch.threads(), cancelled);
        progress.advance(names.size());
        log.accept(String.format("agrag.index corpus=%s: %d synonym edges among %d entities (%s, %.1f s)", corpus, edges.size(), names.size(),
                plan.recorded(), (System.nanoTime() - t0) / 1e9));
        Set<String> wanted = new java.util.HashSet<>();
        for (SynonymSearch.Edge e : edges) {
            String lo = names.get(e.lo()), hi = names.get(e.hi());
            String key = lo + "|" + hi;
            wanted.add(key);
            Object[] have = stored.get(key);
            if (have == null) {
                batch.run(tx -> {
                    Relationship s = tx.getNodeByElementId(entityIds.get(lo)).createRelationshipTo(tx.getNodeByElementId(entityIds.get(hi)), AgragGraph.SYNONYM);
                    s.setProperty("similarity", e.cos());
                    s.setProperty("pprWeight", e.cos());
                });
            } else if (!(have[1] instanceof Double d) || d != e.cos()) {
                batch.run(tx -> {
                    Relationship s = tx.getRelationshipByElementId((String) have[0]);
                    s.setProperty("similarity", e.cos());
                    s.setProperty("pprWeight", e.cos());
                });
            }
        }
        for (Map.Entry<String, Object[]> e : stored.entrySet()) {
            if (!wanted.contains(e.getKey())) batch.run(tx -> tx.getRelationshipByElementId((String) e.getValue()[0]).delete());
        }
        batch.commit();
    }

    /** Brings each chunk's AG_LINKS to the wanted documents (a diff, so re-runs and resumed runs write nothing twice); returns their count. */
    private long syncTitleLinks(AgragIndexConfig cfg, Map<String, List<TitleLinks.Link>> links) {
        // only chunks that want links or have some need a visit: most chunks of a corpus without titles need none
        Set<String> linked = new java.util.HashSet<>();
        db.executeTransactionally("MATCH (c:Chunk {corpus: $c}) WHERE (c)-[:AG_LINKS]->() RETURN c.id AS id", Map.of("c", cfg.corpus()),
                r -> { r.forEachRemaining(row -> linked.add((String) row.get("id"))); return null; });
        BatchWriter batch = new BatchWriter(db, cfg.batchSize(), cancelled, progress, "agrag.index");
        long[] total = {0};
        for (Map.Entry<String, List<TitleLinks.Link>> e : links.entrySet()) {
            if (e.getValue().isEmpty() && !linked.contains(e.getKey())) continue;
            batch.run(tx -> {
                Node chunk = tx.findNode(LexicalGraph.CHUNK, "id", e.getKey());
                if (chunk == null) return; // deleted by a concurrent rag.delete; the next run is exact again
                Map<String, String> want = new LinkedHashMap<>();
                for (TitleLinks.Link l : e.getValue()) want.put(l.documentId(), l.anchor());
                for (Relationship r : chunk.getRelationships(Direction.OUTGOING, AgragGraph.LINKS)) {
                    String doc = (String) r.getEndNode().getProperty("id");
                    String anchor = want.remove(doc);
                    if (anchor == null) r.delete();
                    else if (!anchor.equals(r.getProperty("anchor", null))) r.setProperty("anchor", anchor);
                }
                for (Map.Entry<String, String> w : want.entrySet()) {
                    try (var found = tx.findNodes(LexicalGraph.DOCUMENT, "corpus", cfg.corpus(), "id", w.getKey())) {
                        // a document deleted since the titles were read is skipped; the next run is exact again
                        if (found.hasNext()) chunk.createRelationshipTo(found.next(), AgragGraph.LINKS).setProperty("anchor", w.getValue());
                    }
                }
            });
            total[0] += e.getValue().size();
        }
        batch.commit();
        return total[0];
    }

    static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
