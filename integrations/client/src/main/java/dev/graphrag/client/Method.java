package dev.graphrag.client;

import java.util.Arrays;
import java.util.Locale;

/**
 * What retrieves: the platform's chunk search, or one of the four methods. Each method's layer must be built over the
 * corpus (agrag.index, hgmem.index, raga.ingest, remind.index) before it retrieves or answers.
 */
public enum Method {
    /** rag.search: dense, BM25, hybrid or rrf over the corpus's chunks (the {@code mode} key); no LLM. */
    SEARCH("rag", "k"),
    /** agrag.retrieve / agrag.answer: the reasoning subgraph's chunks, then hybrid search; no LLM to retrieve. */
    AGRAG("agrag", "k"),
    /** hgmem.retrieve / hgmem.answer: one subquery's entity chunks and dense passages; answers grow a session's memory. */
    HGMEM("hgmem", "chunksPerQuery"),
    /** raga.retrieve / raga.answer: vector, knowledge-graph or fused retrieval over the agent-built graph. */
    RAGA("raga", "topK"),
    /** remind.query: the LLM-guided walk (replayed from memory where it can); retrieval is the walk's chunks. */
    REMIND("remind", null);

    private final String prefix;
    private final String kKey;

    Method(String prefix, String kKey) {
        this.prefix = prefix;
        this.kKey = kKey;
    }

    /** The procedures' namespace: rag, agrag, hgmem, raga, remind. */
    public String prefix() {
        return prefix;
    }

    /** The config key that sets how many chunks come back, or null when the method decides (ReMind: the walk's). */
    String kKey() {
        return kKey;
    }

    /** The method a name gives (search, rag, agrag, hgmem, raga, remind; any case); the error lists them. */
    public static Method of(String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            for (Method m : values()) if (m.name().toLowerCase(Locale.ROOT).equals(n) || m.prefix.equals(n)) return m;
        }
        throw new IllegalArgumentException("unknown method '" + name + "'; use one of "
                + Arrays.stream(values()).map(m -> m.name().toLowerCase(Locale.ROOT)).toList());
    }
}
