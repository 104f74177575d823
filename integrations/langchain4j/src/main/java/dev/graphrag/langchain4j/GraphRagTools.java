package dev.graphrag.langchain4j;

import dev.graphrag.client.Answer;
import dev.graphrag.client.Citation;
import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.GraphRagException;
import dev.graphrag.client.Method;
import dev.graphrag.client.Passage;
import dev.graphrag.client.Request;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;

import java.util.List;
import java.util.Objects;

/**
 * The plugin's answer procedures (and chunk search) as tools an AiServices agent may call:
 * {@code AiServices.builder(Assistant.class).chatModel(model).tools(new GraphRagTools(client, request)).build()}.
 * Each answer comes back as its text and a numbered source list (document, pages, section), so the agent can cite;
 * a failure comes back as the plugin's message, for the agent to read rather than an exception that ends the chat.
 */
public final class GraphRagTools {
    private final GraphRagClient client;
    private final Request request;

    /** {@code request}: the corpus and config every call uses (llm, where, ...). */
    public GraphRagTools(GraphRagClient client, Request request) {
        this.client = Objects.requireNonNull(client, "client");
        this.request = Objects.requireNonNull(request, "request");
    }

    @Tool("Answers a multi-hop question from the document collection with AGRAG (a reasoning subgraph of entities and facts"
            + " and the passages they come from); returns the answer and its numbered sources")
    public String answerWithAgrag(@P("the question, in full") String question) {
        return answer(Method.AGRAG, question);
    }

    @Tool("Answers a question that needs several steps of reading with HGMem (a working memory of entity groups grown step"
            + " by step); returns the answer and its numbered sources")
    public String answerWithHgmem(@P("the question, in full") String question) {
        return answer(Method.HGMEM, question);
    }

    @Tool("Answers a question from the knowledge graph an agent built with evidence quotes (RAGA: facts and passages fused);"
            + " returns the answer and its numbered sources")
    public String answerWithRaga(@P("the question, in full") String question) {
        return answer(Method.RAGA, question);
    }

    @Tool("Answers a question by a guided walk over the knowledge graph (ReMind), replaying walks it has memorised;"
            + " returns the answer and its numbered sources")
    public String answerWithRemind(@P("the question, in full") String question) {
        return answer(Method.REMIND, question);
    }

    @Tool("Searches the document collection for passages (hybrid dense and keyword search); returns the best passages with their sources")
    public String searchPassages(@P("what to look for") String query, @P("how many passages, 1 to 20") int k) {
        try {
            List<Passage> hits = client.search(query, request.k(Math.max(1, Math.min(20, k))));
            StringBuilder b = new StringBuilder();
            for (Passage p : hits) b.append('[').append(p.rank()).append("] ").append(p.citation().label()).append(": ").append(p.text()).append('\n');
            return hits.isEmpty() ? "no passage found" : b.toString();
        } catch (GraphRagException e) {
            return "search failed: " + e.getMessage();
        }
    }

    private String answer(Method method, String question) {
        try {
            return render(client.answer(method, question, request));
        } catch (GraphRagException e) {
            return method.prefix() + " could not answer: " + e.getMessage();
        }
    }

    /** "answer\n\nSources:\n[1] doc.pdf p. 3, 2 Installation (chunk id)". */
    static String render(Answer a) {
        StringBuilder b = new StringBuilder(a.text() == null ? "" : a.text());
        if (!a.citations().isEmpty()) {
            b.append("\n\nSources:");
            int i = 1;
            for (Citation c : a.citations()) b.append("\n[").append(i++).append("] ").append(c.label()).append(" (").append(c.chunkId()).append(')');
        }
        return b.toString();
    }
}
