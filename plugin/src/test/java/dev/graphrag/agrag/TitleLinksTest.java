package dev.graphrag.agrag;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class TitleLinksTest {
    static List<String> linked(TitleLinks t, String own, String text) {
        return t.links(own, text).stream().map(TitleLinks.Link::documentId).toList();
    }

    @Test
    void matchesWholeWordsCaseInsensitiveWithoutTheDisambiguator() {
        TitleLinks t = new TitleLinks(Map.of("pj", "Pearl Jam", "brother", "Brother (Pearl Jam song)", "snow", "Hank Snow"));
        assertEquals(List.of("brother", "pj"), linked(t, "x", "\"Brother\" is a song by PEARL JAM."));
        assertEquals(List.of(), linked(t, "x", "Pearl Jammed the door; Hank Snowden sang."), "parts of words do not match");
        assertEquals(List.of("snow"), linked(t, "x", "Hello Love was performed by Hank  Snow,\nin 1974"), "punctuation and spacing do not matter");
        assertEquals(new TitleLinks.Link("brother", "brother"), t.links("x", "my brother").get(0), "the anchor is the matched words");
    }

    @Test
    void leftmostLongestOnceEachAndNeverTheOwnDocument() {
        TitleLinks t = new TitleLinks(Map.of("ny", "New York", "nyc", "New York City", "city", "City"));
        // "New York City" takes the words: neither "New York" nor "City" is linked from them
        assertEquals(List.of("nyc"), linked(t, "x", "She moved to New York City."));
        assertEquals(List.of("ny", "nyc"), linked(t, "x", "New York state, then New York City, then New York again."));
        assertEquals(List.of("ny"), linked(t, "nyc", "New York City is in New York."), "a document does not link to itself");
    }

    @Test
    void documentsSharingATitleAreAllLinked() {
        TitleLinks t = new TitleLinks(Map.of("a", "Mercury (planet)", "b", "Mercury (element)", "c", "Venus"));
        assertEquals(List.of("a", "b"), linked(t, "c", "Mercury is closest to the Sun."));
        assertEquals(List.of("b"), linked(t, "a", "Mercury is closest to the Sun."));
    }

    @Test
    void titlesThatCannotBeMatchedSafelyAreSkipped() {
        Map<String, String> titles = new HashMap<>();
        titles.put("stop", "The");
        titles.put("stops", "Of The");
        titles.put("year", "1990");
        titles.put("blank", "  ");
        titles.put("none", null);
        titles.put("long", "word ".repeat(TitleLinks.MAX_TITLE_WORDS + 1));
        titles.put("paren", "(Untitled)");
        titles.put("ok", "1990 FIFA World Cup");
        TitleLinks t = new TitleLinks(titles);
        assertEquals(List.of(List.of("untitled"), List.of("1990", "fifa", "world", "cup")), t.titles().stream().sorted((x, y) -> x.size() - y.size()).toList(),
                "a title that is only its parenthesis keeps it; stop words, digits, blank and overlong titles are skipped");
        assertEquals(List.of("ok"), linked(t, "x", "Of the 1990 FIFA World Cup, the final."));
        assertTrue(t.links("x", null).isEmpty());
        assertTrue(new TitleLinks(Map.of()).links("x", "anything").isEmpty());
    }

    @Test
    void wordsSplitOnAnythingButLettersAndDigits() {
        assertEquals(List.of("rené", "magritte", "s", "1929", "œuvre"), TitleLinks.words("René Magritte's 1929 œuvre!"));
        assertEquals(List.of("brother"), TitleLinks.titleWords("Brother (Pearl Jam song)"));
    }
}
