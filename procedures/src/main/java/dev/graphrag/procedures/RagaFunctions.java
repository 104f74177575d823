package dev.graphrag.procedures;

import dev.graphrag.core.RagException;
import dev.graphrag.raga.AnswerMetrics;
import dev.graphrag.raga.NameKey;
import dev.graphrag.raga.QualityGate;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.UserFunction;

import java.util.List;

/**
 * raga.*'s scalar functions (docs/raga.md): the alias key and the entity quality gate RAGA's tools apply, and the
 * paper's answer and evidence F1. The agent-built graph, its tools and retrieval are not in this release yet.
 */
public class RagaFunctions {
    private static final int MAX_CHARS = 100_000;

    @UserFunction(name = "raga.norm.key")
    @Description("raga.norm.key(name :: STRING) :: STRING - the alias key of a name (NFKC, lower case, quotes and dashes folded, whitespace"
            + " collapsed, edge punctuation stripped): two names with one key are one entity. Null gives null.")
    public String normKey(@Name("name") String name) {
        if (name == null) return null;
        return NameKey.of(bounded("raga.norm.key", "name", name));
    }

    @UserFunction(name = "raga.quality.check")
    @Description("raga.quality.check(name :: STRING) :: STRING - the entity quality gate (R1-R8): the first rule a candidate entity name breaks"
            + " (LENGTH, PRINTABLE, SENTENCE_FRAGMENT, CODE, MATH, PUNCT_FLOOD, GARBLED, GENERIC_HEADING), or null when it passes. Null fails LENGTH.")
    public String qualityCheck(@Name("name") String name) {
        QualityGate.Rule r = QualityGate.check(name == null ? null : bounded("raga.quality.check", "name", name));
        return r == null ? null : r.name();
    }

    @UserFunction(name = "raga.eval.answerF1")
    @Description("raga.eval.answerF1(prediction :: STRING, golds :: LIST<STRING>) :: FLOAT - token F1 (lower case, punctuation and articles"
            + " dropped) against the best-matching gold answer; 0 when there is no gold.")
    public double answerF1(@Name("prediction") String prediction, @Name("golds") List<String> golds) {
        if (golds == null) throw new RagException("raga.eval.answerF1: golds must be a LIST<STRING>, not null");
        for (String g : golds) if (g == null) throw new RagException("raga.eval.answerF1: golds must not hold null");
        return AnswerMetrics.answerF1(prediction == null ? "" : bounded("raga.eval.answerF1", "prediction", prediction), golds);
    }

    @UserFunction(name = "raga.eval.evidenceF1")
    @Description("raga.eval.evidenceF1(predicted :: LIST<STRING>, goldSets :: LIST<LIST<STRING>>) :: FLOAT - F1 of the predicted evidence ids"
            + " against the best-matching gold set; 1 when both are empty, 0 when there is no gold set.")
    public double evidenceF1(@Name("predicted") List<String> predicted, @Name("goldSets") List<List<String>> goldSets) {
        if (predicted == null || goldSets == null) throw new RagException("raga.eval.evidenceF1: predicted and goldSets must be lists, not null");
        for (List<String> g : goldSets) if (g == null) throw new RagException("raga.eval.evidenceF1: goldSets must not hold null");
        return AnswerMetrics.evidenceF1(predicted, goldSets);
    }

    private static String bounded(String owner, String what, String s) {
        if (s.length() > MAX_CHARS) throw new RagException(owner + ": " + what + " has " + s.length() + " characters, the limit is " + MAX_CHARS);
        return s;
    }
}
