package dev.graphrag.oracle;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Hand-worked gating cases: a hop is known only once one visible text holds its subject and its answer. */
@LineIndependent
class EvidenceGateTest {
    static final OracleGold.Question RENNER = new OracleGold.Question("3hop", "Who was in charge of the country where the composer of Aschenbrodel was a citizen?",
            "Karl Renner", List.of("Renner"), List.of(new OracleGold.Hop("Aschenbrödel >> composer", "Johann Strauss II"),
            new OracleGold.Hop("#1 >> country of citizenship", "Austria"), new OracleGold.Hop("Who was in charge of #2 ?", "Karl Renner")));

    static final String BALLET = "Aschenbrodel (Cinderella) is a ballet by Johann Strauss II, completed after his death.";
    static final String STRAUSS = "Johann Strauss II was a composer of light music; he was a citizen of Austria until 1887.";
    static final String RENNER_TEXT = "Karl Renner was the head of state of Austria from 1945 until his death.";

    @Test
    void hopsOpenOneAtATimeAndHashRefsReadItUntilThen() {
        assertArrayEquals(new String[] {null, null, null}, EvidenceGate.known(RENNER, List.of()));
        assertEquals("What is the composer of Aschenbrödel?", EvidenceGate.query(RENNER.hops().get(0), new String[3]));
        assertEquals("What is the country of citizenship of it?", EvidenceGate.query(RENNER.hops().get(1), new String[3]));

        String[] k = EvidenceGate.known(RENNER, List.of(BALLET));
        assertArrayEquals(new String[] {"Johann Strauss II", null, null}, k, "accents folded: Aschenbrodel names Aschenbrödel");
        assertEquals("What is the country of citizenship of Johann Strauss II?", EvidenceGate.query(RENNER.hops().get(1), k));
        assertEquals("Who was in charge of it?", EvidenceGate.query(RENNER.hops().get(2), k));

        // the last passage alone names Austria and Renner, but hop 2 is not known yet, so hop 3 stays closed
        assertArrayEquals(new String[] {null, null, null}, EvidenceGate.known(RENNER, List.of(RENNER_TEXT)));
        assertNull(EvidenceGate.finalAnswer(RENNER, List.of(BALLET, RENNER_TEXT)));
        // all three, in any order: a fixed point
        assertArrayEquals(new String[] {"Johann Strauss II", "Austria", "Karl Renner"}, EvidenceGate.known(RENNER, List.of(RENNER_TEXT, STRAUSS, BALLET)));
        assertEquals("Karl Renner", EvidenceGate.finalAnswer(RENNER, List.of(RENNER_TEXT, STRAUSS, BALLET)));
    }

    @Test
    void subjectAndAnswerMustShareOneText() {
        // "Austria" and "Johann Strauss II" are visible, but in different texts: hop 2 is not revealed
        String austriaOnly = "Austria is a country in Central Europe.";
        String straussOnly = "Johann Strauss II wrote waltzes.";
        assertArrayEquals(new String[] {"Johann Strauss II", null, null}, EvidenceGate.known(RENNER, List.of(BALLET, austriaOnly, straussOnly)));
    }

    @Test
    void aliasesCountForTheLastHopOnly() {
        OracleGold.Question q = new OracleGold.Question("2hop", "What country was the author of Brand a citizen of?", "Norway", List.of("NOR"),
                List.of(new OracleGold.Hop("Brand >> author", "Henrik Ibsen"), new OracleGold.Hop("#1 >> country of citizenship", "Norway")));
        assertEquals("Norway", EvidenceGate.finalAnswer(q, List.of("Brand is a play by Henrik Ibsen.", "Henrik Ibsen (NOR) was a playwright.")));
        OracleGold.Question answerOnly = new OracleGold.Question("h", "Which is older?", "the Louvre", List.of(), List.of());
        assertEquals("the Louvre", EvidenceGate.finalAnswer(answerOnly, List.of("Louvre opened in 1793.")), "articles dropped when matching");
        assertNull(EvidenceGate.finalAnswer(answerOnly, List.of("Louvres are openings.")), "whole words only");
    }

    @Test
    void subjectOfANaturalFirstHop() {
        assertEquals("Journal of Psychotherapy Integration", EvidenceGate.longestName("What company published Journal of Psychotherapy Integration?"));
        assertEquals("Tekezé River", EvidenceGate.longestName("What river does Tekezé River turn into?"));
        assertNull(EvidenceGate.longestName("in what institution do church courts still have relevant functions?"));
        OracleGold.Question q = new OracleGold.Question("2hop", "q", "G. Stanley Hall", List.of(), List.of(
                new OracleGold.Hop("What company published Journal of Psychotherapy Integration?", "American Psychological Association"),
                new OracleGold.Hop("Who was the first president of #1 ?", "G. Stanley Hall")));
        assertNull(EvidenceGate.known(q, List.of("The American Psychological Association publishes many journals."))[0], "subject missing");
        assertEquals("American Psychological Association", EvidenceGate.known(q,
                List.of("The Journal of Psychotherapy Integration is published by the American Psychological Association."))[0]);
    }
}
