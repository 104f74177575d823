package dev.graphrag.core.lexical;

import java.util.regex.Pattern;

/** Document titles read as names, as Wikipedia's are: "Brother (Pearl Jam song)" names "Brother". */
public final class Titles {
    private static final Pattern DISAMBIGUATOR = Pattern.compile("\\s*\\([^()]*\\)\\s*$");

    private Titles() {}

    /** The title without a trailing parenthetical disambiguator; the title itself when that would leave nothing; null for null. */
    public static String withoutDisambiguator(String title) {
        if (title == null) return null;
        String bare = DISAMBIGUATOR.matcher(title).replaceFirst("");
        return bare.isBlank() ? title : bare;
    }
}
