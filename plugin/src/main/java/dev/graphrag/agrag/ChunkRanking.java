package dev.graphrag.agrag;

import dev.graphrag.core.embed.QueryCosines;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * How agrag.retrieve and agrag.answer fill their k places: the denseFirst densest, the passages of documents the question
 * or the densest chunk names, then a mode's own ranking; every step keeps to the where filter's chunks.
 */
final class ChunkRanking {
    private ChunkRanking() {}

    /** The n best chunk rows by score among the admitted ones (all when admitted is null), best first. */
    static List<Integer> topAdmitted(int chunks, java.util.function.IntToDoubleFunction score, int n, boolean[] admitted,
                                             java.util.function.IntFunction<List<Integer>> unfiltered) {
        if (admitted == null) return unfiltered.apply(n);
        double[] all = new double[chunks];
        int count = 0;
        for (int c = 0; c < chunks; c++) {
            all[c] = admitted[c] ? score.applyAsDouble(c) : Double.NEGATIVE_INFINITY;
            if (admitted[c]) count++;
        }
        return topK(all, Math.min(n, count));
    }

    /**
     * The chunks that lead agrag.retrieve's mcmi and ppr rankings and agrag.answer's retrieved chunks: the denseFirst densest
     * (the graph then only has to find what the question does not name), then the named and the linked passages.
     */
    static void leadingChunks(AgragSnapshot g, String query, QueryCosines dense, AgragQueryConfig cfg, Set<Integer> taken, double[] score,
                                      String[] source, boolean[] admitted) {
        for (int c : topAdmitted(g.chunkCount(), dense::cosine, Math.min(cfg.ranking().denseFirst(), cfg.ranking().k()), admitted, dense::top)) {
            taken.add(c);
            score[c] = dense.cosine(c);
            source[c] = "dense";
        }
        titledPassages(g, admittedOnly(namedDocumentChunks(g, query), admitted), cfg.ranking().namedPassages(), dense, cfg.ranking().k(), taken,
                score, source, "named");
        List<Integer> densest = topAdmitted(g.chunkCount(), dense::cosine, 1, admitted, dense::top);
        if (cfg.ranking().linkedPassages() > 0 && !densest.isEmpty()) {
            titledPassages(g, admittedOnly(g.linkedChunks[densest.get(0)], admitted), cfg.ranking().linkedPassages(), dense, cfg.ranking().k(), taken,
                    score, source, "link");
        }
    }

    static int[] admittedOnly(int[] chunks, boolean[] admitted) {
        return admitted == null ? chunks : java.util.Arrays.stream(chunks).filter(c -> admitted[c]).toArray();
    }

    /** Chunks of the documents whose title the question names (whole words, as title links match). */
    static int[] namedDocumentChunks(AgragSnapshot g, String query) {
        return g.titles.links(null, query).stream().flatMap(l -> java.util.Arrays.stream(g.chunksOfDocument.getOrDefault(l.documentId(), new int[0])).boxed())
                .mapToInt(Integer::intValue).toArray();
    }

    /**
     * Up to {@code max} of the candidate chunks, best cosine first, one per document, labelled {@code label}. The candidates are
     * chunks of documents known by title: those the question names (named), or those the densest chunk names (link), as the
     * bridge passage of a two-hop question is typically the article about a name in the first.
     */
    static void titledPassages(AgragSnapshot g, int[] candidateChunks, int max, QueryCosines dense, int k, Set<Integer> taken,
                                       double[] score, String[] source, String label) {
        if (max == 0) return;
        List<Integer> candidates = new ArrayList<>();
        for (int c : candidateChunks) candidates.add(c);
        candidates.sort(Comparator.<Integer>comparingDouble(c -> -dense.cosine(c)).thenComparing(Comparator.naturalOrder()));
        Set<String> documents = new java.util.HashSet<>();
        int added = 0;
        for (int c : candidates) {
            if (added >= max || taken.size() >= k) break;
            if (!documents.add(g.chunkDocs.get(c)) || !taken.add(c)) continue;
            score[c] = dense.cosine(c);
            source[c] = label;
            added++;
        }
    }

    /** Indexes of the k largest scores, best first, ties to the smaller index. */
    static List<Integer> topK(double[] score, int k) {
        return QueryCosines.topK(score, k);
    }

    /** The k best chunks by {@code score} that are not taken yet, best first. */
    static List<Integer> bestUntaken(double[] score, Set<Integer> taken, int k) {
        double[] rest = score.clone();
        for (int c : taken) rest[c] = Double.NEGATIVE_INFINITY;
        return topK(rest, k);
    }
}
