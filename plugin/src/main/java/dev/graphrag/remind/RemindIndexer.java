package dev.graphrag.remind;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.PairSearch;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.layer.BatchWriter;
import dev.graphrag.core.layer.LayerBuild;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.lexical.LexicalGraph.ChunkRow;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.StructuredOutput;
import dev.graphrag.core.llm.Usage;
import dev.graphrag.core.llm.UsageMeter;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * remind.index: the ReMind layer of a corpus from its chunks (paper §3.1, App. A). Per chunk three LLM calls (entities,
 * triples, title) through core's resumable extraction, stored on the chunk; then, chunk by chunk in document order,
 * one transaction-batched write of the chunk's anchor, its entities (merged into the nearest existing or earlier
 * entity above the synonym threshold: first surface form wins), mentions and relations. A chunk is assembled in one
 * transaction with its anchor, so an interrupted build resumes at the first chunk without one. Incremental: chunks
 * that already have an anchor are kept with their memories; anchors of chunks rag.delete or a re-ingest removed go,
 * with entities nothing else holds.
 */
public record RemindIndexer(RagCall call, RagCall.BoundLlm llm) {
    /** What a build did. */
    public record Stats(long chunks, long newChunks, long removedChunks, long entitiesCreated, long entitiesMerged, long relations, long mentions,
                        long nextEdges, long failedChunks, Usage usage, long ms) {}

    /** One chunk's extraction as stored on it (JSON in {@code remindExtraction}). */
    public record Extraction(List<String> entities, List<RemindPrompts.Triple> triples, String title) {}

    /** A document's anchors in chunk order, per document of a build: an index seek on (corpus, documentId), not the corpus's anchors. */
    public static final String DOCUMENT_ANCHORS = "MATCH (a:RmAnchor {corpus: $c, documentId: $d}) RETURN a ORDER BY a.index";
    static final ChunkExtraction.Store<Extraction> EXTRACTIONS = ChunkExtraction.Store.json(RemindGraph.STORE, RemindGraph.STORE_KEY, Extraction.class, "remind");

    public Stats index(RemindIndexConfig cfg) {
        long t0 = System.nanoTime();
        String corpus = cfg.corpus();
        List<ChunkRow> chunks = new ArrayList<>();
        Set<String> anchored = new HashSet<>();
        List<String> staleAnchors = new ArrayList<>();
        LayerBuild build = RemindLayer.SPEC.begin(call.db(), corpus, call.embeddings());
        try (Transaction tx = call.db().beginTx()) {
            chunks.addAll(LexicalGraph.chunks(tx, corpus, true));
            try (Result r = tx.execute("MATCH (a:RmAnchor {corpus: $corpus}) OPTIONAL MATCH (a)-[:RM_HAS_CHUNK]->(c:Chunk)"
                    + " RETURN elementId(a) AS anchor, c.id AS chunk", Map.of("corpus", corpus))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    if (row.get("chunk") == null) staleAnchors.add((String) row.get("anchor"));
                    else anchored.add((String) row.get("chunk"));
                }
            }
        }
        List<ChunkRow> todo = chunks.stream().filter(c -> !anchored.contains(c.id())).toList();
        UsageMeter usage = new UsageMeter();
        Map<String, Extraction> extracted = new HashMap<>();
        List<String> failed = new ArrayList<>();
        if (!todo.isEmpty()) {
            if (llm == null) throw new RagException("remind.index: building the ReMind layer needs an LLM: " + LlmConfig.HOW_TO_CONFIGURE);
            ChunkExtraction.Result<Extraction> r = new ChunkExtraction<>(call.db(), EXTRACTIONS,
                    (chunk, meter) -> extract(chunk.text(), meter),
                    new ChunkExtraction.Settings("remind.index", llm.config().model(), cfg.extraction().extractionConcurrency(), 20, cfg.extraction().extractionErrors()),
                    call.cancelled(), call.log()).reportingTo(call.progress()).run(todo.stream().map(c -> new ChunkExtraction.Input(c.id(), c.text())).toList());
            usage.add(r.usage());
            extracted.putAll(r.byChunk());
            failed.addAll(r.failedChunks());
        }
        if (call.cancelled().getAsBoolean()) throw new RagException("remind.index: terminated before writing the graph");
        build.start();
        BatchWriter batch = new BatchWriter(call.db(), cfg.extraction().batchSize(), call.cancelled(), call.progress(), "remind.index");
        long removed = removeStale(corpus, staleAnchors, batch);
        Assembly a = new Assembly(corpus, cfg.synonymThreshold());
        a.load();
        List<ChunkRow> assembled = todo.stream().filter(c -> extracted.containsKey(c.id())).toList();
        a.embedNames(assembled.stream().map(c -> extracted.get(c.id())).toList());
        call.progress().phase("writing the layer", assembled.size());
        for (ChunkRow c : assembled) a.assemble(c, extracted.get(c.id()), batch);
        batch.commit();
        Set<String> docs = new TreeSet<>();
        for (ChunkRow c : assembled) docs.add(c.documentId());
        if (removed > 0) docs.addAll(chunks.stream().map(ChunkRow::documentId).toList());
        chainDocuments(corpus, docs, batch);
        Map<String, Long> counts = build.count("""
                RETURN COUNT { (:RmAnchor {corpus: $c}) } AS anchors, COUNT { (:RmEntity {corpus: $c}) } AS entities,
                       COUNT { (:RmEntity {corpus: $c})-[:RM_RELATION]->() } AS relations,
                       COUNT { (:RmEntity {corpus: $c})-[:RM_MENTIONED_IN]->() } AS mentions,
                       COUNT { (:RmAnchor {corpus: $c})-[:RM_NEXT]->() } AS nextEdges""");
        Map<String, Object> recorded = new LinkedHashMap<>(counts);
        recorded.put("synonymThreshold", cfg.synonymThreshold());
        build.finish(recorded);
        call.log().accept(String.format("remind.index corpus=%s: %d chunks assembled, %d entities created, %d merged (%.1f s, %d LLM calls)", corpus,
                assembled.size(), a.created, a.merged, (System.nanoTime() - t0) / 1e9, usage.usage().calls()));
        return new Stats(chunks.size(), assembled.size(), removed, a.created, a.merged, a.relations, a.mentions, counts.get("nextEdges"),
                failed.size(), usage.usage(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** L1, L2 (skipped when L1 found no entity: its triples must name them) and L3 for one chunk. */
    Extraction extract(String text, UsageMeter meter) {
        List<String> entities = new ArrayList<>(new LinkedHashSet<>(ask(RemindPrompts.ENTITIES, RemindPrompts.entities(text), RemindPrompts.ENTITIES_OUT, meter)
                .entities().stream().map(String::strip).toList()));
        List<RemindPrompts.Triple> triples = entities.isEmpty() ? List.of()
                : ask(RemindPrompts.TRIPLES, RemindPrompts.triples(text, entities), RemindPrompts.TRIPLES_OUT, meter).triples().stream()
                .map(t -> new RemindPrompts.Triple(t.subject().strip(), t.sentence().strip(), t.object().strip())).toList();
        String title = ask(RemindPrompts.TITLE, RemindPrompts.title(text), RemindPrompts.TITLE_OUT, meter).title().strip();
        return new Extraction(entities, triples, title);
    }

    private <T> T ask(String step, List<Map<String, Object>> messages, StructuredOutput<T> out, UsageMeter meter) {
        return llm.client().ask(llm.config(), step, messages, out, meter, call.cancelled());
    }

    /** Anchors whose chunk is gone, then entities left with no relationship at all. */
    private long removeStale(String corpus, List<String> staleAnchors, BatchWriter batch) {
        for (String a : staleAnchors) {
            batch.run(tx -> {
                Node n = tx.getNodeByElementId(a);
                n.getRelationships().forEach(Relationship::delete);
                n.delete();
            });
        }
        batch.commit();
        if (!staleAnchors.isEmpty()) {
            List<String> orphans = new ArrayList<>();
            call.db().executeTransactionally("MATCH (e:RmEntity {corpus: $c}) WHERE NOT (e)--() RETURN elementId(e) AS id", Map.of("c", corpus),
                    r -> { r.forEachRemaining(row -> orphans.add((String) row.get("id"))); return null; });
            for (String o : orphans) batch.run(tx -> tx.getNodeByElementId(o).delete());
            batch.commit();
        }
        return staleAnchors.size();
    }

    /** Brings each document's RM_NEXT chain to its anchors in chunk order (a diff: kept links keep their memory). */
    private void chainDocuments(String corpus, Set<String> documents, BatchWriter batch) {
        for (String doc : documents) {
            batch.run(tx -> {
                List<Node> anchors = new ArrayList<>();
                try (Result r = tx.execute(DOCUMENT_ANCHORS, Map.of("c", corpus, "d", doc))) {
                    r.forEachRemaining(row -> anchors.add((Node) row.get("a")));
                }
                Map<String, String> want = new HashMap<>();
                for (int i = 0; i + 1 < anchors.size(); i++) want.put(anchors.get(i).getElementId(), anchors.get(i + 1).getElementId());
                for (int i = 0; i < anchors.size(); i++) {
                    Node a = anchors.get(i);
                    String next = want.get(a.getElementId());
                    boolean have = false;
                    for (Relationship r : a.getRelationships(Direction.OUTGOING, RemindGraph.NEXT)) {
                        if (!have && r.getEndNode().getElementId().equals(next)) have = true;
                        else r.delete();
                    }
                    if (next != null && !have) {
                        Node b = anchors.get(i + 1);
                        Relationship r = a.createRelationshipTo(b, RemindGraph.NEXT);
                        r.setProperty("text", "chunk " + a.getProperty("chunkId") + " is followed by chunk " + b.getProperty("chunkId"));
                    }
                }
            });
        }
        batch.commit();
    }

    /**
     * The entity side of a build: the in-build index of the corpus's entities (stored ones and those this build
     * creates, uncommitted ones included) that synonym merging searches exactly, by cosine, in creation order, with
     * every new surface form's neighbours found in one pass before the first write ({@link EntityIndex#plan}).
     */
    private final class Assembly {
        final String corpus;
        final Map<String, String> ids = new HashMap<>();           // name -> element id (filled when the write runs)
        final List<String> names = new ArrayList<>();              // index order
        final EntityIndex index;                                    // the entities' vectors, in names' order
        final Set<String> pairs = new HashSet<>();                 // unordered entity pairs already related
        final Map<String, Integer> forms = new HashMap<>();        // new surface form -> its form number in the index's plan
        final Map<String, String> synonyms = new HashMap<>();      // surface form -> entity name (lives for the whole build)
        final Set<String> known = new HashSet<>();                 // entities this build created (ids filled once written)
        long created, merged, relations, mentions;

        Assembly(String corpus, double threshold) {
            this.corpus = corpus;
            this.index = new EntityIndex(threshold);
        }

        void load() {
            try (Transaction tx = call.db().beginTx()) {
                try (Result r = tx.execute("MATCH (e:RmEntity {corpus: $c}) RETURN e.name AS name, elementId(e) AS id, e.embedding AS v ORDER BY e.createdSeq, name",
                        Map.of("c", corpus))) {
                    r.forEachRemaining(row -> {
                        String name = (String) row.get("name");
                        ids.put(name, (String) row.get("id"));
                        names.add(name);
                        index.add((float[]) row.get("v"));
                    });
                }
                try (Result r = tx.execute("MATCH (a:RmEntity {corpus: $c})-[:RM_RELATION]->(b) RETURN a.name AS a, b.name AS b", Map.of("c", corpus))) {
                    r.forEachRemaining(row -> pairs.add(pair((String) row.get("a"), (String) row.get("b"))));
                }
            }
        }

        /** Embeds every surface form the build may create, one at a time (a merge hinges on a threshold: no batch effects). */
        void embedNames(List<Extraction> extractions) {
            Set<String> wanted = new LinkedHashSet<>();
            for (Extraction e : extractions) {
                for (String n : e.entities()) if (!ids.containsKey(n)) wanted.add(n);
                for (RemindPrompts.Triple t : e.triples()) {
                    if (!ids.containsKey(t.subject())) wanted.add(t.subject());
                    if (!ids.containsKey(t.object())) wanted.add(t.object());
                }
            }
            List<String> list = new ArrayList<>(wanted);
            float[][] v = list.isEmpty() ? new float[0][] : call.embeddings().embedEach(list);
            for (int i = 0; i < list.size(); i++) forms.put(list.get(i), i);
            long t0 = System.nanoTime();
            boolean planned = index.plan(java.util.Arrays.asList(v), call.executor(), PairSearch.threads(), call.cancelled());
            call.log().accept(String.format("remind.index corpus=%s: synonym neighbours of %d new surface forms among %d stored entities %s (%.1f s)",
                    corpus, list.size(), ids.size(), planned ? "found in one pass" : "too many to hold: each form is compared as it comes",
                    (System.nanoTime() - t0) / 1e9));
        }


        /** The entity a surface form stands for: itself when present, else the nearest above the threshold (first form wins), else a new one. */
        String resolve(String surface, BatchWriter batch) {
            String s = synonyms.get(surface);
            if (s != null) return s;
            if (known.contains(surface) || ids.containsKey(surface)) return surface;
            int form = forms.get(surface);
            int best = index.nearestForm(form);
            if (best >= 0) {
                merged++;
                synonyms.put(surface, names.get(best));
                return names.get(best);
            }
            known.add(surface);
            names.add(surface);
            index.addForm(form);
            float[] v = index.vector(names.size() - 1);
            created++;
            long seq = names.size();
            batch.run(tx -> {
                Node n = tx.createNode(RemindGraph.ENTITY, RemindGraph.KEY);
                n.setProperty("corpus", corpus);
                n.setProperty("name", surface);
                n.setProperty("key", RemindGraph.entityKey(corpus, surface));
                n.setProperty("embedding", v);
                n.setProperty("createdSeq", seq);
                ids.put(surface, n.getElementId());
            });
            return surface;
        }

        boolean present(String surface) {
            String s = synonyms.getOrDefault(surface, surface);
            return known.contains(s) || ids.containsKey(s);
        }

        void assemble(ChunkRow c, Extraction e, BatchWriter batch) {
            // the chunk's entities resolve first (they may create entities), then its triples (the reference code's order)
            Set<String> mentioned = new LinkedHashSet<>();
            for (String surface : e.entities()) mentioned.add(resolve(surface, batch));
            List<String[]> rels = new ArrayList<>();
            for (RemindPrompts.Triple t : e.triples()) {
                String sub = synonyms.getOrDefault(t.subject(), t.subject()), obj = synonyms.getOrDefault(t.object(), t.object());
                if (sub.equals(obj)) continue;
                if (!present(sub) && !present(obj)) continue;
                sub = resolve(sub, batch);
                obj = resolve(obj, batch);
                if (sub.equals(obj) || !pairs.add(pair(sub, obj))) continue; // first triple per pair wins
                rels.add(new String[] {sub, obj, t.sentence()});
            }
            mentions += mentioned.size();
            relations += rels.size();
            batch.run(tx -> {
                Node chunk = tx.getNodeByElementId(c.elementId());
                Node anchor = tx.createNode(RemindGraph.ANCHOR, RemindGraph.KEY);
                anchor.setProperty("corpus", corpus);
                anchor.setProperty("key", c.id());
                anchor.setProperty("chunkId", c.id());
                anchor.setProperty("documentId", c.documentId());
                anchor.setProperty("index", c.index());
                anchor.setProperty("title", e.title());
                anchor.setProperty("embedding", c.embedding()); // the anchor embeds the chunk's text (docs/remind.md#memory-and-replay)
                anchor.createRelationshipTo(chunk, RemindGraph.HAS_CHUNK).setProperty("text", e.title());
                for (String m : mentioned) tx.getNodeByElementId(ids.get(m)).createRelationshipTo(anchor, RemindGraph.MENTIONED_IN);
                for (String[] r : rels) {
                    tx.getNodeByElementId(ids.get(r[0])).createRelationshipTo(tx.getNodeByElementId(ids.get(r[1])), RemindGraph.RELATION)
                            .setProperty("text", r[2]);
                }
            });
        }
    }

    static String pair(String a, String b) {
        return a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a;
    }
}
