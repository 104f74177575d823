package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.RagException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tokenizer files of each kind: hand-worked BPE and Unigram fixtures (ids worked out from their merges and scores),
 * and the bundled WordPiece file read by both engines, whose ids must agree on every probe.
 */
@LineIndependent
class TokenizerEngineTest {
    static byte[] fixture(String name) throws IOException {
        try (InputStream in = TokenizerEngineTest.class.getResourceAsStream("/tokenizers/" + name)) {
            return in.readAllBytes();
        }
    }

    static int[] ids(List<TextTokenizer.Token> tokens) {
        return tokens.stream().mapToInt(TextTokenizer.Token::id).toArray();
    }

    @Test
    void bpeMergesByRankAndFramesWithItsOwnSpecialTokens() throws IOException {
        TextTokenizer t = TokenizerEngine.AUTO.read(fixture("bpe-tokenizer.json"), "bpe");
        assertInstanceOf(HuggingFaceTextTokenizer.class, t, "BPE is not the built-in's to read");
        // lower: l o -> lo, lo w -> low, e r -> er, low er -> lower. newest: n e -> ne, ne w -> new, s t -> st (rank 6 before
        // e s at 7), then no merge joins e and st. The Lowercase normaliser comes first; ! is a word of its own.
        String text = "Lower newest!";
        List<TextTokenizer.Token> tokens = t.tokenize(text);
        assertArrayEquals(new int[] {15, 17, 7, 18, 21}, ids(tokens));
        assertEquals(List.of("Lower", "new", "e", "st", "!"), tokens.stream().map(k -> text.substring(k.start(), k.end())).toList());
        assertArrayEquals(new int[] {1, 15, 17, 7, 18, 21, 2}, t.encode(text, 100), "<s> ... </s> from its template");
        assertArrayEquals(new int[] {1, 15, 17, 2}, t.encode(text, 4), "cut to maxLength with both special tokens kept");
        assertEquals(2, t.specialTokens());
        assertEquals(3, t.padId(), "its <pad> token");
        assertArrayEquals(new int[] {13, 0}, ids(t.tokenize("lowx")), "an unknown character is <unk>");
        assertEquals(List.of(), t.tokenize(""));
    }

    @Test
    void unigramPicksTheMostProbableSegmentation() throws IOException {
        TextTokenizer t = TokenizerEngine.AUTO.read(fixture("unigram-tokenizer.json"), "unigram");
        // "ab c" -> Metaspace: "▁ab", "▁c". For ▁ab: ▁a+b = -1.0-2.0 = -3.0 beats ▁+ab = -3.5 and ▁ab = -4.0;
        // ▁c is not a piece: ▁+c = -4.5.
        String text = "ab c";
        List<TextTokenizer.Token> tokens = t.tokenize(text);
        assertArrayEquals(new int[] {4, 5, 3, 8}, ids(tokens));
        assertEquals("b", text.substring(tokens.get(1).start(), tokens.get(1).end()));
        assertEquals("c", text.substring(tokens.get(3).start(), tokens.get(3).end()));
        assertArrayEquals(new int[] {1, 4, 5, 3, 8, 2}, t.encode(text, 512));
    }

    @Test
    void spansCountUtf16UnitsAsJavaDoesPastCharactersOutsideTheBasicPlane() throws IOException {
        TextTokenizer t = TokenizerEngine.HUGGINGFACE.read(Files.readAllBytes(TestModels.resourceFile("bge-small-en-v1.5-q-tokenizer.json")), "bge");
        String text = "rocket \uD83D\uDE80 launch \uD83D\uDE00 today";
        for (TextTokenizer.Token k : t.tokenize(text)) {
            String piece = text.substring(k.start(), k.end());
            assertTrue(piece.equals("rocket") || piece.equals("launch") || piece.equals("today") || piece.codePointCount(0, piece.length()) == 1,
                    "span " + k + " covers '" + piece + "'");
        }
        List<TextTokenizer.Token> tokens = t.tokenize(text);
        assertEquals("today", text.substring(tokens.get(tokens.size() - 1).start(), tokens.get(tokens.size() - 1).end()));
    }

    @Test
    void bothEnginesGiveTheSameIdsForTheBundledWordPieceFiles() throws IOException {
        List<String> probes = new java.util.ArrayList<>(WordPieceTokenizerTest.PROBES);
        probes.addAll(ChineseProbes.TEXTS);
        for (String file : List.of("bge-small-en-v1.5-q-tokenizer.json", "bge-small-zh-v1.5-q-tokenizer.json")) {
            byte[] json = Files.readAllBytes(TestModels.resourceFile(file));
            TextTokenizer builtin = TokenizerEngine.AUTO.read(json, file);
            assertInstanceOf(WordPieceTokenizer.class, builtin, "auto keeps the pure-Java tokenizer for a BERT-style file");
            TextTokenizer reference = TokenizerEngine.HUGGINGFACE.read(json, file);
            for (String probe : probes) {
                assertArrayEquals(reference.encode(probe, 10_000), builtin.encode(probe, 10_000), file + ": " + probe);
                assertArrayEquals(reference.encode(probe, 12), builtin.encode(probe, 12), file + " cut: " + probe);
            }
        }
    }

    @Test
    void aFileNeitherEngineReadsIsAnErrorNamingIt() {
        byte[] bpe = "{\"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": []}}".getBytes();
        RagException builtin = assertThrows(RagException.class, () -> TokenizerEngine.BUILTIN.read(bpe, "my-tokenizer.json"));
        assertTrue(builtin.getMessage().contains("my-tokenizer.json: only WordPiece"), builtin.getMessage());
        RagException broken = assertThrows(RagException.class, () -> TokenizerEngine.AUTO.read("{\"model\": 3".getBytes(), "broken.json"));
        assertTrue(broken.getMessage().startsWith("broken.json: cannot read tokenizer.json"), broken.getMessage());
        RagException odd = assertThrows(RagException.class, () -> TokenizerEngine.AUTO.read("{\"model\": {\"type\": \"Nonsense\"}}".getBytes(), "odd.json"));
        assertTrue(odd.getMessage().startsWith("odd.json: Hugging Face tokenizers cannot read this tokenizer.json"), odd.getMessage());
    }

    /** Chinese text as bge-small-zh's users write it, with the Latin and digits that mix into it. */
    static final class ChineseProbes {
        static final List<String> TEXTS = List.of(
                "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
                "李白（701年－762年），字太白，号青莲居士，唐朝浪漫主义诗人。",
                "苹果公司（Apple Inc.）于1976年4月1日在加利福尼亚州成立。",
                "「你好」、『世界』！这是一个测试？是的……",
                "長江是亞洲最長的河流，全長約6300公里。",
                "GPT-4 和 BERT 都是基于 Transformer 的模型");

        private ChineseProbes() {}
    }

    static Path resource(String name) throws IOException {
        return TestModels.resourceFile(name);
    }
}
