package dev.graphrag.evaluation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a layer build left, checked after each build of the evaluation command: the layer's state, its counts, and the
 * problems a build must never leave, whatever the model did: duplicate nodes of one key, nodes no chunk reaches,
 * chunks with two anchors, facts or relations without provenance, quotes that are not the text at their offsets.
 * Read-only Cypher, so it runs on a user's server as well as the embedded one (docs/evaluation.md).
 */
final class LayerCensus {
    private LayerCensus() {}

    /** A check: the problem's wording and the query counting its cases (0: none). */
    private record Check(String problem, String count) {}

    private static final Map<String, List<Check>> CHECKS = Map.of(
            "agrag", List.of(
                    new Check("entities sharing a name", "MATCH (e:AgEntity {corpus: $c}) WITH e.name AS n, count(*) AS k WHERE k > 1 RETURN count(*) AS n"),
                    new Check("entities no chunk contains", "MATCH (e:AgEntity {corpus: $c}) WHERE NOT EXISTS { (:Chunk)-[:AG_CONTAINS]->(e) } RETURN count(e) AS n"),
                    new Check("facts without an id", "MATCH (:AgEntity {corpus: $c})-[r:AG_REL]->() WHERE r.factId IS NULL RETURN count(r) AS n")),
            "remind", List.of(
                    new Check("entities sharing a name", "MATCH (e:RmEntity {corpus: $c}) WITH e.name AS n, count(*) AS k WHERE k > 1 RETURN count(*) AS n"),
                    new Check("chunks with two anchors", "MATCH (c:Chunk {corpus: $c}) WHERE COUNT { (:RmAnchor)-[:RM_HAS_CHUNK]->(c) } > 1 RETURN count(c) AS n"),
                    new Check("entities no chunk mentions", "MATCH (e:RmEntity {corpus: $c}) WHERE NOT EXISTS { (e)-[:RM_MENTIONED_IN]-() } RETURN count(e) AS n")),
            "hgmem", List.of(
                    new Check("entities sharing a name", "MATCH (e:HgEntity {corpus: $c}) WITH e.name AS n, count(*) AS k WHERE k > 1 RETURN count(*) AS n"),
                    new Check("pairs related twice", "MATCH (a:HgEntity {corpus: $c})-[r:HG_RELATED]-(b) WHERE elementId(a) < elementId(b)"
                            + " WITH a, b, count(r) AS k WHERE k > 1 RETURN count(*) AS n"),
                    new Check("built entities no chunk mentions", "MATCH (e:HgEntity {corpus: $c}) WHERE NOT coalesce(e.provisional, false)"
                            + " AND NOT EXISTS { (:Chunk)-[:HG_MENTIONS]->(e) } RETURN count(e) AS n")),
            "raga", List.of(
                    new Check("entities without provenance", "MATCH (e:RagaEntity {corpus: $c}) WHERE NOT EXISTS { (e)-[:RAGA_EVIDENCED_BY]->(:RagaProvenance) } RETURN count(e) AS n"),
                    new Check("relations without provenance", "MATCH (:RagaEntity {corpus: $c})-[r:RAGA_REL]->() WHERE NOT coalesce(r.deleted, false)"
                            + " AND NOT EXISTS { MATCH (p:RagaProvenance {corpus: $c, targetId: r.relId}) } RETURN count(r) AS n"),
                    new Check("aliases of two entities", "MATCH (a:RagaAlias {corpus: $c}) WHERE COUNT { (a)-[:RAGA_ALIAS_OF]->() } > 1 RETURN count(a) AS n")));

    /** Each quote with the chunk text at its offsets: they must read the same, as RAGA's evidence check reads them. */
    private static final String QUOTES = "MATCH (p:RagaProvenance {corpus: $c})-[:RAGA_FROM_CHUNK]->(ch:Chunk) WHERE p.quote IS NOT NULL AND p.start IS NOT NULL"
            + " RETURN p.quote AS quote, substring(ch.text, p.start, p.end - p.start) AS atOffsets";

    /** NFKC, quotes and dashes folded, whitespace runs to one space, lower case: the normalisation RAGA's evidence anchor allows. */
    static String normalised(String s) {
        String n = java.text.Normalizer.normalize(s == null ? "" : s, java.text.Normalizer.Form.NFKC)
                .replaceAll("[\u2018\u2019\u201A\u201B]", "'").replaceAll("[\u201C\u201D\u201E\u201F]", "\"")
                .replaceAll("[\u2010-\u2015\u2212]", "-").replaceAll("\\s+", " ");
        return n.trim().toLowerCase(java.util.Locale.ROOT);
    }

    /** The layer's state and counts (its info procedure) and the problems found, by wording and count ({@code problems} empty: none). */
    static Map<String, Object> of(Target t, String method, String corpus) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<Check> checks = CHECKS.get(method);
        if (checks == null) return out;
        Map<String, Object> info = t.rows("CALL " + method + ".info({corpus: $c})", Map.of("c", corpus)).get(0);
        if (info.containsKey("state")) out.put("state", info.get("state"));
        else out.put("state", ((Number) info.get("chunks")).longValue() == ((Number) info.get("chunksArchived")).longValue() ? "ready" : "resumable");
        for (String k : List.of("entities", "facts", "relations", "anchors", "mentions", "provenance", "chunksIncomplete")) {
            if (info.get(k) instanceof Number n) out.put(k, n.longValue());
        }
        List<String> problems = new ArrayList<>();
        for (Check c : checks) {
            long n = ((Number) t.rows(c.count(), Map.of("c", corpus)).get(0).get("n")).longValue();
            if (n > 0) problems.add(n + " " + c.problem());
        }
        if (method.equals("raga")) {
            long off = t.rows(QUOTES, Map.of("c", corpus)).stream()
                    .filter(r -> !normalised((String) r.get("quote")).equals(normalised((String) r.get("atOffsets")))).count();
            if (off > 0) problems.add(off + " quotes not at their offsets");
        }
        out.put("problems", problems);
        return out;
    }
}
