package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The evaluation's question sets in each released format and in JSON Lines, and SQuAD-style answer scoring. */
@LineIndependent
class QuestionSetTest {
    static final Path TWOWIKI = OracleGoldTest.SAMPLES.resolve("2wikimultihopqa_sample.json");

    @Test
    void musiqueGivesTheAnswerItsAliasesAndTheSupportingParagraphs() throws Exception {
        List<QuestionSet.Question> qs = QuestionSet.read(OracleGoldTest.MUSIQUE);
        assertEquals(6, qs.size());
        QuestionSet.Question q = qs.stream().filter(x -> x.id().equals("2hop__150763_14904")).findFirst().orElseThrow();
        assertEquals(List.of("G. Stanley Hall", "Stanley Hall"), q.answers());
        assertEquals(2, q.gold().size(), "two hops, two supporting paragraphs");
        assertTrue(q.gold().stream().allMatch(g -> g.text() != null && !g.text().isBlank()), "MuSiQue gold carries its text");
        QuestionSet.Question norway = qs.stream().filter(x -> x.id().equals("2hop__468258_495107")).findFirst().orElseThrow();
        assertEquals(List.of("Norway", "NO", "NOR"), norway.answers(), "aliases 'NO' and 'no' are one answer once normalised");
        assertEquals(4, qs.stream().filter(x -> x.id().startsWith("4hop")).findFirst().orElseThrow().gold().size());
    }

    @Test
    void hotpotAndTwoWikiNameTheirGoldByTitleOnce() throws Exception {
        List<QuestionSet.Question> hotpot = QuestionSet.read(OracleGoldTest.HOTPOT);
        assertEquals(4, hotpot.size());
        assertTrue(hotpot.stream().allMatch(q -> !q.gold().isEmpty() && q.gold().stream().allMatch(g -> g.text() != null && !g.text().isBlank())),
                "each gold title carries the text of the question's own context paragraph");
        List<QuestionSet.Question> wiki = QuestionSet.read(TWOWIKI);
        assertEquals(2, wiki.size());
        assertEquals(List.of("The Prize Film", "Anna Berg"), wiki.get(0).gold().stream().map(QuestionSet.Gold::title).toList(),
                "three supporting facts over two titles: two gold passages, in order");
        assertEquals("8813f87c0bdd11eba7f7acde48001122", wiki.get(0).id());
    }

    @Test
    void jsonLinesForAUsersOwnSet(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("mine.jsonl");
        Files.writeString(f, """
                {"question": "Who wrote Dune?", "answer": "Frank Herbert", "aliases": ["Herbert", "frank herbert"], "gold": [{"title": "Dune", "text": "Dune is a novel by Frank Herbert."}]}

                {"id": "x2", "question": "Where is Neo4j from?", "answer": "Sweden"}
                """);
        List<QuestionSet.Question> qs = QuestionSet.read(f);
        assertEquals(2, qs.size());
        assertEquals("q1", qs.get(0).id(), "no id: the line number");
        assertEquals(List.of("Frank Herbert", "Herbert"), qs.get(0).answers(), "an alias equal to the answer once normalised counts once");
        assertEquals("Dune is a novel by Frank Herbert.", qs.get(0).gold().get(0).text());
        assertEquals("x2", qs.get(1).id());
        assertTrue(qs.get(1).gold().isEmpty());
    }

    @Test
    void badFilesAreRefusedNamingTheProblem(@TempDir Path dir) throws Exception {
        Path broken = dir.resolve("broken.jsonl");
        Files.writeString(broken, "{\"question\": \"q\", \"answer\": \"a\"}\n{not json\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QuestionSet.read(broken)).getMessage().contains("line 2: not JSON"));
        Path noAnswer = dir.resolve("noanswer.jsonl");
        Files.writeString(noAnswer, "{\"question\": \"q\"}\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QuestionSet.read(noAnswer)).getMessage().contains("line 1: needs a non-empty question and answer"));
        Path other = dir.resolve("other.json");
        Files.writeString(other, "[{\"q\": \"x\"}]");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QuestionSet.read(other)).getMessage().contains("use JSON Lines"));
    }

    @Test
    void answersAreScoredAsSquadDoes() {
        assertEquals(1.0, AnswerScore.of("The Eiffel Tower!", List.of("eiffel tower")).exactMatch(), "case, punctuation and articles do not count");
        AnswerScore.Score partial = AnswerScore.of("Stanley Hall", List.of("G. Stanley Hall"));
        assertEquals(0.0, partial.exactMatch());
        assertEquals(0.8, partial.f1(), 1e-9, "2 common tokens: precision 2/2, recall 2/3");
        assertEquals(1.0, AnswerScore.of("Stanley Hall", List.of("G. Stanley Hall", "Stanley Hall")).exactMatch(), "the best alias counts");
        assertEquals(0.0, AnswerScore.of("Paris", List.of("London")).f1());
        assertEquals(0.0, AnswerScore.of(null, List.of("London")).f1());
        assertEquals(0.0, AnswerScore.of("   ", List.of("London")).exactMatch());
        assertEquals(0.8, AnswerScore.of("the the cat sat", List.of("cat sat on")).f1(), 1e-9, "articles gone: [cat sat] against [cat sat on], precision 1, recall 2/3");
    }

    @Test
    void normalisationMatchesTheOfficialScript() {
        assertEquals("applepie", AnswerScore.normalize("An  Apple-Pie"), "punctuation goes without a space, as in SQuAD's script");
        assertEquals("us", AnswerScore.normalize("U.S."));
        assertEquals("theory of everything", AnswerScore.normalize("The Theory of Everything."), "only a, an, the as whole words");
    }
}
