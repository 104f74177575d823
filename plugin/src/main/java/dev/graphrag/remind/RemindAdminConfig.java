package dev.graphrag.remind;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;
import dev.graphrag.core.config.Key;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The configs of ReMind's maintenance calls: the edge memories' statistics and reset, and the replay threshold's calibration. */
public final class RemindAdminConfig {
    static final Key<List<String>> REL_TYPES = Key.strings("relTypes", RemindLayer.TYPE_ORDER);
    static final Key<List<String>> QUESTIONS = Key.strings("questions", Calibration.DEFAULT_QUESTIONS);
    static final Key<Object> PARAPHRASES = Key.any("paraphrases");

    private RemindAdminConfig() {}

    /** remind.memory.stats and remind.memory.reset: the corpus and which of the four relationship types (default all). */
    public record Memory(String corpus, List<String> relTypes) {
        public static Memory parse(String owner, Map<String, Object> config) {
            ConfigReader r = ConfigReader.of(owner, config);
            String corpus = r.corpus();
            List<String> types = RemindLayer.checkTypes(owner, REL_TYPES.read(r));
            r.finish();
            return new Memory(corpus, types);
        }
    }

    /** remind.calibrate: replay's alpha and lambda (the same keys and defaults as every replaying call), the questions and the paraphrase pairs. */
    public record Calibrating(double alpha, double lambda, List<String> questions, List<List<String>> paraphrases) {
        public static Calibrating parse(Map<String, Object> config) {
            ConfigReader r = ConfigReader.of("remind.calibrate", config);
            double alpha = RemindQueryConfig.Replaying.ALPHA.read(r);
            double lambda = RemindQueryConfig.Replaying.LAMBDA.read(r);
            List<String> questions = QUESTIONS.read(r);
            Object rawPairs = PARAPHRASES.read(r);
            r.finish();
            return new Calibrating(alpha, lambda, questions, rawPairs == null ? Calibration.DEFAULT_PARAPHRASES : pairs(rawPairs));
        }

        private static List<List<String>> pairs(Object raw) {
            if (!(raw instanceof List<?> list)) throw new RagException("remind.calibrate: paraphrases must be a LIST of [question, paraphrase] pairs");
            List<List<String>> out = new ArrayList<>();
            for (Object o : list) {
                if (!(o instanceof List<?> p) || p.size() != 2 || !(p.get(0) instanceof String a) || !(p.get(1) instanceof String b)) {
                    throw new RagException("remind.calibrate: each paraphrase must be a pair [question, paraphrase] of strings, got " + o);
                }
                out.add(List.of(a, b));
            }
            return out;
        }
    }
}
