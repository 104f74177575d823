package dev.graphrag;

import dev.graphrag.agrag.AgragSettings;
import dev.graphrag.core.config.PluginSettings;
import dev.graphrag.core.config.Setting;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * docs/configuration.md's settings table against the declarations, both ways (as ProcedureSignaturesTest holds the call
 * keys): every declared setting, the methods' included, has one row whose type, default, range, environment variable and
 * per-call column are the declaration's, and every row names a declared setting, in the declarations' order.
 */
@LineIndependent
class SettingsDocsTest {
    static final Path PAGE = Path.of("..", "docs", "configuration.md");

    /** The table's rows: setting -> its first six cells as written. */
    static Map<String, List<String>> documentedRows() throws Exception {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(PAGE)) {
            if (line.startsWith("| setting | type | default | range | environment variable | per call | meaning |")) {
                inTable = true;
                continue;
            }
            if (!inTable || line.startsWith("|---")) continue;
            if (!line.startsWith("|")) break;
            String[] cells = line.substring(1).split(" \\| ", -1);
            List<String> six = new ArrayList<>();
            for (int i = 0; i < 6; i++) six.add(cells[i].strip());
            String name = six.get(0).replaceFirst(" \\(contributed by \\w+\\)$", "");
            six.set(0, name);
            assertFalse(rows.containsKey(name), "two rows for " + name);
            rows.put(name, six);
        }
        return rows;
    }

    static List<String> expectedRow(Setting<?> s) {
        String perCall = s.perCall() == null ? "" : (s.perCall() == Setting.PerCall.CEILING ? "ceiling of `" : "default of `") + s.callKey() + "`";
        return List.of(s.name(), s.type().label(), s.dfltText().isEmpty() ? "(none)" : s.dfltText(), s.range(), "`" + s.envName() + "`", perCall);
    }

    @Test
    void theSettingsTableIsTheDeclarations() throws Exception {
        Map<String, List<String>> documented = documentedRows();
        List<Setting<?>> declared = PluginSettings.declarations(AgragSettings.DECLARED.toArray(Setting<?>[]::new));
        for (Setting<?> s : declared) {
            assertEquals(expectedRow(s), documented.get(s.name()), "docs/configuration.md's row for " + s.name()
                    + " (setting | type | default | range | environment variable | per call)");
        }
        assertEquals(declared.stream().map(Setting::name).toList(), List.copyOf(documented.keySet()),
                "docs/configuration.md lists exactly the declared settings, in their order");
    }
}
