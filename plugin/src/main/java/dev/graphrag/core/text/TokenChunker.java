package dev.graphrag.core.text;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.TextTokenizer;
import dev.graphrag.core.embed.TextTokenizer.Token;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The {@code tokens} chunker: chunks of at most {@code chunkSize} tokens of the embedding tokenizer, overlapping
 * by about {@code overlap} tokens, never cutting a word. With {@code sentences} it packs whole sentences
 * (a sentence longer than a chunk is split by tokens). Offsets are char offsets into the source text.
 */
public final class TokenChunker implements Chunker {
    private final TextTokenizer tokenizer;
    private final int chunkSize;
    private final int overlap;
    private final boolean sentences;

    public TokenChunker(TextTokenizer tokenizer, int chunkSize, int overlap, boolean sentences) {
        this.chunkSize = Chunker.checkedChunkSize(chunkSize);
        if (overlap < 0 || overlap >= chunkSize) {
            throw new RagException("chunkOverlap must be >= 0 and smaller than chunkSize (" + chunkSize + "), got " + overlap);
        }
        this.tokenizer = tokenizer;
        this.overlap = overlap;
        this.sentences = sentences;
    }

    /** Checks {@code cancelled} between the passes and every 1,024 chunks. */
    @Override
    public List<Chunk> chunk(String text, BooleanSupplier cancelled) {
        List<Token> tokens = tokenizer.tokenize(text);
        List<Chunk> out = new ArrayList<>();
        if (tokens.isEmpty()) return out;
        Chunker.checkCancelled(cancelled);
        List<int[]> windows = sentences ? sentenceWindows(text, tokens) : tokenWindows(tokens, 0, tokens.size());
        for (int[] w : windows) {
            if ((out.size() & 1023) == 1023) Chunker.checkCancelled(cancelled);
            out.add(Chunker.ofTokens(out.size(), text, tokens, w[0], w[1], null));
        }
        return out;
    }

    /** Token windows [from, to) over tokens[lo, hi), ends moved back to word boundaries. */
    private List<int[]> tokenWindows(List<Token> tokens, int lo, int hi) {
        List<int[]> out = new ArrayList<>();
        int from = lo;
        while (from < hi) {
            int to = Chunker.wordEnd(tokens, from, Math.min(hi, from + chunkSize), hi); // never the word that straddles the end
            out.add(new int[] {from, to});
            if (to >= hi) break;
            int next = Math.max(from + 1, to - overlap);
            // start the next window on a word's first piece
            while (next > from + 1 && next < to && tokens.get(next).start() == tokens.get(next - 1).start()) next--;
            from = next;
        }
        return out;
    }

    private List<int[]> sentenceWindows(String text, List<Token> tokens) {
        List<Integer> bounds = Chunker.sentenceBounds(text, tokens);
        List<int[]> out = new ArrayList<>();
        int s = 0;
        int sentenceCount = bounds.size() - 1;
        while (s < sentenceCount) {
            int from = bounds.get(s);
            if (bounds.get(s + 1) - from > chunkSize) {
                out.addAll(tokenWindows(tokens, from, bounds.get(s + 1)));
                s++;
                continue;
            }
            int e = s + 1;
            while (e < sentenceCount && bounds.get(e + 1) - from <= chunkSize) e++;
            out.add(new int[] {from, bounds.get(e)});
            if (e >= sentenceCount) break;
            // overlap: restart at the trailing sentences that fit in the overlap budget
            int next = e;
            while (next - 1 > s && bounds.get(e) - bounds.get(next - 1) <= overlap) next--;
            s = next;
        }
        return out;
    }
}
