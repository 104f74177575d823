package dev.graphrag.procedures;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.graphrag.procedures.TestServer.assertFailsCleanly;
import static dev.graphrag.procedures.TestServer.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** raga.* functions through Cypher: the hand-worked T6 (quality gate) and T8 (metrics) cases of docs/raga.md#hand-worked-cases, keys, and bad input. */
class RagaFunctionsTest {
    @Test
    void theSpecsCasesThroughCypher() {
        Map<String, Object> r = rows("RETURN raga.quality.check('Convolutional Neural Network') AS ok, raga.quality.check('3.2 Related Work') AS heading,"
                + " raga.quality.check('def tokenize(text)') AS code, raga.quality.check('*** NOTE ***') AS math, raga.quality.check(null) AS none,"
                + " raga.norm.key('  \u201cMarie   Curie\u201d. ') AS key, raga.norm.key(null) AS nokey,"
                + " raga.eval.answerF1('BERT and ELMo', ['ELMo', 'BERT, ELMo']) AS a, raga.eval.evidenceF1(['p1', 'p2', 'p3'], [['p2', 'p4']]) AS e,"
                + " raga.eval.evidenceF1([], [[]]) AS empty, raga.eval.answerF1(null, ['x']) AS nullPrediction").get(0);
        assertNull(r.get("ok"));
        assertEquals("GENERIC_HEADING", r.get("heading"));
        assertEquals("CODE", r.get("code"));
        assertEquals("MATH", r.get("math"));
        assertEquals("LENGTH", r.get("none"));
        assertEquals("marie curie", r.get("key"));
        assertNull(r.get("nokey"));
        assertEquals(0.8, (Double) r.get("a"), 1e-9);
        assertEquals(0.4, (Double) r.get("e"), 1e-9);
        assertEquals(1.0, (Double) r.get("empty"), 1e-9);
        assertEquals(0.0, (Double) r.get("nullPrediction"), 1e-9);
    }

    @Test
    void badInputIsNamed() {
        assertFailsCleanly("RETURN raga.eval.answerF1('x', null)", Map.of(), "golds");
        assertFailsCleanly("RETURN raga.eval.evidenceF1(null, [])", Map.of(), "predicted");
        assertFailsCleanly("RETURN raga.eval.evidenceF1(['a'], [null])", Map.of(), "goldSets must not hold null");
        assertFailsCleanly("RETURN raga.norm.key($s)", Map.of("s", "x".repeat(100_001)), "100000");
    }
}
