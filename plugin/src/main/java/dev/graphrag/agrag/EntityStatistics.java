package dev.graphrag.agrag;

import dev.graphrag.core.RagException;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.WordlistLoader;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * AGRAG's statistics-based entity candidates (paper Eq. 2-3): lower-cased tokens of at least two
 * characters from Lucene's StandardTokenizer, Snowball English stop words removed, then every contiguous
 * 1..maxNgram-gram of what remains. Scores are TF-IDF (the reference code's L2-normalised smoothed TF-IDF,
 * the default) or the paper's Eq. 2. Knows nothing of Neo4j: document frequencies come from the caller.
 */
public final class EntityStatistics {
    /** ER scoring: TFIDF = reference code (sklearn-style), PAPER = Eq. 2. */
    public enum Scoring { TFIDF, PAPER }

    /** A candidate term of one chunk with its ER score. */
    public record Candidate(String term, double score, int ngram) {}

    /** A chunk's terms: n-gram counts and the number of unigram tokens after stop-word removal. */
    public record Terms(Map<String, Integer> counts, int unigrams) {}

    private static final CharArraySet STOP_WORDS = loadStopWords();

    private EntityStatistics() {}

    private static CharArraySet loadStopWords() {
        // read as a resource beside SnowballFilter: Lucene 10 (the calendar Neo4j line) dropped IOUtils.getDecodingReader
        try (java.io.InputStream in = SnowballFilter.class.getResourceAsStream("english_stop.txt")) {
            if (in == null) throw new IOException("english_stop.txt not found beside " + SnowballFilter.class.getName());
            return WordlistLoader.getSnowballWordSet(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("Lucene's Snowball English stop list is missing", e);
        }
    }

    /** Whether a lower-cased word is in Lucene's Snowball English stop list. */
    static boolean isStopWord(String word) {
        return STOP_WORDS.contains(word);
    }

    /** Tokens of the text: lower case, stop words removed, at least two characters. */
    public static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        try (StandardTokenizer tokenizer = new StandardTokenizer()) {
            tokenizer.setReader(new StringReader(text));
            try (TokenStream ts = new StopFilter(new LowerCaseFilter(tokenizer), STOP_WORDS)) {
                CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
                ts.reset();
                while (ts.incrementToken()) {
                    if (term.length() >= 2) out.add(term.toString());
                }
                ts.end();
            }
        } catch (IOException e) {
            throw new RagException("tokenising failed: " + e.getMessage(), e);
        }
        return out;
    }

    /** Counts of all contiguous 1..maxNgram-grams of the stop-word-free token sequence. */
    public static Terms terms(String text, int maxNgram) {
        if (maxNgram < 1 || maxNgram > 10) throw new RagException("maxNgram must be in [1, 10], got " + maxNgram);
        List<String> tokens = tokens(text);
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            StringBuilder gram = new StringBuilder();
            for (int n = 1; n <= maxNgram && i + n <= tokens.size(); n++) {
                if (n > 1) gram.append(' ');
                gram.append(tokens.get(i + n - 1));
                counts.merge(gram.toString(), 1, Integer::sum);
            }
        }
        return new Terms(counts, tokens.size());
    }

    /**
     * Candidates of one chunk with ER > threshold, by score descending then term. {@code df} gives the number of
     * chunks containing a term (this chunk included); {@code n} is the number of chunks.
     */
    public static List<Candidate> candidates(Terms t, ToIntFunction<String> df, long n, Scoring scoring, double threshold) {
        Map<String, Double> score = new LinkedHashMap<>();
        if (scoring == Scoring.TFIDF) {
            double sumSquares = 0;
            for (Map.Entry<String, Integer> e : t.counts().entrySet()) {
                double w = e.getValue() * (Math.log((1.0 + n) / (1.0 + df.applyAsInt(e.getKey()))) + 1);
                score.put(e.getKey(), w);
                sumSquares += w * w;
            }
            double norm = Math.sqrt(sumSquares);
            score.replaceAll((k, w) -> norm == 0 ? 0 : w / norm);
        } else {
            for (Map.Entry<String, Integer> e : t.counts().entrySet()) {
                double idf = Math.log((n + 1.0) / (df.applyAsInt(e.getKey()) + 1.0)) / Math.log(n + 1.0);
                score.put(e.getKey(), t.unigrams() == 0 || n == 0 ? 0 : e.getValue() / (double) t.unigrams() * idf);
            }
        }
        List<Candidate> out = new ArrayList<>();
        for (Map.Entry<String, Double> e : score.entrySet()) {
            if (e.getValue() > threshold) out.add(new Candidate(e.getKey(), e.getValue(), e.getKey().split(" ").length));
        }
        out.sort(Comparator.comparingDouble(Candidate::score).reversed().thenComparing(Candidate::term));
        return out;
    }

    /**
     * A2 over a batch of texts: document frequencies over the batch, then each text's candidates with
     * ER > threshold (best first), at most {@code maxPerText} each.
     */
    public static List<List<Candidate>> extract(List<String> texts, int maxNgram, Scoring scoring, double threshold, int maxPerText) {
        List<Terms> terms = new ArrayList<>(texts.size());
        Map<String, Integer> df = new java.util.HashMap<>();
        for (String text : texts) {
            Terms t = terms(text, maxNgram);
            terms.add(t);
            for (String term : t.counts().keySet()) df.merge(term, 1, Integer::sum);
        }
        List<List<Candidate>> out = new ArrayList<>(texts.size());
        for (Terms t : terms) {
            List<Candidate> all = candidates(t, df::get, texts.size(), scoring, threshold);
            out.add(List.copyOf(all.subList(0, Math.min(maxPerText, all.size()))));
        }
        return out;
    }

    /** Entity and predicate normalisation (A4): lower case, [a-z0-9 ] only, single spaces. */
    public static String norm(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        boolean space = false;
        for (char c : s.toLowerCase(java.util.Locale.ROOT).toCharArray()) {
            boolean keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (keep) {
                if (space && b.length() > 0) b.append(' ');
                b.append(c);
                space = false;
            } else {
                space = true;
            }
        }
        return b.toString();
    }
}
