package dev.graphrag.agrag;

import java.util.Map;

/** The settings AGRAG contributes to graphrag.conf (docs/configuration.md). */
public final class AgragSettings {
    /** When a database becomes available, load each AGRAG corpus's snapshot and GDS projection in the background. */
    public static final String WARM_ON_START = "graphrag.agrag.warmOnStart";

    public static final Map<String, Object> DECLARED = Map.of(WARM_ON_START, true);

    private AgragSettings() {}
}
