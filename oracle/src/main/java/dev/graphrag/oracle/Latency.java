package dev.graphrag.oracle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * How long a real model server takes to answer, for the evaluation server: a base delay per call (fixed, or drawn
 * from a log-normal around it with spread {@code sigma}), plus {@code perTokenMs} per completion token, with a base
 * of its own for named steps; and the server's capacity, at most {@code concurrency} requests served at once (the
 * others wait in its queue, as vLLM and Ollama queue them; 0: no limit). A call's delay is drawn from the seed and
 * the request's body, not from the order calls arrive in, so concurrent runs draw the same delays.
 */
public record Latency(long baseMs, double sigma, double perTokenMs, Map<String, Long> stepBaseMs, int concurrency, long seed) {
    public static final Latency NONE = new Latency(0, 0, 0, Map.of(), 0, 0);

    public Latency {
        if (baseMs < 0 || sigma < 0 || perTokenMs < 0 || concurrency < 0) {
            throw new IllegalArgumentException("latency: base, sigma, per-token time and concurrency must not be negative");
        }
        if (!Double.isFinite(sigma) || !Double.isFinite(perTokenMs)) throw new IllegalArgumentException("latency: sigma and per-token time must be finite");
        stepBaseMs = Map.copyOf(stepBaseMs);
    }

    /** A fixed delay per call. */
    public static Latency fixed(long ms) {
        return new Latency(ms, 0, 0, Map.of(), 0, 0);
    }

    public Latency withConcurrency(int c) {
        return new Latency(baseMs, sigma, perTokenMs, stepBaseMs, c, seed);
    }

    /**
     * {@code MS[,sigma=S][,tokenMs=T][,concurrency=C][,seed=N][,STEP=MS...]}: e.g. {@code 500,sigma=0.3,concurrency=4}
     * or {@code 300,hgmem.E2=1200}. Errors name the part.
     */
    public static Latency parse(String spec) {
        String[] parts = spec.split(",");
        long base;
        try {
            base = Long.parseLong(parts[0].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--latency starts with the base delay in ms, got '" + parts[0] + "'");
        }
        double sigma = 0, tokenMs = 0;
        int concurrency = 0;
        long seed = 0;
        Map<String, Long> steps = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("--latency part '" + p + "' is not KEY=VALUE (sigma, tokenMs, concurrency, seed or a step name)");
            String k = p.substring(0, eq), v = p.substring(eq + 1);
            try {
                switch (k) {
                    case "sigma" -> sigma = Double.parseDouble(v);
                    case "tokenMs" -> tokenMs = Double.parseDouble(v);
                    case "concurrency" -> concurrency = Integer.parseInt(v);
                    case "seed" -> seed = Long.parseLong(v);
                    default -> steps.put(k, Long.parseLong(v));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--latency part '" + p + "': '" + v + "' is not a number");
            }
        }
        return new Latency(base, sigma, tokenMs, steps, concurrency, seed);
    }

    public boolean none() {
        return baseMs == 0 && perTokenMs == 0 && stepBaseMs.isEmpty();
    }

    /** The delay of one call: its step's base (or the base), times a log-normal factor drawn from the seed and the body, plus its tokens. */
    public long delayMs(String step, String body, int completionTokens) {
        double base = stepBaseMs.getOrDefault(step, baseMs);
        if (sigma > 0) {
            SplittableRandom r = new SplittableRandom(seed * 31 + (step == null ? 0 : step.hashCode()) * 17L + body.hashCode());
            base *= Math.exp(sigma * gaussian(r) - sigma * sigma / 2); // mean-preserving: E[factor] = 1
        }
        return Math.round(base + perTokenMs * completionTokens);
    }

    /** A standard normal draw (Box-Muller; SplittableRandom has no nextGaussian on Java 17). */
    static double gaussian(SplittableRandom r) {
        double u = 1 - r.nextDouble(), v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    @Override
    public String toString() {
        if (none() && concurrency == 0) return "none";
        return baseMs + " ms" + (sigma > 0 ? " (log-normal, sigma " + sigma + ", seed " + seed + ")" : "") + (perTokenMs > 0 ? " + " + perTokenMs + " ms/token" : "")
                + (stepBaseMs.isEmpty() ? "" : ", steps " + stepBaseMs) + (concurrency > 0 ? ", at most " + concurrency + " at once" : "");
    }
}
