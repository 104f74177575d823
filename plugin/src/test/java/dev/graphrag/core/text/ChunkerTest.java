package dev.graphrag.core.text;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.TestModels;
import dev.graphrag.core.embed.TextTokenizer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class ChunkerTest {
    static final TextTokenizer TOK = TestModels.bge().tokenizer();
    static final String TEXT = String.join(" ", java.util.Collections.nCopies(30,
            "John Carter fought the plant men beside Tars Tarkas. Xodar, a dator of the First Born, was defeated."));

    @Test
    void chunksRespectSizeOffsetsAndWordBoundaries() {
        List<Chunker.Chunk> chunks = new TokenChunker(TOK, 64, 16, false).chunk(TEXT);
        assertTrue(chunks.size() > 5);
        for (Chunker.Chunk c : chunks) {
            assertEquals(TEXT.substring(c.start(), c.end()), c.text());
            assertTrue(c.tokens() <= 64);
            assertEquals(c.tokens(), TOK.tokenize(c.text()).size(), "re-tokenising a chunk gives its token count");
            assertTrue(c.start() == 0 || !Character.isLetterOrDigit(TEXT.charAt(c.start() - 1)) || !Character.isLetterOrDigit(TEXT.charAt(c.start())),
                    "chunk starts inside a word: " + c.text());
            assertTrue(c.end() == TEXT.length() || !Character.isLetterOrDigit(TEXT.charAt(c.end())) || !Character.isLetterOrDigit(TEXT.charAt(c.end() - 1)));
        }
        // consecutive chunks overlap and together cover the text
        assertEquals(0, chunks.get(0).start());
        assertEquals(TEXT.length(), chunks.get(chunks.size() - 1).end());
        for (int i = 1; i < chunks.size(); i++) {
            assertTrue(chunks.get(i).start() < chunks.get(i - 1).end(), "no overlap between " + (i - 1) + " and " + i);
            assertTrue(chunks.get(i).start() > chunks.get(i - 1).start());
        }
    }

    @Test
    void zeroOverlapTilesTheText() {
        List<Chunker.Chunk> chunks = new TokenChunker(TOK, 50, 0, false).chunk(TEXT);
        for (int i = 1; i < chunks.size(); i++) assertTrue(chunks.get(i).start() >= chunks.get(i - 1).end());
        int tokens = chunks.stream().mapToInt(Chunker.Chunk::tokens).sum();
        assertEquals(TOK.tokenize(TEXT).size(), tokens);
    }

    @Test
    void sentenceModeKeepsSentencesWhole() {
        List<Chunker.Chunk> chunks = new TokenChunker(TOK, 64, 20, true).chunk(TEXT);
        assertTrue(chunks.size() > 3);
        for (Chunker.Chunk c : chunks) {
            assertTrue(c.tokens() <= 64);
            assertTrue(c.text().endsWith("."), "chunk does not end a sentence: " + c.text());
            assertTrue(Character.isUpperCase(c.text().charAt(0)), "chunk does not start a sentence: " + c.text());
        }
    }

    @Test
    void sentenceLongerThanAChunkIsSplitByTokens() {
        String longSentence = "word ".repeat(300).trim() + ".";
        List<Chunker.Chunk> chunks = new TokenChunker(TOK, 64, 8, true).chunk(longSentence);
        assertTrue(chunks.size() >= 5);
        chunks.forEach(c -> assertTrue(c.tokens() <= 64));
    }

    @Test
    void shortTextIsOneChunkAndBlankIsNone() {
        List<Chunker.Chunk> one = new TokenChunker(TOK, 64, 8, false).chunk("  Xodar was given to Carter.  ");
        assertEquals(1, one.size());
        assertEquals("Xodar was given to Carter.", one.get(0).text());
        assertEquals(2, one.get(0).start());
        assertTrue(new TokenChunker(TOK, 64, 8, false).chunk(" \n ").isEmpty());
    }

    @Test
    void invalidSettingsAreNamed() {
        var e = assertThrows(RagException.class, () -> new TokenChunker(TOK, 64, 64, false));
        assertTrue(e.getMessage().contains("chunkOverlap"));
        assertFalse(assertThrows(RagException.class, () -> new TokenChunker(TOK, 4, 0, false)).getMessage().isEmpty());
    }
}
