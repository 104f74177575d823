package dev.graphrag.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The weak-model error layer: seeded and repeatable, at its rates, each kind fitting its reply, the policy's own reply untouched otherwise. */
class WeakModelTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode body(int i) {
        ObjectNode b = JSON.createObjectNode();
        b.putArray("messages").addObject().put("role", "user").put("content", "question number " + i);
        return b;
    }

    static JsonNode jsonReply() {
        ObjectNode m = JSON.createObjectNode().put("role", "assistant");
        m.put("content", "{\"entities\":[\"Xodar\",\"Issus\"],\"count\":2,\"reasoning\":\"pad\"}");
        return m;
    }

    static JsonNode toolReply() {
        ObjectNode m = JSON.createObjectNode().put("role", "assistant");
        m.set("tool_calls", JSON.valueToTree(List.of(PolicyReply.toolCall("c1", "create_entity", Map.of("name", "Xodar")),
                PolicyReply.toolCall("c2", "chunk_complete", Map.of("summary", "done")))));
        return m;
    }

    @Test
    void drawsRepeatAndFollowTheRate() {
        WeakModel a = WeakModel.of(7, 0.25), b = WeakModel.of(7, 0.25), other = WeakModel.of(8, 0.25);
        int broken = 0, differs = 0;
        for (int i = 0; i < 4000; i++) {
            WeakModel.Kind k = a.draw("step", body(i), jsonReply());
            assertEquals(k, b.draw("step", body(i), jsonReply()), "the same seed, step and body: the same draw");
            if (k != null) broken++;
            if (k != other.draw("step", body(i), jsonReply())) differs++;
        }
        assertEquals(0.25, broken / 4000.0, 0.025, "the rate");
        assertTrue(differs > 400, "another seed, other draws");
        assertNull(WeakModel.of(7, 0).draw("step", body(1), jsonReply()));
        for (int i = 0; i < 50; i++) assertTrue(WeakModel.of(7, 1).draw("step", body(i), jsonReply()) != null);
    }

    @Test
    void eachKindFitsItsReplyAndBreaksItTheWayASmallModelDoes() {
        Map<WeakModel.Kind, Integer> seen = new EnumMap<>(WeakModel.Kind.class);
        WeakModel all = WeakModel.of(3, 1);
        for (int i = 0; i < 400; i++) {
            seen.merge(all.draw("s", body(i), jsonReply()), 1, Integer::sum);
            WeakModel.Kind t = all.draw("s", body(i), toolReply());
            assertFalse(t == WeakModel.Kind.BROKEN_JSON || t == WeakModel.Kind.MISSING_FIELD || t == WeakModel.Kind.INVENTED, "no JSON kinds on tool calls: " + t);
        }
        assertEquals(java.util.Set.of(WeakModel.Kind.PROSE, WeakModel.Kind.EMPTY, WeakModel.Kind.BROKEN_JSON, WeakModel.Kind.MISSING_FIELD,
                WeakModel.Kind.INVENTED), seen.keySet(), "the kinds that fit a JSON reply, each drawn");

        assertEquals(WeakModel.APOLOGY, WeakModel.broken(WeakModel.Kind.PROSE, jsonReply(), 1).path("content").asText());
        assertEquals("", WeakModel.broken(WeakModel.Kind.EMPTY, jsonReply(), 1).path("content").asText());
        String broken = WeakModel.broken(WeakModel.Kind.BROKEN_JSON, jsonReply(), 1).path("content").asText();
        assertThrows(Exception.class, () -> JSON.readTree(broken), broken);
        JsonNode missing = WeakModel.jsonObject(WeakModel.broken(WeakModel.Kind.MISSING_FIELD, jsonReply(), 1).path("content").asText());
        assertFalse(missing.has("entities"), "the first field is gone: " + missing);
        assertTrue(missing.has("count"));
        String invented = WeakModel.broken(WeakModel.Kind.INVENTED, jsonReply(), 1).path("content").asText();
        assertTrue(invented.contains(WeakModel.INVENTED_TEXT) || invented.contains(String.valueOf(WeakModel.INVENTED_NUMBER)), invented);
        assertTrue(invented.contains("pad"), "the reasoning pad is not a value the model was asked for");

        JsonNode unknown = WeakModel.broken(WeakModel.Kind.UNKNOWN_TOOL, toolReply(), 1);
        assertEquals("search_web", unknown.path("tool_calls").get(0).path("function").path("name").asText());
        JsonNode bad = WeakModel.broken(WeakModel.Kind.BAD_ARGUMENTS, toolReply(), 1);
        String args = bad.path("tool_calls").get(0).path("function").path("arguments").asText();
        assertThrows(Exception.class, () -> JSON.readTree(args));
        JsonNode unfinished = WeakModel.broken(WeakModel.Kind.NO_FINISH, toolReply(), 1);
        assertEquals(1, unfinished.path("tool_calls").size(), "chunk_complete left out");
        assertEquals("create_entity", unfinished.path("tool_calls").get(0).path("function").path("name").asText());
    }

    @Test
    void aReplyNotDrawnGoesOutAsThePolicyWroteItAndInjectionsAreCounted() {
        WeakModel m = WeakModel.of(11, 0.5);
        int kept = 0;
        for (int i = 0; i < 200; i++) {
            JsonNode reply = jsonReply();
            JsonNode sent = m.apply("hgmem plan", body(i), reply);
            if (m.draw("hgmem plan", body(i), reply) == null) {
                assertEquals(reply, sent);
                kept++;
            } else {
                assertNotEquals(reply, sent);
            }
        }
        long injected = m.injected().values().stream().mapToLong(Long::longValue).sum();
        assertEquals(200 - kept, injected);
        assertTrue(m.injected().keySet().stream().allMatch(k -> k.startsWith("hgmem plan: ")), m.injected().toString());
    }

    @Test
    void ratesPerKindAndPerStepAndTheCommandLineForm() {
        WeakModel prose = WeakModel.parse("0,5,prose=1");
        for (int i = 0; i < 20; i++) assertEquals(WeakModel.Kind.PROSE, prose.draw("s", body(i), jsonReply()));
        WeakModel oneStep = WeakModel.parse("0,5,agrag triple filter=1");
        for (int i = 0; i < 20; i++) {
            assertNull(oneStep.draw("s", body(i), jsonReply()));
            assertTrue(oneStep.draw("agrag triple filter", body(i), jsonReply()) != null);
        }
        assertEquals(9, WeakModel.parse("0.1,9").seed());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WeakModel.parse("lots"));
        assertTrue(e.getMessage().contains("RATE[,SEED"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> WeakModel.of(1, 1.5));
    }

    @Test
    void theTestStandInTakesTheSameErrorsAndTheClientRepairsWhatItCan() {
        try (dev.graphrag.core.llm.StandInLlm llm = dev.graphrag.core.llm.StandInLlm.start()) {
            llm.always().replyJson(Map.of("entities", List.of("Xodar", "Issus")));
            WeakModel weak = WeakModel.of(3, 0.5);
            llm.shape(weak::shape);
            var s = llm.settings(Map.of());
            var client = dev.graphrag.core.llm.LlmClient.of(s, m -> {});
            var cfg = dev.graphrag.core.llm.LlmConfig.resolve(s, null, "test", Map.of());
            dev.graphrag.core.llm.LlmClient.JsonCheck check = n -> n.path("entities").isArray() && n.path("entities").size() == 2 ? null : "two entities expected";
            int usable = 0, unusable = 0, repaired = 0;
            for (int i = 0; i < 60; i++) {
                var req = dev.graphrag.core.llm.ChatRequest.of("extract", List.of(Map.of("role", "user", "content", "Entities of passage " + i)));
                try {
                    var r = client.chatJson(cfg, req, check, false, () -> false);
                    usable++;
                    if (r.response().repairs() > 0) repaired++;
                } catch (dev.graphrag.core.llm.UnusableReply e) {
                    unusable++;
                }
            }
            long injected = weak.injected().values().stream().mapToLong(Long::longValue).sum();
            System.out.println("test stand-in at 50 %: " + usable + " usable (" + repaired + " after a repair), " + unusable + " unusable; " + weak.injected());
            assertEquals(llm.requests().size(), 60 + repaired + unusable, "a repair turn for each broken first reply");
            assertTrue(injected > 20 && unusable > 5 && repaired > 5 && usable > unusable, "about half broken, a quarter unusable after the repair");
        }
    }
}
