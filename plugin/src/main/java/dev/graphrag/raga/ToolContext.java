package dev.graphrag.raga;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a tool call runs: the corpus, the chunk being read (null for a call by hand), the session, and what the agent
 * has seen in this chunk. {@code visible} holds the chunks a quote may come from: the current one plus those that
 * read_paragraph, browse_context and explore_fusion returned; a call by hand (no session) may quote any chunk of the
 * corpus. Counters add up what the calls wrote.
 */
public final class ToolContext {
    /** Settings of the tools (raga.ingest's config, the keys the tools read). */
    public record Settings(boolean strictPhaseGuard, double dupHintThreshold, int evidenceMinChars, int evidenceMaxChars, boolean requireEvidenceOnUpdate,
                           boolean qualityGate, int maxNameChars, double minPrintableRatio, Map<String, Double> certainty, boolean openSchema,
                           double similarTypeThreshold) {
        public static final Settings DEFAULTS = new Settings(false, 0.85, 8, 600, false, true, 60, 0.70,
                Map.of("high", 0.9, "medium", 0.6, "low", 0.3), true, 0.85);
    }

    /** What calls wrote; read by raga.ingest's rows. */
    public static final class Counters {
        public long entitiesCreated, entitiesReused, relationsCreated, relationsReused, updates, merges, deletes, reviews, todos;

        /** Adds another's counts to these. */
        public void add(Counters k) {
            entitiesCreated += k.entitiesCreated;
            entitiesReused += k.entitiesReused;
            relationsCreated += k.relationsCreated;
            relationsReused += k.relationsReused;
            updates += k.updates;
            merges += k.merges;
            deletes += k.deletes;
            reviews += k.reviews;
            todos += k.todos;
        }

        public Counters copy() {
            Counters c = new Counters();
            c.add(this);
            return c;
        }
    }

    /** Puts the counters back to a copy taken before a call whose transaction was rolled back. */
    public void restore(Counters before) {
        counters.entitiesCreated = 0;
        counters.entitiesReused = 0;
        counters.relationsCreated = 0;
        counters.relationsReused = 0;
        counters.updates = 0;
        counters.merges = 0;
        counters.deletes = 0;
        counters.reviews = 0;
        counters.todos = 0;
        counters.add(before);
    }

    public final String corpus;
    public final String currentChunkId;
    public final String sessionId;
    public final Settings settings;
    public final Counters counters = new Counters();
    private final Set<String> visible = new LinkedHashSet<>();
    private final List<String> searchedKeys = new ArrayList<>();
    private final java.util.Map<String, Integer> replayable = new java.util.HashMap<>();
    public int round;
    public String toolCallId;

    public ToolContext(String corpus, String currentChunkId, String sessionId, Settings settings) {
        this.corpus = corpus;
        this.currentChunkId = currentChunkId;
        this.sessionId = sessionId;
        this.settings = settings;
        if (currentChunkId != null) visible.add(currentChunkId);
    }

    /** A call by hand: no session, any chunk of the corpus may be quoted. */
    public boolean inSession() {
        return sessionId != null;
    }

    public boolean mayQuote(String chunkId) {
        return !inSession() || visible.contains(chunkId);
    }

    public void see(String chunkId) {
        visible.add(chunkId);
    }

    public Set<String> visible() {
        return Set.copyOf(visible);
    }

    /**
     * Writes an interrupted reading of this chunk already committed (key: what was written, where it was quoted). When
     * the resumed reading makes the same call again, it is answered as before and writes nothing, so a resumed chunk
     * ends as an uninterrupted one would have; each recorded write is replayed once.
     */
    public void replayable(String key) {
        replayable.merge(key, 1, Integer::sum);
    }

    public boolean replay(String key) {
        Integer n = replayable.get(key);
        if (n == null) return false;
        if (n == 1) replayable.remove(key);
        else replayable.put(key, n - 1);
        return true;
    }

    public static String writeKey(String kind, String targetId, String chunkId, long start, long end) {
        return kind + "|" + targetId + "|" + chunkId + "|" + start + "|" + end;
    }

    public void searched(String query) {
        searchedKeys.add(NameKey.of(query));
    }

    /** Whether a search in this chunk covered a name: one key holds the other as a run of whole tokens. */
    public boolean searchCovers(String name) {
        String k = NameKey.of(name);
        for (String s : searchedKeys) {
            if (tokenRun(k, s) || tokenRun(s, k)) return true;
        }
        return false;
    }

    private static boolean tokenRun(String outer, String inner) {
        if (inner.isEmpty()) return false;
        return (" " + outer + " ").contains(" " + inner + " ");
    }
}
