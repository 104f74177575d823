package dev.graphrag.agrag;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.lexical.LexicalGraph;

import java.util.Map;

/** Config of agrag.mcmi / agrag.retrieve / agrag.answer (docs/agrag.md). filter defaults to true only with an LLM. */
public record AgragQueryConfig(String corpus, int factTopK, boolean filter, double damping, double tolerance, int maxIterations,
                               boolean pprWeighted, double passageScoreFactor, EdgeCosts costMode, boolean expansion,
                               McmiExpansion.Rule expansionRule, int maxExpansions, boolean inducedOutput, boolean denseOnly,
                               int k, RetrieveMode mode, PprEngine pprEngine, boolean includePathChunks, boolean returnPrompt,
                               double passageNodeWeight, int denseFirst, int namedPassages, int linkedPassages, Map<String, Object> llm) {
    public enum RetrieveMode { MCMI, HYBRID, PPR }

    /** NATIVE: power iteration on the snapshot's cached CSR; GDS: gds.pageRank.stream on the corpus projection. Same iteration. */
    public enum PprEngine { NATIVE, GDS }

    public static AgragQueryConfig parse(String owner, Map<String, Object> config, boolean llmConfigured) {
        ConfigReader r = ConfigReader.of(owner, config);
        String corpus = LexicalGraph.checkCorpusName(r.string("corpus", LexicalGraph.DEFAULT_CORPUS));
        Map<String, Object> llm = r.map("llm");
        RetrieveMode mode = r.choice("mode", RetrieveMode.class, RetrieveMode.MCMI);
        // the ppr mode's defaults were tuned on MuSiQue (docs/benchmarks.md); the others are the spec's
        boolean ppr = mode == RetrieveMode.PPR;
        int factTopK = r.integer("factTopK", ppr ? 10 : 5, 1, 1000);
        boolean filter = r.bool("filter", llmConfigured || llm != null);
        double damping = r.number("damping", ppr ? 0.4 : 0.5, 0, 0.99);
        double tolerance = r.number("pprTolerance", 1e-7, 0, 1);
        int maxIterations = r.integer("pprMaxIterations", 100, 1, 10_000);
        boolean weighted = r.bool("pprWeighted", true);
        double passage = r.number("passageScoreFactor", 0.05, 0, 1);
        EdgeCosts costs = r.choice("costMode", EdgeCosts.class, EdgeCosts.HALF);
        boolean expansion = r.bool("expansion", true);
        McmiExpansion.Rule rule = r.choice("expansionRule", McmiExpansion.Rule.class, McmiExpansion.Rule.MEAN);
        int maxExpansions = r.integer("maxExpansions", 20, 0, 10_000);
        String outputEdges = r.string("outputEdges", "induced");
        if (!outputEdges.equals("induced") && !outputEdges.equals("selected")) {
            throw new dev.graphrag.core.RagException(owner + ": config key 'outputEdges' must be one of [induced, selected], got '" + outputEdges + "'");
        }
        String retrievalMode = r.string("retrievalMode", "hybrid");
        if (!retrievalMode.equals("hybrid") && !retrievalMode.equals("dense")) {
            throw new dev.graphrag.core.RagException(owner + ": config key 'retrievalMode' must be one of [hybrid, dense], got '" + retrievalMode + "'");
        }
        int k = r.integer("k", 5, 1, 1000);
        // native by default: on the 2Wiki graph GDS's PageRank call alone takes ~100 ms per query (docs/benchmarks.md)
        PprEngine engine = r.choice("pprEngine", PprEngine.class, PprEngine.NATIVE);
        boolean includePath = r.bool("includePathChunks", true);
        boolean returnPrompt = r.bool("returnPrompt", false);
        double passageNodeWeight = r.number("passageNodeWeight", 1.0, 0, 100);
        int denseFirst = r.integer("denseFirst", 1, 0, 1000);
        // the densest chunk, then documents known by title lead the graph's ranking in both modes: on MuSiQue Recall@5 +8.1 (mcmi)
        // and +6.5 (ppr) points (docs/benchmarks.md); {denseFirst: 0, namedPassages: 0, linkedPassages: 0} is the paper's ranking
        int namedPassages = r.integer("namedPassages", 1, 0, 1000);
        int linkedPassages = r.integer("linkedPassages", 1, 0, 1000);
        r.finish();
        return new AgragQueryConfig(corpus, factTopK, filter, damping, tolerance, maxIterations, weighted, passage, costs, expansion, rule,
                maxExpansions, outputEdges.equals("induced"), retrievalMode.equals("dense"), k, mode, engine, includePath, returnPrompt, passageNodeWeight, denseFirst, namedPassages, linkedPassages, llm);
    }
}
