package dev.graphrag.procedures;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.harness.Neo4j;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A second real model end to end: a server configured for bge-small-zh-v1.5 (int8, from langchain4j's jar on the
 * test class path, as a user would point graphrag.embedding.model at a file) ingests and searches a Chinese corpus.
 */
class ChineseModelTest {
    static Neo4j neo4j;

    @BeforeAll
    static void start(@TempDir Path dir) {
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, "127.0.0.1", -1, -1, Map.of(
                "graphrag.embedding.name", "bge-small-zh-v1.5-q", "graphrag.embedding.model", "classpath:bge-small-zh-v1.5-q.onnx",
                "graphrag.embedding.tokenizer", "classpath:bge-small-zh-v1.5-q-tokenizer.json", "graphrag.embedding.pooling", "cls",
                "graphrag.embedding.device", "cpu")));
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) neo4j.close();
    }

    static List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        return neo4j.defaultDatabaseService().executeTransactionally(cypher, params, r -> r.stream().toList());
    }

    static final List<Map<String, Object>> DOCS = List.of(
            Map.of("id", "libai", "title", "李白", "text", "李白，字太白，号青莲居士，是唐朝著名的浪漫主义诗人，被后人誉为“诗仙”。他的代表作有《静夜思》和《将进酒》。"),
            Map.of("id", "changjiang", "title", "长江", "text", "长江是亚洲第一长河，全长约六千三百公里，发源于青藏高原，流经十一个省级行政区，最后注入东海。"),
            Map.of("id", "panda", "title", "大熊猫", "text", "大熊猫是中国特有的哺乳动物，主要生活在四川、陕西和甘肃的山区竹林中，以竹子为主要食物。"),
            Map.of("id", "tea", "title", "龙井茶", "text", "龙井茶是中国十大名茶之一，产于浙江省杭州市西湖一带，以色绿、香郁、味甘、形美著称。"),
            Map.of("id", "rail", "title", "高速铁路", "text", "中国高速铁路网是世界上规模最大的高铁网络，京沪高铁连接北京和上海，最高运营时速三百五十公里。"));

    @Test
    void aChineseCorpusIsIngestedAndSearchedWithTheChineseModel() throws Exception {
        rows("CALL rag.ingest($docs, {corpus: 'zh'})", Map.of("docs", DOCS));
        Map<String, Object> info = rows("CALL rag.info()", Map.of()).get(0);
        assertEquals("bge-small-zh-v1.5-q", info.get("model"));
        assertEquals(512L, info.get("dimensions"));

        // the chunker counted the reference tokenizer's tokens (Hugging Face's own, via DJL) for every chunk
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("bge-small-zh-v1.5-q-tokenizer.json");
             HuggingFaceTokenizer reference = HuggingFaceTokenizer.newInstance(in, Map.of("truncation", "false", "padding", "false"))) {
            for (Map<String, Object> c : rows("MATCH (c:Chunk {corpus: 'zh'}) RETURN c.text AS text, c.tokens AS tokens", Map.of())) {
                assertEquals((long) reference.encode((String) c.get("text"), false, false).getIds().length, c.get("tokens"), (String) c.get("text"));
            }
        }

        Map<String, String> questions = Map.of(
                "谁被称为诗仙？", "libai",
                "亚洲最长的河流是哪一条？", "changjiang",
                "哪种动物以竹子为食？", "panda",
                "西湖出产什么名茶？", "tea",
                "从北京到上海的高铁时速是多少？", "rail");
        for (Map.Entry<String, String> q : questions.entrySet()) {
            for (String mode : List.of("dense", "hybrid")) {
                List<Map<String, Object>> hits = rows("CALL rag.search($q, {corpus: 'zh', k: 3, mode: $m}) YIELD documentId, score RETURN documentId, score",
                        Map.of("q", q.getKey(), "m", mode));
                assertEquals(q.getValue(), hits.get(0).get("documentId"), mode + ": " + q.getKey() + " -> " + hits);
            }
        }
    }
}
