package dev.graphrag.agrag;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The desired AGRAG layer from chunks and triples, without a database. */
@LineIndependent
class LayerDerivationTest {
    static final List<AgragIndexer.ChunkRow> CHUNKS = List.of(
            new AgragIndexer.ChunkRow("c:carter:0", "carter", "John Carter married Dejah Thoris of Helium."),
            new AgragIndexer.ChunkRow("c:dejah:0", "dejah", "Dejah Thoris, princess of Helium, married John Carter."),
            new AgragIndexer.ChunkRow("c:xodar:0", "xodar", "Xodar served Issus. Xodar met Xodar."));

    static final Map<String, List<List<String>>> TRIPLES = Map.of(
            "c:carter:0", List.of(List.of("John Carter", "married", "Dejah Thoris"), List.of("Dejah Thoris", "of", "Helium")),
            "c:dejah:0", List.of(List.of("john  carter", "Married", "dejah thoris", "Dejah Thoris, princess of Helium, married John Carter.")),
            "c:xodar:0", List.of(List.of("Xodar", "served", "Issus"), List.of("Xodar", "met", "Xodar"), List.of("", "is", "Issus")));

    static final Map<String, String> TITLES = Map.of("carter", "John Carter", "dejah", "Dejah Thoris", "xodar", "Xodar");

    @Test
    void factsMergeAcrossChunksAndCountTheirOccurrences() {
        LayerDerivation.Layer l = LayerDerivation.derive(CHUNKS, TRIPLES, TITLES);
        AgragIndexer.Fact married = l.facts().get("john carter|married|dejah thoris");
        assertEquals(Set.of("c:carter:0", "c:dejah:0"), married.chunkIds(), "one fact, stated by both chunks (names normalised)");
        assertEquals(2, l.occurrences().get("john carter|married|dejah thoris"));
        assertEquals(AgragIndexer.md5("john carter|married|dejah thoris"), married.id());
        assertEquals(3, l.facts().size(), "the self-loop and the triple without a subject are dropped");
        assertEquals(Set.of("dejah thoris", "helium", "issus", "john carter", "xodar"), l.entities());
        assertEquals(Set.of("john carter", "dejah thoris", "helium"), l.contains().get("c:carter:0"));
        assertEquals(Set.of("issus", "xodar"), l.contains().get("c:xodar:0"));
    }

    @Test
    void titleLinksPointAtOtherDocumentsNamedInAChunk() {
        LayerDerivation.Layer l = LayerDerivation.derive(CHUNKS, TRIPLES, TITLES);
        List<String> fromCarter = l.links().get("c:carter:0").stream().map(TitleLinks.Link::documentId).toList();
        assertEquals(List.of("dejah"), fromCarter, "its own title does not link");
        assertTrue(l.links().get("c:xodar:0").isEmpty());
        assertFalse(LayerDerivation.derive(CHUNKS, TRIPLES, Map.of()).links().values().stream().anyMatch(x -> !x.isEmpty()));
    }

    @Test
    void theLayerDoesNotDependOnTheOrderChunksArrive() {
        LayerDerivation.Layer a = LayerDerivation.derive(CHUNKS, TRIPLES, TITLES);
        List<AgragIndexer.ChunkRow> shuffled = new ArrayList<>(CHUNKS);
        Collections.reverse(shuffled);
        LayerDerivation.Layer b = LayerDerivation.derive(shuffled, TRIPLES, TITLES);
        assertEquals(a.facts().keySet().stream().sorted().toList(), b.facts().keySet().stream().sorted().toList());
        for (String k : a.facts().keySet()) assertEquals(a.facts().get(k).chunkIds(), b.facts().get(k).chunkIds());
        assertEquals(a.occurrences(), b.occurrences());
        assertEquals(a.entities(), b.entities());
        assertEquals(Map.copyOf(a.contains()), Map.copyOf(b.contains()));
    }
}
