package dev.graphrag.integrations;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.Passage;
import dev.graphrag.client.Request;
import dev.graphrag.core.llm.StandInLlm;
import dev.graphrag.springai.FilterExpressionToWhere;
import dev.graphrag.springai.GraphRagAutoConfiguration;
import dev.graphrag.springai.GraphRagDocumentRetriever;
import dev.graphrag.springai.GraphRagDocumentWriter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.document.Document;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.advisor.RetrievalAugmentationAdvisor;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.vectorstore.filter.FilterExpressionBuilder;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Map;

import static dev.graphrag.integrations.IntegrationServer.CANARY;
import static dev.graphrag.integrations.IntegrationServer.CORPUS;
import static dev.graphrag.integrations.IntegrationServer.LLM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Spring AI adapter driven by Spring AI itself: Boot's auto-configuration from graphrag.* properties, a
 * RetrievalAugmentationAdvisor over the retriever in a ChatClient whose model is OpenAI's chat model pointed at the
 * stand-in, filters in the expression and text forms, and the DocumentWriter ingesting Spring AI Documents.
 */
class SpringAiTest {
    static final String QUESTION = "Where was Ethan Hawke born?";

    ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(GraphRagAutoConfiguration.class))
                .withPropertyValues("graphrag.uri=" + IntegrationServer.boltUri(), "graphrag.password=unused-auth-is-off", "graphrag.corpus=" + CORPUS,
                        "graphrag.k=3", "graphrag.mode=hybrid");
    }

    static ChatClient chat(GraphRagDocumentRetriever retriever) {
        OpenAiChatModel model = OpenAiChatModel.builder()
                .options(OpenAiChatOptions.builder().baseUrl(LLM.endpoint()).apiKey("app-key").model("app-model").build()).build();
        return ChatClient.builder(model).defaultAdvisors(RetrievalAugmentationAdvisor.builder().documentRetriever(retriever).build()).build();
    }

    @BeforeEach
    void reset() {
        IntegrationServer.client();
        LLM.reset();
        LLM.when(r -> r.step() == null).reply("Austin, Texas.");
        IntegrationServer.layerRules();
    }

    @Test
    void aChatClientWithTheAdvisorShowsTheModelTheRetrievedChunksInsideTheFilter() {
        // the control: without a filter the canary document is among the three
        runner().run(ctx -> assertEquals("Austin, Texas.", chat(ctx.getBean(GraphRagDocumentRetriever.class)).prompt().user(QUESTION).call().content()));
        assertTrue(IntegrationServer.appRequests().get(0).body().toString().contains(CANARY), "control: the canary ranks among three");
        LLM.reset();
        LLM.when(r -> r.step() == null).reply("Austin, Texas.");
        runner().withPropertyValues("graphrag.filter-expression=team == 'a' && year >= 2025").run(ctx -> {
            assertEquals("Austin, Texas.", chat(ctx.getBean(GraphRagDocumentRetriever.class)).prompt().user(QUESTION).call().content());
        });
        List<StandInLlm.Request> app = IntegrationServer.appRequests();
        assertEquals(1, app.size());
        String prompt = app.get(0).body().toString();
        assertTrue(prompt.contains("Ethan Hawke was born in Austin, Texas."), "the retrieved chunk is in the app model's prompt: " + prompt);
        assertFalse(prompt.contains(CANARY), "a chunk outside the filter reached the app model: " + prompt);
    }

    @Test
    void filtersInEveryFormReachWhereAndDocumentsCarryTheirCitations() {
        runner().run(ctx -> {
            GraphRagDocumentRetriever retriever = ctx.getBean(GraphRagDocumentRetriever.class);
            FilterExpressionBuilder b = new FilterExpressionBuilder();
            // the context key Spring AI's own retriever reads, with an expression and with the text form
            for (Object filter : List.of(b.not(b.eq("team", "b")).build(), "team in ['a', 'c'] && year >= 2025", "team != 'b'")) {
                List<Document> docs = retriever.retrieve(Query.builder().text(QUESTION).context(Map.of(VectorStoreDocumentRetriever.FILTER_EXPRESSION, filter)).build());
                assertEquals(3, docs.size(), filter + ": k documents when k chunks pass");
                for (Document d : docs) {
                    assertFalse(d.getText().contains(CANARY), filter + ": " + d);
                    assertTrue(List.of("derrickson", "hawke", "austin").contains(d.getMetadata().get("documentId")), d.getMetadata().toString());
                    assertEquals(d.getId(), d.getMetadata().get("chunkId"));
                    assertTrue(d.getScore() != null);
                }
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> retriever.retrieve(Query.builder().text(QUESTION)
                    .context(Map.of(VectorStoreDocumentRetriever.FILTER_EXPRESSION, 42)).build()));
            assertTrue(e.getMessage().contains("must be a Filter.Expression or its text form"), e.getMessage());
        });
    }

    @Test
    void theTranslationKeepsEveryOperator() {
        FilterExpressionBuilder b = new FilterExpressionBuilder();
        assertEquals(Map.of("$and", List.of(Map.of("team", Map.of("$eq", "a")), Map.of("year", Map.of("$gte", 2025)))),
                FilterExpressionToWhere.where("team == 'a' && year >= 2025"));
        assertEquals(Map.of("$or", List.of(Map.of("team", Map.of("$in", List.of("a", "b"))), Map.of("$not", Map.of("year", Map.of("$lt", 2020))))),
                FilterExpressionToWhere.where(b.or(b.in("team", "a", "b"), b.not(b.lt("year", 2020))).build()));
        assertEquals(Map.of("author", Map.of("$exists", false)), FilterExpressionToWhere.where(b.isNull("author").build()));
        assertEquals(Map.of("author", Map.of("$exists", true)), FilterExpressionToWhere.where(b.isNotNull("author").build()));
        assertEquals(Map.of("team", Map.of("$nin", List.of("b"))), FilterExpressionToWhere.where(b.nin("team", "b").build()));
        assertEquals(Map.of("$and", List.of(Map.of("team", Map.of("$ne", "b")), Map.of("year", Map.of("$gt", 2020)))),
                FilterExpressionToWhere.where(b.and(b.group(b.ne("team", "b")), b.gt("year", 2020)).build()));
        assertEquals(Map.of("year", Map.of("$lte", 2025)), FilterExpressionToWhere.where("year <= 2025"));
    }

    @Test
    void theWriterIngestsSpringAiDocumentsThatTheRetrieverThenFinds() {
        runner().withPropertyValues("graphrag.corpus=spring-docs").run(ctx -> {
            GraphRagDocumentWriter writer = ctx.getBean(GraphRagDocumentWriter.class);
            writer.accept(List.of(
                    Document.builder().id("pump-a").text("The harbour pump P-7 needs new seals every 400 hours.").metadata(Map.of("site", "harbour", "year", 2025)).build(),
                    Document.builder().id("pump-b").text("The dock pump P-9 needs new seals every 900 hours.").metadata(Map.of("site", "dock", "title", "Dock pumps")).build()));
            GraphRagClient client = ctx.getBean(GraphRagClient.class);
            List<Passage> hits = client.search("seals every hours", Request.corpus("spring-docs").k(5).where(Map.of("site", "harbour")));
            assertEquals(1, hits.size(), hits.toString());
            assertEquals("pump-a", hits.get(0).documentId());
            List<Document> docs = ctx.getBean(GraphRagDocumentRetriever.class).retrieve(new Query("Which pump needs seals every 900 hours?"));
            assertEquals("pump-b", docs.get(0).getMetadata().get("documentId"), docs.toString());
        });
    }
}
