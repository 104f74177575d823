package dev.graphrag.hgmem;

import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.Map;

/** The configs of the calls that look at or remove HGMem sessions. */
public final class HgmemSessionConfig {
    static final Key<Boolean> INCLUDE_INACTIVE = Key.bool("includeInactive", false);
    static final Key<Boolean> DROP_PROVISIONAL = Key.bool("dropProvisional", false);

    private HgmemSessionConfig() {}

    /** hgmem.memory: whether memory points merged away are listed too. */
    public static boolean includeInactive(Map<String, Object> config) {
        return only("hgmem.memory", config, INCLUDE_INACTIVE);
    }

    /** hgmem.session.drop: whether the entities the session created, and no other session's memory holds, go too. */
    public static boolean dropProvisional(Map<String, Object> config) {
        return only("hgmem.session.drop", config, DROP_PROVISIONAL);
    }

    /** hgmem.session.list: one corpus's sessions, or null (the key absent) for every corpus's. */
    public static String listedCorpus(Map<String, Object> config) {
        ConfigReader r = ConfigReader.of("hgmem.session.list", config);
        String corpus = r.has("corpus") ? r.corpus() : null;
        r.finish();
        return corpus;
    }

    private static boolean only(String owner, Map<String, Object> config, Key<Boolean> key) {
        ConfigReader r = ConfigReader.of(owner, config);
        boolean value = key.read(r);
        r.finish();
        return value;
    }
}
