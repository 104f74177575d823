package dev.graphrag.raga;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fusion reads only the top of the graph stream and the ranks of the vector chunks in it. On random graphs with many
 * ties (few distinct scores, a hub entity that many chunks mention) it must give what ranking every chunk reached gives:
 * the stream's order, each vector chunk's rank and the fused top k, checked against that full ranking written out here.
 */
class FusionRankingTest {

    @Test
    void theStreamsTopAndRanksAreThoseOfTheWholeStreamSorted() {
        Random random = new Random(7);
        int checkedDeepRanks = 0, fusedWithCut = 0;
        for (int round = 0; round < 300; round++) {
            Case c = Case.random(random);
            Fusion.Ranking ranking = Fusion.graphRanking(c.vector, c.entityAnchors, c.graph, c.settings);
            List<Fusion.Chunk> whole = wholeOrder(c);
            assertEquals(whole.size(), ranking.size(), "round " + round);
            assertEquals(whole, new ArrayList<>(Fusion.graphScores(c.vector, c.entityAnchors, c.graph, c.settings).keySet()), "round " + round);
            for (int n : new int[] {0, 1, 3, 10, whole.size() + 2}) {
                assertEquals(whole.subList(0, Math.min(n, whole.size())), ranking.first(n).stream().map(Map.Entry::getKey).toList(), "round " + round + " first " + n);
            }
            List<Fusion.Chunk> vectorChunks = c.vector.stream().map(Map.Entry::getKey).toList();
            Map<Fusion.Chunk, Integer> ranks = ranking.ranks(vectorChunks);
            for (Fusion.Chunk v : vectorChunks) {
                int expected = whole.indexOf(v) + 1;
                assertEquals(expected, ranks.getOrDefault(v, 0), "round " + round + " rank of " + v);
                if (expected > c.settings.topK()) checkedDeepRanks++;
            }
            LinkedHashMap<Fusion.Chunk, Double> full = new LinkedHashMap<>();
            for (Fusion.Chunk k : whole) full.put(k, ranking.score(k));
            List<Fusion.Hit> expected = fuseOverAll(c.vector, full, c.settings);
            assertEquals(expected, Fusion.fuse(c.vector, ranking, c.settings), "round " + round);
            if (whole.size() > c.settings.topK()) fusedWithCut++;
        }
        assertTrue(checkedDeepRanks > 50, "vector chunks ranked past the part of the stream fusion reads: " + checkedDeepRanks);
        assertTrue(fusedWithCut > 100, "streams longer than what fusion reads: " + fusedWithCut);
    }

    @Test
    void aDocumentFilterClosesUpTheRanks() {
        Random random = new Random(11);
        for (int round = 0; round < 100; round++) {
            Case c = Case.random(random);
            Fusion.Ranking ranking = Fusion.graphRanking(c.vector, c.entityAnchors, c.graph, c.settings);
            Set<String> docs = Set.of("d0", "d2");
            Fusion.Ranking kept = ranking.filter(k -> docs.contains(k.docId()));
            List<Fusion.Chunk> whole = wholeOrder(c).stream().filter(k -> docs.contains(k.docId())).toList();
            assertEquals(whole, kept.first(whole.size() + 1).stream().map(Map.Entry::getKey).toList(), "round " + round);
            Map<Fusion.Chunk, Integer> ranks = kept.ranks(c.vector.stream().map(Map.Entry::getKey).toList());
            for (Map.Entry<Fusion.Chunk, Double> v : c.vector) assertEquals(whole.indexOf(v.getKey()) + 1, ranks.getOrDefault(v.getKey(), 0), "round " + round);
        }
    }

    /** Every chunk the stream reaches, sorted: pages by page score, then the others by s_kg, ties in document order. */
    private static List<Fusion.Chunk> wholeOrder(Case c) {
        Fusion.Ranking ranking = Fusion.graphRanking(c.vector, c.entityAnchors, c.graph, c.settings);
        Map<Fusion.Chunk, Double> all = new HashMap<>();
        for (Fusion.Chunk k : c.chunks) if (ranking.score(k) > 0) all.put(k, ranking.score(k));
        Map<Fusion.Chunk, Double> pages = Fusion.pages(c.vector, c.graph, c.settings.pageAnchors());
        Comparator<Fusion.Chunk> byScore = Comparator.comparingDouble((Fusion.Chunk k) -> -all.get(k)).thenComparing(Fusion.Chunk::docId)
                .thenComparingLong(Fusion.Chunk::index);
        List<Fusion.Chunk> head = new ArrayList<>(pages.keySet().stream().filter(k -> pages.get(k) > 0).toList());
        head.sort(byScore);
        List<Fusion.Chunk> rest = new ArrayList<>(all.keySet());
        rest.removeAll(head);
        rest.sort(byScore);
        head.addAll(rest);
        return head;
    }

    /** RRF over every chunk of both streams, then the first topK: fusion as the spec writes it. */
    private static List<Fusion.Hit> fuseOverAll(List<Map.Entry<Fusion.Chunk, Double>> vector, LinkedHashMap<Fusion.Chunk, Double> kg, Fusion.Settings s) {
        Map<Fusion.Chunk, int[]> ranks = new LinkedHashMap<>();
        Map<Fusion.Chunk, double[]> scores = new HashMap<>();
        for (int i = 0; i < vector.size(); i++) {
            ranks.computeIfAbsent(vector.get(i).getKey(), k -> new int[2])[0] = i + 1;
            scores.computeIfAbsent(vector.get(i).getKey(), k -> new double[2])[0] = vector.get(i).getValue();
        }
        int r = 0;
        for (Map.Entry<Fusion.Chunk, Double> e : kg.entrySet()) {
            ranks.computeIfAbsent(e.getKey(), k -> new int[2])[1] = ++r;
            scores.computeIfAbsent(e.getKey(), k -> new double[2])[1] = e.getValue();
        }
        List<Fusion.Hit> hits = new ArrayList<>();
        ranks.forEach((c, rk) -> {
            double sc = (rk[0] > 0 ? s.wVec() / (s.rrfK() + rk[0]) : 0) + (rk[1] > 0 ? s.wKg() / (s.rrfK() + rk[1]) : 0);
            if (sc > 0) hits.add(new Fusion.Hit(c, sc, rk[0], rk[1], scores.get(c)[0], scores.get(c)[1]));
        });
        hits.sort(Comparator.comparingDouble((Fusion.Hit h) -> -h.score())
                .thenComparingInt(h -> Math.min(h.vecRank() == 0 ? Integer.MAX_VALUE : h.vecRank(), h.kgRank() == 0 ? Integer.MAX_VALUE : h.kgRank()))
                .thenComparingInt(h -> h.vecRank() == 0 ? Integer.MAX_VALUE : h.vecRank()).thenComparing(h -> h.chunk().docId())
                .thenComparingLong(h -> h.chunk().index()));
        return hits.subList(0, Math.min(s.topK(), hits.size()));
    }

    /** A random corpus: chunks over four documents, entities with few distinct similarities, one hub most chunks mention. */
    private record Case(List<Fusion.Chunk> chunks, List<Map.Entry<Fusion.Chunk, Double>> vector, Map<String, Double> entityAnchors, Fusion.Graph graph, Fusion.Settings settings) {
        static Case random(Random random) {
            int nChunks = 20 + random.nextInt(200), nEntities = 5 + random.nextInt(40);
            List<Fusion.Chunk> chunks = new ArrayList<>();
            for (int i = 0; i < nChunks; i++) chunks.add(new Fusion.Chunk("c" + i, "d" + random.nextInt(4), i));
            Map<String, List<String>> mentions = new HashMap<>();
            Map<String, List<Fusion.Chunk>> mentioning = new HashMap<>();
            Map<String, List<String>> related = new HashMap<>();
            Map<String, List<Fusion.Chunk>> pages = new HashMap<>();
            for (Fusion.Chunk c : chunks) {
                List<String> es = new ArrayList<>();
                if (random.nextInt(3) > 0) es.add("e0"); // the hub
                for (int k = random.nextInt(3); k > 0; k--) {
                    String e = "e" + random.nextInt(nEntities);
                    if (!es.contains(e)) es.add(e);
                }
                mentions.put(c.id(), es);
                for (String e : es) mentioning.computeIfAbsent(e, x -> new ArrayList<>()).add(c);
            }
            for (int i = 0; i < nEntities * 2; i++) {
                String a = "e" + random.nextInt(nEntities), b = "e" + random.nextInt(nEntities);
                if (a.equals(b)) continue;
                related.computeIfAbsent(a, x -> new ArrayList<>()).add(b);
                related.computeIfAbsent(b, x -> new ArrayList<>()).add(a);
            }
            for (int i = 0; i < 3; i++) pages.put("e" + random.nextInt(nEntities), List.of(chunks.get(random.nextInt(nChunks))));
            Map<String, Double> similarity = new HashMap<>();
            double[] levels = {0.2, 0.5, 0.5, 0.8};
            Map<String, Double> chunkScores = new HashMap<>();
            for (Fusion.Chunk c : chunks) chunkScores.put(c.id(), levels[random.nextInt(levels.length)]);
            List<Fusion.Chunk> shuffled = new ArrayList<>(chunks);
            java.util.Collections.shuffle(shuffled, random);
            List<Map.Entry<Fusion.Chunk, Double>> vector = new ArrayList<>();
            for (Fusion.Chunk c : shuffled.subList(0, Math.min(nChunks, 5 + random.nextInt(30)))) vector.add(Map.entry(c, chunkScores.get(c.id())));
            vector.sort(Comparator.comparingDouble((Map.Entry<Fusion.Chunk, Double> e) -> -e.getValue()));
            Map<String, Double> entityAnchors = new HashMap<>();
            if (random.nextBoolean()) entityAnchors.put("e" + random.nextInt(nEntities), 0.5);
            Fusion.Graph g = new Fusion.Graph(c -> mentions.getOrDefault(c, List.of()), e -> related.getOrDefault(e, List.of()),
                    e -> mentioning.getOrDefault(e, List.of()), e -> similarity.computeIfAbsent(e, x -> levels[random.nextInt(levels.length)]),
                    e -> pages.getOrDefault(e, List.of()), c -> chunkScores.get(c.id()));
            Fusion.Settings s = new Fusion.Settings(1 + random.nextInt(3), random.nextInt(2), random.nextInt(3), 0.5, random.nextBoolean() ? 0.5 : 0, 200, 60,
                    1, random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(2), 1 + random.nextInt(8));
            return new Case(chunks, vector, entityAnchors, g, s);
        }
    }
}
