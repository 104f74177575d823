package dev.graphrag.core.llm;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.List;
import java.util.Map;

/**
 * rag.llm.chat's config: the {@code llm} group (read by {@link LlmConfig#resolve}), the request's tools, toolChoice,
 * responseFormat and stop (checked by {@link ChatRequest}), and whether the reply may come from the cache.
 */
public record ChatConfig(Map<String, Object> llm, List<Map<String, Object>> tools, Object toolChoice, Object responseFormat, List<String> stop,
                         boolean cache) {
    static final Key<List<Map<String, Object>>> TOOLS = Key.maps("tools");
    static final Key<Object> TOOL_CHOICE = Key.any("toolChoice");
    static final Key<Object> RESPONSE_FORMAT = Key.any("responseFormat");
    static final Key<List<String>> STOP = Key.strings("stop", List.of());
    static final Key<Boolean> CACHE = Key.bool("cache", true);

    public static ChatConfig parse(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("rag.llm.chat", config);
        ChatConfig c = new ChatConfig(LlmConfig.KEY.read(r), TOOLS.read(r), TOOL_CHOICE.read(r), RESPONSE_FORMAT.read(r), STOP.read(r), CACHE.read(r));
        r.finish();
        return c;
    }
}
