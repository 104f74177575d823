package dev.graphrag.hgmem;

import dev.graphrag.core.llm.LlmConfig;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;
import dev.graphrag.core.search.DocumentFilter;
import dev.graphrag.core.search.RerankConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The config of the hgmem.* query procedures (docs/hgmem.md; defaults in docs/hgmem.md#defaults, temperature 0 unless
 * {@code profile: 'paper'}), composed of the groups each procedure reads: the loop ({@link Loop}: hgmem.evolve and
 * hgmem.answer), retrieval ({@link Retrieval}: all but hgmem.respond), the answer ({@link Answering}: hgmem.respond and
 * hgmem.answer), and the call's own keys ({@link Call}), which are never stored. A session stores the loop's keys it
 * was created with (never {@code llm}); a later call on the session starts from them and may override any. Each key
 * is declared once, named as its accessor, with the algorithm's default.
 */
public record HgmemConfig(String corpus, Loop loop, Retrieval retrieval, Answering answering, String profile, Map<String, Object> llm,
                          Map<String, Object> stored, Call call, DocumentFilter where) {
    public enum Use { EVOLVE, RESPOND, ANSWER, RETRIEVE }

    /** The evolution loop (paper §3.2-3.6) and how absent entities are described. */
    public record Loop(int maxTurns, int numConcerns, int mergeFromStep, boolean enableUpdate, boolean enableMerge, boolean useHint,
                       Evolution.Strategy retrievalStrategy, HypergraphMemory.VertexPolicy updateVertexPolicy, Evolution.AbsentPolicy absentEntityPolicy,
                       int absentMaxAttempts, boolean rereadSources) {
        private static final Evolution.Settings D = Evolution.Settings.DEFAULTS;
        static final Key<Integer> MAX_TURNS = Key.integer("maxTurns", D.maxTurns(), 0, 20);
        static final Key<Integer> NUM_CONCERNS = Key.integer("numConcerns", D.numConcerns(), 1, 10);
        static final Key<Integer> MERGE_FROM_STEP = Key.integer("mergeFromStep", D.mergeFromStep(), 0, 20);
        static final Key<Boolean> ENABLE_UPDATE = Key.bool("enableUpdate", D.enableUpdate());
        static final Key<Boolean> ENABLE_MERGE = Key.bool("enableMerge", D.enableMerge());
        static final Key<Boolean> USE_HINT = Key.bool("useHint", D.useHint());
        static final Key<Evolution.Strategy> RETRIEVAL_STRATEGY = new Key<>("retrievalStrategy", D.strategy(),
                (r, k) -> r.has(k.name()) ? strategy(r.owner(), r.string(k.name(), null)) : k.dflt());
        static final Key<HypergraphMemory.VertexPolicy> UPDATE_VERTEX_POLICY = Key.choice("updateVertexPolicy", HypergraphMemory.VertexPolicy.class,
                D.vertexPolicy());
        static final Key<Evolution.AbsentPolicy> ABSENT_ENTITY_POLICY = Key.choice("absentEntityPolicy", Evolution.AbsentPolicy.class, D.absentPolicy());
        static final Key<Integer> ABSENT_MAX_ATTEMPTS = Key.integer("absentMaxAttempts", 3, 1, 10);
        static final Key<Boolean> REREAD_SOURCES = Key.bool("rereadSources", D.rereadSources());
        static final Loop DEFAULTS = new Loop(D.maxTurns(), D.numConcerns(), D.mergeFromStep(), D.enableUpdate(), D.enableMerge(), D.useHint(),
                D.strategy(), D.vertexPolicy(), D.absentPolicy(), ABSENT_MAX_ATTEMPTS.dflt(), D.rereadSources());

        static Loop read(ConfigReader r) {
            return new Loop(MAX_TURNS.read(r), NUM_CONCERNS.read(r), MERGE_FROM_STEP.read(r), ENABLE_UPDATE.read(r), ENABLE_MERGE.read(r), USE_HINT.read(r),
                    RETRIEVAL_STRATEGY.read(r), UPDATE_VERTEX_POLICY.read(r), ABSENT_ENTITY_POLICY.read(r), ABSENT_MAX_ATTEMPTS.read(r), REREAD_SOURCES.read(r));
        }

        Evolution.Settings settings() {
            return new Evolution.Settings(maxTurns, numConcerns, mergeFromStep, enableUpdate, enableMerge, useHint, retrievalStrategy, updateVertexPolicy,
                    absentEntityPolicy, rereadSources);
        }
    }

    /** Retrieval settings (paper Eq. 1, §3.4) and the extended-info hint (hintPool and hintK: the loop's uses only). */
    public record Retrieval(int entityPool, int entitiesPerQuery, int relationsPerQuery, int chunksPerQuery, boolean passageRetrieval,
                            int relTokenBudget, int chunkTokenBudget, int descriptionTokens, int localHops, boolean excludeMemoryInGlobal, double minSim,
                            int hintPool, int hintK, int hintDescriptionTokens) {
        static final Key<Integer> ENTITY_POOL = Key.integer("entityPool", 20, 1, 1000);
        static final Key<Integer> ENTITIES_PER_QUERY = Key.integer("entitiesPerQuery", 5, 1, 100);
        static final Key<Integer> RELATIONS_PER_QUERY = Key.integer("relationsPerQuery", 5, 0, 100);
        static final Key<Integer> CHUNKS_PER_QUERY = Key.integer("chunksPerQuery", 5, 0, 100);
        static final Key<Boolean> PASSAGE_RETRIEVAL = Key.bool("passageRetrieval", true);
        static final Key<Integer> REL_TOKEN_BUDGET = Key.integer("relTokenBudget", 1500, 0, 100_000);
        static final Key<Integer> CHUNK_TOKEN_BUDGET = Key.integer("chunkTokenBudget", 4000, 0, 1_000_000);
        static final Key<Integer> DESCRIPTION_TOKENS = Key.integer("descriptionTokens", 100, 10, 10_000);
        static final Key<Integer> LOCAL_HOPS = Key.integer("localHops", 2, 0, 5);
        static final Key<Boolean> EXCLUDE_MEMORY_IN_GLOBAL = Key.bool("excludeMemoryInGlobal", true);
        static final Key<Double> MIN_SIM = Key.number("minSim", 0.2, -1, 1);
        static final Key<Integer> HINT_POOL = Key.integer("hintPool", 20, 1, 1000);
        static final Key<Integer> HINT_K = Key.integer("hintK", 5, 0, 100);
        /** The hint is a suggestion of names: its descriptions are cut shorter than the tables' (the reference: 100). */
        static final Key<Integer> HINT_DESCRIPTION_TOKENS = Key.integer("hintDescriptionTokens", 40, 10, 10_000);
        public static final Retrieval DEFAULTS = new Retrieval(ENTITY_POOL.dflt(), ENTITIES_PER_QUERY.dflt(), RELATIONS_PER_QUERY.dflt(),
                CHUNKS_PER_QUERY.dflt(), PASSAGE_RETRIEVAL.dflt(), REL_TOKEN_BUDGET.dflt(), CHUNK_TOKEN_BUDGET.dflt(), DESCRIPTION_TOKENS.dflt(),
                LOCAL_HOPS.dflt(), EXCLUDE_MEMORY_IN_GLOBAL.dflt(), MIN_SIM.dflt(), HINT_POOL.dflt(), HINT_K.dflt(), HINT_DESCRIPTION_TOKENS.dflt());

        static Retrieval read(ConfigReader r, boolean hint) {
            Retrieval out = new Retrieval(ENTITY_POOL.read(r), ENTITIES_PER_QUERY.read(r), RELATIONS_PER_QUERY.read(r), CHUNKS_PER_QUERY.read(r),
                    PASSAGE_RETRIEVAL.read(r), REL_TOKEN_BUDGET.read(r), CHUNK_TOKEN_BUDGET.read(r), DESCRIPTION_TOKENS.read(r), LOCAL_HOPS.read(r),
                    EXCLUDE_MEMORY_IN_GLOBAL.read(r), MIN_SIM.read(r), hint ? HINT_POOL.read(r) : HINT_POOL.dflt(), hint ? HINT_K.read(r) : HINT_K.dflt(),
                    hint ? HINT_DESCRIPTION_TOKENS.read(r) : HINT_DESCRIPTION_TOKENS.dflt());
            if (out.entitiesPerQuery() > out.entityPool()) {
                throw new RagException(r.owner() + ": entitiesPerQuery (" + out.entitiesPerQuery() + ") cannot exceed entityPool (" + out.entityPool() + ")");
            }
            return out;
        }
    }

    /**
     * The final context E6 reads (paper §3.6), the answer's form, and the reranking stage over that context (best first,
     * rerankTopK kept; {@link RerankConfig#readContext}).
     */
    public record Answering(int innerPerUnit, int outerPerUnit, int finalMaxChunks, int finalTokenBudget, int emptyMemoryChunks, String responseType,
                            RerankConfig rerank) {
        private static final FinalContext.Settings D = FinalContext.Settings.DEFAULTS;
        static final Key<Integer> INNER_PER_UNIT = Key.integer("innerPerUnit", D.innerPerUnit(), 0, 100);
        static final Key<Integer> OUTER_PER_UNIT = Key.integer("outerPerUnit", D.outerPerUnit(), 0, 100);
        static final Key<Integer> FINAL_MAX_CHUNKS = Key.integer("finalMaxChunks", D.maxChunks(), 1, 1000);
        static final Key<Integer> FINAL_TOKEN_BUDGET = Key.integer("finalTokenBudget", D.tokenBudget(), 100, 1_000_000);
        static final Key<Integer> EMPTY_MEMORY_CHUNKS = Key.integer("emptyMemoryChunks", D.emptyMemoryChunks(), 0, 100);
        static final String RESPONSE_TYPE = "Multiple Paragraphs";
        static final Key<String> RESPONSE_TYPE_KEY = Key.string("responseType", RESPONSE_TYPE);
        static final Answering DEFAULTS = new Answering(D.innerPerUnit(), D.outerPerUnit(), D.maxChunks(), D.tokenBudget(), D.emptyMemoryChunks(),
                RESPONSE_TYPE, RerankConfig.OFF);

        static Answering read(ConfigReader r) {
            Answering a = new Answering(INNER_PER_UNIT.read(r), OUTER_PER_UNIT.read(r), FINAL_MAX_CHUNKS.read(r), FINAL_TOKEN_BUDGET.read(r),
                    EMPTY_MEMORY_CHUNKS.read(r), RESPONSE_TYPE_KEY.read(r), RerankConfig.readContext(r));
            if (a.responseType().length() > 200) throw new RagException(r.owner() + ": config key 'responseType' is longer than 200 characters");
            return a;
        }

        FinalContext.Settings finalContext() {
            return new FinalContext.Settings(innerPerUnit, outerPerUnit, finalMaxChunks, finalTokenBudget, emptyMemoryChunks);
        }
    }

    /**
     * The call's own keys, never stored with a session: hgmem.evolve's manual control (subqueries, targets, force),
     * hgmem.answer's session handling (sessionId, keepSession, returnTrace), hgmem.retrieve's mode and targets.
     * targets stays raw until the number of subqueries is known ({@link HgmemConfig#targets}).
     */
    public record Call(List<String> subqueries, Object targets, boolean force, String sessionId, boolean keepSession, boolean returnTrace, String mode) {
        static final Call NONE = new Call(null, null, false, null, true, false, null);
    }

    /** Keys that describe one call, never stored with a session. */
    static final Set<String> PER_CALL = Set.of("llm", "profile", "subqueries", "targets", "force", "sessionId", "keepSession", "returnTrace", "mode", "corpus");

    /** The sampling a session runs with: the server's, or the paper's (temperature 0.8, 2,048 completion tokens). */
    enum Profile { DEFAULT, PAPER }

    static final Key<Profile> PROFILE = Key.choice("profile", Profile.class, Profile.DEFAULT);
    static final Key<List<String>> SUBQUERIES = Key.strings("subqueries", null);
    static final Key<Object> TARGETS = Key.any("targets");
    static final Key<Boolean> FORCE = Key.bool("force", false);
    static final Key<String> SESSION_ID = Key.string("sessionId", null);
    static final Key<Boolean> KEEP_SESSION = Key.bool("keepSession", true);
    static final Key<Boolean> RETURN_TRACE = Key.bool("returnTrace", false);
    /** hgmem.retrieve's mode: over the whole base graph, or around the memory points a caller names. */
    enum RetrieveMode { GLOBAL, LOCAL }

    static final Key<RetrieveMode> RETRIEVE_MODE = Key.choice("mode", RetrieveMode.class, null);

    public static HgmemConfig parse(Use use, Map<String, Object> config) {
        String owner = "hgmem." + use.name().toLowerCase(Locale.ROOT);
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = r.corpus();
        boolean loops = use == Use.EVOLVE || use == Use.ANSWER;
        boolean answers = use == Use.RESPOND || use == Use.ANSWER;
        Loop loop = loops ? Loop.read(r) : Loop.DEFAULTS;
        Retrieval retrieval = use == Use.RESPOND ? Retrieval.DEFAULTS : Retrieval.read(r, loops);
        Answering answering = answers ? Answering.read(r) : Answering.DEFAULTS;
        String profile = lower(use == Use.RETRIEVE ? PROFILE.dflt() : PROFILE.read(r));
        Map<String, Object> llm = use == Use.RETRIEVE ? null : LlmConfig.KEY.read(r);
        Call call = switch (use) {
            case EVOLVE -> new Call(SUBQUERIES.read(r), TARGETS.read(r), FORCE.read(r), null, true, false, null);
            case ANSWER -> new Call(null, null, false, SESSION_ID.read(r), KEEP_SESSION.read(r), RETURN_TRACE.read(r), null);
            case RETRIEVE -> new Call(null, TARGETS.read(r), false, null, true, false, lower(RETRIEVE_MODE.read(r)));
            case RESPOND -> Call.NONE;
        };
        // a session keeps its filter (a retrieval key, stored): no step retrieves a chunk outside it (docs/hgmem.md)
        DocumentFilter where = use == Use.RESPOND ? null : DocumentFilter.parse(owner, DocumentFilter.WHERE.read(r));
        r.finish();
        Map<String, Object> stored = new LinkedHashMap<>();
        config.forEach((k, v) -> { if (!PER_CALL.contains(k)) stored.put(k, v); });
        return new HgmemConfig(corpus, loop, retrieval, answering, profile, llm, stored, call, where);
    }

    /** A choice as the rest of HGMem (and the stored session config) spells it: lower case, or null when absent. */
    private static String lower(Enum<?> choice) {
        return choice == null ? null : choice.name().toLowerCase(Locale.ROOT);
    }

    /** profile 'paper': the paper's sampling (temperature 0.8, 2,048 completion tokens) unless the call's llm map says otherwise. */
    public boolean paperProfile() {
        return profile.equals("paper");
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
            "relTokenBudget", "chunkTokenBudget", "descriptionTokens", "localHops", "excludeMemoryInGlobal", "minSim", DocumentFilter.KEY_NAME);
    static final Set<String> ANSWER_KEYS = Set.of("innerPerUnit", "outerPerUnit", "finalMaxChunks", "finalTokenBudget", "emptyMemoryChunks", "responseType",
            RerankConfig.RERANK.name(), RerankConfig.TOP_K.name());

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
