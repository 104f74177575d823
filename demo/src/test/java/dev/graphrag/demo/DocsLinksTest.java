package dev.graphrag.demo;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link in the README and docs/ reaches a file that exists, and every #anchor one of that page's
 * headings (as GitHub makes them: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats). The results
 * pages and the notebook link into each other by dated headings, so a renamed heading must take its links along.
 */
@LineIndependent
class DocsLinksTest {
    static final Path ROOT = Path.of("..");
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    static final Pattern HEADING = Pattern.compile("^#+ (.*)$");

    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }

    static Set<String> anchors(Path page) {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean code = false;
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String line : lines) {
            if (line.startsWith("```")) code = !code;
            Matcher m = HEADING.matcher(line);
            if (code || !m.matches()) continue;
            String s = slug(m.group(1));
            int n = seen.merge(s, 1, Integer::sum) - 1;
            out.add(n == 0 ? s : s + "-" + n);
        }
        return out;
    }

    static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    static List<String> brokenLinks(Path page, Map<Path, Set<String>> anchors) throws IOException {
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(Files.readString(page));
        while (m.find()) {
            String target = m.group(1);
            if (target.matches("^[a-z]+:.*")) continue; // http(s), mailto
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            Path to = (file.isEmpty() ? page : page.getParent().resolve(file)).normalize();
            if (!Files.exists(to)) {
                broken.add(page + ": " + target + " (no such file)");
            } else if (hash >= 0 && to.toString().endsWith(".md")
                    && !anchors.computeIfAbsent(to, DocsLinksTest::anchors).contains(target.substring(hash + 1))) {
                broken.add(page + ": " + target + " (no such heading)");
            }
        }
        return broken;
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<Path> pages = pages();
        assertTrue(pages.size() > 10, "the docs are where this test looks: " + pages);
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path p : pages) broken.addAll(brokenLinks(p, anchors));
        assertEquals(List.of(), broken);
    }

    @Test
    void aRenamedHeadingOrAMissingPageIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), "# Scaling at 1x (2026-11-26)\n## Scaling at 1x (2026-11-26)\n```\n# not a heading\n```\n"
                + "[ok](#scaling-at-1x-2026-11-26) [repeat](#scaling-at-1x-2026-11-26-1) [old](#scaling-at-1x-session-29)"
                + " [code](#not-a-heading) [gone](b.md) [web](https://neo4j.com/#x)\n");
        List<String> broken = brokenLinks(dir.resolve("a.md"), new HashMap<>());
        assertEquals(3, broken.size(), broken.toString());
        assertTrue(broken.get(0).contains("#scaling-at-1x-session-29") && broken.get(1).contains("#not-a-heading")
                && broken.get(2).contains("b.md (no such file)"), broken.toString());
    }
}
