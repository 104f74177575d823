package dev.graphrag.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a framework's retriever asks the plugin: the client, the method and the request. A filter the framework adds
 * per query is joined to the request's own {@code where} by and, so both hold.
 */
public record Retrieval(GraphRagClient client, Method method, Request request) {
    public Retrieval {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(request, "request (the corpus at least)");
    }

    /** The passages for a query, inside the request's where and {@code filter} (null: none). */
    public List<Passage> passages(String query, Map<String, Object> filter) {
        Request r = request;
        if (filter != null) r = r.where(r.where() == null ? filter : Map.of("$and", List.of(r.where(), filter)));
        return client.retrieve(method, query, r);
    }

    /** A passage's citation as metadata: method, rank, documentId, chunkId, pages (a list; left out when unknown), section. */
    public Map<String, Object> metadata(Passage p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", method.name().toLowerCase(Locale.ROOT));
        m.put("rank", p.rank());
        if (p.documentId() != null) m.put("documentId", p.documentId());
        if (p.chunkId() != null) m.put("chunkId", p.chunkId());
        if (!p.citation().pages().isEmpty()) m.put("pages", p.citation().pages());
        if (p.citation().section() != null) m.put("section", p.citation().section());
        return m;
    }
}
