package dev.graphrag.core.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;

import java.io.IOException;
import java.io.InputStream;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Pure-Java BERT tokenizer (BertNormalizer + BertPreTokenizer + WordPiece) read from a Hugging Face
 * tokenizer.json, equal to the reference tokenizer's ids (see WordPieceTokenizerTest). Each token keeps
 * the character span of its word in the original text, which the chunker uses for offsets.
 */
public final class WordPieceTokenizer implements TextTokenizer {

    private final Map<String, Integer> vocab;
    private final int unkId;
    private final int clsId;
    private final int sepId;
    private final int padId;
    private final String subwordPrefix;
    private final int maxCharsPerWord;
    private final boolean lowercase;
    private final boolean stripAccents;
    private final boolean handleChineseChars;

    private WordPieceTokenizer(Map<String, Integer> vocab, String unk, String subwordPrefix, int maxCharsPerWord,
                               boolean lowercase, boolean stripAccents, boolean handleChineseChars) {
        this.vocab = vocab;
        this.unkId = idOf(vocab, unk);
        this.clsId = idOf(vocab, "[CLS]");
        this.sepId = idOf(vocab, "[SEP]");
        this.padId = vocab.getOrDefault("[PAD]", 0);
        this.subwordPrefix = subwordPrefix;
        this.maxCharsPerWord = maxCharsPerWord;
        this.lowercase = lowercase;
        this.stripAccents = stripAccents;
        this.handleChineseChars = handleChineseChars;
    }

    private static int idOf(Map<String, Integer> vocab, String token) {
        Integer id = vocab.get(token);
        if (id == null) throw new RagException("tokenizer.json: vocabulary has no " + token + " token");
        return id;
    }

    public static WordPieceTokenizer fromTokenizerJson(InputStream in, String source) {
        try {
            return fromTokenizerJson(new ObjectMapper().readTree(in), source);
        } catch (IOException e) {
            throw new RagException(source + ": cannot read tokenizer.json: " + e.getMessage(), e);
        }
    }

    /** From a tokenizer.json already parsed (TokenizerEngine reads each file once). */
    static WordPieceTokenizer fromTokenizerJson(JsonNode root, String source) {
        JsonNode model = root.path("model");
        if (!"WordPiece".equals(model.path("type").asText())) {
            throw new RagException(source + ": only WordPiece (BERT-style) tokenizers are supported, got model type '"
                    + model.path("type").asText() + "'");
        }
        Map<String, Integer> vocab = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = model.path("vocab").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            vocab.put(e.getKey(), e.getValue().asInt());
        }
        if (vocab.isEmpty()) throw new RagException(source + ": tokenizer.json has an empty vocabulary");
        JsonNode norm = root.path("normalizer");
        boolean lower = norm.path("lowercase").asBoolean(true);
        JsonNode strip = norm.path("strip_accents");
        boolean stripAccents = strip.isNull() || strip.isMissingNode() ? lower : strip.asBoolean();
        boolean chinese = norm.path("handle_chinese_chars").asBoolean(true);
        return new WordPieceTokenizer(vocab, model.path("unk_token").asText("[UNK]"),
                model.path("continuing_subword_prefix").asText("##"),
                model.path("max_input_chars_per_word").asInt(100), lower, stripAccents, chinese);
    }

    public int clsId() { return clsId; }
    public int sepId() { return sepId; }
    @Override
    public int padId() { return padId; }
    public int vocabSize() { return vocab.size(); }

    /** Word pieces of the text, without special tokens; each keeps its whole word's span. */
    @Override
    public List<Token> tokenize(String text) {
        List<Token> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        int wordStart = -1;
        int i = 0;
        int n = text.length();
        while (i < n) {
            int cp = text.codePointAt(i);
            int next = i + Character.charCount(cp);
            if (cp == 0 || cp == 0xFFFD || isControl(cp)) {
                // BertNormalizer.clean_text deletes these without splitting the word
            } else if (isWhitespace(cp)) {
                wordStart = flush(word, wordStart, i, out);
            } else if (isPunctuation(cp) || (handleChineseChars && isChinese(cp))) {
                wordStart = flush(word, wordStart, i, out);
                word.appendCodePoint(cp);
                flush(word, i, next, out);
            } else {
                if (wordStart < 0) wordStart = i;
                word.appendCodePoint(cp);
            }
            i = next;
        }
        flush(word, wordStart, n, out);
        return out;
    }

    @Override
    public int[] frame(int[] body) {
        int[] ids = new int[body.length + 2];
        ids[0] = clsId;
        System.arraycopy(body, 0, ids, 1, body.length);
        ids[body.length + 1] = sepId;
        return ids;
    }

    @Override
    public int specialTokens() {
        return 2;
    }

    private int flush(StringBuilder word, int start, int end, List<Token> out) {
        if (word.length() > 0 && start >= 0) {
            wordPiece(normalize(word.toString()), start, end, out);
        }
        word.setLength(0);
        return -1;
    }

    private String normalize(String w) {
        String s = w;
        if (stripAccents) {
            s = Normalizer.normalize(s, Normalizer.Form.NFD);
            StringBuilder b = new StringBuilder(s.length());
            s.codePoints().filter(c -> Character.getType(c) != Character.NON_SPACING_MARK).forEach(b::appendCodePoint);
            s = b.toString();
        }
        if (lowercase) s = s.toLowerCase(Locale.ROOT);
        return s;
    }

    private void wordPiece(String word, int start, int end, List<Token> out) {
        if (word.isEmpty()) return;
        if (word.codePointCount(0, word.length()) > maxCharsPerWord) {
            out.add(new Token(unkId, start, end));
            return;
        }
        int before = out.size();
        int pos = 0;
        while (pos < word.length()) {
            int stop = word.length();
            Integer found = null;
            while (stop > pos) {
                String piece = word.substring(pos, stop);
                if (pos > 0) piece = subwordPrefix + piece;
                found = vocab.get(piece);
                if (found != null) break;
                stop = Character.isLowSurrogate(word.charAt(stop - 1)) && stop - 2 > pos ? stop - 2 : stop - 1;
            }
            if (found == null) {
                while (out.size() > before) out.remove(out.size() - 1);
                out.add(new Token(unkId, start, end));
                return;
            }
            out.add(new Token(found, start, end));
            pos = stop;
        }
    }

    static boolean isWhitespace(int cp) {
        return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || Character.getType(cp) == Character.SPACE_SEPARATOR
                || Character.isWhitespace(cp);
    }

    static boolean isControl(int cp) {
        if (cp == '\t' || cp == '\n' || cp == '\r') return false;
        int t = Character.getType(cp);
        return t == Character.CONTROL || t == Character.FORMAT || t == Character.UNASSIGNED
                || t == Character.PRIVATE_USE || t == Character.SURROGATE;
    }

    static boolean isPunctuation(int cp) {
        if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
            return true;
        }
        int t = Character.getType(cp);
        return t == Character.CONNECTOR_PUNCTUATION || t == Character.DASH_PUNCTUATION
                || t == Character.START_PUNCTUATION || t == Character.END_PUNCTUATION
                || t == Character.INITIAL_QUOTE_PUNCTUATION || t == Character.FINAL_QUOTE_PUNCTUATION
                || t == Character.OTHER_PUNCTUATION;
    }

    static boolean isChinese(int cp) {
        return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF)
                || (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F)
                || (cp >= 0x2B820 && cp <= 0x2CEAF) || (cp >= 0xF900 && cp <= 0xFAFF)
                || (cp >= 0x2F800 && cp <= 0x2FA1F);
    }
}
