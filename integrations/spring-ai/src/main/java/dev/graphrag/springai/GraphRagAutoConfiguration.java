package dev.graphrag.springai;

import dev.graphrag.client.GraphRagClient;
import dev.graphrag.client.Method;
import dev.graphrag.client.Request;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.util.Map;

/**
 * Spring Boot auto-configuration: a {@link GraphRagClient} from {@code graphrag.uri/username/password/database}, and
 * over it a {@link GraphRagDocumentRetriever} ({@code graphrag.corpus/method/k/mode/filter-expression}) for a
 * {@code RetrievalAugmentationAdvisor}, and a {@link GraphRagDocumentWriter} into the corpus. Each bean backs off when
 * the application defines its own. The client connects at start and fails it naming the URI when it cannot.
 */
@AutoConfiguration
@EnableConfigurationProperties(GraphRagProperties.class)
public class GraphRagAutoConfiguration {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public GraphRagClient graphRagClient(GraphRagProperties p) {
        return GraphRagClient.connect(p.getUri(), p.getUsername(), p.getPassword(), p.getDatabase());
    }

    @Bean
    @ConditionalOnMissingBean
    public GraphRagDocumentRetriever graphRagDocumentRetriever(GraphRagClient client, GraphRagProperties p) {
        Request request = Request.corpus(p.getCorpus());
        if (p.getK() > 0) request = request.k(p.getK());
        if (p.getMode() != null && !p.getMode().isBlank()) request = request.with("mode", p.getMode());
        return GraphRagDocumentRetriever.builder().client(client).method(Method.of(p.getMethod())).request(request)
                .filterExpression(p.getFilterExpression()).build();
    }

    @Bean
    @ConditionalOnMissingBean
    public GraphRagDocumentWriter graphRagDocumentWriter(GraphRagClient client, GraphRagProperties p) {
        return new GraphRagDocumentWriter(client, p.getCorpus(), Map.of());
    }
}
