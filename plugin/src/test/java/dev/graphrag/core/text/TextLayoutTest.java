package dev.graphrag.core.text;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

@LineIndependent
class TextLayoutTest {
    static final String TEXT = "Preface text.\n\n# 1 Setup\n\nIntro.\n\n## 1.1 Plinth\n\nBolts.\n\n```\n# not a heading\n```\n\n## 1.2 Power\n\nMains.\n\n# 2 Use\n\nStart.";

    @Test
    void sectionsAreTheHeadingPathInForceAtAChunksStart() {
        TextLayout l = TextLayout.of(TEXT);
        assertEquals(List.of("1 Setup", "1.1 Plinth", "1.2 Power", "2 Use"), l.headings().stream().map(TextLayout.Heading::text).toList());
        assertNull(l.section(0), "text before the first heading has no section");
        assertEquals("1 Setup", l.section(TEXT.indexOf("# 1 Setup")), "a heading that opens the chunk counts");
        assertEquals("1 Setup > 1.1 Plinth", l.section(TEXT.indexOf("Bolts")));
        assertEquals("1 Setup > 1.1 Plinth", l.section(TEXT.indexOf("# not")), "a # line in a code block is no heading");
        assertEquals("1 Setup > 1.2 Power", l.section(TEXT.indexOf("Mains")), "a sibling replaces its sibling");
        assertEquals("2 Use", l.section(TEXT.indexOf("Start")), "a higher level closes the deeper ones");
        assertEquals(0, l.pageCount());
        assertNull(l.pages(0, 5));
    }

    @Test
    void pagesAreThoseAChunksSpanTouches() {
        // pages start at 0, 10 and 20; page 3 is empty and starts where page 4 does
        TextLayout l = new TextLayout(new int[] {0, 10, 20, 20}, List.of());
        assertArrayEquals(new long[] {1}, l.pages(0, 10));
        assertArrayEquals(new long[] {1, 2}, l.pages(5, 11));
        assertArrayEquals(new long[] {2}, l.pages(10, 20));
        assertArrayEquals(new long[] {4}, l.pages(20, 25), "an empty page holds no text");
        assertEquals(4, l.pageCount());
    }
}
