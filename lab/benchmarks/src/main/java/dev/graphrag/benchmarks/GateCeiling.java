package dev.graphrag.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.graphrag.oracle.EvidenceGate;
import dev.graphrag.oracle.OracleGold;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The evidence gate's ceiling on MuSiQue (docs/evaluation.md): for each question, whether a gated reader given exactly
 * its gold passages (each hop's supporting paragraph, title and text, whole) resolves every hop. No graph, no server:
 * it bounds what any oracle policy of this project can answer, whatever it retrieves. Prints the questions it cannot
 * resolve, then the counts by number of hops. Usage: GateCeiling DATA_DIR [--without-titles]; the option gives the reader
 * the paragraphs' text alone, as a source without its document's title would show them.
 */
public final class GateCeiling {
    private GateCeiling() {}

    public static void main(String[] args) throws Exception {
        Path dataset = Path.of(args[0], "musique/musique_train.json");
        boolean withTitles = !List.of(args).contains("--without-titles");
        List<OracleGold.Question> questions = OracleGold.fromMusique(dataset);
        JsonNode raw = new ObjectMapper().readTree(dataset.toFile());
        int[] resolved = new int[8], total = new int[8];
        for (int i = 0; i < questions.size(); i++) {
            OracleGold.Question q = questions.get(i);
            List<String> gold = new ArrayList<>();
            for (JsonNode hop : raw.get(i).path("question_decomposition")) {
                JsonNode p = raw.get(i).path("paragraphs").get(hop.path("paragraph_support_idx").asInt());
                gold.add(EvidenceGate.titled(withTitles ? p.path("title").asText() : null, p.path("paragraph_text").asText()));
            }
            String[] known = EvidenceGate.known(q, gold);
            int n = 0;
            for (String k : known) if (k != null) n++;
            int hops = Math.min(known.length, total.length - 1);
            total[hops]++;
            if (n == known.length) resolved[hops]++;
            else System.out.println("unresolved (" + n + " of " + known.length + " hops): " + q.question());
        }
        int all = 0;
        for (int r : resolved) all += r;
        System.out.printf("%nEvery hop resolvable from the gold passages alone (%s): %d of %d questions%n", withTitles ? "title and text" : "text without title",
                all, questions.size());
        for (int h = 1; h < total.length; h++) if (total[h] > 0) System.out.printf("  %d hops: %d of %d%n", h, resolved[h], total[h]);
    }
}
