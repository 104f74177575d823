package dev.graphrag.core.text;

import dev.graphrag.core.RagException;
import dev.graphrag.core.embed.TextTokenizer;
import dev.graphrag.core.embed.TextTokenizer.Token;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The {@code sentences} chunker (ReMindRAG's reference code; docs/remind.md#defaults): whole sentences are added while the chunk stays within
 * {@code chunkSize} tokens of the embedding tokenizer ([CLS] and [SEP] included); a sentence that would overflow
 * starts the next chunk, and one longer than a chunk on its own is cut at word boundaries. Each chunk then also
 * takes the first {@code overlapSentences} sentences of the next chunk. Chunks longer than the embedder's
 * maximum are embedded from their first tokens (rag.ingest marks them {@code embeddingTruncated}).
 */
public final class SentenceChunker implements Chunker {
    private final TextTokenizer tokenizer;
    private final int chunkSize;
    private final int overlapSentences;

    public SentenceChunker(TextTokenizer tokenizer, int chunkSize, int overlapSentences) {
        this.chunkSize = Chunker.checkedChunkSize(chunkSize);
        if (overlapSentences < 0) throw new RagException("chunkOverlap (sentences) must be >= 0, got " + overlapSentences);
        this.tokenizer = tokenizer;
        this.overlapSentences = overlapSentences;
    }

    @Override
    public List<Chunk> chunk(String text, BooleanSupplier cancelled) {
        List<Token> tokens = tokenizer.tokenize(text);
        List<Chunk> out = new ArrayList<>();
        if (tokens.isEmpty()) return out;
        Chunker.checkCancelled(cancelled);
        int body = chunkSize - 2;
        // sentences as token ranges [from, to); an over-long sentence becomes several pieces cut between words
        List<int[]> sentences = new ArrayList<>();
        List<Integer> bounds = Chunker.sentenceBounds(text, tokens);
        for (int b = 0; b + 1 < bounds.size(); b++) {
            int t = bounds.get(b + 1);
            for (int s = bounds.get(b); s < t; ) {
                int e = Chunker.wordEnd(tokens, s, Math.min(t, s + body), t); // a word's pieces stay together
                sentences.add(new int[] {s, e});
                s = e;
            }
        }
        // greedy packing: sentence indexes [first, last) per chunk
        List<int[]> packs = new ArrayList<>();
        int first = 0;
        for (int i = 1; i <= sentences.size(); i++) {
            boolean close = i == sentences.size() || sentences.get(i)[1] - sentences.get(first)[0] > body;
            if (close) {
                packs.add(new int[] {first, i});
                first = i;
            }
        }
        for (int p = 0; p < packs.size(); p++) {
            if ((p & 1023) == 1023) Chunker.checkCancelled(cancelled);
            int fromSentence = packs.get(p)[0];
            int toSentence = p + 1 < packs.size() ? Math.min(sentences.size(), packs.get(p)[1] + overlapSentences) : packs.get(p)[1];
            out.add(Chunker.ofTokens(out.size(), text, tokens, sentences.get(fromSentence)[0], sentences.get(toSentence - 1)[1], null));
        }
        return out;
    }
}
