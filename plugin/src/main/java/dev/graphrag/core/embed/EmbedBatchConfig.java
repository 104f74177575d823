package dev.graphrag.core.embed;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.Map;

/** rag.embed.batch's config: whether vectors may come from (and go to) the embedding cache. */
public record EmbedBatchConfig(boolean useCache) {
    static final Key<Boolean> USE_CACHE = Key.bool("useCache", false);

    public static EmbedBatchConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.embed.batch", config);
        EmbedBatchConfig c = new EmbedBatchConfig(USE_CACHE.read(r));
        r.finish();
        return c;
    }
}
