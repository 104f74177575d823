package dev.graphrag.remind;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.PairSearch;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.extract.ExtractionConfig;
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
 * the chunk's anchor, its entities (merged into the nearest earlier entity above the synonym threshold: first surface
 * form wins), mentions and relations, each relation with the chunk its sentence came from ({@code chunkId}).
 *
 * <p>Incremental (docs/remind.md#updates-and-deletes): when chunks were only added after the kept ones in document
 * order, they are assembled after them, and the kept ones keep their memories. When a chunk was removed or changed
 * (its anchor lost its chunk), a new one comes before a kept one, or the last build was interrupted, the entity side is assembled again from every chunk's stored extraction in document
 * order (LLM calls only for chunks without one) and written as a diff: what the removed text alone supported goes,
 * edges that come back unchanged keep their memories, and the layer equals a clean build of the corpus.
 */
public record RemindIndexer(RagCall call, RagCall.BoundLlm llm) {
    /** What a build did. */
    public record Stats(long chunks, long newChunks, long removedChunks, long entitiesCreated, long entitiesMerged, long entitiesRemoved,
                        long relations, long mentions, long nextEdges, long failedChunks, boolean reassembled, Usage usage, long ms) {}

    /** One chunk's extraction as stored on it (JSON in {@code remindExtraction}). */
    public record Extraction(List<String> entities, List<RemindPrompts.Triple> triples, String title) {}

    /** A document's anchors in chunk order, per document of a build: an index seek on (corpus, documentId), not the corpus's anchors. */
    public static final String DOCUMENT_ANCHORS = "MATCH (a:RmAnchor {corpus: $c, documentId: $d}) RETURN a ORDER BY a.index";
    static final ChunkExtraction.Store<Extraction> EXTRACTIONS = ChunkExtraction.Store.json(RemindGraph.STORE, RemindGraph.STORE_KEY, Extraction.class, "remind");

    public Stats index(RemindIndexConfig cfg) {
        long t0 = System.nanoTime();
        String corpus = cfg.corpus();
        List<ChunkRow> chunks;
        Map<String, String> anchorOf = new HashMap<>();          // chunk id -> its live anchor's element id
        List<String> staleAnchors = new ArrayList<>();
        Map<String, Extraction> extracted = new HashMap<>();
        boolean reassemble;
        LayerBuild build = RemindLayer.SPEC.begin(call.db(), corpus, call.embeddings());
        try (Transaction tx = call.db().beginTx()) {
            chunks = LexicalGraph.chunks(tx, corpus, true);
            try (Result r = tx.execute("MATCH (a:RmAnchor {corpus: $corpus}) OPTIONAL MATCH (a)-[:RM_HAS_CHUNK]->(c:Chunk)"
                    + " RETURN elementId(a) AS anchor, c.id AS chunk", Map.of("corpus", corpus))) {
                while (r.hasNext()) {
                    Map<String, Object> row = r.next();
                    if (row.get("chunk") == null) staleAnchors.add((String) row.get("anchor"));
                    else anchorOf.put((String) row.get("chunk"), (String) row.get("anchor"));
                }
            }
            reassemble = !staleAnchors.isEmpty() || newBeforeKept(chunks, anchorOf.keySet()) || interrupted(tx, corpus) || relationsWithoutSource(tx, corpus);
            if (reassemble) extracted.putAll(storedExtractions(tx, corpus, anchorOf.keySet()));
        }
        // new chunks, and on a re-assembly kept chunks whose stored extraction is missing
        List<ChunkRow> todo = chunks.stream().filter(c -> !anchorOf.containsKey(c.id()) || reassemble && !extracted.containsKey(c.id())).toList();
        UsageMeter usage = new UsageMeter();
        List<String> failed = new ArrayList<>();
        if (!todo.isEmpty()) {
            if (llm == null) throw new RagException("remind.index: building the ReMind layer needs an LLM: " + LlmConfig.HOW_TO_CONFIGURE);
            ChunkExtraction.Result<Extraction> r = new ChunkExtraction<>(call.db(), EXTRACTIONS,
                    (chunk, meter) -> extract(chunk.text(), meter),
                    new ChunkExtraction.Settings("remind.index", llm.config().model(), ExtractionConfig.parallelism(cfg.extraction().extractionConcurrency(), llm.client()), 20, cfg.extraction().extractionErrors()),
                    call.cancelled(), call.log()).reportingTo(call.progress()).run(todo.stream().map(c -> new ChunkExtraction.Input(c.id(), c.text())).toList());
            usage.add(r.usage());
            extracted.putAll(r.byChunk());
            failed.addAll(r.failedChunks());
        }
        if (call.cancelled().getAsBoolean()) throw new RagException("remind.index: terminated before writing the graph");
        build.start();
        BatchWriter batch = new BatchWriter(call.db(), cfg.extraction().batchSize(), call.cancelled(), call.progress(), "remind.index");
        long removed = removeAnchors(staleAnchors, batch);
        Assembly a = new Assembly(corpus, cfg.synonymThreshold());
        long newChunks;
        long[] written;
        if (reassemble) {
            List<ChunkRow> ordered = chunks.stream().filter(c -> extracted.containsKey(c.id())).toList();
            a.reuseVectors();
            a.embedNames(ordered.stream().map(c -> extracted.get(c.id())).toList());
            call.progress().phase("assembling the layer again", ordered.size());
            List<ChunkPlan> plans = new ArrayList<>();
            for (ChunkRow c : ordered) plans.add(a.plan(c, extracted.get(c.id())));
            written = new LayerDiff(corpus, batch).apply(plans, anchorOf);
            newChunks = ordered.stream().filter(c -> !anchorOf.containsKey(c.id())).count();
        } else {
            a.load();
            List<ChunkRow> assembled = todo.stream().filter(c -> extracted.containsKey(c.id())).toList();
            a.embedNames(assembled.stream().map(c -> extracted.get(c.id())).toList());
            call.progress().phase("writing the layer", assembled.size());
            long mentions = 0, relations = 0;
            for (ChunkRow c : assembled) {
                ChunkPlan p = a.plan(c, extracted.get(c.id()));
                mentions += p.mentioned().size();
                relations += p.relations().size();
                write(corpus, p, a.ids, batch);
            }
            batch.commit();
            written = new long[] {a.created, 0, relations, mentions};
            newChunks = assembled.size();
        }
        Set<String> docs = new TreeSet<>();
        for (ChunkRow c : chunks) if (reassemble || !anchorOf.containsKey(c.id())) docs.add(c.documentId());
        chainDocuments(corpus, docs, batch);
        Map<String, Long> counts = build.count("""
                RETURN COUNT { (:RmAnchor {corpus: $c}) } AS anchors, COUNT { (:RmEntity {corpus: $c}) } AS entities,
                       COUNT { (:RmEntity {corpus: $c})-[:RM_RELATION]->() } AS relations,
                       COUNT { (:RmEntity {corpus: $c})-[:RM_MENTIONED_IN]->() } AS mentions,
                       COUNT { (:RmAnchor {corpus: $c})-[:RM_NEXT]->() } AS nextEdges""");
        Map<String, Object> recorded = new LinkedHashMap<>(counts);
        recorded.put("synonymThreshold", cfg.synonymThreshold());
        build.finish(recorded);
        call.log().accept(String.format("remind.index corpus=%s: %d chunks new, %d removed%s, %d entities created, %d removed (%.1f s, %d LLM calls)", corpus,
                newChunks, removed, reassemble ? ", layer assembled again" : "", written[0], written[1], (System.nanoTime() - t0) / 1e9, usage.usage().calls()));
        return new Stats(chunks.size(), newChunks, removed, written[0], a.merged, written[1], written[2], written[3], counts.get("nextEdges"),
                failed.size(), reassemble, usage.usage(), (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * Whether a new chunk comes before a kept one in document order: a clean build would assemble it earlier, and since
     * merging is first-form-wins, appending it would give another layer than a clean build.
     */
    private static boolean newBeforeKept(List<ChunkRow> chunksInOrder, Set<String> kept) {
        boolean seenNew = false;
        for (ChunkRow c : chunksInOrder) {
            if (!kept.contains(c.id())) seenNew = true;
            else if (seenNew) return true;
        }
        return false;
    }

    /** Whether the last build or drop stopped before it finished (the meta node still says building). */
    private static boolean interrupted(Transaction tx, String corpus) {
        Node m = tx.findNode(RemindGraph.META, "corpus", corpus);
        return m != null && dev.graphrag.core.layer.LayerState.BUILDING.equals(dev.graphrag.core.layer.LayerState.of(m));
    }

    /** A layer written before relations recorded their chunk: assembled again once, so every relation can be checked against its text. */
    private static boolean relationsWithoutSource(Transaction tx, String corpus) {
        try (Result r = tx.execute("MATCH (:RmEntity {corpus: $c})-[r:RM_RELATION]->() WHERE r.chunkId IS NULL RETURN r LIMIT 1", Map.of("c", corpus))) {
            return r.hasNext();
        }
    }

    /** The stored extraction of each of these chunks that has one that still reads (whatever model made it: the layer was built from it). */
    private static Map<String, Extraction> storedExtractions(Transaction tx, String corpus, Set<String> chunkIds) {
        Map<String, Extraction> out = new HashMap<>();
        try (Result r = tx.execute("MATCH (c:Chunk {corpus: $c}) WHERE c." + RemindGraph.STORE + " IS NOT NULL RETURN c.id AS id, c." + RemindGraph.STORE + " AS e",
                Map.of("c", corpus))) {
            r.forEachRemaining(row -> {
                String id = (String) row.get("id");
                if (!chunkIds.contains(id)) return;
                Extraction e = EXTRACTIONS.decode().apply(row.get("e"));
                if (e != null) out.put(id, e);
            });
        }
        return out;
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

    /** Anchors whose chunk is gone (removed, or replaced by a re-ingest), with their edges. */
    private static long removeAnchors(List<String> staleAnchors, BatchWriter batch) {
        for (String a : staleAnchors) batch.run(tx -> detachDelete(tx.getNodeByElementId(a)));
        batch.commit();
        return staleAnchors.size();
    }

    private static void detachDelete(Node n) {
        n.getRelationships().forEach(Relationship::delete);
        n.delete();
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

    /** An entity a plan creates: its name, vector and place in creation order. */
    record NewEntity(String name, float[] vector, long seq) {}

    /** A relation a plan writes: from the triple's subject to its object, with the triple's sentence. */
    record Relation(String from, String to, String text) {}

    /** One chunk's part of the layer: the entities it creates, those it mentions and its relations (first triple per pair). */
    record ChunkPlan(ChunkRow chunk, String title, List<NewEntity> created, Set<String> mentioned, List<Relation> relations) {}

    /** Writes one chunk's plan on the incremental path: its new entities, its anchor, mentions and relations. */
    private static void write(String corpus, ChunkPlan p, Map<String, String> ids, BatchWriter batch) {
        batch.run(tx -> {
            for (NewEntity e : p.created()) ids.put(e.name(), createEntity(tx, corpus, e).getElementId());
            Node anchor = createAnchor(tx, corpus, p);
            for (String m : p.mentioned()) tx.getNodeByElementId(ids.get(m)).createRelationshipTo(anchor, RemindGraph.MENTIONED_IN);
            for (Relation r : p.relations()) relate(tx.getNodeByElementId(ids.get(r.from())), tx.getNodeByElementId(ids.get(r.to())), r.text(), p.chunk().id());
        });
    }

    static Node createEntity(Transaction tx, String corpus, NewEntity e) {
        Node n = tx.createNode(RemindGraph.ENTITY, RemindGraph.KEY);
        n.setProperty("corpus", corpus);
        n.setProperty("name", e.name());
        n.setProperty("key", RemindGraph.entityKey(corpus, e.name()));
        n.setProperty("embedding", e.vector());
        n.setProperty("createdSeq", e.seq());
        return n;
    }

    static Node createAnchor(Transaction tx, String corpus, ChunkPlan p) {
        ChunkRow c = p.chunk();
        Node chunk = tx.getNodeByElementId(c.elementId());
        Node anchor = tx.createNode(RemindGraph.ANCHOR, RemindGraph.KEY);
        anchor.setProperty("corpus", corpus);
        anchor.setProperty("key", c.id());
        anchor.setProperty("chunkId", c.id());
        anchor.setProperty("documentId", c.documentId());
        anchor.setProperty("index", c.index());
        anchor.setProperty("title", p.title());
        anchor.setProperty("embedding", c.embedding()); // the anchor embeds the chunk's text (docs/remind.md#memory-and-replay)
        anchor.createRelationshipTo(chunk, RemindGraph.HAS_CHUNK).setProperty("text", p.title());
        return anchor;
    }

    /** A relation with its sentence and the chunk the sentence came from (what a removal of that chunk hides and removes). */
    static void relate(Node from, Node to, String text, String chunkId) {
        Relationship r = from.createRelationshipTo(to, RemindGraph.RELATION);
        r.setProperty("text", text);
        r.setProperty("chunkId", chunkId);
    }

    /**
     * The entity side of a build, planned in memory before anything is written: the in-build index of the corpus's
     * entities (stored ones on the incremental path, none on a re-assembly, and those the plans create) that synonym
     * merging searches exactly, by cosine, in creation order, with every new surface form's neighbours found in one
     * pass ({@link EntityIndex#plan}).
     */
    private final class Assembly {
        final String corpus;
        final Map<String, String> ids = new HashMap<>();           // stored entity name -> element id (incremental path: filled as writes run)
        final List<String> names = new ArrayList<>();              // index order
        final EntityIndex index;                                    // the entities' vectors, in names' order
        final Set<String> pairs = new HashSet<>();                 // unordered entity pairs already related
        final Map<String, Integer> forms = new HashMap<>();        // new surface form -> its form number in the index's plan
        final Map<String, String> synonyms = new HashMap<>();      // surface form -> entity name (lives for the whole build)
        final Set<String> known = new HashSet<>();                 // entities the plans created
        final Map<String, float[]> reused = new HashMap<>();       // re-assembly: stored entities' vectors by name, not embedded again
        final List<NewEntity> fresh = new ArrayList<>();           // created since the last chunk's plan
        long created, merged;

        Assembly(String corpus, double threshold) {
            this.corpus = corpus;
            this.index = new EntityIndex(threshold);
        }

        /** Incremental path: the stored entities and related pairs, which new chunks merge into and add to. */
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

        /** Re-assembly: every entity is planned afresh, but a name the layer already has keeps its stored vector (the same model made it). */
        void reuseVectors() {
            try (Transaction tx = call.db().beginTx();
                 Result r = tx.execute("MATCH (e:RmEntity {corpus: $c}) RETURN e.name AS name, e.embedding AS v", Map.of("c", corpus))) {
                r.forEachRemaining(row -> reused.put((String) row.get("name"), RemindGraph.floats(row.get("v"))));
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
            List<String> missing = list.stream().filter(n -> !reused.containsKey(n)).toList();
            float[][] embedded = missing.isEmpty() ? new float[0][] : call.embeddings().embedEach(missing);
            Map<String, float[]> byName = new HashMap<>(reused);
            for (int i = 0; i < missing.size(); i++) byName.put(missing.get(i), embedded[i]);
            List<float[]> v = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                forms.put(list.get(i), i);
                v.add(byName.get(list.get(i)));
            }
            long t0 = System.nanoTime();
            boolean planned = index.plan(v, call.executor(), PairSearch.threads(), call.cancelled());
            call.log().accept(String.format("remind.index corpus=%s: synonym neighbours of %d new surface forms (%d embedded) among %d stored entities %s (%.1f s)",
                    corpus, list.size(), missing.size(), ids.size(), planned ? "found in one pass" : "too many to hold: each form is compared as it comes",
                    (System.nanoTime() - t0) / 1e9));
        }

        /** The entity a surface form stands for: itself when present, else the nearest above the threshold (first form wins), else a new one. */
        String resolve(String surface) {
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
            created++;
            fresh.add(new NewEntity(surface, index.vector(names.size() - 1), names.size()));
            return surface;
        }

        boolean present(String surface) {
            String s = synonyms.getOrDefault(surface, surface);
            return known.contains(s) || ids.containsKey(s);
        }

        /** One chunk's plan: its entities resolve first (they may create entities), then its triples (the reference code's order). */
        ChunkPlan plan(ChunkRow c, Extraction e) {
            Set<String> mentioned = new LinkedHashSet<>();
            for (String surface : e.entities()) mentioned.add(resolve(surface));
            List<Relation> rels = new ArrayList<>();
            for (RemindPrompts.Triple t : e.triples()) {
                String sub = synonyms.getOrDefault(t.subject(), t.subject()), obj = synonyms.getOrDefault(t.object(), t.object());
                if (sub.equals(obj)) continue;
                if (!present(sub) && !present(obj)) continue;
                sub = resolve(sub);
                obj = resolve(obj);
                if (sub.equals(obj) || !pairs.add(pair(sub, obj))) continue; // first triple per pair wins
                rels.add(new Relation(sub, obj, t.sentence()));
            }
            ChunkPlan p = new ChunkPlan(c, e.title(), List.copyOf(fresh), mentioned, rels);
            fresh.clear();
            return p;
        }
    }

    /**
     * A re-assembly's write: the stored layer brought to the plans by a diff, so an entity, mention or relation that
     * comes back the same stays as it is, with its memory; what no plan holds goes; what is new is created. Entities
     * are known by name (their key), mentions by entity and chunk, relations by their pair (one per pair), direction
     * and sentence.
     */
    private final class LayerDiff {
        final String corpus;
        final BatchWriter batch;

        LayerDiff(String corpus, BatchWriter batch) {
            this.corpus = corpus;
            this.batch = batch;
        }

        /** Returns {entities created, entities removed, relations created, mentions created}. */
        long[] apply(List<ChunkPlan> plans, Map<String, String> anchorOf) {
            Map<String, NewEntity> entities = new LinkedHashMap<>();
            Map<String, Relation> relations = new HashMap<>();     // pair -> relation
            Map<String, String> relationChunk = new HashMap<>();   // pair -> chunk id
            Set<String> mentions = new HashSet<>();                 // name \0 chunk id
            for (ChunkPlan p : plans) {
                for (NewEntity e : p.created()) entities.put(e.name(), e);
                for (String m : p.mentioned()) mentions.add(m + "\u0000" + p.chunk().id());
                for (Relation r : p.relations()) {
                    relations.put(pair(r.from(), r.to()), r);
                    relationChunk.put(pair(r.from(), r.to()), p.chunk().id());
                }
            }
            Map<String, String> ids = new HashMap<>();              // entity name -> element id, kept and created
            long removed = 0, createdEntities = 0, createdRelations = 0, createdMentions = 0;
            List<String> dropRels = new ArrayList<>(), dropEntities = new ArrayList<>();
            Map<String, String> resourced = new HashMap<>();        // relation element id -> its new chunk id
            Map<String, Long> reordered = new HashMap<>();          // entity element id -> its new createdSeq
            Set<String> haveMentions = new HashSet<>(), haveRelations = new HashSet<>();
            try (Transaction tx = call.db().beginTx()) {
                try (Result r = tx.execute("MATCH (e:RmEntity {corpus: $c}) RETURN e.name AS name, elementId(e) AS id, e.createdSeq AS seq", Map.of("c", corpus))) {
                    r.forEachRemaining(row -> {
                        String name = (String) row.get("name"), id = (String) row.get("id");
                        NewEntity want = entities.get(name);
                        if (want == null) {
                            dropEntities.add(id);
                            return;
                        }
                        ids.put(name, id);
                        if (!Long.valueOf(want.seq()).equals(row.get("seq"))) reordered.put(id, want.seq());
                    });
                }
                try (Result r = tx.execute("MATCH (a:RmEntity {corpus: $c})-[m:RM_MENTIONED_IN]->(x:RmAnchor) RETURN a.name AS name, x.chunkId AS chunk, elementId(m) AS id",
                        Map.of("c", corpus))) {
                    r.forEachRemaining(row -> {
                        String key = row.get("name") + "\u0000" + row.get("chunk");
                        if (mentions.contains(key) && haveMentions.add(key)) return;
                        dropRels.add((String) row.get("id"));
                    });
                }
                try (Result r = tx.execute("MATCH (a:RmEntity {corpus: $c})-[x:RM_RELATION]->(b) RETURN a.name AS a, b.name AS b, x.text AS text, x.chunkId AS chunk,"
                        + " elementId(x) AS id", Map.of("c", corpus))) {
                    r.forEachRemaining(row -> {
                        String a = (String) row.get("a"), b = (String) row.get("b"), key = pair(a, b);
                        Relation want = relations.get(key);
                        if (want != null && want.from().equals(a) && want.to().equals(b) && want.text().equals(row.get("text")) && haveRelations.add(key)) {
                            if (!relationChunk.get(key).equals(row.get("chunk"))) resourced.put((String) row.get("id"), relationChunk.get(key));
                            return;
                        }
                        dropRels.add((String) row.get("id"));
                    });
                }
            }
            for (String id : dropRels) batch.run(tx -> tx.getRelationshipByElementId(id).delete());
            for (String id : dropEntities) batch.run(tx -> detachDelete(tx.getNodeByElementId(id)));
            removed += dropEntities.size();
            resourced.forEach((id, chunk) -> batch.run(tx -> tx.getRelationshipByElementId(id).setProperty("chunkId", chunk)));
            reordered.forEach((id, seq) -> batch.run(tx -> tx.getNodeByElementId(id).setProperty("createdSeq", seq)));
            for (NewEntity e : entities.values()) {
                if (ids.containsKey(e.name())) continue;
                createdEntities++;
                batch.run(tx -> ids.put(e.name(), createEntity(tx, corpus, e).getElementId()));
            }
            // creations by now in earlier operations of the batch: each operation below looks ids up when it runs
            for (ChunkPlan p : plans) {
                String chunk = p.chunk().id();
                List<String> newMentions = p.mentioned().stream().filter(m -> !haveMentions.contains(m + "\u0000" + chunk)).toList();
                List<Relation> newRelations = p.relations().stream().filter(r -> !haveRelations.contains(pair(r.from(), r.to()))).toList();
                createdMentions += newMentions.size();
                createdRelations += newRelations.size();
                String kept = anchorOf.get(chunk);
                batch.run(tx -> {
                    Node anchor = kept == null ? createAnchor(tx, corpus, p) : retitled(tx.getNodeByElementId(kept), p.title());
                    for (String m : newMentions) tx.getNodeByElementId(ids.get(m)).createRelationshipTo(anchor, RemindGraph.MENTIONED_IN);
                    for (Relation r : newRelations) relate(tx.getNodeByElementId(ids.get(r.from())), tx.getNodeByElementId(ids.get(r.to())), r.text(), chunk);
                });
            }
            batch.commit();
            return new long[] {createdEntities, removed, createdRelations, createdMentions};
        }

        /** A kept anchor with its chunk's (possibly re-extracted) title. */
        private Node retitled(Node anchor, String title) {
            if (!title.equals(anchor.getProperty("title", null))) {
                anchor.setProperty("title", title);
                for (Relationship r : anchor.getRelationships(Direction.OUTGOING, RemindGraph.HAS_CHUNK)) r.setProperty("text", title);
            }
            return anchor;
        }
    }

    static String pair(String a, String b) {
        return a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a;
    }
}
