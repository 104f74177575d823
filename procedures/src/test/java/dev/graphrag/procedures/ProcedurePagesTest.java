package dev.graphrag.procedures;

import dev.graphrag.LineIndependent;
import dev.graphrag.core.llm.StandInLlm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The procedure pages (docs/&lt;family&gt;/&lt;name&gt;.md) as APOC's and GDS's are: a typed table of config keys, a typed
 * table of the columns it yields (each column's type must be the one the server declares), and a worked example whose
 * output table is what the example really returns. The example data of a family are its cypher/ walk-throughs (their
 * drop, reset and delete statements left out); pages that destroy something run last. Output tables are written by
 * {@code mvn -pl procedures verify -Dit.test=ProcedurePagesTest -Ddocs.update=true} and checked here for their columns and for
 * having rows or none (values such as ms and ids differ between runs, and row counts with what other tests left in the
 * shared server, so those are not compared).
 */
@LineIndependent
class ProcedurePagesTest {
    static final Path DOCS = Path.of("..", "docs");
    static final List<String> FAMILIES = List.of("rag", "agrag", "remind", "hgmem", "raga");
    static final Pattern DESTRUCTIVE = Pattern.compile("\\.(drop|delete|reset)\\b|\\.session\\.drop");
    static final StandInLlm LLM = StandInLlm.start();

    @AfterAll
    static void stop() {
        LLM.close();
    }

    static Map<String, Object> params() {
        return Map.of("llm", Map.of("endpoint", LLM.endpoint(), "model", "stand-in"));
    }

    static List<Path> pages(String family) throws IOException {
        Path dir = DOCS.resolve(family);
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".md"))
                    .sorted(Comparator.comparing(ProcedurePagesTest::destruction).thenComparing(Path::toString))
                    .toList();
        }
    }

    /** Pages that keep the data first; then resets and deletes, session drops, and layer drops last. */
    static int destruction(Path page) {
        String f = page.getFileName().toString();
        if (!DESTRUCTIVE.matcher(f).find()) return 0;
        return f.contains(".session.drop") ? 2 : f.contains(".drop") ? 3 : 1;
    }

    static String nameOf(Path page) {
        String f = page.getFileName().toString();
        return f.substring(0, f.length() - 3);
    }

    /** The yielded columns and their types, by procedure name. */
    static Map<String, Map<String, String>> columns(List<Map<String, Object>> surface) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        Pattern yields = Pattern.compile("\\) :: \\((.*)\\)$");
        for (Map<String, Object> p : surface) {
            if ("FUNCTION".equals(p.get("mode"))) continue;
            Matcher m = yields.matcher((String) p.get("signature"));
            assertTrue(m.find(), "cannot read the columns of " + p.get("signature"));
            Map<String, String> cols = new LinkedHashMap<>();
            for (String column : m.group(1).split(", (?=\\w+ :: )")) {
                int sep = column.indexOf(" :: ");
                cols.put(column.substring(0, sep).trim(), column.substring(sep + 4).trim());
            }
            out.put((String) p.get("name"), cols);
        }
        return out;
    }

    /** Markdown tables of a page: each a list of rows of cells, the header first. */
    static List<List<List<String>>> tables(String page) {
        List<List<List<String>>> out = new ArrayList<>();
        List<List<String>> cur = null;
        for (String line : page.split("\n")) {
            if (line.startsWith("|")) {
                if (cur == null) cur = new ArrayList<>();
                if (!line.matches("\\|[-| :]+\\|?")) cur.add(cells(line));
            } else if (cur != null) {
                out.add(cur);
                cur = null;
            }
        }
        if (cur != null) out.add(cur);
        return out;
    }

    static List<String> cells(String line) {
        String body = line.strip();
        body = body.substring(1, body.endsWith("|") ? body.length() - 1 : body.length());
        List<String> out = new ArrayList<>();
        for (String c : body.split("(?<!\\\\)\\|", -1)) out.add(c.strip());
        return out;
    }

    static String normalType(String t) {
        String s = t.replace("`", "").strip().toUpperCase(java.util.Locale.ROOT);
        return s.equals("DATETIME") ? "ZONED DATETIME" : s;
    }

    /** Every page: a typed output table listing each yielded column with the server's type, and a typed key table. */
    @Test
    void everyPageHasTypedTablesOfItsKeysAndColumns() throws IOException {
        List<Map<String, Object>> procedures = ProcedureSignaturesTest.surface();
        Map<String, Map<String, String>> columns = columns(procedures);
        Map<String, Map<String, Object>> surface = new LinkedHashMap<>();
        for (Map<String, Object> p : procedures) surface.put((String) p.get("name"), p);
        List<String> problems = new ArrayList<>();
        int pages = 0;
        for (String family : FAMILIES) {
            for (Path page : pages(family)) {
                String name = nameOf(page), text = Files.readString(page);
                Map<String, String> declared = columns.get(name);
                if (declared == null) continue; // a function's page
                pages++;
                Map<String, String> documented = new LinkedHashMap<>();
                boolean keyTable = false;
                for (List<List<String>> t : tables(text)) {
                    List<String> header = t.get(0);
                    if (header.size() >= 2 && header.get(0).equals("column") && header.get(1).equals("type")) {
                        for (List<String> row : t.subList(1, t.size())) {
                            // "a, b | INTEGER" types both; "a, b | STRING, INTEGER" types them in order
                            String[] names = row.get(0).replace("`", "").split(","), types = row.get(1).split(",");
                            for (int i = 0; i < names.length; i++) {
                                documented.put(names[i].strip(), normalType(types.length == names.length ? types[i] : row.get(1)));
                            }
                        }
                    }
                    if (header.size() >= 2 && header.get(0).equals("key") && header.get(1).equals("type")) {
                        keyTable = true;
                        for (List<String> row : t.subList(1, t.size())) if (row.get(1).isBlank()) problems.add(page + ": key " + row.get(0) + " has no type");
                    }
                }
                for (Map.Entry<String, String> c : declared.entrySet()) {
                    if (!documented.containsKey(c.getKey())) problems.add(page + ": the column table does not list '" + c.getKey() + "'");
                    else if (!normalType(c.getValue()).equals(documented.get(c.getKey()))) {
                        problems.add(page + ": column '" + c.getKey() + "' is " + c.getValue() + ", the table says " + documented.get(c.getKey()));
                    }
                }
                for (String d : documented.keySet()) if (!declared.containsKey(d)) problems.add(page + ": lists a column the procedure does not yield: " + d);
                Map<String, Object> procedure = surface.get(name);
                if (((String) procedure.get("signature")).contains("config = {} :: MAP") && !ProcedureSignaturesTest.acceptedKeys(procedure).isEmpty()) {
                    if (!keyTable) problems.add(page + ": no '| key | type |' table of its config keys");
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(pages > 50, "procedure pages checked: " + pages);
    }

    /** Per family: the example data, then every page's example, whose output must be the table shown under it. */
    @TestFactory
    Stream<DynamicNode> everyPageHasAWorkedExampleWithItsRealOutput() {
        CypherScripts.standInRules(LLM);
        boolean update = Boolean.getBoolean("docs.update");
        return FAMILIES.stream().map(family -> DynamicContainer.dynamicContainer(family, Stream.concat(
                Stream.of(DynamicTest.dynamicTest("example data", () -> exampleData(family))),
                pagesOf(family).stream().map(page -> DynamicTest.dynamicTest(page.getFileName().toString(), () -> checkExample(page, update))))));
    }

    static List<Path> pagesOf(String family) {
        try {
            return pages(family);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The family's walk-throughs (rag's and agrag's with the LLM one), without what drops, resets or deletes (those run over
     * Bolt in RealServerTest); each statement must return rows.
     */
    static void exampleData(String family) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path f : CypherScripts.files()) {
            String dir = f.getParent().getFileName().toString();
            if (dir.equals(family) || (dir.equals("llm") && (family.equals("rag") || family.equals("agrag")))) files.add(f);
        }
        assertFalse(files.isEmpty(), "no cypher/ walk-through for " + family);
        SampleFiles.copyTo(TestServer.importDir()); // cypher/rag/02-files.cypher reads them
        for (Path f : files) {
            for (String statement : CypherScripts.statements(Files.readString(f))) {
                if (DESTRUCTIVE.matcher(statement).find() || statement.contains("rag.delete(")) continue;
                // every statement returns rows, the two that need GDS included (RealServerTest's server has none)
                assertFalse(TestServer.rows(statement, params()).isEmpty(), f.getFileName() + ": no rows from: " + statement);
            }
        }
    }

    static final Pattern EXAMPLE = Pattern.compile("## Example\\n(?:[^`]*?\\n)?```cypher\\n(.*?)\\n```\\n\\n((?:\\|.*\\n?)+)", Pattern.DOTALL);

    static void checkExample(Path page, boolean update) throws IOException {
        String text = Files.readString(page);
        Matcher m = EXAMPLE.matcher(text);
        assertTrue(m.find(), page + ": no '## Example' with a ```cypher block followed by its output table");
        List<String> statements = CypherScripts.statements(m.group(1).strip() + (m.group(1).strip().endsWith(";") ? "" : ";"));
        for (String s : statements.subList(0, statements.size() - 1)) TestServer.rows(s, params());
        String last = statements.get(statements.size() - 1);
        Output out = TestServer.db().executeTransactionally(last, params(), r -> {
            List<String> cols = r.columns();
            List<List<String>> rows = new ArrayList<>();
            r.forEachRemaining(row -> rows.add(cols.stream().map(c -> cell(row.get(c))).toList()));
            return new Output(cols, rows);
        });
        if (update) {
            Files.writeString(page, text.substring(0, m.start(2)) + out.table() + text.substring(m.end(2)));
            return;
        }
        List<List<String>> shown = tables(m.group(2)).get(0);
        assertEquals(out.columns(), shown.get(0), page + ": the example's output table has other columns than the query returns");
        // how many rows depends on what other tests left in the shared server; whether there are any does not
        assertEquals(shown.size() > 1, !out.rows().isEmpty(), page + ": the example returns " + out.rows().size() + " rows, its table shows "
                + (shown.size() - 1) + " (regenerate with -Ddocs.update=true)");
    }

    record Output(List<String> columns, List<List<String>> rows) {
        String table() {
            StringBuilder b = new StringBuilder("| ").append(String.join(" | ", columns)).append(" |\n|");
            b.append("---|".repeat(columns.size())).append('\n');
            for (List<String> r : rows) b.append("| ").append(String.join(" | ", r)).append(" |\n");
            return b.toString();
        }
    }

    /** A value as a table cell: short, on one line, vectors and long texts abridged. */
    static String cell(Object v) {
        String s = render(v);
        return s.replace("\n", " ").replace("|", "\\|");
    }

    static String render(Object v) {
        if (v == null) return "null";
        if (v instanceof String s) return "\"" + abridge(s, 60) + "\"";
        if (v instanceof Double || v instanceof Float) return String.format(java.util.Locale.ROOT, "%.4g", ((Number) v).doubleValue());
        if (v instanceof Node n) {
            String labels = java.util.stream.StreamSupport.stream(n.getLabels().spliterator(), false).map(l -> ":" + l.name()).collect(Collectors.joining());
            for (String key : List.of("name", "title", "id", "chunkId", "description")) {
                if (n.hasProperty(key)) return "(" + labels + " {" + key + ": " + render(n.getProperty(key)) + "})";
            }
            return "(" + labels + ")";
        }
        if (v instanceof Relationship r) return "[:" + r.getType().name() + "]";
        if (v instanceof TemporalAccessor t) return t.toString();
        if (v instanceof float[] || v instanceof double[]) return render(toList(v));
        if (v instanceof List<?> l) {
            if (l.size() >= 16 && l.get(0) instanceof Number) return "[" + render(l.get(0)) + ", " + render(l.get(1)) + ", … (" + l.size() + " values)]";
            String items = l.stream().limit(3).map(ProcedurePagesTest::render).collect(Collectors.joining(", "));
            return "[" + items + (l.size() > 3 ? ", … (" + l.size() + " in all)" : "") + "]";
        }
        if (v instanceof Map<?, ?> mp) {
            String items = mp.entrySet().stream().map(e -> e.getKey() + ": " + render(e.getValue())).collect(Collectors.joining(", "));
            return "{" + abridge(items, 120) + "}";
        }
        return String.valueOf(v);
    }

    static List<Object> toList(Object array) {
        List<Object> out = new ArrayList<>();
        if (array instanceof float[] f) for (float x : f) out.add((double) x);
        if (array instanceof double[] d) for (double x : d) out.add(x);
        return out;
    }

    static String abridge(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
