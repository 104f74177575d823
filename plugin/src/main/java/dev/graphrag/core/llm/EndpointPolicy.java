package dev.graphrag.core.llm;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ServerSettings;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which LLM endpoints a caller may name per call ({@code graphrag.llm.allowedEndpoints}) and which one the
 * server's API key belongs to ({@code graphrag.llm.endpoint}). The key is sent only to that configured
 * endpoint; any other endpoint must be on the allow-list and gets only a key its caller passed in the same call.
 * Without an allow-list only the configured endpoint is reachable, so the database is no proxy to the
 * hosts around it. Entries are {@code scheme://host[:port][/path]}, the port may be {@code *}, and the
 * single entry {@code *} allows everything (for a single-user server such as the embedded demo).
 */
public final class EndpointPolicy {
    /** One allow-list entry; port -1: the scheme's default, -2: any. */
    private record Pattern(String scheme, String host, int port, String path) {
        boolean matches(URI u) {
            if (!scheme.equals(u.getScheme()) || !host.equalsIgnoreCase(u.getHost())) return false;
            if (port != ANY_PORT && port != effectivePort(u)) return false;
            String p = u.getPath() == null ? "" : stripSlash(u.getPath());
            return path.isEmpty() || p.equals(path) || p.startsWith(path + "/");
        }
    }

    private static final int ANY_PORT = -2;

    private final URI configured;
    private final List<Pattern> allowed;
    private final boolean any;
    private final String source;

    private EndpointPolicy(URI configured, List<Pattern> allowed, boolean any, String source) {
        this.configured = configured;
        this.allowed = allowed;
        this.any = any;
        this.source = source;
    }

    /** From the two settings; a malformed entry is an error naming it (entries hold no secrets). */
    public static EndpointPolicy of(String configuredEndpoint, String allowedEndpoints) {
        URI configured = configuredEndpoint == null || configuredEndpoint.isBlank() ? null : parse(configuredEndpoint.trim(), ServerSettings.LLM.endpoint().name());
        List<Pattern> allowed = new ArrayList<>();
        boolean any = false;
        String list = allowedEndpoints == null ? "" : allowedEndpoints.trim();
        for (String raw : list.split("[,\\s]+")) {
            if (raw.isEmpty()) continue;
            if (raw.equals("*")) {
                any = true;
                continue;
            }
            boolean anyPort = raw.matches("^[a-zA-Z]+://[^/]+:\\*(/.*)?$");
            URI u = parse(anyPort ? raw.replaceFirst(":\\*", "") : raw, ServerSettings.LLM_ALLOWED_ENDPOINTS.name() + " entry '" + raw + "'");
            allowed.add(new Pattern(u.getScheme(), u.getHost(), anyPort ? ANY_PORT : effectivePort(u), stripSlash(u.getPath())));
        }
        return new EndpointPolicy(configured, List.copyOf(allowed), any, list.isEmpty() ? "the configured endpoint only" : list);
    }

    /** An http(s) URL without credentials or query; errors name what is wrong, never the URL's secrets. */
    static URI parse(String endpoint, String what) {
        URI u;
        try {
            // normalised, so /v1/../admin cannot pass for a path under /v1
            u = URI.create(endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint).normalize();
        } catch (IllegalArgumentException e) {
            throw new RagException(what + " is not a valid URL");
        }
        String scheme = u.getScheme() == null ? null : u.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme) || u.getHost() == null) {
            throw new RagException(what + " must be an http(s) URL such as http://localhost:11434/v1");
        }
        if (u.getRawUserInfo() != null) throw new RagException(what + ": put credentials in apiKey, not in the URL");
        if (u.getRawQuery() != null || u.getRawFragment() != null) throw new RagException(what + " must not have a query or fragment");
        return u;
    }

    /** Whether this is the endpoint the server's key belongs to (same scheme, host, port and path). */
    public boolean isConfigured(URI endpoint) {
        return configured != null && sameEndpoint(configured, endpoint);
    }

    /** Whether a caller may name this endpoint. */
    public boolean allows(URI endpoint) {
        if (any || isConfigured(endpoint)) return true;
        for (Pattern p : allowed) if (p.matches(endpoint)) return true;
        return false;
    }

    public boolean allowsAny() {
        return any;
    }

    /** For rag.llm.info and the docs: what callers may name. */
    public String describe() {
        return any ? "any endpoint (graphrag.llm.allowedEndpoints=*)" : source;
    }

    static boolean sameEndpoint(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
                && effectivePort(a) == effectivePort(b) && stripSlash(a.getPath()).equals(stripSlash(b.getPath()));
    }

    private static int effectivePort(URI u) {
        return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private static String stripSlash(String path) {
        if (path == null) return "";
        String p = path;
        while (p.endsWith("/")) p = p.substring(0, p.length() - 1);
        return p;
    }
}
