package dev.graphrag.langchain4j;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.Method;
import dev.graphrag.client.Passage;
import dev.graphrag.client.Request;
import dev.graphrag.client.Retrieval;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.filter.Filter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A LangChain4j {@link ContentRetriever} over the plugin: rag.search (in any mode) or a method's retrieval, chosen by
 * {@link Builder#method}. A {@link Filter} (fixed, or per query as LangChain4j's own retrievers take it) becomes the
 * procedures' {@code where}, so no chunk outside it is returned. Each {@link Content}'s text segment metadata carries
 * the citation: {@code documentId}, {@code chunkId}, {@code pages} ("3,4"), {@code firstPage}, {@code lastPage},
 * {@code section}, {@code rank}, {@code method}; its content metadata the score.
 */
public final class GraphRagContentRetriever implements ContentRetriever {
    private final Retrieval retrieval;
    private final Function<Query, Filter> filter;

    private GraphRagContentRetriever(Builder b) {
        this.retrieval = new Retrieval(b.client, b.method, b.request);
        this.filter = b.filter;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Content> retrieve(Query query) {
        Filter f = filter == null ? null : filter.apply(query);
        List<Content> out = new ArrayList<>();
        for (Passage p : retrieval.passages(query.text(), f == null ? null : FilterToWhere.where(f))) {
            // LangChain4j's Metadata holds no lists: the pages as "3,4" with the first and last apart
            Map<String, Object> m = new LinkedHashMap<>(retrieval.metadata(p));
            if (m.remove("pages") instanceof List<?> pages) {
                m.put("pages", String.join(",", pages.stream().map(String::valueOf).toList()));
                m.put("firstPage", pages.get(0));
                m.put("lastPage", pages.get(pages.size() - 1));
            }
            out.add(Content.from(TextSegment.from(p.text(), Metadata.from(m)), Map.of(ContentMetadata.SCORE, p.score())));
        }
        return out;
    }

    public static final class Builder {
        private GraphRagClient client;
        private Method method = Method.SEARCH;
        private Request request;
        private Function<Query, Filter> filter;

        public Builder client(GraphRagClient client) {
            this.client = client;
            return this;
        }

        /** SEARCH (rag.search; the default), AGRAG, HGMEM, RAGA or REMIND. */
        public Builder method(Method method) {
            this.method = Objects.requireNonNull(method, "method");
            return this;
        }

        /** The corpus, k, a fixed where map and other config keys (e.g. {@code Request.corpus("docs").k(5).with("mode", "hybrid")}). */
        public Builder request(Request request) {
            this.request = request;
            return this;
        }

        /** A filter for every query; combined with the request's where by and. */
        public Builder filter(Filter filter) {
            this.filter = filter == null ? null : q -> filter;
            return this;
        }

        /** A filter per query (from its metadata: the user, the chat memory id), as EmbeddingStoreContentRetriever takes one. */
        public Builder dynamicFilter(Function<Query, Filter> filter) {
            this.filter = filter;
            return this;
        }

        public GraphRagContentRetriever build() {
            return new GraphRagContentRetriever(this);
        }
    }
}
