package dev.graphrag.evaluation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The evaluation command's options (docs/evaluation.md#evaluate-with-your-own-model), parsed once and checked: an
 * unknown option, a missing value or a value of the wrong kind is an error that names it. Secrets are never options:
 * the API key and the Bolt password are read from the environment variables the options name.
 */
public record EvaluateOptions(Path questions, String corpusSource, String corpusName, Llm llm, String endpoint, String model, String apiKeyEnv,
                              Integer contextTokens, List<EvaluatedMethod> methods, int limit, Long seed, Path out, Path data, String bolt, String user,
                              String passwordEnv, String database, int concurrency, boolean estimate, int estimateDocs, int estimateQuestions,
                              boolean repeat, boolean progress, Map<String, Map<String, Object>> config, String weakModel,
                              String latency) {

    /** Which LLM answers: a named endpoint, the server's configured one, or the oracle policy on the built-in stand-in. */
    public enum Llm { ENDPOINT, SERVER, ORACLE }

    /** The corpus source that means "the passages the question file carries" (MuSiQue paragraphs, HotpotQA/2Wiki context). */
    public static final String FROM_QUESTIONS = "questions";

    public static final String USAGE = """
            Evaluate every method with your own model (docs/evaluation.md#evaluate-with-your-own-model).

              --questions FILE        MuSiQue, HotpotQA or 2WikiMultihopQA JSON, or JSON Lines {question, answer, aliases?, gold?: [{title, text?}], id?}
              --corpus FILE|DIR|questions
                                      the passages to ingest (a JSON list of {title, text}, HotpotQA's title -> sentences, JSON Lines, a folder
                                      of .txt/.md files), or 'questions': the paragraphs the question file carries; with --bolt it may be left
                                      out to evaluate a corpus already in the database
              --corpus-name NAME      the corpus in the graph (default eval)
            the LLM, one of:
              --endpoint URL --model NAME [--api-key-env VAR] [--context-tokens N]
                                      any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, a hosted API); the key is read from $VAR
              --server-llm            the LLM the server is configured with (graphrag.llm.*)
              --oracle                no model: the scripted ORACLE POLICY on a built-in stand-in (every row is labelled so)
              --weak-model RATE[,SEED[,KIND=RATE|STEP=RATE...]]
                                      with --oracle: break that share of the policy's replies as a small model does (prose, broken
                                      JSON, a missing field, an invented value, nothing, an unknown tool, bad arguments, no finishing
                                      call), drawn from SEED so a run repeats; kinds: prose, broken_json, missing_field, invented,
                                      empty, unknown_tool, bad_arguments, no_finish
              --latency MS[,sigma=S][,tokenMs=T][,concurrency=C][,seed=N][,STEP=MS...]
                                      with --oracle: answer at a real model's pace, MS per call (log-normal around it with
                                      sigma), plus T per completion token, at most C requests served at once (the rest queue),
                                      a step's own MS where named (docs/evaluation.md#latency)
            what to run:
              --methods LIST          comma-separated, from dense, agrag, remind, hgmem, raga (default: all)
              --limit N               the first N questions (after --seed's shuffle)
              --seed S                shuffle the questions with seed S before --limit
              --config P.KEY=VALUE    a config key for one procedure, e.g. agrag.index.relations=cooccurrence (repeatable)
              --no-repeat             skip ReMind's repeat pass (the same questions again, answered from its memory)
              --concurrency N         questions in flight at once (default 1; at most the server's graphrag.llm.maxConcurrent)
              --estimate              a dry run on a sample (--estimate-docs 20 passages, --estimate-questions 3), then the projected
                                      calls and tokens of the full run; nothing of the sample stays in the graph
            where:
              --out DIR               results.md, results.json and the per-question log results.jsonl (default target/evaluation);
                                      running again with the same DIR resumes from the log
              --data DIR              the embedded server's store (default OUT/store; kept, so a resumed run reuses built layers)
              --bolt URL [--user U] [--password-env VAR] [--database DB]
                                      a running Neo4j with the plugin installed, instead of the embedded server
              --quiet                 no progress line
            """;

    private static final Set<String> FLAGS = Set.of("--server-llm", "--oracle", "--no-repeat", "--estimate", "--quiet", "--help");
    private static final Set<String> VALUED = Set.of("--questions", "--corpus", "--corpus-name", "--endpoint", "--model", "--api-key-env", "--context-tokens",
            "--methods", "--limit", "--seed", "--config", "--concurrency", "--estimate-docs", "--estimate-questions", "--out", "--data", "--bolt", "--user",
            "--password-env", "--database", "--weak-model", "--latency");

    /** Parses the command line; an {@link IllegalArgumentException} says what is wrong with it. */
    public static EvaluateOptions parse(String[] argv) {
        Map<String, String> values = new LinkedHashMap<>();
        Set<String> flags = new java.util.HashSet<>();
        Map<String, Map<String, Object>> config = new LinkedHashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (FLAGS.contains(a)) {
                flags.add(a);
            } else if (VALUED.contains(a)) {
                if (i + 1 >= argv.length || argv[i + 1].startsWith("--")) throw new IllegalArgumentException(a + " needs a value");
                String v = argv[++i];
                if (a.equals("--config")) addConfig(config, v);
                else if (values.put(a, v) != null) throw new IllegalArgumentException(a + " is given twice");
            } else {
                throw new IllegalArgumentException("unknown option '" + a + "' (--help lists the options)");
            }
        }
        if (flags.contains("--help")) throw new HelpRequested();
        int llms = (values.containsKey("--endpoint") ? 1 : 0) + (flags.contains("--server-llm") ? 1 : 0) + (flags.contains("--oracle") ? 1 : 0);
        if (llms == 0) {
            throw new IllegalArgumentException("no LLM to evaluate: name your model with --endpoint URL --model NAME (Ollama: --endpoint"
                    + " http://localhost:11434/v1), use the server's configured one with --server-llm, or run the scripted oracle policy with --oracle"
                    + " (its figures are an upper bound of the machinery, not a model's quality)");
        }
        if (llms > 1) throw new IllegalArgumentException("--endpoint, --server-llm and --oracle exclude each other: give one");
        Llm llm = values.containsKey("--endpoint") ? Llm.ENDPOINT : flags.contains("--server-llm") ? Llm.SERVER : Llm.ORACLE;
        if (llm == Llm.ENDPOINT && !values.containsKey("--model")) throw new IllegalArgumentException("--endpoint needs --model NAME");
        if (llm != Llm.ENDPOINT) {
            for (String k : List.of("--model", "--api-key-env", "--context-tokens")) {
                if (values.containsKey(k)) throw new IllegalArgumentException(k + " goes with --endpoint only");
            }
        }
        if (values.containsKey("--weak-model")) {
            if (llm != Llm.ORACLE) throw new IllegalArgumentException("--weak-model breaks the oracle policy's replies: it needs --oracle");
            dev.graphrag.oracle.WeakModel.parse(values.get("--weak-model")); // checked now, not after the corpus is ingested
        }
        if (values.containsKey("--latency")) {
            if (llm != Llm.ORACLE) throw new IllegalArgumentException("--latency sets the stand-in's pace: it needs --oracle (a real server has its own)");
            dev.graphrag.oracle.Latency.parse(values.get("--latency"));
        }
        if (!values.containsKey("--questions")) throw new IllegalArgumentException("--questions FILE is required");
        String bolt = values.get("--bolt");
        if (bolt == null && !values.containsKey("--corpus")) throw new IllegalArgumentException("--corpus is required for the embedded server (with --bolt it may name a corpus already in the database)");
        if (bolt == null) {
            for (String k : List.of("--user", "--password-env", "--database")) {
                if (values.containsKey(k)) throw new IllegalArgumentException(k + " goes with --bolt only");
            }
        } else if (values.containsKey("--data")) {
            throw new IllegalArgumentException("--data is the embedded server's store; with --bolt the graph is the running server's");
        }
        if (flags.contains("--estimate") && !values.containsKey("--corpus")) throw new IllegalArgumentException("--estimate samples the corpus it is given: add --corpus");
        String corpusName = values.getOrDefault("--corpus-name", "eval");
        if (!corpusName.matches("[A-Za-z0-9_.-]{1,64}")) throw new IllegalArgumentException("--corpus-name must be 1-64 of [A-Za-z0-9_.-], got '" + corpusName + "'");
        Path out = Path.of(values.getOrDefault("--out", "target/evaluation"));
        return new EvaluateOptions(Path.of(values.get("--questions")), values.get("--corpus"), corpusName, llm, values.get("--endpoint"), values.get("--model"),
                values.get("--api-key-env"), values.containsKey("--context-tokens") ? positive(values, "--context-tokens", 0) : null,
                methods(values.get("--methods")), positive(values, "--limit", Integer.MAX_VALUE),
                values.containsKey("--seed") ? longValue(values, "--seed") : null, out,
                values.containsKey("--data") ? Path.of(values.get("--data")) : bolt == null ? out.resolve("store") : null,
                bolt, values.getOrDefault("--user", "neo4j"), values.get("--password-env"), values.get("--database"),
                positive(values, "--concurrency", 1), flags.contains("--estimate"), positive(values, "--estimate-docs", 20),
                positive(values, "--estimate-questions", 3), !flags.contains("--no-repeat"), !flags.contains("--quiet"), config,
                values.get("--weak-model"), values.get("--latency"));
    }

    /** The extra config keys for one procedure (e.g. "agrag.index"), empty when none were given. */
    public Map<String, Object> configFor(String procedure) {
        return config.getOrDefault(procedure, Map.of());
    }

    /** Thrown by {@link #parse} for --help: the caller prints {@link #USAGE}. */
    public static final class HelpRequested extends RuntimeException {
        HelpRequested() { super("help"); }
    }

    private static List<EvaluatedMethod> methods(String list) {
        if (list == null) return List.of(EvaluatedMethod.values());
        List<EvaluatedMethod> out = new ArrayList<>();
        for (String name : list.split(",")) {
            EvaluatedMethod m = EvaluatedMethod.named(name.trim());
            if (!out.contains(m)) out.add(m);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("--methods names no method");
        return List.copyOf(out);
    }

    /** "agrag.index.relations=cooccurrence": procedure agrag.index, key relations; numbers, booleans and strings. */
    private static void addConfig(Map<String, Map<String, Object>> config, String setting) {
        int eq = setting.indexOf('='), dot = eq < 0 ? -1 : setting.lastIndexOf('.', eq);
        if (eq < 0 || dot <= 0) throw new IllegalArgumentException("--config takes PROCEDURE.KEY=VALUE (e.g. agrag.index.relations=cooccurrence), got '" + setting + "'");
        String procedure = setting.substring(0, dot), key = setting.substring(dot + 1, eq), v = setting.substring(eq + 1);
        if (!EvaluatedMethod.procedures().contains(procedure)) {
            throw new IllegalArgumentException("--config " + setting + ": the command calls no procedure '" + procedure + "' (it calls " + EvaluatedMethod.procedures() + ")");
        }
        if (key.equals("corpus") || key.equals("llm")) throw new IllegalArgumentException("--config " + setting + ": " + key + " is set by the command itself");
        Object value = v.matches("-?\\d+") ? (Object) Long.parseLong(v) : v.matches("-?\\d*\\.\\d+") ? (Object) Double.parseDouble(v)
                : v.equals("true") || v.equals("false") ? (Object) Boolean.parseBoolean(v) : v;
        config.computeIfAbsent(procedure, k -> new LinkedHashMap<>()).put(key, value);
    }

    private static int positive(Map<String, String> values, String name, int dflt) {
        if (!values.containsKey(name)) return dflt;
        try {
            int n = Integer.parseInt(values.get(name));
            if (n < 1) throw new IllegalArgumentException(name + " must be at least 1, got " + n);
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " takes a whole number, got '" + values.get(name) + "'");
        }
    }

    private static long longValue(Map<String, String> values, String name) {
        try {
            return Long.parseLong(values.get(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " takes a whole number, got '" + values.get(name) + "'");
        }
    }
}
