package dev.graphrag.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line the oracle benchmarks share: the data directory first (required: the public releases of the sets,
 * laid out as docs/benchmarks.md says), then
 * {@code --limit N} (the first N questions), {@code --no-ablation}, {@code --set key=value} (repeatable: a config key
 * every pass gets; numbers, booleans and strings), and flags of the benchmark's own.
 */
record BenchmarkArgs(Path data, int limit, boolean ablation, Map<String, Object> set, List<String> all) {
    static final String NO_DATA = "the first argument must be the data directory (the public releases of the sets, as docs/benchmarks.md lays them out)";

    /** The data directory, the first argument; a clear error when it is missing or not a directory. */
    static Path dataDirectory(String[] argv) {
        if (argv.length == 0 || argv[0].startsWith("--"))
            throw new IllegalArgumentException(NO_DATA);
        Path data = Path.of(argv[0]);
        if (!java.nio.file.Files.isDirectory(data)) throw new IllegalArgumentException("no data directory at " + data.toAbsolutePath());
        return data;
    }

    /** The data directory; an error naming what is missing when the command line did not start with one. */
    @Override
    public Path data() {
        if (data == null) throw new IllegalArgumentException(NO_DATA);
        return data;
    }

    static BenchmarkArgs parse(String[] argv) {
        List<String> all = Arrays.asList(argv);
        // the programs that read built stores only (HgmemBuildCost, SynonymBenchmark: --data DIR) take no data directory
        Path data = argv.length > 0 && !argv[0].startsWith("--") ? dataDirectory(argv) : null;
        Map<String, Object> set = new LinkedHashMap<>();
        for (int i = 0; i < argv.length - 1; i++) {
            if (!argv[i].equals("--set")) continue;
            String[] kv = argv[i + 1].split("=", 2);
            set.put(kv[0], kv[1].matches("-?\\d+") ? (Object) Long.parseLong(kv[1]) : kv[1].matches("-?\\d*\\.\\d+") ? (Object) Double.parseDouble(kv[1])
                    : kv[1].equals("true") || kv[1].equals("false") ? (Object) Boolean.parseBoolean(kv[1]) : kv[1]);
        }
        return new BenchmarkArgs(data, intOption(all, "--limit", Integer.MAX_VALUE), !all.contains("--no-ablation"), set, all);
    }

    /** The integer after {@code name}, or {@code dflt} when the option is absent. */
    int option(String name, int dflt) {
        return intOption(all, name, dflt);
    }

    /** The path after {@code name}, or null when the option is absent (--data DIR: a store kept between runs). */
    Path path(String name) {
        int i = all.indexOf(name);
        return i >= 0 && i + 1 < all.size() ? Path.of(all.get(i + 1)) : null;
    }

    /** The word after {@code name}, or {@code dflt}. */
    String string(String name, String dflt) {
        int i = all.indexOf(name);
        return i >= 0 && i + 1 < all.size() ? all.get(i + 1) : dflt;
    }

    /**
     * The evaluation LLM server as the command line asks: {@code --dialect plain|reasoning|chatty|ollama|llamacpp|vllm}
     * (real servers' reply shapes), {@code --window N} (the server's own window: longer prompts are cut or refused as that
     * server does), {@code --context-tokens N} (the plugin's window, passed as llm.contextTokens) and
     * {@code --prompt-samples DIR} (each step's largest and a typical prompt, as sent, written there with the report).
     */
    dev.graphrag.oracle.EvalLlmServer server() {
        dev.graphrag.oracle.EvalLlmServer s = dev.graphrag.oracle.EvalLlmServer.start().dialect(dev.graphrag.oracle.ServerDialect.of(string("--dialect", "plain")))
                .window(option("--window", 0)).contextTokens(option("--context-tokens", 0));
        return path("--prompt-samples") == null ? s : s.promptSamples(path("--prompt-samples"));
    }

    /** What the server options were, for a report's heading. */
    String serverLabel() {
        return "dialect " + string("--dialect", "plain") + ", server window " + (option("--window", 0) == 0 ? "none" : option("--window", 0))
                + ", contextTokens " + (option("--context-tokens", 0) == 0 ? "server setting" : option("--context-tokens", 0));
    }

    boolean has(String flag) {
        return all.contains(flag);
    }

    private static int intOption(List<String> all, String name, int dflt) {
        int i = all.indexOf(name);
        return i >= 0 && i + 1 < all.size() ? Integer.parseInt(all.get(i + 1)) : dflt;
    }
}
