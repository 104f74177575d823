package dev.graphrag.agrag;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The AGRAG layer a corpus should have, as a pure function of its chunks, their triples and the document titles
 * (paper Eq. 4-5 and Alg. 1, without the embeddings): facts with the chunks that state them and how often, each chunk's
 * entities, each chunk's title links, and the entity set. The indexer then brings the graph to it; because the
 * layer is a function of the current chunks, an incremental index equals a rebuild. No Neo4j here.
 */
final class LayerDerivation {
    /** The desired layer. contains: chunk id -> the entities its triples name; occurrences: fact key -> triples stating it. */
    record Layer(Map<String, AgragIndexer.Fact> facts, Map<String, Set<String>> contains, Map<String, Integer> occurrences,
                 Map<String, List<TitleLinks.Link>> links, Set<String> entities) {}

    private LayerDerivation() {}

    static Layer derive(List<AgragIndexer.ChunkRow> chunks, Map<String, List<List<String>>> triples, Map<String, String> titles) {
        Map<String, AgragIndexer.Fact> facts = new LinkedHashMap<>();
        Map<String, Set<String>> contains = new LinkedHashMap<>();
        Map<String, Integer> occurrences = new HashMap<>();
        for (AgragIndexer.ChunkRow c : chunks) {
            Set<String> linked = new TreeSet<>();
            for (List<String> t : triples.getOrDefault(c.id(), List.of())) {
                String s = EntityStatistics.norm(t.get(0)), p = EntityStatistics.norm(t.get(1)), o = EntityStatistics.norm(t.get(2));
                if (s.isEmpty() || o.isEmpty() || s.equals(o)) continue;
                String evidence = t.size() > 3 ? t.get(3) : null;
                String key = s + "|" + p + "|" + o;
                AgragIndexer.Fact f = facts.computeIfAbsent(key, k -> new AgragIndexer.Fact(s, p, o, AgragIndexer.md5(k), new TreeSet<>(), evidence));
                f.chunkIds().add(c.id());
                occurrences.merge(key, 1, Integer::sum);
                linked.add(s);
                linked.add(o);
            }
            contains.put(c.id(), linked);
        }
        // title links over all current chunks and titles: a new title can be named by an old chunk
        TitleLinks linker = new TitleLinks(titles);
        Map<String, List<TitleLinks.Link>> links = new LinkedHashMap<>();
        for (AgragIndexer.ChunkRow c : chunks) links.put(c.id(), linker.links(c.documentId(), c.text()));
        Set<String> entities = new TreeSet<>();
        for (AgragIndexer.Fact f : facts.values()) {
            entities.add(f.s());
            entities.add(f.o());
        }
        return new Layer(facts, contains, occurrences, links, entities);
    }
}
