package dev.graphrag.core.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The schemas a request carries are sent in one key order whatever order the maps were built in. */
@LineIndependent
class OpenAiWireTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }

    @Test
    void propertiesFollowTheRequiredListThenTheirNamesAndOtherKeysTheirNames() throws Exception {
        Map<String, Object> str = Map.of("type", "string");
        // the same schema built in two insertion orders, as Map.of's per-run order would give
        Map<String, Object> one = ordered("type", "object", "required", List.of("relationships", "entities"),
                "properties", ordered("keywords", str, "entities", str, "relationships", str, "alpha", str));
        Map<String, Object> two = ordered("properties", ordered("alpha", str, "relationships", str, "keywords", str, "entities", str),
                "required", List.of("relationships", "entities"), "type", "object");
        String a = JSON.writeValueAsString(OpenAiWire.canonical(Map.of("name", "x", "schema", one)));
        String b = JSON.writeValueAsString(OpenAiWire.canonical(Map.of("schema", two, "name", "x")));
        assertEquals(a, b);
        assertEquals("{\"name\":\"x\",\"schema\":{\"properties\":{\"relationships\":{\"type\":\"string\"},\"entities\":{\"type\":\"string\"},"
                + "\"alpha\":{\"type\":\"string\"},\"keywords\":{\"type\":\"string\"}},\"required\":[\"relationships\",\"entities\"],\"type\":\"object\"}}", a);
    }

    @Test
    void nestedObjectsAndListsAreOrderedTooAndListsKeepTheirOrder() throws Exception {
        Map<String, Object> item = ordered("type", "object", "required", List.of("b"), "properties", ordered("a", Map.of("type", "string"), "b", Map.of("type", "integer")));
        Object tools = List.of(ordered("type", "function", "function", ordered("parameters", Map.of("type", "array", "items", item), "name", "t")));
        assertEquals("[{\"function\":{\"name\":\"t\",\"parameters\":{\"items\":{\"properties\":{\"b\":{\"type\":\"integer\"},\"a\":{\"type\":\"string\"}},"
                + "\"required\":[\"b\"],\"type\":\"object\"},\"type\":\"array\"}},\"type\":\"function\"}]", JSON.writeValueAsString(OpenAiWire.canonical(tools)));
        assertEquals("auto", OpenAiWire.canonical("auto"));
    }
}
