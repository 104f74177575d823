package dev.graphrag.raga;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** RAGA's hand-checkable cases that need no graph: T2 evidence spans, T4 expansion and RRF, T5 formulas, T6 quality gate, T8 metrics. */
@LineIndependent
class RagaFoundationsTest {
    static final String CURIE = "Marie Curie discovered polonium. She was born in Warsaw.";

    @Test
    void t2EvidenceIsAnchoredVerbatimOrAfterNormalisation() {
        assertEquals(56, CURIE.length());
        EvidenceAnchor.Result a = EvidenceAnchor.locate("Marie Curie discovered polonium", CURIE, 8, 600);
        assertEquals(List.of(0, 31), List.of(a.start(), a.end()));
        EvidenceAnchor.Result b = EvidenceAnchor.locate("discovered polonium", CURIE, 8, 600);
        assertEquals(List.of(12, 31), List.of(b.start(), b.end()));
        EvidenceAnchor.Result w = EvidenceAnchor.locate("born in Warsaw", CURIE, 8, 600);
        assertEquals(List.of(41, 55), List.of(w.start(), w.end()));
        EvidenceAnchor.Result she = EvidenceAnchor.locate("She was born in Warsaw", CURIE, 8, 600);
        assertEquals(List.of(33, 55), List.of(she.start(), she.end()));
        EvidenceAnchor.Result norm = EvidenceAnchor.locate("marie  curie\ndiscovered Polonium", CURIE, 8, 600);
        assertEquals(List.of(0, 31), List.of(norm.start(), norm.end()), "whitespace and case folded, offsets in the original text");
        assertEquals(EvidenceAnchor.Problem.EVIDENCE_NOT_FOUND, EvidenceAnchor.locate("Pierre Curie co-discovered radium", CURIE, 8, 600).problem());
        assertEquals(EvidenceAnchor.Problem.EVIDENCE_TOO_SHORT, EvidenceAnchor.locate("Curie", CURIE, 8, 600).problem());
        assertEquals(EvidenceAnchor.Problem.EVIDENCE_TOO_LONG, EvidenceAnchor.locate("x".repeat(601), CURIE, 8, 600).problem());
        EvidenceAnchor.Result curly = EvidenceAnchor.locate("Curie\u2019s work \u2013 polonium", "Marie Curie's work - polonium was new.", 8, 600);
        assertEquals(List.of(6, 29), List.of(curly.start(), curly.end()), "curly quotes and dashes fold to straight ones");
    }

    @Test
    void t4GraphExpansionAndRrfFollowTheHandWorkedCase() {
        Fusion.Chunk c1 = new Fusion.Chunk("c1", "d", 1), c2 = new Fusion.Chunk("c2", "d", 2), c3 = new Fusion.Chunk("c3", "d", 3), c4 = new Fusion.Chunk("c4", "d", 4);
        Map<String, List<String>> mentions = Map.of("c1", List.of("A"), "c2", List.of("B"), "c3", List.of("B", "C"), "c4", List.of());
        Map<String, List<String>> rel = new java.util.HashMap<>(Map.of("A", List.of("B"), "B", List.of("A", "C"), "C", List.of("B")));
        Map<String, List<Fusion.Chunk>> mentioning = Map.of("A", List.of(c1), "B", List.of(c2, c3), "C", List.of(c3));
        Fusion.Graph g = new Fusion.Graph(c -> mentions.getOrDefault(c, List.of()), e -> rel.getOrDefault(e, List.of()), e -> mentioning.getOrDefault(e, List.of()), e -> 1.0);
        Fusion.Settings s = new Fusion.Settings(20, 0, 2, 0.5, 0, 200, 60, 1, 1, 4);
        List<Map.Entry<Fusion.Chunk, Double>> vec = List.of(Map.entry(c1, 0.80), Map.entry(c4, 0.50), Map.entry(c2, 0.45)); // k1 = 3: c3 is outside
        var kg = Fusion.graphScores(vec, Map.of(), g, s);
        assertEquals(List.of(c1, c3, c2), new ArrayList<>(kg.keySet()));
        assertEquals(0.80, kg.get(c1), 1e-9);
        assertEquals(0.675, kg.get(c3), 1e-9, "σ(B) 0.45 + σ(C) 0.225");
        assertEquals(0.45, kg.get(c2), 1e-9);
        List<Fusion.Hit> fused = Fusion.fuse(vec, kg, s);
        assertEquals(List.of("c1", "c2", "c4", "c3"), fused.stream().map(h -> h.chunk().id()).toList(), "the c3/c4 tie goes to c4, which has a vector rank");
        assertEquals(2.0 / 61, fused.get(0).score(), 1e-6);
        assertEquals(2.0 / 63, fused.get(1).score(), 1e-6);
        assertEquals(1.0 / 62, fused.get(2).score(), 1e-6);
        assertEquals(1.0 / 62, fused.get(3).score(), 1e-6);
        Fusion.Settings noKg = new Fusion.Settings(20, 0, 2, 0.5, 0, 200, 60, 1, 0, 4);
        assertEquals(List.of("c1", "c4", "c2"), Fusion.fuse(vec, kg, noKg).stream().map(h -> h.chunk().id()).toList(), "wKg 0: zero scores dropped");
        // degraded: the vector stream alone
        List<Fusion.Hit> degraded = Fusion.fuse(vec, new java.util.LinkedHashMap<>(), s);
        assertEquals(List.of(1.0 / 61, 1.0 / 62, 1.0 / 63), degraded.stream().map(Fusion.Hit::score).toList());
        // B-EXTENDS->C soft-deleted: C unreached
        rel.put("B", List.of("A"));
        rel.put("C", List.of());
        var cut = Fusion.graphScores(vec, Map.of(), g, s);
        assertEquals(0.45, cut.get(c3), 1e-9);
        assertEquals(List.of(c1, c2, c3), new ArrayList<>(cut.keySet()), "ties by document order");
    }

    @Test
    void entityPagesOfTheBestChunkLeadTheGraphStream() {
        // c1 (doc "Song") names A and B; c5 is the page of B (its document is titled B), c6 a page of A outside the vector stream
        Fusion.Chunk c1 = new Fusion.Chunk("c1", "song", 0), c2 = new Fusion.Chunk("c2", "x", 0), c5 = new Fusion.Chunk("c5", "b", 0),
                c6 = new Fusion.Chunk("c6", "a", 0), c7 = new Fusion.Chunk("c7", "a", 1);
        Map<String, List<String>> mentions = Map.of("c1", List.of("A", "B"), "c2", List.of("B"), "c5", List.of("B"), "c6", List.of(), "c7", List.of());
        Map<String, List<Fusion.Chunk>> mentioning = Map.of("A", List.of(c1), "B", List.of(c1, c2, c5));
        Map<String, List<Fusion.Chunk>> pages = Map.of("A", List.of(c6, c7), "B", List.of(c5), "S", List.of(c1));
        Map<String, Double> sVec = Map.of("c1", 0.8, "c2", 0.6, "c5", 0.5, "c6", 0.4, "c7", 0.7);
        Fusion.Graph g = new Fusion.Graph(c -> mentions.getOrDefault(c, List.of()), e -> List.of(), e -> mentioning.getOrDefault(e, List.of()), e -> 1.0,
                e -> pages.getOrDefault(e, List.of()), c -> sVec.get(c.id()));
        List<Map.Entry<Fusion.Chunk, Double>> vec = List.of(Map.entry(c1, 0.8), Map.entry(c2, 0.6), Map.entry(c5, 0.5));
        var kg = Fusion.graphScores(vec, Map.of(), g, new Fusion.Settings(1, 1, 0, 0.5, 0, 200, 60, 1, 1, 4));
        assertEquals(List.of(c7, c5, c6, c1, c2), new ArrayList<>(kg.keySet()), "pages by s_vec(anchor)·s_vec(page) first, then s_kg");
        assertEquals(0.8 * 0.7, kg.get(c7), 1e-9);
        assertEquals(0.8 * 0.5, kg.get(c5), 1e-9, "a page keeps its page score");
        assertEquals(1.6, kg.get(c1), 1e-9, "σ(A) + σ(B), the anchor chunk's s_vec each");
        var off = Fusion.graphScores(vec, Map.of(), g, new Fusion.Settings(1, 0, 0, 0.5, 0, 200, 60, 1, 1, 4));
        assertEquals(List.of(c1, c5, c2), new ArrayList<>(off.keySet()), "pageAnchors 0: the stream without pages (c5 and c2 tie, document order)");
        var two = Fusion.graphScores(vec, Map.of(), g, new Fusion.Settings(1, 2, 0, 0.5, 0, 200, 60, 1, 1, 4));
        assertEquals(List.of(c7, c5, c6, c1, c2), new ArrayList<>(two.keySet()), "c2 names only B, whose page c5 scores higher from c1");
        var self = Fusion.graphScores(List.of(Map.entry(c5, 0.9)), Map.of(), g, new Fusion.Settings(1, 1, 0, 0.5, 0, 200, 60, 1, 1, 4));
        assertEquals(List.of(c5, c1, c2), new ArrayList<>(self.keySet()), "an anchor is not its own page: no page, and s_kg ties in document order");
    }

    @Test
    void graphStreamDefaultsDependOnHowTheStreamIsAnchored() {
        RagaRetriever.Settings fusion = RagaQueryConfig.parse("raga.retrieve", Map.of(), false).retrieval();
        assertEquals(List.of(1, 0.5, 3, 1), List.of(fusion.hops(), fusion.semanticFilter(), fusion.anchorChunks(), fusion.pageAnchors()), "fusion: the MuSiQue-tuned values");
        RagaRetriever.Settings kg = RagaQueryConfig.parse("raga.retrieve", Map.of("mode", "kg"), false).retrieval();
        assertEquals(List.of(2, 0.25), List.of(kg.hops(), kg.semanticFilter()), "kg anchors on entity hits: the first proposal's values");
        RagaRetriever.Settings set = RagaQueryConfig.parse("raga.retrieve", Map.of("mode", "kg", "hops", 1L, "semanticFilter", 0.5), false).retrieval();
        assertEquals(List.of(1, 0.5), List.of(set.hops(), set.semanticFilter()), "given keys win over a mode's defaults");
        RagaRetriever.Settings spec = RagaQueryConfig.parse("raga.retrieve", Map.of("hops", 2L, "anchorChunks", 20L, "semanticFilter", 0.25), false).retrieval();
        assertEquals(List.of(2, 0.25, 20), List.of(spec.hops(), spec.semanticFilter(), spec.anchorChunks()));
        assertEquals(RagaRetriever.Mode.GRAPH_FIRST, RagaRetriever.Settings.defaults(RagaRetriever.Mode.GRAPH_FIRST).mode());
        assertEquals(2, RagaRetriever.Settings.defaults(RagaRetriever.Mode.GRAPH_FIRST).hops());
        assertEquals(1, RagaRetriever.Settings.defaults(RagaRetriever.Mode.VECTOR_FIRST).hops());
    }

    @Test
    void t5Formulas() {
        assertEquals(0.527864, Fusion.vectorScore(0.6), 1e-6, "q=[1,0], x=[0.6,0.8]: d=0.894427");
        float[] m = Fusion.clusterVector(List.of(new float[] {1, 0}, new float[] {0, 1}), List.of(0.9, 0.6));
        assertArrayEquals(new float[] {0.832050f, 0.554700f}, m, 1e-6f);
    }

    @Test
    void t6QualityGate() {
        for (String ok : List.of("Convolutional Neural Network", "GPT-4", "F1")) assertNull(QualityGate.check(ok), ok);
        assertEquals(QualityGate.Rule.GENERIC_HEADING, QualityGate.check("Introduction"));
        assertEquals(QualityGate.Rule.GENERIC_HEADING, QualityGate.check("3.2 Related Work"));
        assertEquals(QualityGate.Rule.CODE, QualityGate.check("def tokenize(text)"));
        assertEquals(QualityGate.Rule.MATH, QualityGate.check("\\alpha + \\beta"));
        assertEquals(QualityGate.Rule.SENTENCE_FRAGMENT, QualityGate.check("we propose a novel method that improves accuracy"));
        assertEquals(QualityGate.Rule.GARBLED, QualityGate.check("\u00c3\u00a9tude"));
        assertEquals(QualityGate.Rule.LENGTH, QualityGate.check("a".repeat(61)));
        assertEquals(QualityGate.Rule.PUNCT_FLOOD, QualityGate.check("### NOTE ###"));
        assertEquals(QualityGate.Rule.MATH, QualityGate.check("*** NOTE ***"), "R5 runs before R6; the * share is 0.6");
        assertEquals(QualityGate.Rule.PRINTABLE, QualityGate.check("a\u0000\u0001\u0002b"));
    }

    @Test
    void t8MetricsAndNameKeys() {
        assertEquals(0.8, AnswerMetrics.answerF1("BERT and ELMo", List.of("ELMo", "BERT, ELMo")), 1e-9);
        assertEquals(0.4, AnswerMetrics.evidenceF1(List.of("p1", "p2", "p3"), List.of(List.of("p2", "p4"))), 1e-9);
        assertEquals(1.0, AnswerMetrics.evidenceF1(List.of(), List.of(List.of())), 1e-9);
        assertEquals("obama", NameKey.of("OBAMA "));
        assertEquals("marie curie", NameKey.of("  \u201cMarie   Curie\u201d. "));
        assertEquals("gpt-4", NameKey.of("GPT\u20134"));
    }
}
