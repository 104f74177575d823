package dev.graphrag.core.text;

import dev.graphrag.core.RagException;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Splits a document's text into chunks with exact character offsets ({@code text.substring(start, end)} is the
 * chunk). Three strategies, chosen by rag.ingest's {@code chunker}: {@link TokenChunker} (token windows, the
 * default), {@link SentenceChunker} (whole sentences with overlap sentences, ReMindRAG) and
 * {@link StructuralChunker} (sections, code, tables and lists kept whole, RAGA). Methods read corpora chunked by
 * rag.ingest; they never chunk on their own.
 */
public interface Chunker {
    /**
     * A chunk: [start, end) char span of the source text, its text, its token count and token ids under the
     * embedding tokenizer (no specials; the embedder reads at most its maximum of them), and its structural
     * kind (heading, body, list, code, table) where the chunker knows it, else null.
     */
    record Chunk(int index, int start, int end, String text, int tokens, int[] tokenIds, String kind) {}

    List<Chunk> chunk(String text, BooleanSupplier cancelled);

    default List<Chunk> chunk(String text) {
        return chunk(text, () -> false);
    }

    /** The chunk covering tokens [from, to) of the text: its exact span, text and token ids. */
    static Chunk ofTokens(int index, String text, List<dev.graphrag.core.embed.TextTokenizer.Token> tokens, int from, int to, String kind) {
        int start = tokens.get(from).start(), end = tokens.get(to - 1).end();
        int[] ids = new int[to - from];
        for (int k = 0; k < ids.length; k++) ids[k] = tokens.get(from + k).id();
        return new Chunk(index, start, end, text.substring(start, end), ids.length, ids, kind);
    }

    /** Token indexes where sentences start, then tokens.size(): sentence k covers tokens [bounds[k], bounds[k+1]). */
    static List<Integer> sentenceBounds(String text, List<dev.graphrag.core.embed.TextTokenizer.Token> tokens) {
        List<Integer> bounds = new java.util.ArrayList<>();
        java.text.BreakIterator it = java.text.BreakIterator.getSentenceInstance(java.util.Locale.ROOT);
        it.setText(text);
        int t = 0;
        bounds.add(0);
        for (int end = it.next(); end != java.text.BreakIterator.DONE; end = it.next()) {
            while (t < tokens.size() && tokens.get(t).start() < end) t++;
            if (t > bounds.get(bounds.size() - 1)) bounds.add(t);
        }
        if (bounds.get(bounds.size() - 1) < tokens.size()) bounds.add(tokens.size());
        return bounds;
    }

    /**
     * Where a window of tokens [from, to) over tokens[.., hi) should end so it does not split a word: {@code to} moved back
     * to the first piece of the word that straddles it, unless the window is that one word (then it is cut where it is).
     */
    static int wordEnd(List<dev.graphrag.core.embed.TextTokenizer.Token> tokens, int from, int to, int hi) {
        if (to >= hi) return hi;
        int cut = to;
        while (cut > from + 1 && tokens.get(cut).start() == tokens.get(cut - 1).start()) cut--;
        return cut > from + 1 || tokens.get(cut).start() != tokens.get(cut - 1).start() ? cut : to;
    }

    /** The smallest chunk either chunker makes: a sentence chunk keeps two tokens for the model's specials. */
    int MIN_CHUNK_SIZE = 16;

    /** {@code chunkSize}, or an error naming the key when it is below {@link #MIN_CHUNK_SIZE}. */
    static int checkedChunkSize(int chunkSize) {
        if (chunkSize < MIN_CHUNK_SIZE) throw new RagException("chunkSize must be at least " + MIN_CHUNK_SIZE + " tokens, got " + chunkSize);
        return chunkSize;
    }

    static void checkCancelled(BooleanSupplier cancelled) {
        if (cancelled.getAsBoolean()) throw new RagException("chunking cancelled: the transaction was terminated");
    }
}
