package dev.graphrag.hgmem;

import dev.graphrag.core.RagCall;
import dev.graphrag.core.RagException;
import dev.graphrag.core.extract.ChunkExtraction;
import dev.graphrag.core.extract.ExtractionConfig;
import dev.graphrag.core.layer.BatchWriter;
import dev.graphrag.core.layer.LayerBuild;
import dev.graphrag.core.lexical.LexicalGraph;
import dev.graphrag.core.lexical.LexicalGraph.ChunkRow;
import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.llm.PromptFit;
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
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * hgmem.index: the HGMem base graph of a corpus (paper §4.2, LightRAG style). X1 per chunk through core's resumable extraction
 * (stored on the chunk, keyed by model and entity types, so a re-run asks the LLM only for chunks not done), then
 * every chunk's records merged (BaseGraphExtraction), long descriptions summarised by X2 (a summary is kept while
 * its sources are unchanged), and entities and relations upserted with their embeddings (re-embedded only when their
 * text changed). Upserts keep memory units' links to entities; an interrupted write phase completes on the next run.
 * Entities an earlier build made that no chunk names any more are deleted, or kept (stale) while a memory unit holds them.
 */
public record HgmemIndexer(RagCall call, RagCall.BoundLlm llm) {
    public record Stats(long chunks, long extracted, long reusedExtractions, long failedChunks, long entities, long relations, long mentions,
                        long summarised, long staleEntities, Usage usage, long ms) {}

    /** Entities or relations described and embedded together (8 embedding groups of 256, as one pass over all of them makes). */
    static final int SLICE = 2048;
    /** Each chunk's X1 records as stored on it (public for the build-cost probe, which reads them without building). */
    public static final ChunkExtraction.Store<BaseGraphExtraction.Extraction> EXTRACTIONS =
            ChunkExtraction.Store.json(HgmemGraph.STORE, HgmemGraph.STORE_KEY, BaseGraphExtraction.Extraction.class, "hgmem");

    public Stats index(HgmemIndexConfig cfg) {
        long t0 = System.nanoTime();
        String corpus = cfg.corpus();
        LayerBuild build = HgmemLayer.SPEC.begin(call.db(), corpus, call.embeddings());
        List<ChunkRow> chunks;
        try (Transaction tx = call.db().beginTx()) {
            chunks = LexicalGraph.chunks(tx, corpus, false);
        }
        UsageMeter usage = new UsageMeter();
        ChunkExtraction.Result<BaseGraphExtraction.Extraction> x = extract(cfg, chunks, usage);
        if (call.cancelled().getAsBoolean()) throw new RagException("hgmem.index: terminated before writing the graph");
        Map<String, BaseGraphExtraction.Extraction> ordered = new LinkedHashMap<>();
        for (ChunkRow c : chunks) if (x.byChunk().containsKey(c.id())) ordered.put(c.id(), x.byChunk().get(c.id()));
        BaseGraphExtraction.Merged merged = BaseGraphExtraction.merge(ordered);

        build.start();
        Existing existing = Existing.load(call.db(), corpus);
        Map<String, String> chunkIds = new HashMap<>();
        for (ChunkRow c : chunks) chunkIds.put(c.id(), c.elementId());

        // entities, then relations, a slice at a time: described (X2 where long), embedded and handed to the writer before
        // the next slice, so a build stopped part way keeps what it committed and the next run reuses those summaries and
        // embeddings. The writer commits every batchSize records as before slices, not at a slice's end: where commits
        // fall shapes the vector indexes' segments, and so the approximate nearest neighbours that retrieval gets
        long[] summarised = {0};
        BatchWriter batch = new BatchWriter(call.db(), cfg.extraction().batchSize(), call.cancelled(), call.progress(), "hgmem.index");
        Map<String, String> ids = new HashMap<>();
        List<BaseGraphExtraction.MergedEntity> entities = List.copyOf(merged.entities().values());
        call.progress().phase("describing, embedding and writing entities", entities.size());
        for (int from = 0; from < entities.size(); from += SLICE) {
            List<BaseGraphExtraction.MergedEntity> slice = entities.subList(from, Math.min(entities.size(), from + SLICE));
            Map<String, String[]> text = new LinkedHashMap<>();   // name -> {description, source hash}
            for (BaseGraphExtraction.MergedEntity e : slice) text.put(e.name(), describe(e.name(), e.descriptions(), existing.entities.get(e.name()), cfg, usage, summarised));
            Map<String, float[]> vectors = embedChanged(List.copyOf(text.keySet()), n -> entityText(n, text.get(n)[0]), existing.entities);
            for (BaseGraphExtraction.MergedEntity e : slice) writeEntity(batch, corpus, e, text.get(e.name()), vectors.get(e.name()), chunkIds, ids);
        }
        batch.commit();
        List<Map.Entry<String, BaseGraphExtraction.MergedRelation>> relations = List.copyOf(merged.relations().entrySet());
        call.progress().phase("describing, embedding and writing relations", relations.size());
        for (int from = 0; from < relations.size(); from += SLICE) {
            List<Map.Entry<String, BaseGraphExtraction.MergedRelation>> slice = relations.subList(from, Math.min(relations.size(), from + SLICE));
            Map<String, String[]> text = new LinkedHashMap<>();   // pair key -> {description, source hash}
            for (Map.Entry<String, BaseGraphExtraction.MergedRelation> en : slice) {
                BaseGraphExtraction.MergedRelation r = en.getValue();
                text.put(en.getKey(), describe(r.source() + " -- " + r.target(), r.descriptions(), existing.relations.get(en.getKey()), cfg, usage, summarised));
            }
            Map<String, float[]> vectors = embedChanged(List.copyOf(text.keySet()), k -> relationText(merged.relations().get(k), text.get(k)[0]), existing.relations);
            for (Map.Entry<String, BaseGraphExtraction.MergedRelation> en : slice) {
                writeRelation(batch, en.getValue(), text.get(en.getKey()), vectors.get(en.getKey()), ids);
            }
        }
        batch.commit();
        long stale = removeStale(corpus, merged, existing, batch);
        Map<String, Long> counts = build.count("""
                RETURN COUNT { (:HgEntity {corpus: $c}) } AS entities, COUNT { (:HgEntity {corpus: $c})-[:HG_RELATED]->() } AS relations,
                       COUNT { (:Chunk {corpus: $c})-[:HG_MENTIONS]->() } AS mentions,
                       COUNT { (e:HgEntity {corpus: $c}) WHERE e.provisional } AS provisionalEntities""");
        Map<String, Object> recorded = new LinkedHashMap<>(counts);
        recorded.put("entityTypes", cfg.entityTypes().toArray(String[]::new));
        recorded.put("summaryMaxTokens", (long) cfg.summaryMaxTokens());
        build.finish(recorded);
        Usage u = usage.usage();
        call.log().accept(String.format("hgmem.index corpus=%s: %d chunks (%d extracted, %d reused), %d entities, %d relations (%.1f s, %d LLM calls)", corpus,
                chunks.size(), x.extracted(), x.reused(), counts.get("entities"), counts.get("relations"), (System.nanoTime() - t0) / 1e9, u.calls()));
        return new Stats(chunks.size(), x.extracted(), x.reused(), x.failedChunks().size(), counts.get("entities"), counts.get("relations"),
                counts.get("mentions"), summarised[0], stale, u, (System.nanoTime() - t0) / 1_000_000);
    }

    /** One entity as merged: its node upserted by (corpus, name), text and vector set, its mentions made those of the chunks naming it. */
    private static void writeEntity(BatchWriter batch, String corpus, BaseGraphExtraction.MergedEntity e, String[] d, float[] v, Map<String, String> chunkIds,
                                    Map<String, String> ids) {
        List<String> mentionIds = e.chunks().stream().map(chunkIds::get).filter(java.util.Objects::nonNull).toList();
        batch.run(tx -> {
            Node n = tx.findNode(HgmemGraph.ENTITY, "key", HgmemGraph.entityKey(corpus, e.name()));
            if (n == null) {
                n = tx.createNode(HgmemGraph.ENTITY);
                n.setProperty("corpus", corpus);
                n.setProperty("key", HgmemGraph.entityKey(corpus, e.name()));
                n.setProperty("name", e.name());
            }
            n.setProperty("type", e.type());
            n.setProperty("description", d[0]);
            n.setProperty("descriptionSource", d[1]);
            if (v != null) {
                n.setProperty("embedding", v);
                n.setProperty("embeddedHash", hash(entityText(e.name(), d[0])));
            }
            n.setProperty("provisional", false);
            n.removeProperty("createdBySession");
            n.removeProperty("stale");
            Set<String> want = new HashSet<>(mentionIds);
            for (Relationship m : n.getRelationships(Direction.INCOMING, HgmemGraph.MENTIONS)) {
                if (!want.remove(m.getStartNode().getElementId())) m.delete();
            }
            for (String c : want) tx.getNodeByElementId(c).createRelationshipTo(n, HgmemGraph.MENTIONS);
            ids.put(e.name(), n.getElementId());
        });
    }

    /** One relation as merged: one HG_RELATED edge per entity pair (a provisional twin folded in), text, weight and vector set. */
    private static void writeRelation(BatchWriter batch, BaseGraphExtraction.MergedRelation r, String[] d, float[] v, Map<String, String> ids) {
        batch.run(tx -> {
            Node a = tx.getNodeByElementId(ids.get(r.source())), b = tx.getNodeByElementId(ids.get(r.target()));
            Relationship rel = null;
            for (Relationship x2 : a.getRelationships(HgmemGraph.RELATED)) {
                if (x2.getOtherNode(a).equals(b)) {
                    if (rel == null) rel = x2;
                    else x2.delete(); // one edge per pair: a provisional twin is folded into the extracted one
                }
            }
            if (rel == null) rel = a.createRelationshipTo(b, HgmemGraph.RELATED);
            rel.setProperty("description", d[0]);
            rel.setProperty("descriptionSource", d[1]);
            rel.setProperty("keywords", r.keywordText());
            rel.setProperty("weight", r.weight());
            rel.setProperty("chunkIds", r.chunks().toArray(String[]::new));
            if (v != null) {
                rel.setProperty("embedding", v);
                rel.setProperty("embeddedHash", hash(relationText(r, d[0])));
            }
            rel.setProperty("provisional", false);
            rel.removeProperty("createdBySession");
        });
    }

    /** What an entity's vector is made of. */
    public static String entityText(String name, String description) {
        return name + ": " + description;
    }

    /** What a relation's vector is made of. */
    public static String relationText(BaseGraphExtraction.MergedRelation r, String description) {
        return r.source() + " -- " + r.target() + " | " + r.keywordText() + "\n" + description;
    }

    /** X1 for every chunk without a stored extraction of this model and these types; with no LLM, stored extractions of any model. */
    private ChunkExtraction.Result<BaseGraphExtraction.Extraction> extract(HgmemIndexConfig cfg, List<ChunkRow> chunks, UsageMeter usage) {
        if (llm == null) {
            Map<String, BaseGraphExtraction.Extraction> stored = new LinkedHashMap<>();
            List<String> missing = new ArrayList<>();
            try (Transaction tx = call.db().beginTx()) {
                for (ChunkRow c : chunks) {
                    Object v = tx.getNodeByElementId(c.elementId()).getProperty(HgmemGraph.STORE, null);
                    if (v == null) missing.add(c.id());
                    else stored.put(c.id(), EXTRACTIONS.decode().apply(v));
                }
            }
            if (!missing.isEmpty()) {
                throw new RagException("hgmem.index: " + missing.size() + " chunks of corpus '" + cfg.corpus() + "' need LLM extraction (first: "
                        + missing.get(0) + "): " + LlmConfig.HOW_TO_CONFIGURE);
            }
            return new ChunkExtraction.Result<>(stored, List.of(), 0, stored.size(), Usage.NONE);
        }
        // "titled": extractions made before X1 was given the document title are made again, not mixed with titled ones
        String key = llm.config().model() + "|" + String.join(",", cfg.entityTypes()) + "|titled";
        Map<String, String> titles;
        try (Transaction tx = call.db().beginTx()) {
            titles = LexicalGraph.documentTitles(tx, cfg.corpus());
        }
        ChunkExtraction.Result<BaseGraphExtraction.Extraction> r = new ChunkExtraction<>(call.db(),
                EXTRACTIONS,
                (chunk, meter) -> llm.client().ask(llm.config(), BaseGraphExtraction.EXTRACT, BaseGraphExtraction.extract(chunk.text(), titles.get(chunk.chunkId()), cfg.entityTypes()),
                        BaseGraphExtraction.EXTRACT_OUT, meter, call.cancelled()),
                new ChunkExtraction.Settings("hgmem.index", key, ExtractionConfig.parallelism(cfg.extraction().extractionConcurrency(), llm.client()), 20, cfg.extraction().extractionErrors()),
                call.cancelled(), call.log()).reportingTo(call.progress()).run(chunks.stream().map(c -> new ChunkExtraction.Input(c.id(), c.text())).toList());
        usage.add(r.usage());
        return r;
    }

    /** What X2 does when the model's summary is unusable (counted in tokensByStep); the next run tries again. */
    static final String UNSUMMARISED = "descriptions kept up to summaryMaxTokens, summarised next run";
    private static final String UNSUMMARISED_SOURCE = "unsummarised";

    /** {description, hash of its sources}: the joined descriptions, or an X2 summary when they reach the budget (kept while the sources are the same). */
    private String[] describe(String name, List<String> descriptions, Stored before, HgmemIndexConfig cfg, UsageMeter usage, long[] summarised) {
        String joined = String.join(BaseGraphExtraction.SEP, descriptions);
        String source = hash(joined);
        if (tokens(joined) < cfg.summaryMaxTokens()) return new String[] {joined, source};
        if (before != null && source.equals(before.descriptionSource) && before.description != null) return new String[] {before.description, source};
        if (llm == null) {
            throw new RagException("hgmem.index: the description of '" + name + "' reaches summaryMaxTokens=" + cfg.summaryMaxTokens()
                    + " and needs an LLM summary: " + LlmConfig.HOW_TO_CONFIGURE);
        }
        summarised[0]++;
        // a name mentioned in very many chunks: in a small window the last descriptions (in chunk order) are left out
        List<Map<String, Object>> prompt = PromptFit.fit(llm.config(), BaseGraphExtraction.SUMMARISE, descriptions.size(),
                n -> BaseGraphExtraction.summarise(name, descriptions.subList(0, n)), PromptFit.overhead(BaseGraphExtraction.SUMMARY_OUT), usage);
        BaseGraphExtraction.Summary reply = llm.client().askOr(llm.config(), BaseGraphExtraction.SUMMARISE, prompt, BaseGraphExtraction.SUMMARY_OUT,
                usage, call.cancelled(), UNSUMMARISED, null);
        if (reply == null) {
            // the descriptions that fit the budget, in chunk order; a source no hash equals, so the next run summarises again
            StringBuilder kept = new StringBuilder(descriptions.get(0));
            for (int i = 1; i < descriptions.size() && tokens(kept + BaseGraphExtraction.SEP + descriptions.get(i)) < cfg.summaryMaxTokens(); i++) {
                kept.append(BaseGraphExtraction.SEP).append(descriptions.get(i));
            }
            return new String[] {kept.toString(), UNSUMMARISED_SOURCE};
        }
        return new String[] {reply.summary().strip(), source};
    }

    private int tokens(String text) {
        return call.embeddings().tokenizer().tokenize(text).size();
    }

    /** Embeddings of the texts whose hash differs from the stored one; a text longer than the model reads is embedded from its beginning. */
    private Map<String, float[]> embedChanged(List<String> keys, java.util.function.Function<String, String> text, Map<String, Stored> before) {
        List<String> todo = new ArrayList<>(), texts = new ArrayList<>();
        for (String k : keys) {
            String t = text.apply(k);
            Stored s = before.get(k);
            if (s == null || !hash(t).equals(s.embeddedHash)) {
                todo.add(k);
                texts.add(t);
            }
        }
        Map<String, float[]> out = new HashMap<>();
        // all at once, length-sorted over the whole set (parts of 256 mixed long and short texts in every batch), the
        // termination checked before each model call; batched, as chunk vectors are: nothing hangs on a threshold here,
        // unlike AGRAG's synonym merging, so an int8 model's per-batch scales may move a vector in its last digits
        float[][] v = call.embeddings().embedAll(texts, call.cancelled());
        for (int j = 0; j < todo.size(); j++) out.put(todo.get(j), v[j]);
        return out;
    }

    /** Extracted entities and relations no chunk names any more; entities still held by a memory unit stay, marked stale. */
    private long removeStale(String corpus, BaseGraphExtraction.Merged merged, Existing existing, BatchWriter batch) {
        long n = 0;
        for (Map.Entry<String, Stored> e : existing.relations.entrySet()) {
            if (merged.relations().containsKey(e.getKey()) || e.getValue().provisional) continue;
            String id = e.getValue().elementId;
            batch.run(tx -> tx.getRelationshipByElementId(id).delete());
        }
        batch.commit();
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Stored> e : existing.entities.entrySet()) {
            if (!merged.entities().containsKey(e.getKey()) && !e.getValue().provisional) gone.add(e.getValue().elementId);
        }
        // entities a session described from chunks that are all gone since (one it made from no chunk stays)
        call.db().executeTransactionally("MATCH (e:HgEntity {corpus: $c}) WHERE e.provisional AND coalesce(e.sourceChunks, 0) > 0"
                + " AND NOT coalesce(e.stale, false) AND NOT EXISTS { (:Chunk)-[:HG_MENTIONS]->(e) } RETURN elementId(e) AS id", Map.of("c", corpus),
                r -> { r.forEachRemaining(row -> gone.add((String) row.get("id"))); return null; });
        for (String id : gone) {
            n++;
            batch.run(tx -> {
                Node node = tx.getNodeByElementId(id);
                if (node.hasRelationship(Direction.INCOMING, HgmemGraph.MEMBER)) {
                    node.getRelationships(Direction.INCOMING, HgmemGraph.MENTIONS).forEach(Relationship::delete);
                    node.setProperty("stale", true);
                } else {
                    node.getRelationships().forEach(Relationship::delete);
                    node.delete();
                }
            });
        }
        batch.commit();
        return n;
    }

    /** What a previous build stored of an entity or relation: enough to skip unchanged summaries and embeddings. */
    record Stored(String elementId, String description, String descriptionSource, String embeddedHash, boolean provisional) {}

    record Existing(Map<String, Stored> entities, Map<String, Stored> relations) {
        static Existing load(GraphDatabaseService db, String corpus) {
            Map<String, Stored> entities = new HashMap<>(), relations = new HashMap<>();
            try (Transaction tx = db.beginTx()) {
                try (Result r = tx.execute("MATCH (e:HgEntity {corpus: $c}) RETURN e.name AS name, elementId(e) AS id, e.description AS d,"
                        + " e.descriptionSource AS s, e.embeddedHash AS h, coalesce(e.provisional, false) AS p", Map.of("c", corpus))) {
                    r.forEachRemaining(row -> entities.put((String) row.get("name"), new Stored((String) row.get("id"), (String) row.get("d"),
                            (String) row.get("s"), (String) row.get("h"), (Boolean) row.get("p"))));
                }
                try (Result r = tx.execute("MATCH (a:HgEntity {corpus: $c})-[x:HG_RELATED]->(b) RETURN a.name AS a, b.name AS b, elementId(x) AS id,"
                        + " x.description AS d, x.descriptionSource AS s, x.embeddedHash AS h, coalesce(x.provisional, false) AS p", Map.of("c", corpus))) {
                    r.forEachRemaining(row -> {
                        String a = (String) row.get("a"), b = (String) row.get("b");
                        String key = a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a;
                        relations.put(key, new Stored((String) row.get("id"), (String) row.get("d"), (String) row.get("s"), (String) row.get("h"),
                                (Boolean) row.get("p")));
                    });
                }
            }
            return new Existing(entities, relations);
        }
    }

    static String hash(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
