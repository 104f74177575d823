package dev.graphrag.procedures;

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
 * pages and the notebook link into each other by dated headings, so a renamed heading must take its links along. The
 * same holds for every docs/... path (and anchor) that a Java comment or string of any module names, and no file of
 * the project cites a design file the repository does not hold (a user's clone has only the repository).
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

    static final Pattern DOCS_PATH = Pattern.compile("docs/([\\w./-]+?\\.md)(#[\\w-]+)?");

    /** The docs paths (and anchors) a source file names that do not resolve, as "file:line: path (why)". */
    static List<String> brokenDocsPaths(Path source, Map<Path, Set<String>> anchors) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = Files.readAllLines(source);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = DOCS_PATH.matcher(lines.get(i));
            while (m.find()) {
                Path page = ROOT.resolve("docs").resolve(m.group(1)).normalize();
                if (!Files.isRegularFile(page)) {
                    broken.add(source + ":" + (i + 1) + ": docs/" + m.group(1) + " (no such file)");
                } else if (m.group(2) != null && !anchors.computeIfAbsent(page, DocsLinksTest::anchors).contains(m.group(2).substring(1))) {
                    broken.add(source + ":" + (i + 1) + ": docs/" + m.group(1) + m.group(2) + " (no such heading)");
                }
            }
        }
        return broken;
    }

    /** Every Java source of every module (main and test), and the files that ship beside them. */
    static List<Path> sources() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/") && !p.toString().contains("/target"))
                    .sorted().forEach(out::add);
        }
        return out;
    }

    @Test
    void everyDocsPathThatCodeNamesResolves() throws IOException {
        List<Path> sources = sources();
        assertTrue(sources.size() > 300, "every module's sources: " + sources.size());
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path p : sources) {
            if (!p.endsWith("DocsLinksTest.java")) broken.addAll(brokenDocsPaths(p, anchors)); // its own test names broken paths
        }
        assertEquals(List.of(), broken);
    }

    /** Design files kept outside the repository (the team's specs and reviews), which no user's clone has. */
    // written with escapes so this line does not match itself: a section sign after "spec", a spec file, the review, shared/
    static final Pattern OUTSIDE_CITATION = Pattern.compile("spec \\u00a7|spec[s]/[\\w-]+\\.md|wave2[-]review|shared/(specs|data|seeds|reviews)");

    @Test
    void noFileCitesADesignFileTheRepositoryLacks() throws IOException {
        List<Path> files = new ArrayList<>(sources());
        files.addAll(pages());
        try (Stream<Path> s = Files.walk(ROOT.resolve("cypher"))) {
            s.filter(Files::isRegularFile).forEach(files::add);
        }
        List<String> found = new ArrayList<>();
        for (Path f : files) {
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                if (OUTSIDE_CITATION.matcher(lines.get(i)).find()) found.add(f + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
        }
        assertEquals(List.of(), found, "cite the paper (title and section) or the method's docs page instead");
    }

    @Test
    void aDocsPathToAMissingPageOrHeadingInCodeIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path source = dir.resolve("A.java");
        Files.writeString(source, "/** See docs/agrag.md#design-notes and docs/raga/ingest.md, docs/remind.md#no-such-heading. */\n");
        List<String> broken = brokenDocsPaths(source, new HashMap<>());
        assertEquals(2, broken.size(), broken.toString());
        assertTrue(broken.get(0).endsWith("docs/raga/ingest.md (no such file)") && broken.get(1).endsWith("docs/remind.md#no-such-heading (no such heading)"),
                broken.toString());
    }

    @Test
    void aRenamedHeadingOrAMissingPageIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), "# Scaling at 1x (2026-11-26)\n## Scaling at 1x (2026-11-26)\n```\n# not a heading\n```\n"
                + "[ok](#scaling-at-1x-2026-11-26) [repeat](#scaling-at-1x-2026-11-26-1) [old](#scaling-at-1x-before-the-rename)"
                + " [code](#not-a-heading) [gone](b.md) [web](https://neo4j.com/#x)\n");
        List<String> broken = brokenLinks(dir.resolve("a.md"), new HashMap<>());
        assertEquals(3, broken.size(), broken.toString());
        assertTrue(broken.get(0).contains("#scaling-at-1x-before-the-rename") && broken.get(1).contains("#not-a-heading")
                && broken.get(2).contains("b.md (no such file)"), broken.toString());
    }
}
