package dev.graphrag;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The import rules of docs/contributing.md, read from the sources: a method package never names another method's
 * package, core names no method, and below core's top package nothing names RagCall or GraphRagRuntime (they sit on
 * top; a core class needs the database, the log or the cancellation hook, not the runtime). Names count wherever they
 * appear, in imports and in fully qualified uses alike.
 */
@LineIndependent
class ArchitectureTest {
    static final Path SOURCES = Path.of("src", "main", "java", "dev", "graphrag");
    static final List<String> METHODS = List.of("agrag", "remind", "hgmem", "raga");
    static final Pattern NAMED = Pattern.compile("\\bdev\\.graphrag\\.(\\w+)(\\.(\\w+))?");
    static final Pattern RUNTIME_OR_CALL = Pattern.compile("\\b(RagCall|GraphRagRuntime)\\b");

    record Source(Path file, String text) {}

    record Use(Path file, String from, String to, String name) {}

    /** The plugin's main sources, read once for every rule (paths relative to {@link #SOURCES}, package lines removed), and the project names they use. */
    static List<Source> sources;
    static List<Use> uses;

    @BeforeAll
    static void read() throws IOException {
        List<Source> read = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                read.add(new Source(SOURCES.relativize(f), Files.readString(f).replaceFirst("(?m)^package [^;]+;", "")));
            }
        }
        List<Use> found = new ArrayList<>();
        for (Source s : read) {
            Matcher m = NAMED.matcher(s.text());
            while (m.find()) found.add(new Use(s.file(), s.file().getName(0).toString(), m.group(1), m.group(3)));
        }
        sources = read;
        uses = found;
    }

    @Test
    void theSourcesAreWhereTheRulesLook() {
        assertTrue(uses.size() > 200, "the rules read the plugin's sources: " + uses.size() + " uses of project names");
        for (String method : METHODS) {
            assertTrue(uses.stream().anyMatch(u -> u.from().equals(method) && u.to().equals("core")), method + " uses core");
        }
    }

    @Test
    void aMethodNeverNamesAnotherMethod() {
        List<String> crossings = uses.stream().filter(u -> METHODS.contains(u.from()) && METHODS.contains(u.to()) && !u.from().equals(u.to()))
                .map(u -> u.file() + " -> " + u.to() + "." + u.name()).distinct().toList();
        assertEquals(List.of(), crossings, "shared code belongs in core");
    }

    @Test
    void coreNamesNoMethod() {
        List<String> crossings = uses.stream().filter(u -> u.from().equals("core") && METHODS.contains(u.to()))
                .map(u -> u.file() + " -> " + u.to() + "." + u.name()).distinct().toList();
        assertEquals(List.of(), crossings);
    }

    @Test
    void belowCoresTopPackageNothingNamesTheRuntimeOrTheCall() {
        // core/<sub>/File.java, not core/File.java
        List<String> upward = sources.stream().filter(s -> s.file().getName(0).toString().equals("core") && s.file().getNameCount() > 2)
                .filter(s -> RUNTIME_OR_CALL.matcher(s.text()).find()).map(s -> s.file().toString()).toList();
        assertEquals(List.of(), upward, "RagCall and GraphRagRuntime sit on top of core");
    }

    /**
     * core's subpackages name each other without a cycle (config and graph at the bottom, search above lexical, layer
     * above both): a cycle is an arrow back up, which makes a package impossible to read or test without the ones above it.
     */
    @Test
    void coresSubpackagesFormNoCycle() {
        java.util.Map<String, java.util.Set<String>> deps = new java.util.TreeMap<>();
        for (Source s : sources) {
            if (!s.file().getName(0).toString().equals("core") || s.file().getNameCount() < 3) continue;
            String from = s.file().getName(1).toString();
            Matcher m = CORE_SUB.matcher(s.text());
            while (m.find()) if (!m.group(1).equals(from)) deps.computeIfAbsent(from, k -> new java.util.TreeSet<>()).add(m.group(1));
        }
        assertTrue(deps.size() >= 6, "the rule reads core's subpackages: " + deps);
        assertEquals(List.of(), cycles(deps), "core's subpackages by what they name: " + deps);
    }

    static final Pattern CORE_SUB = Pattern.compile("\\bdev\\.graphrag\\.core\\.([a-z]+)\\.");

    /** Every package that reaches itself through the others, with the path. */
    static List<String> cycles(java.util.Map<String, java.util.Set<String>> deps) {
        List<String> out = new ArrayList<>();
        for (String start : new java.util.TreeSet<>(deps.keySet())) {
            java.util.Deque<List<String>> paths = new java.util.ArrayDeque<>(List.of(List.of(start)));
            java.util.Set<String> seen = new java.util.HashSet<>();
            while (!paths.isEmpty()) {
                List<String> path = paths.poll();
                for (String next : new java.util.TreeSet<>(deps.getOrDefault(path.get(path.size() - 1), java.util.Set.of()))) {
                    List<String> longer = new ArrayList<>(path);
                    longer.add(next);
                    if (next.equals(start)) {
                        out.add(String.join(" -> ", longer));
                    } else if (seen.add(next)) {
                        paths.add(longer);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void theCycleCheckSeesACycle() {
        assertEquals(List.of("lexical -> search -> lexical", "search -> lexical -> search"),
                cycles(java.util.Map.of("lexical", java.util.Set.of("search"), "search", java.util.Set.of("lexical", "llm"))));
        assertEquals(List.of(), cycles(java.util.Map.of("search", java.util.Set.of("lexical", "llm"), "lexical", java.util.Set.of("config"))));
    }

    @Test
    void theCheckSeesACrossing() {
        Matcher m = NAMED.matcher("import dev.graphrag.agrag.AgragGraph; x = dev.graphrag.core.llm.LlmClient.of(y);");
        List<String> seen = new ArrayList<>();
        while (m.find()) seen.add(m.group(1) + "." + m.group(3));
        assertEquals(List.of("agrag.AgragGraph", "core.llm"), seen);
    }
}
