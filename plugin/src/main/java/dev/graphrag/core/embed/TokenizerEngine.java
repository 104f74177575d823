package dev.graphrag.core.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.core.RagException;

import java.io.IOException;

/**
 * Which code reads a tokenizer.json (graphrag.embedding.tokenizerEngine). {@code auto}: the built-in pure-Java
 * WordPiece for the BERT-style files it implements exactly (WordPiece model, BertNormalizer, BertPreTokenizer: the
 * bundled bge models, bge-small-zh, MiniLM, e5), Hugging Face's own tokenizers library for everything else (BPE and
 * Unigram models such as bge-m3, multilingual-e5 and gte-multilingual, and other normalisers and pre-tokenisers).
 */
public enum TokenizerEngine {
    AUTO, BUILTIN, HUGGINGFACE;

    TextTokenizer read(byte[] json, String source) {
        JsonNode root = parse(json, source);
        return switch (this) {
            case BUILTIN -> WordPieceTokenizer.fromTokenizerJson(root, source);
            case HUGGINGFACE -> HuggingFaceTextTokenizer.read(json, root, source);
            case AUTO -> builtinReads(root) ? WordPieceTokenizer.fromTokenizerJson(root, source) : HuggingFaceTextTokenizer.read(json, root, source);
        };
    }

    private static JsonNode parse(byte[] json, String source) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            throw new RagException(source + ": cannot read tokenizer.json: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) throw new RagException(source + ": tokenizer.json is not a JSON object");
        return root;
    }

    /** Whether the file is one the built-in tokenizer implements rule for rule. */
    static boolean builtinReads(JsonNode root) {
        String post = root.path("post_processor").path("type").asText("");
        return "WordPiece".equals(root.path("model").path("type").asText())
                && "BertNormalizer".equals(root.path("normalizer").path("type").asText())
                && "BertPreTokenizer".equals(root.path("pre_tokenizer").path("type").asText())
                && (post.isEmpty() || post.equals("TemplateProcessing") || post.equals("BertProcessing"));
    }
}
