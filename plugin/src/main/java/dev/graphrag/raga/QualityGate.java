package dev.graphrag.raga;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * RAGA's entity quality gate (paper §3.3.5): rules R1-R8, cheapest first; the first that fails names the
 * rejection. Thresholds of R1 and R2 are the paper's, R3-R8 ours (docs/raga.md#our-own-rules-where-the-paper-gives-none). Tokens split on whitespace.
 */
public final class QualityGate {
    public enum Rule { LENGTH, PRINTABLE, SENTENCE_FRAGMENT, CODE, MATH, PUNCT_FLOOD, GARBLED, GENERIC_HEADING }

    private static final Set<String> FRAGMENT_START = Set.of("and", "or", "but", "which", "that", "where", "when", "because", "however", "therefore",
            "thus", "we", "our", "this", "these", "it", "its");
    private static final Set<String> CODE_WORDS = Set.of("def", "return", "import", "class", "void", "function", "var", "const", "let", "lambda", "elif",
            "println", "printf", "#include");
    private static final Pattern HEADING_NUMBER = Pattern.compile("^((\\d+(\\.\\d+)*)|[IVXLC]+)[.)]?\\s+");
    private static final Set<String> HEADINGS = Set.of("abstract", "introduction", "related work", "background", "method", "methods", "methodology",
            "approach", "experiment", "experiments", "experimental setup", "results", "discussion", "conclusion", "conclusions", "future work",
            "limitations", "evaluation", "overview", "summary", "references", "acknowledgments", "acknowledgements", "appendix", "contents",
            "table of contents");
    private static final Pattern NUMBERED_CAPTION = Pattern.compile("^(figure|fig\\.|table|section|chapter|appendix)\\s*[0-9ivx]+");

    private QualityGate() {}

    /** The rule a candidate name breaks, or null when it passes. */
    public static Rule check(String name, int maxChars, double minPrintable) {
        if (name == null) return Rule.LENGTH;
        String n = name.trim();
        int cps = n.codePointCount(0, n.length());
        if (cps == 0 || cps > maxChars) return Rule.LENGTH;
        if (printableShare(n) < minPrintable) return Rule.PRINTABLE;
        String[] tokens = n.split("\\s+");
        if (fragment(n, tokens)) return Rule.SENTENCE_FRAGMENT;
        if (code(n, tokens)) return Rule.CODE;
        if (math(n)) return Rule.MATH;
        if (punctFlood(n)) return Rule.PUNCT_FLOOD;
        if (garbled(n, tokens)) return Rule.GARBLED;
        if (heading(n)) return Rule.GENERIC_HEADING;
        return null;
    }

    public static Rule check(String name) {
        return check(name, 60, 0.70);
    }

    private static double printableShare(String s) {
        int all = 0, ok = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            all++;
            int t = Character.getType(cp);
            boolean bad = t == Character.CONTROL || t == Character.FORMAT || t == Character.PRIVATE_USE || t == Character.UNASSIGNED || cp == 0xFFFD;
            if (!bad) ok++;
        }
        return all == 0 ? 0 : (double) ok / all;
    }

    private static boolean fragment(String n, String[] tokens) {
        if (tokens.length > 8) return true;
        char last = n.charAt(n.length() - 1);
        if (",;:!?".indexOf(last) >= 0) return true;
        if (last == '.' && tokens.length >= 4) return true;
        return FRAGMENT_START.contains(tokens[0].toLowerCase(Locale.ROOT));
    }

    private static boolean code(String n, String[] tokens) {
        boolean keyword = false;
        for (String t : tokens) if (CODE_WORDS.contains(t)) keyword = true;
        if (keyword && n.chars().anyMatch(c -> "(){}[];=<>".indexOf(c) >= 0)) return true;
        for (String op : new String[] {"==", "!=", "&&", "||", "::", "=>", "();", "{}"}) if (n.contains(op)) return true;
        return false;
    }

    private static boolean math(String n) {
        if (Pattern.compile("\\\\[A-Za-z]+").matcher(n).find() || n.indexOf('$') >= 0) return true;
        for (char c : "∑∏∫√≤≥±≈∞∂∇".toCharArray()) if (n.indexOf(c) >= 0) return true;
        String compact = n.replaceAll("\\s", "");
        if (n.length() >= 6 && !compact.isEmpty()) {
            long mathy = compact.chars().filter(c -> Character.isDigit(c) || "+-*/^=_()".indexOf(c) >= 0).count();
            return (double) mathy / compact.length() > 0.5;
        }
        return false;
    }

    private static boolean punctFlood(String n) {
        String compact = n.replaceAll("\\s", "");
        long punct = compact.codePoints().filter(cp -> {
            int t = Character.getType(cp);
            return t == Character.CONNECTOR_PUNCTUATION || t == Character.DASH_PUNCTUATION || t == Character.START_PUNCTUATION
                    || t == Character.END_PUNCTUATION || t == Character.INITIAL_QUOTE_PUNCTUATION || t == Character.FINAL_QUOTE_PUNCTUATION
                    || t == Character.OTHER_PUNCTUATION || t == Character.MATH_SYMBOL || t == Character.CURRENCY_SYMBOL
                    || t == Character.MODIFIER_SYMBOL || t == Character.OTHER_SYMBOL;
        }).count();
        if (!compact.isEmpty() && (double) punct / compact.length() > 0.30) return true;
        for (int i = 0; i + 2 < n.length(); i++) {
            char c = n.charAt(i);
            if (!Character.isLetterOrDigit(c) && !Character.isWhitespace(c) && n.charAt(i + 1) == c && n.charAt(i + 2) == c) return true;
        }
        return false;
    }

    private static boolean garbled(String n, String[] tokens) {
        if (n.indexOf('\uFFFD') >= 0 || n.contains("(cid:") || n.contains("Ã") || n.contains("â€") || n.contains("Â")) return true;
        int run = 0;
        for (String t : tokens) {
            run = t.codePointCount(0, t.length()) == 1 && Character.isLetter(t.codePointAt(0)) ? run + 1 : 0;
            if (run >= 3) return true;
        }
        return false;
    }

    private static boolean heading(String n) {
        String h = HEADING_NUMBER.matcher(n).replaceFirst("").toLowerCase(Locale.ROOT).trim();
        return HEADINGS.contains(h) || NUMBERED_CAPTION.matcher(n.toLowerCase(Locale.ROOT)).find();
    }
}
