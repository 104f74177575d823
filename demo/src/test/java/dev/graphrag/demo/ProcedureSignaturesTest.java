package dev.graphrag.demo;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.graphrag.demo.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Cypher surface pinned down, as APOC's ArgumentDescriptionsTest does: every procedure's and function's
 * signature, mode and description as the server lists them must equal the checked-in snapshot, and each must have
 * a docs section that names every column it yields. A deliberate change is recorded with
 * {@code mvn -pl demo test -Dtest=ProcedureSignaturesTest -Dsignatures.update=true} and reviewed in the diff.
 */
class ProcedureSignaturesTest {
    static final Path SNAPSHOT = Path.of("src", "test", "resources", "procedure-signatures.txt");
    static final Path DOCS = Path.of("..", "docs");

    static List<Map<String, Object>> surface() {
        List<Map<String, Object>> out = new ArrayList<>(rows("""
                SHOW PROCEDURES YIELD name, signature, description, mode
                WHERE name STARTS WITH 'rag.' OR name STARTS WITH 'agrag.' RETURN name, signature, description, mode ORDER BY name"""));
        out.addAll(rows("""
                SHOW FUNCTIONS YIELD name, signature, description WHERE name STARTS WITH 'rag.' OR name STARTS WITH 'agrag.'
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
        String platform = Files.readString(DOCS.resolve("procedures.md"));
        Pattern yields = Pattern.compile("\\) :: \\((.*)\\)$");
        for (Map<String, Object> p : surface()) {
            String name = (String) p.get("name");
            String section;
            Path own = DOCS.resolve("agrag").resolve(name + ".md");
            if (Files.exists(own)) {
                section = Files.readString(own);
            } else {
                int at = platform.indexOf("## " + name + "(");
                assertTrue(at >= 0, name + " has no docs section: docs/procedures.md '## " + name + "(' or docs/agrag/" + name + ".md");
                int next = platform.indexOf("\n## ", at + 3);
                section = platform.substring(at, next < 0 ? platform.length() : next);
            }
            if ("FUNCTION".equals(p.get("mode"))) continue;
            Matcher m = yields.matcher((String) p.get("signature"));
            assertTrue(m.find(), "cannot read the columns of " + p.get("signature"));
            for (String column : m.group(1).split(", ")) {
                String col = column.substring(0, column.indexOf(" :: ")).trim();
                assertTrue(section.contains(col), name + "'s docs do not mention its column '" + col + "'");
            }
        }
    }
}
