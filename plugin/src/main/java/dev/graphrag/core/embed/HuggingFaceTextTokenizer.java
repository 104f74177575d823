package dev.graphrag.core.embed;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import com.fasterxml.jackson.databind.JsonNode;
import dev.graphrag.core.RagException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Any Hugging Face tokenizer.json (WordPiece, BPE, Unigram; the normalisers, pre-tokenisers and post-processor the
 * file names) through Hugging Face's own Rust library, by DJL's binding (its native library ships inside its jar for
 * Linux x86-64/aarch64, macOS aarch64 and Windows, and is extracted on first use; nothing is downloaded). The
 * special tokens are the file's own post-processor's, found by encoding a text with and without them.
 */
final class HuggingFaceTextTokenizer implements TextTokenizer {
    private static final Map<String, String> OPTIONS = Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false",
            "modelMaxLength", String.valueOf(Integer.MAX_VALUE));

    private final HuggingFaceTokenizer tokenizer;
    private final int[] prefix;
    private final int[] suffix;
    private final int padId;

    private HuggingFaceTextTokenizer(HuggingFaceTokenizer tokenizer, int[] prefix, int[] suffix, int padId) {
        this.tokenizer = tokenizer;
        this.prefix = prefix;
        this.suffix = suffix;
        this.padId = padId;
    }

    static HuggingFaceTextTokenizer read(byte[] json, JsonNode root, String source) {
        nativeCacheDirectory();
        HuggingFaceTokenizer t;
        try {
            t = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(json), OPTIONS);
        } catch (IOException | RuntimeException e) {
            throw new RagException(source + ": Hugging Face tokenizers cannot read this tokenizer.json: " + e.getMessage(), e);
        } catch (LinkageError e) {
            throw new RagException("Hugging Face tokenizers' native library could not be loaded on this machine (" + e.getMessage()
                    + "); a WordPiece tokenizer.json works without it (graphrag.embedding.tokenizerEngine=builtin)", e);
        }
        String probe = "graph retrieval";
        long[] body = t.encode(probe, false, false).getIds();
        long[] framed = t.encode(probe, true, false).getIds();
        int at = indexOf(framed, body);
        if (body.length == 0 || at < 0) {
            throw new RagException(source + ": the tokenizer's special tokens do not frame its text (post-processor of an unknown shape)");
        }
        int[] prefix = ints(Arrays.copyOfRange(framed, 0, at));
        int[] suffix = ints(Arrays.copyOfRange(framed, at + body.length, framed.length));
        return new HuggingFaceTextTokenizer(t, prefix, suffix, padId(root));
    }

    /**
     * DJL extracts its native library under ENGINE_CACHE_DIR, DJL_CACHE_DIR or ~/.djl.ai; a server's home may not be
     * writable, so where none is set it goes under java.io.tmpdir (the extraction is reused across restarts).
     */
    private static void nativeCacheDirectory() {
        for (String k : List.of("ENGINE_CACHE_DIR", "DJL_CACHE_DIR")) {
            if (System.getProperty(k) != null || System.getenv(k) != null) return;
        }
        Path home = Path.of(System.getProperty("user.home", "/nonexistent"), ".djl.ai");
        if (Files.isWritable(home) || Files.isWritable(home.getParent() == null ? home : home.getParent())) return;
        System.setProperty("ENGINE_CACHE_DIR", Path.of(System.getProperty("java.io.tmpdir"), "graphrag-djl").toString());
    }

    /** The file's padding id, else its &lt;pad&gt; or [PAD] token's, else 0 (a padded position is masked out anyway). */
    private static int padId(JsonNode root) {
        if (root.path("padding").path("pad_id").isInt()) return root.path("padding").path("pad_id").asInt();
        for (JsonNode t : root.path("added_tokens")) {
            String c = t.path("content").asText();
            if (c.equals("<pad>") || c.equals("[PAD]")) return t.path("id").asInt();
        }
        return 0;
    }

    private static int indexOf(long[] hay, long[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int k = 0; k < needle.length; k++) if (hay[i + k] != needle[k]) continue outer;
            return i;
        }
        return -1;
    }

    private static int[] ints(long[] ids) {
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = Math.toIntExact(ids[i]);
        return out;
    }

    @Override
    public List<Token> tokenize(String text) {
        if (text.isEmpty()) return List.of();
        Encoding e = tokenizer.encode(text, false, false);
        long[] ids = e.getIds();
        CharSpan[] spans = e.getCharTokenSpans();
        // the library counts characters as code points; Java strings count UTF-16 units
        int[] utf16 = text.length() == text.codePointCount(0, text.length()) ? null : text.codePoints().map(Character::charCount).toArray();
        int[] offsetOf = null;
        if (utf16 != null) {
            offsetOf = new int[utf16.length + 1];
            for (int i = 0; i < utf16.length; i++) offsetOf[i + 1] = offsetOf[i] + utf16[i];
        }
        List<Token> out = new ArrayList<>(ids.length);
        int last = 0;
        for (int i = 0; i < ids.length; i++) {
            CharSpan s = spans == null || i >= spans.length ? null : spans[i];
            int start = s == null ? last : s.getStart();
            int end = s == null ? last : s.getEnd();
            if (offsetOf != null) {
                start = offsetOf[Math.min(start, offsetOf.length - 1)];
                end = offsetOf[Math.min(end, offsetOf.length - 1)];
            }
            out.add(new Token(Math.toIntExact(ids[i]), start, end));
            last = end;
        }
        return out;
    }

    @Override
    public int[] frame(int[] body) {
        int[] out = new int[prefix.length + body.length + suffix.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(body, 0, out, prefix.length, body.length);
        System.arraycopy(suffix, 0, out, prefix.length + body.length, suffix.length);
        return out;
    }

    @Override
    public int specialTokens() {
        return prefix.length + suffix.length;
    }

    @Override
    public int padId() {
        return padId;
    }
}
