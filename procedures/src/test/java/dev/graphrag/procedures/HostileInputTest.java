package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.QueryExecutionException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.graphrag.procedures.TestServer.lastCommittedTransaction;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every procedure and function of the plugin called with generated input: config maps of its own keys (from its
 * parser's list of valid keys) and unknown ones with wrong types, nulls, huge and negative numbers, NaN, deep nesting,
 * long strings, unicode edge cases and injection-shaped strings, and generated arguments. Every failure must be the
 * plugin's own RagException (or Cypher's argument type check, before the plugin runs), never an internal exception,
 * and a call that failed must have committed nothing. Each call names one corpus of this test's own (or an invalid
 * corpus value), so a call that happens to be valid never touches another test's data. Seeded: the seed and the
 * number of cases are printed, and -Dhostile.seed=... -Dhostile.cases=... replay a run or widen it (docs/benchmarks.md
 * gives the long run's figures); -Dhostile.print=true prints every failure's message.
 */
class HostileInputTest {
    static final String CORPUS = "hostile";
    static final long SEED = Long.getLong("hostile.seed", 20261202L);
    /** Cases per procedure or function. */
    static final int CASES = Integer.getInteger("hostile.cases", 4);
    /** What a well-formed failure looks like: the plugin's own exception, or Cypher's check of an argument's type. */
    static final Pattern OURS = Pattern.compile("dev\\.graphrag\\.core\\.RagException|Type mismatch|Invalid input|expected .* but was|cannot be converted|"
            + "Expected .* to be|Can't coerce|Cannot coerce|wrong argument type|must be of type");
    /** An internal exception reaching the caller: a bug, whatever the input. */
    static final Pattern INTERNAL = Pattern.compile("Caused by: (java\\.|javax\\.|com\\.fasterxml|org\\.apache|ai\\.onnxruntime|dev\\.graphrag\\.(?!core\\.RagException))[\\w.$]+");

    /**
     * Lucene's own assertion in FixedBitSet, raised inside Neo4j's index search (the plugin uses no bit set of Lucene's)
     * with the test JVM's -ea, seen once on the calendar line (2026.09) in a rag.search over this corpus after the
     * suite's other corpora filled the shared vector index, not when the class ran alone: reported, not failed, and
     * listed in docs/benchmarks.md#hostile-input-everywhere until it is traced.
     */
    static final Pattern ENGINE_ASSERTION = Pattern.compile("Caused by: java\\.lang\\.AssertionError: index=\\d+, numBits=\\d+");

    static final String[] HOSTILE_STRINGS = {"", " ", "\u0000", "\uD800", "\u202Eevil", "\uD83D\uDE00\u0301\u0301", "'", "\"", "`",
            "') RETURN 1 //", "x` DETACH DELETE n //", "${jndi:ldap://127.0.0.1/x}", "../../../../etc/passwd", "http://169.254.169.254/latest/meta-data",
            "file:///etc/passwd", "%s%n%x", "NaN", "-1", "default", "'; MATCH (n) DETACH DELETE n; //", "<script>alert(1)</script>"};

    final Random random = new Random(SEED);

    @Test
    void everyProcedureFailsOnlyWithItsOwnMessageAndWritesNothingWhenItFails() {
        rows("CALL rag.ingest($docs, {corpus: $c})", Map.of("c", CORPUS, "docs", List.of(
                Map.of("id", "a", "text", "Ethan Hawke was born in Austin, Texas. Ethan Hawke starred in Sinister.", "metadata", Map.of("team", "a")),
                Map.of("id", "b", "text", "Scott Derrickson directed Sinister. Austin is the capital of Texas.", "metadata", Map.of("team", "b")))));
        rows("CALL agrag.index({corpus: $c, relations: 'cooccurrence'})", Map.of("c", CORPUS));
        // the checker itself: an internal exception is caught, the plugin's own message and Cypher's type check pass
        assertTrue(INTERNAL.matcher("Failed to invoke procedure `rag.search`: Caused by: java.lang.NullPointerException").find());
        assertTrue(INTERNAL.matcher("Caused by: dev.graphrag.core.search.Something$Failure: x").find());
        assertTrue(!INTERNAL.matcher("Caused by: dev.graphrag.core.RagException: rag.search: k must be").find() && OURS.matcher("Caused by: dev.graphrag.core.RagException: x").find());
        assertTrue(ENGINE_ASSERTION.matcher("Caused by: java.lang.AssertionError: index=2147483323, numBits=2").find()
                && !ENGINE_ASSERTION.matcher("Caused by: java.lang.AssertionError: dev.graphrag something").find());
        List<String> problems = new ArrayList<>();
        List<String> engineAssertions = new ArrayList<>();
        int calls = 0, failed = 0;
        for (Map<String, Object> p : ProcedureSignaturesTest.surface()) {
            String name = (String) p.get("name");
            boolean function = "FUNCTION".equals(p.get("mode"));
            List<String[]> args = arguments((String) p.get("signature"));
            List<String> keys = args.stream().anyMatch(a -> a[0].equals("config")) ? ProcedureSignaturesTest.acceptedKeys(p) : List.of();
            for (int c = 0; c < CASES; c++) {
                Map<String, Object> params = new LinkedHashMap<>();
                List<String> placeholders = new ArrayList<>();
                for (String[] a : args) {
                    params.put(a[0], a[0].equals("config") ? config(keys) : argument(a[1]));
                    placeholders.add("$" + a[0]);
                }
                String cypher = function ? "RETURN " + name + "(" + String.join(", ", placeholders) + ") AS v"
                        : "CALL " + name + "(" + String.join(", ", placeholders) + ")";
                long before = lastCommittedTransaction();
                calls++;
                try {
                    rows(cypher, params);
                } catch (QueryExecutionException e) {
                    failed++;
                    String message = String.valueOf(e.getMessage());
                    if (Boolean.getBoolean("hostile.print")) System.out.println("HOSTILE " + name + " -> " + message.substring(0, Math.min(240, message.length())).replace('\n', ' '));
                    Matcher internal = INTERNAL.matcher(message);
                    if (ENGINE_ASSERTION.matcher(message).find()) {
                        engineAssertions.add(name + " " + describe(params) + " -> " + message.substring(0, Math.min(200, message.length())));
                    } else if (internal.find() || !OURS.matcher(message).find()) {
                        problems.add(name + " " + describe(params) + "\n    -> " + message.substring(0, Math.min(400, message.length())));
                    } else if (lastCommittedTransaction() != before) {
                        problems.add(name + " failed after committing " + (lastCommittedTransaction() - before) + " transaction(s): " + describe(params)
                                + "\n    -> " + message.substring(0, Math.min(300, message.length())));
                    }
                } catch (RuntimeException e) {
                    failed++;
                    problems.add(name + " " + describe(params) + "\n    -> " + e);
                }
            }
        }
        System.out.println("HostileInputTest: seed " + SEED + ", " + calls + " calls (" + CASES + " per procedure or function), " + failed + " failed as expected"
                + " or not, " + problems.size() + " problems, " + engineAssertions.size() + " engine assertions");
        engineAssertions.forEach(a -> System.out.println("HostileInputTest: engine assertion (not the plugin's): " + a));
        assertTrue(calls >= 300, "the suite's run makes a few hundred calls: " + calls);
        assertEquals(List.of(), problems, "seed " + SEED + ": replay with -Dhostile.seed=" + SEED);
    }

    /** A signature's arguments: name and Cypher type. */
    static List<String[]> arguments(String signature) {
        String inner = signature.substring(signature.indexOf('(') + 1, signature.indexOf(')'));
        List<String[]> out = new ArrayList<>();
        for (String a : inner.split(", ")) {
            if (a.isBlank()) continue;
            out.add(new String[] {a.substring(0, a.indexOf(' ')), a.substring(a.lastIndexOf(":: ") + 3)});
        }
        return out;
    }

    /** A config of the procedure's own keys and, now and then, an unknown one; the corpus always this test's, or invalid. */
    Map<String, Object> config(List<String> keys) {
        Map<String, Object> config = new HashMap<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n && !keys.isEmpty(); i++) config.put(keys.get(random.nextInt(keys.size())), value(0));
        if (random.nextInt(5) == 0) config.put(random.nextBoolean() ? "zzz" : hostileString(), value(0));
        if (keys.contains("corpus")) config.put("corpus", random.nextInt(6) == 0 ? value(0) : CORPUS);
        else config.remove("corpus");
        if (random.nextInt(8) == 0) config.put("where", nested(30));
        return config;
    }

    /** An argument of a Cypher type: usually that type with hostile content, sometimes another type altogether. */
    Object argument(String type) {
        if (random.nextInt(4) == 0) return value(0);
        return switch (type) {
            case "STRING" -> random.nextBoolean() ? hostileString() : "Where was Ethan Hawke born?";
            case "LIST<STRING>" -> List.of(hostileString(), "a");
            case "LIST<MAP>" -> List.of(Map.of("id", hostileString(), "text", random.nextBoolean() ? hostileString() : "Austin is in Texas.",
                    "role", hostileString(), "content", hostileString()), Map.of("nested", nested(10)));
            case "MAP" -> map("corpus", CORPUS, "x", value(0));
            case "INTEGER" -> number();
            case "FLOAT" -> random.nextBoolean() ? Double.NaN : number();
            default -> value(0);
        };
    }

    Object value(int depth) {
        return switch (random.nextInt(depth > 2 ? 7 : 9)) {
            case 0 -> null;
            case 1 -> hostileString();
            case 2 -> number();
            case 3 -> random.nextBoolean();
            case 4 -> random.nextBoolean() ? Double.NaN : random.nextBoolean() ? Double.POSITIVE_INFINITY : -0.0;
            case 5 -> "x".repeat(random.nextBoolean() ? 20_000 : 300);
            case 6 -> List.of();
            case 7 -> java.util.Arrays.asList(value(depth + 1), value(depth + 1)); // nulls allowed
            default -> random.nextBoolean() ? Map.of() : map("k" + random.nextInt(3), value(depth + 1));
        };
    }

    /** A map that may hold nulls (Map.of may not). */
    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    Object number() {
        long[] edges = {-1, 0, 1, -2_147_483_649L, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, 1_000_000_000_000L};
        return random.nextBoolean() ? edges[random.nextInt(edges.length)] : random.nextBoolean() ? 1e308 : -3.5;
    }

    String hostileString() {
        return HOSTILE_STRINGS[random.nextInt(HOSTILE_STRINGS.length)];
    }

    static Map<String, Object> nested(int depth) {
        Map<String, Object> m = Map.of("team", "a");
        for (int i = 0; i < depth; i++) m = Map.of(i % 2 == 0 ? "$and" : "x", i % 2 == 0 ? List.of(m) : m);
        return m;
    }

    static String describe(Map<String, Object> params) {
        String s = params.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
