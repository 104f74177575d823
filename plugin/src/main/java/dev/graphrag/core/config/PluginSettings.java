package dev.graphrag.core.config;

import dev.graphrag.core.RagException;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Server-wide settings: {@code graphrag.conf} in Neo4j's conf directory (like APOC's apoc.conf), then
 * environment variables (key upper-cased, dots and camel-case humps to underscores: {@code GRAPHRAG_LLM_API_KEY};
 * the unsplit {@code GRAPHRAG_LLM_APIKEY} is read too). Every setting is a {@link Setting} declared once (the
 * platform's in {@link ServerSettings}, each method's by the method) and read through it; an unknown graphrag.* key,
 * an ill-typed or out-of-range value is an error at start naming the setting. Documented in docs/configuration.md.
 */
public final class PluginSettings {
    public static final String FILE_NAME = "graphrag.conf";

    private final Map<String, Setting<?>> declared;
    private final Map<String, Object> values;
    private final String source;
    private final List<String> warnings;

    private PluginSettings(Map<String, Setting<?>> declared, Map<String, Object> values, String source, List<String> warnings) {
        this.declared = declared;
        this.values = values;
        this.source = source;
        this.warnings = List.copyOf(warnings);
    }

    public static PluginSettings defaults() {
        return fromStrings(Map.of(), "defaults");
    }


    /** The platform's settings and the methods' contributed ones; a method setting outside graphrag.&lt;method&gt;.* or declared twice is a programming error. */
    static Map<String, Setting<?>> declared(Setting<?>... methodSettings) {
        Map<String, Setting<?>> all = new LinkedHashMap<>();
        for (Setting<?> s : ServerSettings.ALL) {
            if (all.put(s.name(), s) != null) throw new IllegalStateException("setting " + s.name() + " declared twice");
        }
        for (Setting<?> s : methodSettings) {
            if (all.put(s.name(), s) != null) throw new IllegalArgumentException("method setting " + s.name() + " is declared twice");
        }
        return Collections.unmodifiableMap(all);
    }

    /** Every declared setting, the platform's first: what docs/configuration.md's table lists. */
    public static List<Setting<?>> declarations(Setting<?>... methodSettings) {
        return List.copyOf(declared(methodSettings).values());
    }

    /** {@link #load(Path, Map, Setting[])} with the settings the methods declare, as one list. */
    public static PluginSettings load(Path confDir, Map<String, String> env, List<Setting<?>> methodSettings) {
        return load(confDir, env, methodSettings.toArray(Setting<?>[]::new));
    }

    /** Reads confDir/graphrag.conf when it exists, then the environment; methods pass the settings they declare. */
    public static PluginSettings load(Path confDir, Map<String, String> env, Setting<?>... methodSettings) {
        Map<String, Setting<?>> declared = declared(methodSettings);
        Map<String, String> raw = new LinkedHashMap<>();
        Map<String, String> setByEnv = new LinkedHashMap<>();
        String source = "defaults";
        if (confDir != null) {
            Path file = confDir.resolve(FILE_NAME);
            if (Files.isRegularFile(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    p.load(r);
                } catch (IOException e) {
                    throw new RagException("cannot read " + file + ": " + e.getMessage(), e);
                }
                for (String k : p.stringPropertyNames()) raw.put(k.trim(), p.getProperty(k).trim());
                source = file.toString();
            }
        }
        Map<String, String> keyOfEnv = new LinkedHashMap<>();
        for (Setting<?> setting : declared.values()) {
            for (String name : setting.envNames()) keyOfEnv.put(name, setting.name());
        }
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            String key = keyOfEnv.get(e.getKey());
            if (key != null) {
                String earlier = setByEnv.get(key);
                if (earlier != null) {
                    throw new RagException("environment: both " + earlier + " and " + e.getKey() + " set '" + key + "'; keep one");
                }
                raw.put(key, e.getValue());
                setByEnv.put(key, e.getKey());
            } else if (e.getKey().startsWith("GRAPHRAG_")) {
                unknown.add(e.getKey());
            }
        }
        // a variable inside a settings group (GRAPHRAG_LLM_*, ...) is a misspelt setting: an error, as in graphrag.conf; any other
        // GRAPHRAG_* variable (the compose file's GRAPHRAG_PLUGIN_JAR, say) may be the user's own and is only named in a warning
        java.util.Set<String> groups = new java.util.TreeSet<>();
        for (String key : declared.keySet()) groups.add("GRAPHRAG_" + key.split("\\.")[1].toUpperCase(Locale.ROOT) + "_");
        List<String> warnings = new ArrayList<>();
        for (String name : unknown) {
            if (Stream.of(ServerSettings.LLM, ServerSettings.EMBEDDING, ServerSettings.RERANK).anyMatch(e -> name.equals(raw.get(e.apiKeyEnv().name())))) {
                continue; // the variable an apiKeyEnv names holds a key, not a setting
            }
            if (groups.stream().anyMatch(name::startsWith)) {
                throw new RagException("environment: unknown setting variable " + name + nearest(name, keyOfEnv.keySet()) + " (see docs/configuration.md)");
            }
            warnings.add("environment variable " + name + " is not a graphrag setting and is ignored (see docs/configuration.md)");
        }
        PluginSettings s = fromStrings(raw, source, declared, setByEnv);
        return new PluginSettings(declared, s.values, s.source, warnings);
    }


    /** Settings from raw strings (a conf file's content): {@code source} names where they came from in errors. */
    public static PluginSettings fromStrings(Map<String, String> raw, String source, Setting<?>... methodSettings) {
        return fromStrings(raw, source, declared(methodSettings), Map.of());
    }

    /** {@code setByEnv}: setting -> the variable that set it, named in its error instead of {@code source}. */
    private static PluginSettings fromStrings(Map<String, String> raw, String source, Map<String, Setting<?>> declared, Map<String, String> setByEnv) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Setting<?> s : declared.values()) values.put(s.name(), s.dflt());
        for (Map.Entry<String, String> e : raw.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("graphrag.")) continue;
            Setting<?> setting = declared.get(key);
            if (setting == null) {
                throw new RagException(source + ": unknown setting '" + key + "'" + nearest(key, declared.keySet()) + " (see docs/configuration.md)");
            }
            String variable = setByEnv.get(key);
            values.put(key, setting.parse(e.getValue(), variable == null ? source : "environment variable " + variable));
        }
        return new PluginSettings(declared, values, source, List.of());
    }

    /** ", did you mean 'x'?" for a key one or two edits from a declared one, else "". */
    private static String nearest(String key, java.util.Collection<String> names) {
        String best = null;
        int bestDistance = 3;
        for (String n : names) {
            int d = editDistance(key.toLowerCase(Locale.ROOT), n.toLowerCase(Locale.ROOT), bestDistance);
            if (d < bestDistance) {
                best = n;
                bestDistance = d;
            }
        }
        return best == null ? "" : ", did you mean '" + best + "'?";
    }

    /** Levenshtein distance, or {@code cap} once it is known to be at least that. */
    private static int editDistance(String a, String b, int cap) {
        if (Math.abs(a.length() - b.length()) >= cap) return cap;
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin >= cap) return cap;
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return Math.min(prev[b.length()], cap);
    }

    /** What the server should log at start: ignored GRAPHRAG_* variables and the like. */
    public List<String> warnings() {
        return warnings;
    }

    public String source() { return source; }

    /** The setting's value: from graphrag.conf or the environment, else its default. */
    public <T> T get(Setting<T> setting) {
        Setting<?> known = declared.get(setting.name());
        if (known == null) throw new IllegalArgumentException("undeclared setting " + setting.name());
        @SuppressWarnings("unchecked")
        T value = (T) values.get(setting.name());
        return value;
    }

    /** A whole-number setting as an int (the declarations keep every such setting's range within one where code needs it). */
    public int intValue(Setting<Long> setting) {
        return Math.toIntExact(get(setting));
    }
}
