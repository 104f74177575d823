package dev.graphrag.evaluation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * --estimate's projection: the sample's figures (each layer built over a few documents, a few questions asked)
 * scaled to the full run: build calls and tokens by the chunks the full corpus will have (the sample's chunks per
 * document times its documents), question calls and tokens by the questions of every pass. It is as good as the
 * sample is typical; the closing line says how small the sample was.
 */
record Estimate(List<Line> lines, long sampleChunks, int sampleDocuments, int sampleQuestions, double fullChunks, int fullQuestions) {
    record Line(String method, double buildCalls, double buildPromptTokens, double buildCompletionTokens, double buildSeconds, double questionCalls,
                double questionPromptTokens, double questionCompletionTokens, double questionSeconds) {}

    static Estimate of(EvaluationReport report, Evaluation.Corpus sample, Evaluation.FullSize full, EvaluateOptions o) {
        double chunksPerDoc = sample.documents() == 0 ? 0 : (double) sample.chunks() / sample.documents();
        double fullChunks = chunksPerDoc * full.documents();
        double scale = sample.chunks() == 0 ? 0 : fullChunks / sample.chunks();
        List<Line> lines = new ArrayList<>();
        for (EvaluatedMethod m : o.methods()) {
            EvaluationReport.Build b = report.builds().stream().filter(x -> x.method().equals(m.key())).findFirst().orElse(null);
            double qc = 0, qp = 0, qx = 0, qs = 0;
            for (EvaluationReport.Row r : report.rows()) {
                if (!r.method().equals(m.key())) continue;
                qc += r.callsPerQuestion() * full.questions();
                qp += r.promptTokensPerQuestion() * full.questions();
                qx += r.completionTokensPerQuestion() * full.questions();
                qs += r.latencyMsP50() / 1000 * full.questions() / (m.writesMemory() ? 1 : o.concurrency());
            }
            lines.add(new Line(m.key(), b == null ? 0 : b.calls() * scale, b == null ? 0 : b.promptTokens() * scale, b == null ? 0 : b.completionTokens() * scale,
                    b == null ? 0 : b.seconds() * scale, qc, qp, qx, qs));
        }
        return new Estimate(lines, sample.chunks(), sample.documents(), report.rows().isEmpty() ? 0 : report.rows().get(0).questions(), fullChunks, full.questions());
    }

    String markdown() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "## Estimate of the full run: %.0f chunks, %d questions%n%n", fullChunks, fullQuestions));
        b.append("| method | build calls | build prompt tokens | build completion tokens | build minutes | question calls | question prompt tokens | question completion tokens | question minutes |\n");
        b.append("|---|---|---|---|---|---|---|---|---|\n");
        double prompt = 0, completion = 0;
        for (Line l : lines) {
            b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %.0f | %.1f |%n", l.method(), l.buildCalls(), l.buildPromptTokens(),
                    l.buildCompletionTokens(), l.buildSeconds() / 60, l.questionCalls(), l.questionPromptTokens(), l.questionCompletionTokens(), l.questionSeconds() / 60));
            prompt += l.buildPromptTokens() + l.questionPromptTokens();
            completion += l.buildCompletionTokens() + l.questionCompletionTokens();
        }
        b.append(String.format(Locale.ROOT, "%nIn all about %.0f prompt and %.0f completion tokens. Scaled from a sample of %d documents (%d chunks) and %d"
                + " questions: the build by chunks, the questions by count (minutes at the sample's p50 and the concurrency given). The sample was"
                + " dropped from the graph afterwards.%n", prompt, completion, sampleDocuments, sampleChunks, sampleQuestions));
        return b.toString();
    }
}
