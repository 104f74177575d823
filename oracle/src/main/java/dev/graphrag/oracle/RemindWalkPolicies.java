package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.graphrag.remind.RemindPrompts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The oracle walker of docs/evaluation.md#remindrag-the-oracle-walker-and-the-passes: remind's query-time calls answered from the prompt's JSON input
 * block and sanitised gold, evidence-gated (a hop is known only once a chunk or path-edge text in this prompt holds
 * its answer and its subject; a chunk reads as its document's title, when the prompt gives one, above its text).
 * Stateless: everything a reply depends on is in the request.
 * <ul>
 *   <li>sufficiency (L7): true iff every hop is known;</li>
 *   <li>next node (L8), the first rule that applies: (0) a candidate whose relation text, as listed, reveals a hop
 *   not yet known (a perfect reader reads the candidate list too); (1) a candidate that names the first unresolved
 *   hop's subject (or its head before a comma), a passage (anchor, or unvisited chunk of a collected anchor) before
 *   an entity, then one naming another known answer; (1b) at an entity that names one of those, its strongest
 *   passage; (2) the candidate with the highest token Jaccard between its name/title + relation text and the first
 *   unresolved sub-question (#k resolved when known), a passage on ties; (3) an unvisited chunk of a collected
 *   anchor; (4) explore: the strongest candidate, a passage first; (5) with no candidate at all (right after a
 *   chunk), back to a collected entity that names the open hop's subject, else to the anchor just read, else to the
 *   collected node the walk has moved from least often (a stand-in for "has unexplored neighbours");</li>
 *   <li>filter (L9): the chunks that carry gated evidence for a hop, the path edges whose text holds a known answer;</li>
 *   <li>answer (L10): the final answer when known, else "unknown", citing the evidence chunks;</li>
 *   <li>chunk summary (L6): the chunk's sentences that name a hop subject or known answer (MuSiQue passages sit
 *   below the summary threshold, so it rarely fires).</li>
 * </ul>
 */
public final class RemindWalkPolicies {
    public static final String SUMMARY = RemindPrompts.SUMMARY;
    public static final String SUFFICIENT = RemindPrompts.SUFFICIENT;
    public static final String NEXT = RemindPrompts.NEXT;
    public static final String FILTER = RemindPrompts.FILTER;
    public static final String ANSWER = RemindPrompts.ANSWER;
    public static final String UNKNOWN = "unknown";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern REF = Pattern.compile("#(\\d+)");

    private RemindWalkPolicies() {}

    /** Registers the five query-time policies, reading {@code gold} (index-time ones: {@link RemindExtractionPolicies}). */
    public static EvalLlmServer register(EvalLlmServer server, OracleGold gold) {
        return server.on(SUFFICIENT, r -> {
            JsonNode b = RemindExtractionPolicies.block(r);
            OracleGold.Question q = gold.find(b.path("question").asText(null));
            boolean enough = q != null && allKnown(EvidenceGate.known(q, visible(b)));
            return PolicyReply.json(JSON.createObjectNode().put("sufficient", enough).toString());
        }).on(NEXT, r -> {
            JsonNode b = RemindExtractionPolicies.block(r);
            return PolicyReply.json(next(b, gold.find(b.path("question").asText(null))).toString());
        })
          .on(FILTER, r -> {
              JsonNode b = RemindExtractionPolicies.block(r);
              OracleGold.Question q = gold.find(b.path("question").asText(null));
              ObjectNode reply = JSON.createObjectNode();
              ArrayNode edges = reply.putArray("edges"), chunks = reply.putArray("chunks");
              if (q != null) {
                  String[] known = EvidenceGate.known(q, visible(b));
                  evidenceChunks(b, q, known).forEach(chunks::add);
                  for (JsonNode e : b.path("edges")) {
                      String t = EvidenceGate.normalize(e.path("text").asText(""));
                      for (String k : known) if (k != null && EvidenceGate.containsPhrase(t, k)) { edges.add(e.path("id").asText()); break; }
                  }
              }
              return PolicyReply.json(reply.toString());
          }).on(ANSWER, r -> {
              JsonNode b = RemindExtractionPolicies.block(r);
              OracleGold.Question q = gold.find(b.path("question").asText(null));
              ObjectNode reply = JSON.createObjectNode();
              String[] known = q == null ? new String[0] : EvidenceGate.known(q, visible(b));
              reply.put("answer", q != null && allKnown(known) ? q.answer() : UNKNOWN);
              ArrayNode cited = reply.putArray("citedChunks");
              if (q != null) evidenceChunks(b, q, known).forEach(cited::add);
              return PolicyReply.json(reply.toString());
          }).on(SUMMARY, r -> {
              JsonNode b = RemindExtractionPolicies.block(r);
              OracleGold.Question q = gold.find(b.path("question").asText(null));
              String text = b.path("newChunk").path("text").asText("");
              List<String> terms = q == null ? List.of() : terms(q, EvidenceGate.known(q, visible(b)));
              List<String> kept = new ArrayList<>();
              List<String> sentences = RuleExtractor.sentences(text);
              for (String s : sentences) {
                  String n = EvidenceGate.normalize(s);
                  if (terms.stream().anyMatch(t -> EvidenceGate.containsPhrase(n, t))) kept.add(s);
              }
              if (kept.isEmpty() && !sentences.isEmpty()) kept.add(sentences.get(0));
              return PolicyReply.json(JSON.createObjectNode().put("summary", String.join(" ", kept)).toString());
          });
    }

    /** The texts a reader sees in the block: chunk texts (or summaries), each under its document's title, and path-edge texts. */
    static List<String> visible(JsonNode block) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : block.path("chunks")) out.add(chunkText(c));
        for (JsonNode e : block.path("edges")) if (!e.path("text").asText("").isBlank()) out.add(e.path("text").asText());
        return out;
    }

    /** A chunk of the block as its reader sees it: the document's title, when it has one, above the text. */
    static String chunkText(JsonNode chunk) {
        return EvidenceGate.titled(chunk.path("document").asText(""), chunk.path("text").asText(""));
    }

    static boolean allKnown(String[] known) {
        if (known.length == 0) return false;
        for (String k : known) if (k == null) return false;
        return true;
    }

    /** The chunk handles whose text alone reveals some hop (its answer and its subject, given the hops known overall). */
    static List<String> evidenceChunks(JsonNode block, OracleGold.Question q, String[] known) {
        List<String> out = new ArrayList<>();
        List<OracleGold.Hop> hops = q.hops();
        for (JsonNode c : block.path("chunks")) {
            String t = EvidenceGate.normalize(chunkText(c));
            for (int i = 0; i < hops.size(); i++) {
                if (known[i] == null) continue;
                List<String> answers = new ArrayList<>(List.of(hops.get(i).answer()));
                if (i == hops.size() - 1) answers.addAll(q.answers());
                if (answers.stream().anyMatch(a -> EvidenceGate.containsPhrase(t, a)) && EvidenceGate.subjectIn(hops.get(i).question(), known, t)) {
                    out.add(c.path("id").asText());
                    break;
                }
            }
        }
        return out;
    }

    /** The first unresolved hop's index, or -1 when all are known. */
    static int firstUnresolved(String[] known) {
        for (int i = 0; i < known.length; i++) if (known[i] == null) return i;
        return -1;
    }

    /** What a useful node names: the first unresolved hop's subject first, then the known answers. */
    static List<String> terms(OracleGold.Question q, String[] known) {
        List<String> out = new ArrayList<>();
        int open = firstUnresolved(known);
        if (open >= 0) {
            String s = EvidenceGate.subject(q.hops().get(open), known);
            if (s != null) out.add(s);
        }
        for (int i = known.length - 1; i >= 0; i--) if (known[i] != null && !out.contains(known[i])) out.add(known[i]);
        return out;
    }


    /** The L8 reply for a block (rules in the class comment). */
    static ObjectNode next(JsonNode b, OracleGold.Question q) {
        ObjectNode reply = JSON.createObjectNode();
        List<String> visible = visible(b);
        String[] known = q == null ? new String[0] : EvidenceGate.known(q, visible);
        List<String> terms = q == null ? List.of() : terms(q, known);
        JsonNode candidates = b.path("candidates");
        // (0) a candidate whose relation text, read now, reveals a hop not yet known
        if (q != null) {
            for (JsonNode c : candidates) {
                List<String> with = new ArrayList<>(visible);
                with.add(label(c) + ". " + relation(b, c));
                if (countKnown(EvidenceGate.known(q, with)) > countKnown(known)) return move(reply, "entity", c.path("id").asText());
            }
        }
        // (1) a passage (anchor, or unvisited chunk) that names the open hop's subject, else an entity that does; then the other known answers
        for (String term : terms) {
            for (String form : forms(term)) {
                for (JsonNode c : candidates) {
                    if (c.has("title") && names(label(c), form)) return move(reply, "entity", c.path("id").asText());
                }
                for (JsonNode u : b.path("unvisitedChunks")) {
                    if (names(anchorTitle(b, u.path("anchor").asText()), form)) return move(reply, "chunk", u.path("id").asText());
                }
                for (JsonNode c : candidates) {
                    if (!c.has("title") && names(label(c), form)) return move(reply, "entity", c.path("id").asText());
                }
            }
        }
        // (1b) at an entity that names the open hop's subject or a known answer: read its passages, strongest first
        String here = nameOf(b, b.path("current").asText(""));
        if (here != null && terms.stream().anyMatch(t -> forms(t).stream().anyMatch(f -> names(here, f)))) {
            for (JsonNode c : candidates) if (c.has("title")) return move(reply, "entity", c.path("id").asText());
        }
        // (2) the candidate whose visible text overlaps the open sub-question most (a passage on ties)
        int open = firstUnresolved(known);
        if (q != null && open >= 0) {
            Set<String> question = new HashSet<>(EvidenceGate.contentWords(EvidenceGate.query(q.hops().get(open), known)));
            JsonNode best = null;
            double bestScore = 0;
            for (JsonNode c : candidates) {
                double j = jaccard(question, new HashSet<>(EvidenceGate.contentWords(label(c) + " " + relation(b, c))));
                if (j > bestScore || (j == bestScore && j > 0 && c.has("title") && !best.has("title"))) {
                    bestScore = j;
                    best = c;
                }
            }
            if (best != null) return move(reply, "entity", best.path("id").asText());
        }
        // (3) an unvisited chunk of a collected anchor
        for (JsonNode u : b.path("unvisitedChunks")) return move(reply, "chunk", u.path("id").asText());
        // (4) explore: the strongest candidate, a passage first
        for (JsonNode c : candidates) if (c.has("title")) return move(reply, "entity", c.path("id").asText());
        if (candidates.size() > 0) return move(reply, "entity", candidates.get(0).path("id").asText());
        // (5) nothing to step to (just read a chunk): back to the open hop's subject, to read its next passage
        if (!terms.isEmpty()) {
            List<String> forms = forms(terms.get(0));
            List<String[]> entities = entities(b);
            for (int i = entities.size() - 1; i >= 0; i--) {
                String name = entities.get(i)[1];
                if (forms.stream().anyMatch(f -> names(name, f))) return move(reply, "entity", entities.get(i)[0]);
            }
        }
        String back = backtrack(b);
        return move(reply, "entity", back != null ? back : b.path("current").asText(""));
    }

    /** The name of a collected entity handle, or null (anchors and unknown handles). */
    private static String nameOf(JsonNode block, String handle) {
        for (String[] e : entities(block)) if (handle.equals(e[0])) return e[1];
        return null;
    }

    /** S's entities as {handle, name}: the walk's prompts give them as one map, L9 and L10 as a list of {id, name}. */
    static List<String[]> entities(JsonNode block) {
        List<String[]> out = new ArrayList<>();
        JsonNode e = block.path("entities");
        if (e.isObject()) e.fields().forEachRemaining(f -> out.add(new String[]{f.getKey(), f.getValue().asText("")}));
        else e.forEach(x -> out.add(new String[]{x.path("id").asText(), x.path("name").asText("")}));
        return out;
    }

    private static int countKnown(String[] known) {
        int n = 0;
        for (String k : known) n += k == null ? 0 : 1;
        return n;
    }

    /** A subject as written, and its head before a comma ("Johnnycake, West Virginia" also as "Johnnycake"). */
    static List<String> forms(String term) {
        int comma = term.indexOf(',');
        return comma >= 4 ? List.of(term, term.substring(0, comma)) : List.of(term);
    }

    private static boolean names(String label, String term) {
        return EvidenceGate.containsPhrase(EvidenceGate.normalize(label), term);
    }

    /** Right after a chunk, the anchor it was read from; else the collected node moved from least often, most recent first. */
    static String backtrack(JsonNode b) {
        List<String> history = new ArrayList<>();
        b.path("history").forEach(h -> history.add(h.asText()));
        String current = b.path("current").isNull() ? null : b.path("current").asText(null);
        Map<String, Integer> count = new HashMap<>();
        for (String h : history) count.merge(h, 1, Integer::sum);
        if (current == null && !history.isEmpty()) {
            String last = history.get(history.size() - 1);
            if (last.startsWith("A") && count.get(last) == 1) return last;
        }
        List<String> collected = new ArrayList<>();
        entities(b).forEach(e -> collected.add(e[0]));
        b.path("anchors").forEach(a -> collected.add(a.path("id").asText()));
        String best = null;
        int bestCount = Integer.MAX_VALUE, bestRecency = -1;
        for (String n : collected) {
            if (n.equals(current)) continue;
            int c = count.getOrDefault(n, 0);
            int recency = c == 0 ? collected.indexOf(n) : history.lastIndexOf(n); // compared only among equal counts
            if (c < bestCount || (c == bestCount && recency > bestRecency)) {
                best = n;
                bestCount = c;
                bestRecency = recency;
            }
        }
        return best;
    }

    /** A candidate's relation text, read through "same as R4" to the edge or earlier candidate that shows it. */
    static String relation(JsonNode block, JsonNode candidate) {
        String r = candidate.path("relation").asText("");
        if (!r.startsWith("same as ")) return r;
        String id = r.substring("same as ".length()).trim();
        for (JsonNode e : block.path("edges")) if (id.equals(e.path("id").asText())) return e.path("text").asText("");
        for (JsonNode c : block.path("candidates")) if (id.equals(c.path("id").asText())) return c.path("relation").asText("");
        return r;
    }

    private static String label(JsonNode candidate) {
        return candidate.has("title") ? candidate.path("title").asText("") : candidate.path("name").asText("");
    }

    private static String anchorTitle(JsonNode block, String anchor) {
        for (JsonNode a : block.path("anchors")) if (anchor.equals(a.path("id").asText())) return a.path("title").asText("");
        return "";
    }

    static double jaccard(Set<String> a, Set<String> b) {
        if (a.isEmpty() || b.isEmpty()) return 0;
        Set<String> both = new HashSet<>(a);
        both.retainAll(b);
        return (double) both.size() / (a.size() + b.size() - both.size());
    }

    private static ObjectNode move(ObjectNode reply, String type, String id) {
        return reply.put("type", type).put("id", id);
    }
}
