package dev.graphrag.hgmem;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The config of the hgmem.* query procedures (docs/hgmem.md; defaults from spec §2.11, temperature 0 unless
 * {@code profile: 'paper'}). A session stores the loop's keys it was created with (never {@code llm}); a later call
 * on the session starts from them and may override any.
 */
public record HgmemConfig(String corpus, Evolution.Settings loop, Retrieval retrieval, FinalContext.Settings finalContext, String responseType,
                          int absentMaxAttempts, boolean paperProfile, Map<String, Object> llm, Map<String, Object> stored) {
    public enum Use { EVOLVE, RESPOND, ANSWER, RETRIEVE }

    /** Retrieval settings of spec §2.3, §2.4 and the extended-info hint of §2.5. */
    public record Retrieval(int entityPool, int entitiesPerQuery, int relationsPerQuery, int chunksPerQuery, boolean passageRetrieval,
                            int relTokenBudget, int chunkTokenBudget, int descriptionTokens, int localHops, boolean excludeMemoryInGlobal, double minSim,
                            int hintPool, int hintK) {
        public static final Retrieval DEFAULTS = new Retrieval(20, 5, 5, 5, true, 1500, 4000, 100, 2, true, 0.2, 20, 5);
    }

    /** Keys that describe one call, never stored with a session. */
    static final Set<String> PER_CALL = Set.of("llm", "profile", "subqueries", "targets", "force", "sessionId", "keepSession", "returnTrace", "mode", "corpus");

    public static HgmemConfig parse(Use use, Map<String, Object> config) {
        String owner = "hgmem." + use.name().toLowerCase(Locale.ROOT);
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        boolean loopKeys = use == Use.EVOLVE || use == Use.ANSWER;
        boolean retrieves = use != Use.RESPOND;
        int maxTurns = loopKeys ? r.integer("maxTurns", 3, 0, 20) : 3;
        int numConcerns = loopKeys ? r.integer("numConcerns", 3, 1, 10) : 3;
        int mergeFrom = loopKeys ? r.integer("mergeFromStep", 1, 0, 20) : 1;
        boolean update = !loopKeys || r.bool("enableUpdate", true);
        boolean merge = !loopKeys || r.bool("enableMerge", true);
        boolean hint = !loopKeys || r.bool("useHint", true);
        Evolution.Strategy strategy = loopKeys ? strategy(owner, r.string("retrievalStrategy", "adaptive")) : Evolution.Strategy.ADAPTIVE;
        HypergraphMemory.VertexPolicy vertices = loopKeys ? r.choice("updateVertexPolicy", HypergraphMemory.VertexPolicy.class, HypergraphMemory.VertexPolicy.KEEP)
                : HypergraphMemory.VertexPolicy.KEEP;
        Evolution.AbsentPolicy absent = loopKeys ? r.choice("absentEntityPolicy", Evolution.AbsentPolicy.class, Evolution.AbsentPolicy.INSERT)
                : Evolution.AbsentPolicy.INSERT;
        int absentAttempts = loopKeys ? r.integer("absentMaxAttempts", 3, 1, 10) : 3;
        Retrieval d = Retrieval.DEFAULTS;
        Retrieval retrieval = !retrieves ? d : new Retrieval(r.integer("entityPool", d.entityPool(), 1, 1000), r.integer("entitiesPerQuery", d.entitiesPerQuery(), 1, 100),
                r.integer("relationsPerQuery", d.relationsPerQuery(), 0, 100), r.integer("chunksPerQuery", d.chunksPerQuery(), 0, 100),
                r.bool("passageRetrieval", d.passageRetrieval()), r.integer("relTokenBudget", d.relTokenBudget(), 0, 100_000),
                r.integer("chunkTokenBudget", d.chunkTokenBudget(), 0, 1_000_000), r.integer("descriptionTokens", d.descriptionTokens(), 10, 10_000),
                r.integer("localHops", d.localHops(), 0, 5), r.bool("excludeMemoryInGlobal", d.excludeMemoryInGlobal()), r.number("minSim", d.minSim(), -1, 1),
                loopKeys ? r.integer("hintPool", d.hintPool(), 1, 1000) : d.hintPool(), loopKeys ? r.integer("hintK", d.hintK(), 0, 100) : d.hintK());
        if (retrieval.entitiesPerQuery() > retrieval.entityPool()) {
            throw new RagException(owner + ": entitiesPerQuery (" + retrieval.entitiesPerQuery() + ") cannot exceed entityPool (" + retrieval.entityPool() + ")");
        }
        boolean answers = use == Use.RESPOND || use == Use.ANSWER;
        FinalContext.Settings f = FinalContext.Settings.DEFAULTS;
        FinalContext.Settings fin = !answers ? f : new FinalContext.Settings(r.integer("innerPerUnit", f.innerPerUnit(), 0, 100),
                r.integer("outerPerUnit", f.outerPerUnit(), 0, 100), r.integer("finalMaxChunks", f.maxChunks(), 1, 1000),
                r.integer("finalTokenBudget", f.tokenBudget(), 100, 1_000_000), r.integer("emptyMemoryChunks", f.emptyMemoryChunks(), 0, 100));
        String responseType = answers ? r.string("responseType", "Multiple Paragraphs") : "Multiple Paragraphs";
        if (responseType.length() > 200) throw new RagException(owner + ": config key 'responseType' is longer than 200 characters");
        String profile = use == Use.RETRIEVE ? "default" : r.string("profile", "default");
        if (!profile.equals("default") && !profile.equals("paper")) {
            throw new RagException(owner + ": config key 'profile' must be one of [default, paper], got '" + profile + "'");
        }
        Map<String, Object> llm = use == Use.RETRIEVE ? null : r.map("llm");
        // keys of the call itself, read by the engine; checked for type here so a wrong one is named before anything runs
        switch (use) {
            case EVOLVE -> {
                r.strings("subqueries", null);
                r.any("targets");
                r.bool("force", false);
            }
            case ANSWER -> {
                r.string("sessionId", null);
                r.bool("keepSession", true);
                r.bool("returnTrace", false);
            }
            case RETRIEVE -> {
                r.string("mode", null);
                r.any("targets");
            }
            case RESPOND -> { }
        }
        r.finish();
        Map<String, Object> stored = new LinkedHashMap<>();
        config.forEach((k, v) -> { if (!PER_CALL.contains(k)) stored.put(k, v); });
        Evolution.Settings loop = new Evolution.Settings(maxTurns, numConcerns, mergeFrom, update, merge, hint, strategy, vertices, absent);
        return new HgmemConfig(corpus, loop, retrieval, fin, responseType, absentAttempts, profile.equals("paper"), llm, stored);
    }

    static Evolution.Strategy strategy(String owner, String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "adaptive" -> Evolution.Strategy.ADAPTIVE;
            case "localonly" -> Evolution.Strategy.LOCAL_ONLY;
            case "globalonly" -> Evolution.Strategy.GLOBAL_ONLY;
            default -> throw new RagException(owner + ": config key 'retrievalStrategy' must be one of [adaptive, localOnly, globalOnly], got '" + s + "'");
        };
    }

    static final Set<String> LOOP_KEYS = Set.of("maxTurns", "numConcerns", "mergeFromStep", "enableUpdate", "enableMerge", "useHint", "retrievalStrategy",
            "updateVertexPolicy", "absentEntityPolicy", "absentMaxAttempts", "hintPool", "hintK");
    static final Set<String> RETRIEVAL_KEYS = Set.of("entityPool", "entitiesPerQuery", "relationsPerQuery", "chunksPerQuery", "passageRetrieval",
            "relTokenBudget", "chunkTokenBudget", "descriptionTokens", "localHops", "excludeMemoryInGlobal", "minSim");
    static final Set<String> ANSWER_KEYS = Set.of("innerPerUnit", "outerPerUnit", "finalMaxChunks", "finalTokenBudget", "emptyMemoryChunks", "responseType");

    /** Whether a stored session key applies to a use (a session started by hgmem.answer stores keys hgmem.retrieve does not take). */
    static boolean appliesTo(Use use, String key) {
        return switch (use) {
            case EVOLVE -> LOOP_KEYS.contains(key) || RETRIEVAL_KEYS.contains(key);
            case ANSWER -> LOOP_KEYS.contains(key) || RETRIEVAL_KEYS.contains(key) || ANSWER_KEYS.contains(key);
            case RESPOND -> ANSWER_KEYS.contains(key);
            case RETRIEVE -> RETRIEVAL_KEYS.contains(key);
        };
    }

    /** The stored keys of a session that apply to {@code use}, with the call's keys over them (the call's corpus must be the session's). */
    public static Map<String, Object> overSession(String owner, Use use, Map<String, Object> stored, Map<String, Object> call, String sessionCorpus) {
        Object c = call == null ? null : call.get("corpus");
        if (c != null && !sessionCorpus.equals(c)) {
            throw new RagException(owner + ": the session belongs to corpus '" + sessionCorpus + "', not '" + c + "'");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        stored.forEach((k, v) -> { if (appliesTo(use, k)) m.put(k, v); });
        if (call != null) m.putAll(call);
        m.put("corpus", sessionCorpus);
        return m;
    }

    /** Parses a LIST of unit-index lists (or null entries for global) from config key {@code targets}. */
    static List<List<Integer>> targets(String owner, Object raw, int subqueries) {
        if (raw == null) return null;
        if (!(raw instanceof List<?> list) || list.size() != subqueries) {
            throw new RagException(owner + ": config key 'targets' must be a LIST with one entry per subquery (" + subqueries
                    + "): a LIST of memory point indices, or null for global exploration");
        }
        List<List<Integer>> out = new ArrayList<>();
        for (Object o : list) {
            if (o == null) {
                out.add(null);
                continue;
            }
            if (!(o instanceof List<?> idx) || idx.isEmpty()) throw new RagException(owner + ": each entry of 'targets' must be a non-empty LIST<INTEGER> or null, got " + o);
            List<Integer> ints = new ArrayList<>();
            for (Object i : idx) {
                if (!(i instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
                    throw new RagException(owner + ": each entry of 'targets' must be a non-empty LIST<INTEGER> or null, got " + o);
                }
                ints.add(n.intValue());
            }
            out.add(ints);
        }
        return out;
    }
}
