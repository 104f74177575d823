package dev.graphrag.core.embed;

import dev.graphrag.LineIndependent;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class WordPieceTokenizerTest {
    /** Probes chosen to exercise every normaliser and pre-tokeniser rule. */
    static final List<String> PROBES = List.of(
            "hello world",
            "Hello, World!",
            "The quick brown fox jumps over the lazy dog.",
            "Café déjà vu — naïve coöperation",
            "Ångström Øresund façade Straße",
            "unaffable antidisestablishmentarianism hyperparameterization",
            "Tokyo 東京 and 北京 are capitals",
            "emoji 😀 and 🚀 rockets",
            "numbers 3.14159, 1,000,000 and -42",
            "e-mail: someone@example.com; URL https://neo4j.com/docs?x=1&y=2",
            "tabs\tand\nnewlines\r\nmixed   spaces",
            "non\u00a0breaking\u2003em space",
            "zero\u200bwidth joiner\u200d and soft\u00adhyphen",
            "control\u0007char and \u0000 null",
            "quotes “curly” ‘single’ «guillemets»",
            "Who directed the film that won the Palme d'Or in 1994?",
            "ALL CAPS SHOUTING AND MiXeD cAsE",
            "x".repeat(120),
            "supercalifragilisticexpialidocious",
            "Ελληνικά και русский текст",
            "O'Neill's children's book (2nd ed.) [sic] {braces} <tags>",
            "C++ and C# and F# languages; 100% of $5 ^ 2 ~ ok | pipe",
            "¿Qué? ¡Sí! ‽ … ‥",
            "ﬁnance ligature and ＦＵＬＬＷＩＤＴＨ letters",
            "");

    @Test
    void idsEqualTheReferenceTokenizerOnEveryProbe() throws Exception {
        Path json = TestModels.resourceFile("bge-small-en-v1.5-q-tokenizer.json");
        WordPieceTokenizer ours;
        try (InputStream in = java.nio.file.Files.newInputStream(json)) {
            ours = WordPieceTokenizer.fromTokenizerJson(in, json.toString());
        }
        try (HuggingFaceTokenizer reference = HuggingFaceTokenizer.newInstance(json, Map.of("truncation", "false", "padding", "false"))) {
            for (String probe : PROBES) {
                long[] expected = reference.encode(probe, true, false).getIds();
                int[] actual = ours.encode(probe, 10_000);
                long[] actualLong = new long[actual.length];
                for (int i = 0; i < actual.length; i++) actualLong[i] = actual[i];
                assertArrayEquals(expected, actualLong, "token ids differ for probe: " + probe);
            }
        }
    }

    @Test
    void encodeTruncatesToMaxLengthKeepingSpecialTokens() {
        WordPieceTokenizer t = (WordPieceTokenizer) TestModels.bge().tokenizer();
        int[] ids = t.encode("one two three four five six seven eight nine ten", 6);
        assertEquals(6, ids.length);
        assertEquals(t.clsId(), ids[0]);
        assertEquals(t.sepId(), ids[5]);
    }

    @Test
    void tokensCarryTheCharSpanOfTheirWord() {
        WordPieceTokenizer t = (WordPieceTokenizer) TestModels.bge().tokenizer();
        String text = "Xodar, unaffable!";
        List<TextTokenizer.Token> tokens = t.tokenize(text);
        assertTrue(tokens.size() >= 4);
        assertEquals("Xodar", text.substring(tokens.get(0).start(), tokens.get(0).end()));
        TextTokenizer.Token last = tokens.get(tokens.size() - 1);
        assertEquals("!", text.substring(last.start(), last.end()));
        for (TextTokenizer.Token tok : tokens) assertTrue(tok.start() < tok.end());
    }

    @Test
    void rejectsNonWordPieceTokenizers() {
        String json = "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}}";
        var e = assertThrows(dev.graphrag.core.RagException.class,
                () -> WordPieceTokenizer.fromTokenizerJson(new java.io.ByteArrayInputStream(json.getBytes()), "x.json"));
        assertTrue(e.getMessage().contains("BPE"), e.getMessage());
    }
}
