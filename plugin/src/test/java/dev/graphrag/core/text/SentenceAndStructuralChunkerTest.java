package dev.graphrag.core.text;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.TestModels;
import dev.graphrag.core.embed.TextTokenizer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class SentenceAndStructuralChunkerTest {
    static final TextTokenizer TOK = TestModels.bge().tokenizer();

    static void assertExactOffsets(String text, List<Chunker.Chunk> chunks) {
        for (Chunker.Chunk c : chunks) {
            assertEquals(text.substring(c.start(), c.end()), c.text(), "offsets of chunk " + c.index());
            assertEquals(TOK.tokenize(c.text()).size(), c.tokenIds().length, "token ids of chunk " + c.index());
        }
    }

    @Test
    void sentencesArePackedWholeAndTheNextChunksFirstSentenceIsRepeated() {
        String text = "Carter reached Mars. He met Tars Tarkas. The Tharks took him to their city. Dejah Thoris was a prisoner there. "
                + "Carter freed her. They fled to Helium.";
        // each sentence is 5-9 tokens; 24 tokens with [CLS]/[SEP] hold two or three sentences
        List<Chunker.Chunk> chunks = new SentenceChunker(TOK, 24, 1).chunk(text);
        assertExactOffsets(text, chunks);
        assertTrue(chunks.size() >= 2);
        for (int i = 0; i + 1 < chunks.size(); i++) {
            Chunker.Chunk c = chunks.get(i), next = chunks.get(i + 1);
            String firstOfNext = next.text().substring(0, next.text().indexOf('.') + 1);
            assertTrue(c.text().endsWith(firstOfNext), "chunk " + i + " ends with the next chunk's first sentence: " + c.text());
            assertTrue(c.text().endsWith("."), "whole sentences only: " + c.text());
        }
        for (Chunker.Chunk c : new SentenceChunker(TOK, 24, 0).chunk(text)) assertTrue(c.tokens() <= 22, c.text() + " has " + c.tokens());
        // without overlap, the chunks tile the text's sentences exactly once
        String joined = String.join(" ", new SentenceChunker(TOK, 24, 0).chunk(text).stream().map(Chunker.Chunk::text).toList());
        assertEquals(text, joined);
    }

    @Test
    void aSentenceLongerThanAChunkIsCutBetweenWords() {
        String text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen "
                + "nineteen twenty twentyone twentytwo twentythree. Short one.";
        List<Chunker.Chunk> chunks = new SentenceChunker(TOK, 16, 0).chunk(text);
        assertExactOffsets(text, chunks);
        for (Chunker.Chunk c : chunks) assertTrue(c.tokens() <= 14, c.text());
        assertTrue(chunks.size() >= 3);
        assertThrows(RagException.class, () -> new SentenceChunker(TOK, 8, 1));
    }

    static final String DOC = """
            # Barsoom

            Barsoom is the Martian name of Mars. Its seas have dried.

            ## The Tharks

            The Tharks are green Martians.
            - They ride thoats.
            - They live in dead cities.

            ```java
            class Thark { int arms = 4; }
            ```

            | name | colour |
            |---|---|
            | Thark | green |

            2.1 Helium
            Helium is a red Martian city.
            """;

    @Test
    void structureDecidesTheBoundariesAndTheKinds() {
        List<Chunker.Chunk> chunks = new StructuralChunker(TOK, 1200, 120).chunk(DOC);
        assertExactOffsets(DOC, chunks);
        List<String> kinds = chunks.stream().map(Chunker.Chunk::kind).toList();
        assertEquals(List.of("body", "body", "code", "table", "body"), kinds, chunks.stream().map(Chunker.Chunk::text).toList().toString());
        assertTrue(chunks.get(0).text().startsWith("# Barsoom") && chunks.get(0).text().endsWith("dried."));
        assertTrue(chunks.get(1).text().startsWith("## The Tharks") && chunks.get(1).text().endsWith("dead cities."));
        assertTrue(chunks.get(2).text().startsWith("```java") && chunks.get(2).text().endsWith("```"));
        assertTrue(chunks.get(4).text().startsWith("2.1 Helium"));
    }

    @Test
    void aLongSectionIsCutAtParagraphsThenSentencesWithOverlap() {
        StringBuilder b = new StringBuilder("# Long\n\n");
        for (int p = 0; p < 6; p++) {
            for (int s = 0; s < 5; s++) b.append("Paragraph ").append(p).append(" sentence ").append(s).append(" tells of Barsoom. ");
            b.append("\n\n");
        }
        String text = b.toString();
        List<Chunker.Chunk> chunks = new StructuralChunker(TOK, 400, 60).chunk(text);
        assertExactOffsets(text, chunks);
        assertTrue(chunks.size() >= 4);
        for (int i = 0; i < chunks.size(); i++) {
            Chunker.Chunk c = chunks.get(i);
            assertTrue(c.end() - c.start() <= 400, c.text());
            assertTrue(c.text().endsWith("."), "ends at a sentence or paragraph end: " + c.text());
            if (i > 0) {
                assertTrue(c.start() < chunks.get(i - 1).end(), "a continuation overlaps the previous chunk");
                assertTrue(chunks.get(i - 1).end() - c.start() <= 60, "by at most chunkOverlap characters");
                assertTrue(Character.isWhitespace(text.charAt(c.start() - 1)), "and starts on a word");
            }
        }
        assertThrows(RagException.class, () -> new StructuralChunker(TOK, 400, 300));
    }
}
