package dev.graphrag.raga;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool result as the construction agent reads it: the same facts as the envelope raga.tool returns, without what the
 * agent already knows or cannot use, because every result is sent again in each later round of the chunk (docs/raga.md
 * "What the agent is shown"). Left out: the tool's name (the result answers a call that names it), entity ids (no tool
 * takes one: entities are addressed by name), {@code reused: false}, nulls and empty lists, zero batch counters, a search
 * hit's ranking reasons and evidence count, and an evidence span's chunk when it is the chunk being read ({@code span:
 * [start, end]}). A search hit shows its description, or else its sample evidence, cut to {@link #SNIPPET} characters,
 * and only the first time this chunk's transcript shows that entity: later hits of the same entity give its name, type
 * and score (searches for the names of one paragraph return the same neighbours again and again). Scores keep two
 * decimals. Relation ids, names, types, errors with their hints and candidates, and warnings stay as they are.
 * One instance per chunk's tool loop.
 */
final class Observation {
    static final int SNIPPET = 120;

    private final String chunk;
    /** Entities whose aliases and snippet this chunk's transcript already shows. */
    private final java.util.Set<String> shown = new java.util.HashSet<>();

    Observation(String currentChunkId) {
        this.chunk = currentChunkId;
    }

    Map<String, Object> of(Map<String, Object> envelope) {
        Map<String, Object> out = new LinkedHashMap<>();
        envelope.forEach((k, v) -> {
            if (k.equals("tool") || k.equals("written")) return;
            Object c = compact(k, v);
            if (c != null) out.put(k, c);
        });
        return out;
    }

    @SuppressWarnings("unchecked")
    private Object compact(String key, Object v) {
        if (v == null) return null;
        if (v instanceof Map<?, ?> m) {
            if (key.equals("counters")) {
                Map<String, Object> nonZero = new LinkedHashMap<>();
                m.forEach((ck, cv) -> {
                    if (!(cv instanceof Number n && n.longValue() == 0)) nonZero.put((String) ck, cv);
                });
                return nonZero.isEmpty() ? null : nonZero;
            }
            boolean hit = m.containsKey("sample_evidence") || m.containsKey("reasons");
            boolean described = m.get("description") instanceof String d && !d.isBlank();
            boolean repeat = hit && m.get("name") instanceof String n && !shown.add(n);
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((mk, mv) -> {
                String k = (String) mk;
                if (k.equals("entity_id") || k.equals("reasons") || k.equals("evidence_count") || k.equals("tool")) return;
                if (hit && (k.equals("sample_evidence") || k.equals("description"))) {
                    if (repeat || (k.equals("sample_evidence") && described) || !(mv instanceof String t) || t.isBlank()) return;
                    out.put(k, snippet(t));
                    return;
                }
                if (repeat && k.equals("aliases")) return;
                if (k.equals("reused") && Boolean.FALSE.equals(mv)) return;
                if (k.equals("evidence_span") && mv instanceof Map<?, ?> s) {
                    out.put("span", span((Map<String, Object>) s));
                    return;
                }
                Object c = compact(k, mv);
                if (c != null) out.put(k, c);
            });
            return out;
        }
        if (v instanceof List<?> list) {
            if (list.isEmpty()) return null;
            List<Object> out = new ArrayList<>(list.size());
            for (Object x : list) {
                Object c = compact(key, x);
                if (c != null) out.add(c);
            }
            return out;
        }
        if (v instanceof String s && s.isEmpty()) return null;
        if ((key.equals("score") || key.equals("similarity")) && v instanceof Number n) return Math.round(n.doubleValue() * 100) / 100.0;
        return v;
    }

    /**
     * A search result after the round that read it in full: each hit's name, type and aliases, without its snippet and
     * score (the agent has judged them; the names stay, for the merges and relations it may still make). Null when the
     * result has no search hits, so it is sent unchanged.
     */
    static Object digest(com.fasterxml.jackson.databind.JsonNode result) {
        com.fasterxml.jackson.databind.JsonNode copy = result.deepCopy();
        return strip(copy) ? copy : null;
    }

    private static boolean strip(com.fasterxml.jackson.databind.JsonNode n) {
        boolean changed = false;
        if (n.isObject()) {
            com.fasterxml.jackson.databind.JsonNode hits = n.get("entities");
            if (hits != null && hits.isArray()) {
                for (com.fasterxml.jackson.databind.JsonNode h : hits) {
                    if (h instanceof com.fasterxml.jackson.databind.node.ObjectNode o && o.has("score")) {
                        o.remove(List.of("sample_evidence", "description", "score"));
                        changed = true;
                    }
                }
            }
            for (com.fasterxml.jackson.databind.JsonNode child : n) changed |= strip(child);
        } else if (n.isArray()) {
            for (com.fasterxml.jackson.databind.JsonNode child : n) changed |= strip(child);
        }
        return changed;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * A result over {@code maxChars} with its search hits' snippets left out, the last hits' first, until it fits (the
     * names, types and scores stay, and {@code snippets_left_out} says how many): still a JSON result, which a later
     * round's digest can read, where a cut string could not be. Null when even without snippets it does not fit.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> withoutSnippets(Map<String, Object> result, int maxChars) {
        com.fasterxml.jackson.databind.node.ObjectNode tree = MAPPER.valueToTree(result);
        List<com.fasterxml.jackson.databind.node.ObjectNode> hits = new ArrayList<>();
        collectHits(tree, hits);
        int left = 0, room = maxChars - ",\"snippets_left_out\":9999".length(); // the count's own field must fit too
        int length = tree.toString().length();
        for (int i = hits.size() - 1; i >= 0 && length > room; i--) {
            left++;
            int before = hits.get(i).toString().length(); // a hit's own text shrinks the whole by as much: no re-serialising
            hits.get(i).remove(List.of("sample_evidence", "description"));
            length -= before - hits.get(i).toString().length();
        }
        if (length > room) return null;
        tree.put("snippets_left_out", left);
        return MAPPER.convertValue(tree, Map.class);
    }

    private static void collectHits(com.fasterxml.jackson.databind.JsonNode n, List<com.fasterxml.jackson.databind.node.ObjectNode> out) {
        if (n instanceof com.fasterxml.jackson.databind.node.ObjectNode o && o.has("score") && (o.has("sample_evidence") || o.has("description"))) out.add(o);
        for (com.fasterxml.jackson.databind.JsonNode child : n) collectHits(child, out);
    }

    /** [start, end] in the chunk being read, or [start, end, chunk_id] in another chunk. */
    private List<Object> span(Map<String, Object> s) {
        List<Object> out = new ArrayList<>(3);
        out.add(s.get("start"));
        out.add(s.get("end"));
        Object c = s.get("chunk_id");
        if (c != null && !c.equals(chunk)) out.add(c);
        return out;
    }

    /** At most {@link #SNIPPET} characters, cut at a space when there is one in the last 30. */
    static String snippet(String text) {
        if (text.length() <= SNIPPET) return text;
        int cut = text.lastIndexOf(' ', SNIPPET);
        return text.substring(0, cut > SNIPPET - 30 ? cut : SNIPPET) + "…";
    }
}
