package dev.graphrag.core.llm;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.Map;

/** rag.llm.info's config: the {@code llm} group and whether to probe the endpoint's capabilities now. */
public record LlmInfoConfig(Map<String, Object> llm, boolean probe) {
    static final Key<Boolean> PROBE = Key.bool("probe", false);

    public static LlmInfoConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.llm.info", config);
        LlmInfoConfig c = new LlmInfoConfig(LlmConfig.KEY.read(r), PROBE.read(r));
        r.finish();
        return c;
    }
}
