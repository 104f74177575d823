package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.List;
import java.util.Map;

/**
 * rag.llm.check's config: the {@code llm} group, which methods to check (names the caller knows; default all of
 * them), how many of the built-in sample's cases (1 to all; default all) and whether to only plan (dryRun).
 */
public record ModelCheckConfig(Map<String, Object> llm, List<String> methods, int cases, boolean dryRun) {
    static final Key<Boolean> DRY_RUN = Key.bool("dryRun", false);

    /** @param known the method names the check knows, in order: the default and the only values accepted */
    public static ModelCheckConfig parse(Map<String, Object> config, List<String> known) {
        ConfigReader r = ConfigReader.of("rag.llm.check", config);
        Map<String, Object> llm = LlmConfig.KEY.read(r);
        List<String> methods = Key.strings("methods", known).read(r);
        int cases = Key.integer("cases", CheckSample.CASES.size(), 1, CheckSample.CASES.size()).read(r);
        boolean dryRun = DRY_RUN.read(r);
        r.finish();
        for (String m : methods) {
            if (!known.contains(m)) throw new RagException("rag.llm.check: unknown method '" + m + "' in methods: one of " + known);
        }
        return new ModelCheckConfig(llm, methods, cases, dryRun);
    }
}
