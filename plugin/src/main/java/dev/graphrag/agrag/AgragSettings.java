package dev.graphrag.agrag;

import dev.graphrag.core.config.Setting;

import java.util.List;

/** The settings AGRAG contributes to graphrag.conf (docs/configuration.md). */
public final class AgragSettings {
    /** When a database becomes available, load each AGRAG corpus's snapshot and GDS projection in the background. */
    public static final Setting<Boolean> WARM_ON_START = Setting.bool("graphrag.agrag.warmOnStart", true);

    /** Every setting AGRAG declares, for {@code PluginSettings.load}. */
    public static final List<Setting<?>> DECLARED = List.of(WARM_ON_START);

    private AgragSettings() {}
}
