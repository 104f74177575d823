// RAGA (raga.*): the functions of this release. The quality gate and alias keys are what RAGA's tools will apply to
// every entity name; the metrics are the paper's QASPER answer and evidence F1. Nothing here writes to the graph.

RETURN raga.quality.check('Convolutional Neural Network') AS ok, raga.quality.check('3.2 Related Work') AS heading,
       raga.quality.check('def tokenize(text)') AS code, raga.norm.key('  “Marie   Curie”. ') AS key;

RETURN raga.eval.answerF1('BERT and ELMo', ['ELMo', 'BERT, ELMo']) AS answerF1,
       raga.eval.evidenceF1(['p1', 'p2', 'p3'], [['p2', 'p4']]) AS evidenceF1;
