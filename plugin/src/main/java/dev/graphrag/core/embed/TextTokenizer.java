package dev.graphrag.core.embed;

import java.util.List;

/**
 * A model's tokenizer, read from its Hugging Face tokenizer.json: the built-in pure-Java WordPiece
 * ({@link WordPieceTokenizer}, BERT-style files) or Hugging Face's own library ({@link HuggingFaceTextTokenizer}:
 * WordPiece, BPE, Unigram, with the normalisers and pre-tokenisers the file names). Chunkers cut by its tokens and
 * keep their character spans; the ONNX model reads its ids. Thread-safe.
 */
public interface TextTokenizer {
    /** A token: vocabulary id and a [start, end) char span in the input text (the piece's, or the built-in's whole word). */
    record Token(int id, int start, int end) {}

    /** Tokens of the text, without special tokens. */
    List<Token> tokenize(String text);

    /** Ids of the text as the model reads it: special tokens around the first tokens, maxLength ids in all at most. */
    default int[] encode(String text, int maxLength) {
        List<Token> tokens = tokenize(text);
        int[] body = new int[Math.min(tokens.size(), Math.max(0, maxLength - specialTokens()))];
        for (int k = 0; k < body.length; k++) body[k] = tokens.get(k).id();
        return frame(body);
    }

    /** {@code body} (ids without special tokens) between the model's special tokens ([CLS] ... [SEP], &lt;s&gt; ... &lt;/s&gt;). */
    int[] frame(int[] body);

    /** How many special tokens {@link #frame} adds. */
    int specialTokens();

    /** The id that pads a batch (masked out, so any valid id would do). */
    int padId();
}
