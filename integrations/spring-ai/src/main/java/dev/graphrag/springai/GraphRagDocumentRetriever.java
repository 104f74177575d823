package dev.graphrag.springai;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.Method;
import dev.graphrag.client.Passage;
import dev.graphrag.client.Request;
import dev.graphrag.client.Retrieval;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.vectorstore.filter.Filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A Spring AI {@link DocumentRetriever} over the plugin: rag.search (any mode) or a method's retrieval. A filter,
 * fixed or supplied per call, or one a caller puts in the query's context under
 * {@link VectorStoreDocumentRetriever#FILTER_EXPRESSION} (an expression or its text form, as Spring AI's own
 * retriever reads it), becomes the procedures' {@code where}. Each {@link Document} is one passage: its id the chunk
 * id, its score the procedure's, its metadata the citation ({@code documentId}, {@code chunkId}, {@code pages},
 * {@code section}, {@code rank}, {@code method}).
 */
public final class GraphRagDocumentRetriever implements DocumentRetriever {
    private final Retrieval retrieval;
    private final Supplier<Filter.Expression> filter;

    private GraphRagDocumentRetriever(Builder b) {
        this.retrieval = new Retrieval(b.client, b.method, b.request);
        this.filter = b.filter;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Document> retrieve(Query query) {
        Object fromContext = query.context().get(VectorStoreDocumentRetriever.FILTER_EXPRESSION);
        Map<String, Object> where = fromContext instanceof Filter.Expression e ? FilterExpressionToWhere.where(e)
                : fromContext instanceof String s ? FilterExpressionToWhere.where(s)
                : fromContext != null ? fail(fromContext)
                : filter == null ? null : FilterExpressionToWhere.where(filter.get());
        List<Document> out = new ArrayList<>();
        for (Passage p : retrieval.passages(query.text(), where)) {
            out.add(Document.builder().id(p.chunkId()).text(p.text()).metadata(retrieval.metadata(p)).score(p.score()).build());
        }
        return out;
    }

    private static Map<String, Object> fail(Object value) {
        throw new IllegalArgumentException("the query context's " + VectorStoreDocumentRetriever.FILTER_EXPRESSION
                + " must be a Filter.Expression or its text form, got " + value.getClass().getName());
    }

    public static final class Builder {
        private GraphRagClient client;
        private Method method = Method.SEARCH;
        private Request request;
        private Supplier<Filter.Expression> filter;

        public Builder client(GraphRagClient client) {
            this.client = client;
            return this;
        }

        public Builder method(Method method) {
            this.method = Objects.requireNonNull(method, "method");
            return this;
        }

        /** The corpus, k, a fixed where map and other config keys. */
        public Builder request(Request request) {
            this.request = request;
            return this;
        }

        public Builder filterExpression(Filter.Expression filter) {
            this.filter = filter == null ? null : () -> filter;
            return this;
        }

        /** A filter per call (the current user's, a tenant's), as VectorStoreDocumentRetriever takes one. */
        public Builder filterExpression(Supplier<Filter.Expression> filter) {
            this.filter = filter;
            return this;
        }

        /** The text form: {@code "team == 'a' && year >= 2024"}. */
        public Builder filterExpression(String text) {
            Filter.Expression parsed = text == null || text.isBlank() ? null
                    : new org.springframework.ai.vectorstore.filter.FilterExpressionTextParser().parse(text);
            return filterExpression(parsed);
        }

        public GraphRagDocumentRetriever build() {
            return new GraphRagDocumentRetriever(this);
        }
    }
}
