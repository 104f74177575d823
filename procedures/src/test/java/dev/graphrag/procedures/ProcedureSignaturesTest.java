package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Cypher surface pinned down, as APOC's ArgumentDescriptionsTest does: every procedure's and function's
 * signature, mode and description as the server lists them must equal the checked-in snapshot, and each must have
 * a docs section that names every column it yields. A deliberate change is recorded with
 * {@code mvn -pl procedures verify -Dit.test=ProcedureSignaturesTest -Dsignatures.update=true} and reviewed in the diff.
 */
class ProcedureSignaturesTest {
    static final Path SNAPSHOT = Path.of("src", "test", "resources", "procedure-signatures.txt");
    static final Path DOCS = Path.of("..", "docs");

    static List<Map<String, Object>> surface() {
        List<Map<String, Object>> out = new ArrayList<>(rows("""
                SHOW PROCEDURES YIELD name, signature, description, mode
                WHERE name STARTS WITH 'rag.' OR name STARTS WITH 'agrag.' OR name STARTS WITH 'remind.' OR name STARTS WITH 'hgmem.' OR name STARTS WITH 'raga.'
                RETURN name, signature, description, mode ORDER BY name"""));
        out.addAll(rows("""
                SHOW FUNCTIONS YIELD name, signature, description
                WHERE name STARTS WITH 'rag.' OR name STARTS WITH 'agrag.' OR name STARTS WITH 'remind.' OR name STARTS WITH 'hgmem.' OR name STARTS WITH 'raga.'
                RETURN name, signature, description, 'FUNCTION' AS mode ORDER BY name"""));
        return out;
    }

    static String render(List<Map<String, Object>> surface) {
        StringBuilder b = new StringBuilder();
        for (Map<String, Object> p : surface) {
            b.append(p.get("name")).append(" [").append(p.get("mode")).append("]\n  ").append(p.get("signature")).append("\n  ")
                    .append(p.get("description")).append("\n");
        }
        return b.toString();
    }

    @Test
    void signaturesAndDescriptionsMatchTheSnapshot() throws IOException {
        String now = render(surface());
        if (Boolean.getBoolean("signatures.update")) Files.writeString(SNAPSHOT, now);
        assertTrue(Files.exists(SNAPSHOT), "no snapshot at " + SNAPSHOT.toAbsolutePath() + "; create it with -Dsignatures.update=true");
        assertEquals(Files.readString(SNAPSHOT), now, "the Cypher surface changed: review, then record it with -Dsignatures.update=true");
    }

    @Test
    void listArgumentsSayWhatTheyHold() {
        for (Map<String, Object> p : surface()) {
            String signature = (String) p.get("signature");
            String arguments = signature.substring(0, signature.indexOf(')') + 1);
            assertFalse(arguments.contains("LIST<ANY>"), p.get("name") + " takes an untyped list: " + signature);
        }
    }

    @Test
    void everyProcedureHasADocsSectionNamingItsColumns() throws IOException {
        Pattern yields = Pattern.compile("\\) :: \\((.*)\\)$");
        for (Map<String, Object> p : surface()) {
            String name = (String) p.get("name");
            String section = docsOf(name);
            if ("FUNCTION".equals(p.get("mode"))) continue;
            Matcher m = yields.matcher((String) p.get("signature"));
            assertTrue(m.find(), "cannot read the columns of " + p.get("signature"));
            for (String column : m.group(1).split(", ")) {
                String col = column.substring(0, column.indexOf(" :: ")).trim();
                assertTrue(section.contains(col), name + "'s docs do not mention its column '" + col + "'");
            }
        }
    }

    /** A placeholder argument of a Cypher type, good enough to reach the config parser. */
    static String placeholder(String type) {
        return switch (type) {
            case "STRING" -> "'x'";
            case "LIST<MAP>" -> "[{id: 'x', text: 'x', role: 'user', content: 'x'}]";
            case "LIST<STRING>" -> "['x']";
            case "MAP" -> "{}";
            default -> "null";
        };
    }

    /** The parser's own list of the keys it accepts, from its error for a key nobody declares. */
    static List<String> acceptedKeys(Map<String, Object> procedure) {
        String signature = (String) procedure.get("signature");
        String args = signature.substring(signature.indexOf('(') + 1, signature.indexOf(')'));
        List<String> values = new ArrayList<>();
        for (String a : args.split(", ")) {
            if (a.isBlank()) continue;
            String name = a.substring(0, a.indexOf(' '));
            String type = a.substring(a.lastIndexOf(":: ") + 3);
            values.add(name.equals("config") ? "{zzzNotAKey: 1}" : placeholder(type));
        }
        try {
            rows("CALL " + procedure.get("name") + "(" + String.join(", ", values) + ")");
        } catch (org.neo4j.graphdb.QueryExecutionException e) {
            Matcher m = Pattern.compile("unknown config key 'zzzNotAKey'(?:; did you mean '[^']*'\\?)? valid keys are \\[([^]]*)]").matcher(e.getMessage());
            assertTrue(m.find(), procedure.get("name") + " did not name its valid keys: " + e.getMessage());
            return m.group(1).isBlank() ? List.of() : List.of(m.group(1).split(", "));
        }
        throw new AssertionError(procedure.get("name") + " accepted an unknown config key");
    }

    static final Pattern KEYS_OF = Pattern.compile("\\[[^]]+]\\(([\\w.]+)\\.md\\) keys");

    /**
     * A procedure's docs: its own page docs/<method>/<name>.md (plus the pages it points to for "the [x](x.md) keys"),
     * else its '## name(' section of docs/<method>.md, else of docs/procedures.md.
     */
    static String docsOf(String name) throws IOException {
        String method = name.substring(0, name.indexOf('.'));
        Path own = DOCS.resolve(method).resolve(name + ".md");
        if (Files.exists(own)) {
            String docs = Files.readString(own);
            StringBuilder all = new StringBuilder(docs);
            // "the [x](x.md) keys", followed through every page it leads to
            java.util.Deque<String> todo = new java.util.ArrayDeque<>(List.of(docs));
            java.util.Set<String> seen = new java.util.HashSet<>(List.of(name));
            while (!todo.isEmpty()) {
                Matcher m = KEYS_OF.matcher(todo.pop());
                while (m.find()) {
                    if (!seen.add(m.group(1))) continue;
                    String page = Files.readString(DOCS.resolve(method).resolve(m.group(1) + ".md"));
                    all.append(page);
                    todo.push(page);
                }
            }
            if (docs.contains("[agrag.index](agrag.index.md)")) all.append(Files.readString(DOCS.resolve("agrag").resolve("agrag.index.md")));
            return all.toString();
        }
        for (Path page : List.of(DOCS.resolve(method + ".md"), DOCS.resolve("procedures.md"))) {
            if (!Files.exists(page)) continue;
            String text = Files.readString(page);
            int at = text.indexOf("## " + name + "(");
            if (at < 0) continue;
            int next = text.indexOf("\n## ", at + 3);
            return text.substring(at, next < 0 ? text.length() : next);
        }
        throw new AssertionError(name + " has no docs: docs/" + method + "/" + name + ".md, or a '## " + name + "(' section in docs/" + method
                + ".md or docs/procedures.md");
    }

    /** The procedures that take a config map. */
    static List<Map<String, Object>> configurable() {
        return surface().stream().filter(p -> ((String) p.get("signature")).contains("config = {} :: MAP")).toList();
    }

    @Test
    void everyConfigKeyAProcedureAcceptsIsInItsDescriptionAndDocs() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> p : configurable()) {
            String name = (String) p.get("name");
            String description = (String) p.get("description");
            String docs = docsOf(name);
            for (String key : acceptedKeys(p)) {
                Pattern word = Pattern.compile("\\b" + Pattern.quote(key) + "\\b");
                if (!word.matcher(docs).find()) problems.add(name + "'s docs do not mention its config key '" + key + "'");
                if (!word.matcher(description.substring(description.indexOf(" - "))).find()) {
                    problems.add(name + "'s @Description does not name its config key '" + key + "'");
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    /** A row of a key table ("| key | type | default | meaning |"): its first cell. */
    static final Pattern KEY_ROW = Pattern.compile("^\\| `?([A-Za-z][\\w.]*)`? \\|");

    /** The keys a page's own key tables list (tables whose header starts "| key |"). */
    static List<String> tabledKeys(String page) {
        List<String> keys = new ArrayList<>();
        boolean inTable = false;
        for (String line : page.split("\n")) {
            if (line.startsWith("| key |")) inTable = true;
            else if (!line.startsWith("|")) inTable = false;
            else if (inTable && !line.startsWith("|---")) {
                Matcher m = KEY_ROW.matcher(line);
                if (m.find()) keys.add(m.group(1));
            }
        }
        return keys;
    }

    /**
     * The single-word entries of a description's "Config:" list, up to the sentence's end: what a bracket holds is a
     * value or a sub-key (a default, "(global, local)", "llm {endpoint, ...}") and is skipped, except the list after
     * "the x keys"; prose entries ("the agrag.mcmi keys") are more than one word and skipped too.
     */
    static List<String> describedKeys(String description) {
        int at = description.indexOf("Config: ");
        if (at < 0) return List.of();
        String text = description.substring(at + 8);
        StringBuilder top = new StringBuilder();
        int depth = 0;
        boolean keyList = false;
        for (char c : text.toCharArray()) {
            if (c == '(' || c == '{') {
                if (depth++ == 0) keyList = top.toString().endsWith("keys ");
                top.append(',');
            } else if (c == ')' || c == '}') {
                depth = Math.max(0, depth - 1);
                top.append(',');
            } else if (depth == 0 || keyList && depth == 1) {
                top.append(c);
            }
        }
        String list = top.toString();
        int end = list.indexOf(". ");
        if (end >= 0) list = list.substring(0, end);
        List<String> keys = new ArrayList<>();
        for (String part : list.split("[,;]")) {
            String word = part.strip().replaceFirst("^(and|plus) ", "").replaceFirst("\\.$", "").strip();
            if (word.matches("[a-z][A-Za-z0-9]*")) keys.add(word);
        }
        return keys;
    }

    @Test
    void everyKeyADescriptionOrKeyTableListsIsOneTheProcedureAccepts() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> p : configurable()) {
            String name = (String) p.get("name");
            List<String> accepted = acceptedKeys(p);
            for (String key : describedKeys((String) p.get("description"))) {
                if (!accepted.contains(key)) problems.add(name + "'s @Description lists '" + key + "', which it does not accept");
            }
            Path own = DOCS.resolve(name.substring(0, name.indexOf('.'))).resolve(name + ".md");
            if (!Files.exists(own)) continue;
            for (String key : tabledKeys(Files.readString(own))) {
                if (!accepted.contains(key)) problems.add("docs/" + DOCS.relativize(own) + " has a row for '" + key + "', which " + name + " does not accept");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theKeyListReadersSeeKeysAndSkipProse() {
        assertEquals(List.of("corpus", "k", "rerank", "mode", "llm"),
                describedKeys("does x. Config: the agrag.mcmi keys (corpus, k) plus rerank (false), mode (global, local), llm {endpoint, model}. Then prose, words."));
        assertEquals(List.of("corpus", "llm.model"), tabledKeys("| key | type | default | meaning |\n|---|---|---|---|\n| corpus | STRING | d | m |\n| `llm.model` | STRING | d | m |\n\n| setting | x |\n| nope | y |"));
    }
}
