package dev.graphrag.integrations;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.Method;
import dev.graphrag.client.Request;
import dev.graphrag.core.llm.StandInLlm;
import dev.graphrag.langchain4j.GraphRagContentRetriever;
import dev.graphrag.langchain4j.GraphRagTools;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.rag.DefaultRetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.store.embedding.filter.Filter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.graphrag.integrations.IntegrationServer.CANARY;
import static dev.graphrag.integrations.IntegrationServer.CORPUS;
import static dev.graphrag.integrations.IntegrationServer.LLM;
import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The LangChain4j adapter driven by LangChain4j itself: AiServices with a DefaultRetrievalAugmentor over the
 * ContentRetriever, and AiServices calling the answer procedures as tools, against the real server and an
 * OpenAI-compatible chat model (the stand-in) as the application's model.
 */
class LangChain4jTest {
    interface Assistant {
        String chat(String message);
    }

    static final String QUESTION = "Where was Ethan Hawke born?";
    final GraphRagClient client = IntegrationServer.client();
    final OpenAiChatModel appModel = OpenAiChatModel.builder().baseUrl(LLM.endpoint()).apiKey("app-key").modelName("app-model").build();

    @BeforeEach
    void reset() {
        LLM.reset();
    }

    Assistant assistant(GraphRagContentRetriever retriever) {
        return AiServices.builder(Assistant.class).chatModel(appModel)
                .retrievalAugmentor(DefaultRetrievalAugmentor.builder().contentRetriever(retriever).build()).build();
    }

    @Test
    void theAppModelsPromptHoldsTheRetrievedChunksAndAFilterKeepsTheCanaryOut() {
        LLM.when(r -> r.step() == null).reply("Austin, Texas.");
        IntegrationServer.layerRules();
        GraphRagContentRetriever.Builder base = GraphRagContentRetriever.builder().client(client)
                .request(Request.corpus(CORPUS).k(3).with("mode", "hybrid"));
        // the control: without a filter the canary document is among the three the model is shown
        assertEquals("Austin, Texas.", assistant(base.build()).chat(QUESTION));
        assertTrue(IntegrationServer.appRequests().get(0).body().toString().contains(CANARY), "control: the canary ranks among three");
        LLM.reset();
        LLM.when(r -> r.step() == null).reply("Austin, Texas.");
        IntegrationServer.layerRules();
        Filter teamA = metadataKey("team").isEqualTo("a").and(metadataKey("year").isGreaterThanOrEqualTo(2025L));
        assertEquals("Austin, Texas.", assistant(base.filter(teamA).build()).chat(QUESTION));
        List<StandInLlm.Request> app = IntegrationServer.appRequests();
        assertEquals(1, app.size());
        String prompt = app.get(0).body().toString();
        assertTrue(prompt.contains("Ethan Hawke was born in Austin, Texas."), "the retrieved chunk is in the app model's prompt: " + prompt);
        assertFalse(prompt.contains(CANARY), "a chunk outside the filter reached the app model: " + prompt);
    }

    @Test
    void everyMethodRetrievesThroughTheSameRetrieverWithCitationsInTheMetadata() {
        IntegrationServer.layerRules();
        Filter notB = metadataKey("team").isNotEqualTo("b");
        for (Method method : List.of(Method.SEARCH, Method.AGRAG, Method.HGMEM, Method.RAGA, Method.REMIND)) {
            List<Content> contents = GraphRagContentRetriever.builder().client(client).method(method).request(Request.corpus(CORPUS).k(3))
                    .dynamicFilter(q -> notB).build().retrieve(Query.from(QUESTION));
            // ReMind returns the chunks its walk reached (at most k); the others k when k chunks pass
            if (method == Method.REMIND) assertFalse(contents.isEmpty(), "remind: the walk reached chunks");
            else assertEquals(3, contents.size(), method + ": k contents when k chunks pass");
            for (Content c : contents) {
                assertFalse(c.textSegment().text().contains(CANARY), method + ": " + c);
                assertTrue(c.textSegment().metadata().getString("chunkId").startsWith(CORPUS + ":"), method + ": " + c.textSegment().metadata());
                assertTrue(List.of("derrickson", "hawke", "austin").contains(c.textSegment().metadata().getString("documentId")));
                assertEquals(method.name().toLowerCase(), c.textSegment().metadata().getString("method"));
                assertTrue(c.metadata().get(dev.langchain4j.rag.content.ContentMetadata.SCORE) instanceof Double);
            }
            assertEquals(1, contents.get(0).textSegment().metadata().getInteger("rank"));
        }
        // a filter with no where form is an error, never dropped (which would widen the search)
        Filter custom = new Filter() {
            @Override
            public boolean test(Object o) {
                return true;
            }
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GraphRagContentRetriever.builder().client(client)
                .request(Request.corpus(CORPUS)).filter(custom).build().retrieve(Query.from(QUESTION)));
        assertTrue(e.getMessage().contains("has no where form"), e.getMessage());
        // the plugin's own message reaches the application
        dev.graphrag.client.GraphRagException unknown = assertThrows(dev.graphrag.client.GraphRagException.class, () -> GraphRagContentRetriever.builder()
                .client(client).request(Request.corpus(CORPUS)).filter(metadataKey("tema").isEqualTo("a")).build().retrieve(Query.from(QUESTION)));
        assertTrue(unknown.getMessage().startsWith("rag.search: where"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("did you mean 'team'?"), unknown.getMessage());
    }

    @Test
    void anAiServicesAgentCallsAnAnswerProcedureAsAToolAndReadsItsSources() {
        LLM.when(StandInLlm.hasToolResult("call-1")).reply("He was born in Austin, Texas [1].");
        LLM.when(r -> r.step() == null).toolCalls(StandInLlm.toolCall("call-1", "answerWithAgrag",
                "{\"question\": \"Where was the star of Sinister born?\"}")).once();
        LLM.when(r -> "agrag.answer".equals(r.step())).replyJson(Map.of("thought", "stand-in", "answer", "Austin"));
        IntegrationServer.layerRules();
        Assistant agent = AiServices.builder(Assistant.class).chatModel(appModel)
                .tools(new GraphRagTools(client, Request.corpus(CORPUS).where(Map.of("team", "a")))).build();
        assertEquals("He was born in Austin, Texas [1].", agent.chat("Where was the star of Sinister born?"));
        List<StandInLlm.Request> plugin = LLM.requests().stream().filter(r -> "agrag.answer".equals(r.step())).toList();
        assertEquals(1, plugin.size(), "the tool called agrag.answer once");
        assertFalse(plugin.get(0).body().toString().contains(CANARY), "the tool's where kept the canary out of the plugin's prompt");
        String toolResult = IntegrationServer.appRequests().get(1).body().toString();
        assertTrue(toolResult.contains("Austin") && toolResult.contains("Sources:") && toolResult.contains(CORPUS + ":"),
                "the app model read the answer with its sources: " + toolResult);
        assertTrue(IntegrationServer.appRequests().get(0).body().toString().contains("answerWithAgrag"), "the tools were offered to the app model");
    }
}
