package dev.graphrag.client;

/**
 * One row of rag.llm.check: how the configured model did on one method step (trials, replies usable at once, after
 * repair, unusable, wrong) with the check's verdict and advice. With dryRun the rows say what would be asked.
 */
public record ModelCheck(String method, String step, long trials, long firstTry, long repaired, long unusable, long wrong, String verdict,
                         String methodVerdict, String advice, String problem) {}
