package dev.graphrag;

import org.junit.jupiter.api.Tag;
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
@Tag("line-independent")
class ArchitectureTest {
    static final Path SOURCES = Path.of("src", "main", "java", "dev", "graphrag");
    static final List<String> METHODS = List.of("agrag", "remind", "hgmem", "raga");
    static final Pattern NAMED = Pattern.compile("\\bdev\\.graphrag\\.(\\w+)(\\.(\\w+))?");

    record Use(Path file, String from, String to, String name) {}

    static List<Use> uses() throws IOException {
        List<Use> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String from = SOURCES.relativize(f).getName(0).toString();
                String text = Files.readString(f).replaceFirst("(?m)^package [^;]+;", "");
                Matcher m = NAMED.matcher(text);
                while (m.find()) out.add(new Use(SOURCES.relativize(f), from, m.group(1), m.group(3)));
            }
        }
        return out;
    }

    @Test
    void theSourcesAreWhereTheRulesLook() throws IOException {
        List<Use> uses = uses();
        assertTrue(uses.size() > 200, "the rules read the plugin's sources: " + uses.size() + " uses of project names");
        for (String method : METHODS) {
            assertTrue(uses.stream().anyMatch(u -> u.from().equals(method) && u.to().equals("core")), method + " uses core");
        }
    }

    @Test
    void aMethodNeverNamesAnotherMethod() throws IOException {
        List<String> crossings = uses().stream().filter(u -> METHODS.contains(u.from()) && METHODS.contains(u.to()) && !u.from().equals(u.to()))
                .map(u -> u.file() + " -> " + u.to() + "." + u.name()).distinct().toList();
        assertEquals(List.of(), crossings, "shared code belongs in core");
    }

    @Test
    void coreNamesNoMethod() throws IOException {
        List<String> crossings = uses().stream().filter(u -> u.from().equals("core") && METHODS.contains(u.to()))
                .map(u -> u.file() + " -> " + u.to() + "." + u.name()).distinct().toList();
        assertEquals(List.of(), crossings);
    }

    @Test
    void belowCoresTopPackageNothingNamesTheRuntimeOrTheCall() throws IOException {
        List<String> upward = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES.resolve("core"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java") && p.getNameCount() > SOURCES.getNameCount() + 2).toList()) {
                if (Pattern.compile("\\b(RagCall|GraphRagRuntime)\\b").matcher(Files.readString(f)).find()) upward.add(SOURCES.relativize(f).toString());
            }
        }
        assertEquals(List.of(), upward, "RagCall and GraphRagRuntime sit on top of core");
    }

    @Test
    void theCheckSeesACrossing() {
        Matcher m = NAMED.matcher("import dev.graphrag.agrag.AgragGraph; x = dev.graphrag.core.llm.LlmClient.of(y);");
        List<String> seen = new ArrayList<>();
        while (m.find()) seen.add(m.group(1) + "." + m.group(3));
        assertEquals(List.of("agrag.AgragGraph", "core.llm"), seen);
    }
}
