package dev.graphrag.agrag;

import dev.graphrag.core.config.ConfigReader;

import java.util.Map;

/** Config of agrag.mcmi / agrag.retrieve / agrag.answer (docs/agrag.md). filter defaults to true only with an LLM. */
public record AgragQueryConfig(String corpus, int factTopK, boolean filter, double damping, double tolerance, int maxIterations,
                               boolean pprWeighted, double passageScoreFactor, EdgeCosts costMode, boolean expansion,
                               McmiExpansion.Rule expansionRule, int maxExpansions, boolean inducedOutput, boolean denseOnly,
                               int k, RetrieveMode mode, PprEngine pprEngine, boolean includePathChunks, boolean returnPrompt,
                               double passageNodeWeight, int denseFirst, int namedPassages, int linkedPassages, int concurrency,
                               Map<String, Object> llm) {
    public enum RetrieveMode { MCMI, HYBRID, PPR }

    /** NATIVE: Gauss-Seidel sweeps on the snapshot's cached CSR; GDS: gds.pageRank.stream on the corpus projection. Same fixed point. */
    public enum PprEngine { NATIVE, GDS }

    /** Which procedure parses: each reads (and so accepts) only the keys it uses; any other key is an error naming it. */
    public enum Use {
        MCMI("agrag.mcmi"), RETRIEVE("agrag.retrieve"), ANSWER("agrag.answer"), MAP_FACTS("agrag.mapFacts");

        final String procedure;

        Use(String procedure) {
            this.procedure = procedure;
        }

        boolean subgraph() {
            return this != MAP_FACTS;
        }

        boolean ranks() {
            return this == RETRIEVE || this == ANSWER;
        }
    }

    enum OutputEdges { INDUCED, SELECTED }

    enum RetrievalMode { HYBRID, DENSE }

    public static AgragQueryConfig parse(Use use, Map<String, Object> config, boolean llmConfigured) {
        ConfigReader r = ConfigReader.of(use.procedure, config);
        String corpus = r.corpus();
        Map<String, Object> llm = r.map("llm");
        RetrieveMode mode = use == Use.RETRIEVE || use == Use.MAP_FACTS ? r.choice("mode", RetrieveMode.class, RetrieveMode.MCMI) : RetrieveMode.MCMI;
        // the ppr mode's defaults were tuned on MuSiQue (docs/benchmarks.md); the others are the spec's
        boolean ppr = mode == RetrieveMode.PPR;
        int factTopK = r.integer("factTopK", ppr ? 10 : 5, 1, 1000);
        boolean filter = r.bool("filter", llmConfigured || llm != null);
        boolean sub = use.subgraph();
        double damping = sub ? r.number("damping", ppr ? 0.4 : 0.5, 0, 0.99) : 0.5;
        double tolerance = sub ? r.number("pprTolerance", 1e-7, 0, 1) : 1e-7;
        int maxIterations = sub ? r.integer("pprMaxIterations", 100, 1, 10_000) : 100;
        boolean weighted = !sub || r.bool("pprWeighted", true);
        double passage = sub ? r.number("passageScoreFactor", 0.05, 0, 1) : 0.05;
        EdgeCosts costs = sub ? r.choice("costMode", EdgeCosts.class, EdgeCosts.HALF) : EdgeCosts.HALF;
        boolean expansion = !sub || r.bool("expansion", true);
        McmiExpansion.Rule rule = sub ? r.choice("expansionRule", McmiExpansion.Rule.class, McmiExpansion.Rule.MEAN) : McmiExpansion.Rule.MEAN;
        int maxExpansions = sub ? r.integer("maxExpansions", 20, 0, 10_000) : 20;
        OutputEdges outputEdges = sub ? r.choice("outputEdges", OutputEdges.class, OutputEdges.INDUCED) : OutputEdges.INDUCED;
        RetrievalMode retrievalMode = sub ? r.choice("retrievalMode", RetrievalMode.class, RetrievalMode.HYBRID) : RetrievalMode.HYBRID;
        // native by default: on the 2Wiki graph GDS's PageRank call alone takes ~100 ms per query (docs/benchmarks.md)
        PprEngine engine = sub ? r.choice("pprEngine", PprEngine.class, PprEngine.NATIVE) : PprEngine.NATIVE;
        // 2: the stages that touch no transaction (the fact scan, native PageRank, entity cosines) run beside the caller's; more has nothing to run
        int concurrency = sub ? r.integer("concurrency", 2, 1, 2) : 1;
        boolean ranks = use.ranks();
        int k = ranks ? r.integer("k", 5, 1, 1000) : 5;
        boolean includePath = use != Use.ANSWER || r.bool("includePathChunks", true);
        boolean returnPrompt = use == Use.ANSWER && r.bool("returnPrompt", false);
        double passageNodeWeight = use == Use.RETRIEVE ? r.number("passageNodeWeight", 1.0, 0, 100) : 1.0;
        int denseFirst = ranks ? r.integer("denseFirst", 1, 0, 1000) : 1;
        // the densest chunk, then documents known by title lead the graph's ranking in both modes (docs/benchmarks.md);
        // {denseFirst: 0, namedPassages: 0, linkedPassages: 0} is the paper's ranking
        int namedPassages = ranks ? r.integer("namedPassages", 1, 0, 1000) : 1;
        int linkedPassages = ranks ? r.integer("linkedPassages", 1, 0, 1000) : 1;
        r.finish();
        return new AgragQueryConfig(corpus, factTopK, filter, damping, tolerance, maxIterations, weighted, passage, costs, expansion, rule,
                maxExpansions, outputEdges == OutputEdges.INDUCED, retrievalMode == RetrievalMode.DENSE, k, mode, engine, includePath, returnPrompt,
                passageNodeWeight, denseFirst, namedPassages, linkedPassages, concurrency, llm);
    }
}
