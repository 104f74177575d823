package dev.graphrag;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module arrows of docs/contributing.md, read from the poms and the sources: the root pom lists its modules in
 * dependency order; the laboratory (lab/) is a leaf, so no other module depends on a lab module, and what users run
 * (the evaluation command, the demo) never reaches into it; nothing that ships (plugin/, procedures/src/main) names a
 * class of the demo, the evaluation, the oracle harness or the lab.
 */
@LineIndependent
class ModuleLayoutTest {
    static final Path ROOT = Path.of("..");
    static final Set<String> NOT_SHIPPED = Set.of("demo", "evaluation", "oracle", "benchmarks");

    /** The root pom's modules in order: path -> the artifactIds of this project's modules it depends on (any scope). */
    static Map<String, Set<String>> modules(Path root) throws Exception {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        collect(root, "", out);
        return out;
    }

    /** The modules of {@code dir}'s pom (profiles' too, in document order), an aggregator's own modules after it. */
    private static void collect(Path root, String dir, Map<String, Set<String>> out) throws Exception {
        NodeList names = xml(root.resolve(dir).resolve("pom.xml")).getElementsByTagName("module");
        for (int i = 0; i < names.getLength(); i++) {
            String path = (dir.isEmpty() ? "" : dir + "/") + names.item(i).getTextContent().strip();
            Set<String> deps = new TreeSet<>();
            NodeList ds = xml(root.resolve(path).resolve("pom.xml")).getElementsByTagName("dependency");
            for (int d = 0; d < ds.getLength(); d++) {
                Element e = (Element) ds.item(d);
                if (text(e, "groupId").equals("dev.graphrag")) deps.add(text(e, "artifactId"));
            }
            out.put(path, deps);
            collect(root, path, out);
        }
    }

    static String artifactId(Path root, String module) throws Exception {
        Element project = xml(root.resolve(module).resolve("pom.xml")).getDocumentElement();
        NodeList children = project.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals("artifactId")) return e.getTextContent().strip();
        }
        throw new AssertionError(module + "/pom.xml names no artifactId");
    }

    static Document xml(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    static String text(Element e, String tag) {
        NodeList n = e.getElementsByTagName(tag);
        return n.getLength() == 0 ? "" : n.item(0).getTextContent().strip();
    }

    /** What is wrong with a layout: a module listed before one it depends on, or a lab module something else depends on. */
    static List<String> problems(Path root) throws Exception {
        Map<String, Set<String>> modules = modules(root);
        Map<String, String> pathOf = new LinkedHashMap<>();
        for (String m : modules.keySet()) pathOf.put(artifactId(root, m), m);
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Map.Entry<String, Set<String>> m : modules.entrySet()) {
            for (String dep : m.getValue()) {
                String depPath = pathOf.get(dep);
                if (depPath == null) continue; // the parent, or another project's artifact
                if (!seen.contains(depPath)) problems.add(m.getKey() + " is listed before " + depPath + ", which it depends on");
                if (depPath.startsWith("lab/") && !m.getKey().startsWith("lab/")) problems.add(m.getKey() + " depends on the laboratory module " + depPath);
            }
            seen.add(m.getKey());
        }
        return problems;
    }

    @Test
    void modulesAreListedInDependencyOrderAndTheLaboratoryIsALeaf() throws Exception {
        Map<String, Set<String>> modules = modules(ROOT);
        assertTrue(modules.keySet().containsAll(List.of("plugin", "procedures", "oracle", "demo", "evaluation", "lab/benchmarks",
                "integrations/client", "integrations/langchain4j", "integrations/mcp-server")), modules.toString());
        assertEquals(List.of(), problems(ROOT));
        // what applications embed speaks Bolt only: the client depends on no module of ours, the adapters on the client alone
        assertEquals(Set.of(), modules.get("integrations/client"));
        assertEquals(Set.of("graphrag-client"), modules.get("integrations/langchain4j"));
        assertEquals(Set.of("graphrag-client"), modules.get("integrations/mcp-server"));
    }

    @Test
    void aModuleBeforeItsDependencyOrADependencyOnTheLabIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("pom.xml"), "<project><modules><module>app</module><module>lab/tool</module><module>lib</module></modules></project>");
        for (String[] m : List.of(new String[] {"app", "x-app", "x-lib"}, new String[] {"lab/tool", "x-tool", "x-lib"}, new String[] {"lib", "x-lib", null})) {
            Files.createDirectories(dir.resolve(m[0]));
            String deps = m[2] == null ? "" : "<dependencies><dependency><groupId>dev.graphrag</groupId><artifactId>" + m[2] + "</artifactId></dependency>"
                    + (m[0].equals("app") ? "<dependency><groupId>dev.graphrag</groupId><artifactId>x-tool</artifactId></dependency>" : "") + "</dependencies>";
            Files.writeString(dir.resolve(m[0]).resolve("pom.xml"), "<project><artifactId>" + m[1] + "</artifactId>" + deps + "</project>");
        }
        assertEquals(List.of("app is listed before lib, which it depends on", "app is listed before lab/tool, which it depends on",
                "app depends on the laboratory module lab/tool", "lab/tool is listed before lib, which it depends on"), problems(dir));
    }

    static final Pattern NAMED = Pattern.compile("\\bdev\\.graphrag\\.(\\w+)");

    @Test
    void nothingThatShipsNamesTheDemoTheEvaluationTheOracleOrTheLab() throws IOException {
        List<String> found = new ArrayList<>();
        int files = 0;
        for (Path dir : List.of(ROOT.resolve("plugin/src/main/java"), ROOT.resolve("procedures/src/main/java"))) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path f : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                    files++;
                    Matcher m = NAMED.matcher(Files.readString(f));
                    while (m.find()) if (NOT_SHIPPED.contains(m.group(1))) found.add(ROOT.relativize(f) + " names dev.graphrag." + m.group(1));
                }
            }
        }
        assertTrue(files > 200, "the shipped sources: " + files);
        assertEquals(List.of(), found);
    }
}
