// ReMindRAG (remind.*): an LLM walks the graph once; what helped is memorised in the edges, and the same or a
// similar question later replays it without the LLM. Set the LLM first, e.g. in Neo4j Browser:
//   :param llm => {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:7b-instruct'}
//   (or :param llm => {} with graphrag.llm.endpoint / graphrag.llm.model set in conf/graphrag.conf)

// 1. Documents into the shared lexical graph, chunked as ReMindRAG chunks (whole sentences, up to 750 tokens).
CALL rag.ingest([
  {id: 'derrickson', text: 'Scott Derrickson is an American film director. Scott Derrickson directed the horror film Sinister in 2012.'},
  {id: 'sinister', text: 'Sinister is a 2012 horror film. Ethan Hawke stars in Sinister as a true crime writer.'},
  {id: 'hawke', text: 'Ethan Hawke was born in Austin, Texas. Ethan Hawke studied acting at New York University.'}
], {corpus: 'remind_demo', chunker: 'sentences'}) YIELD documentId, status RETURN documentId, status;

// 2. The ReMind layer: per chunk the LLM names entities, relations and a title; one anchor per chunk; zero memories.
CALL remind.index({corpus: 'remind_demo', llm: $llm})
YIELD newChunks, entitiesCreated, entitiesMerged, relations, mentions, llmCalls, promptTokens, completionTokens
RETURN newChunks, entitiesCreated, entitiesMerged, relations, mentions, llmCalls, promptTokens, completionTokens;

CALL remind.info({corpus: 'remind_demo'}) YIELD state, anchors, entities, relations, embeddingModel
RETURN state, anchors, entities, relations, embeddingModel;

// 3. Where a walk starts: the entities and anchors nearest the question.
CALL remind.seeds('Where was the star of the horror film directed by Scott Derrickson born?', {corpus: 'remind_demo'})
YIELD node, score, rank RETURN coalesce(node.name, node.title) AS seed, labels(node) AS kind, score, rank;

// 4. Answer: replay, the LLM walk while the subgraph is insufficient, the answer with cited chunks, memorisation.
//    Run it twice: the second time replay finds the path and the walk costs one sufficiency check.
CALL remind.answer('Where was the star of the horror film directed by Scott Derrickson born?', {corpus: 'remind_demo', llm: $llm})
YIELD answer, citedChunks, stopReason, jumps, memorized, enhanced, llmCalls, traversalTokens, tokensByStep
RETURN answer, citedChunks, stopReason, jumps, memorized, enhanced, llmCalls, traversalTokens, tokensByStep;

// 4b. Memorise only walks the LLM judged sufficient: a failed walk's partial path, replayed, would make its repeat dearer.
CALL remind.answer('Who directed the horror film Sinister?', {corpus: 'remind_demo', llm: $llm, memorizeWhen: 'sufficient'})
YIELD answer, sufficient, stopReason, memorized
RETURN answer, sufficient, stopReason, memorized;

// 5. Curation: traverse without writing, then memorise the chunks you name (explicit filter, no LLM call).
CALL remind.traverse('Which film did Scott Derrickson direct in 2012?', {corpus: 'remind_demo', llm: $llm})
YIELD traversal, chunks
CALL remind.memorize('Which film did Scott Derrickson direct in 2012?', traversal,
  {corpus: 'remind_demo', filter: 'explicit', usefulChunkIds: chunks, requireLlmSteps: false})
YIELD memorized, enhanced, penalized
RETURN memorized, enhanced, penalized;

// 6. Replay alone (no LLM, draws in Browser), and what the edges remember.
CALL remind.replay('Where was the star of the horror film directed by Scott Derrickson born?', {corpus: 'remind_demo'})
YIELD nodes, relationships, chunks RETURN nodes, relationships, chunks;

CALL remind.memory.stats({corpus: 'remind_demo'}) YIELD relType, edges, nonZero, meanNorm, maxNorm
RETURN relType, edges, nonZero, meanNorm, maxNorm;

// 7. lambda is embedder-dependent: where it sits for the configured model.
CALL remind.calibrate() YIELD lambda, suggestedLambda, sameQuestionLimit, unrelated, paraphrases
RETURN lambda, suggestedLambda, sameQuestionLimit, unrelated.p99 AS unrelatedP99, paraphrases.p50 AS paraphraseP50;

RETURN remind.delta(0.0) AS fastWakeup, remind.maxMemorizableAngle(0.55) AS maxAngleDegrees;

// The memory update and the replay weight as plain functions (the hand-worked T1, T2 and T3's S-Z edge of docs/remind.md).
RETURN remind.enhance(null, [3.0, 4.0]) AS enhancedFromZero, remind.penalize([0.8, 0.0], [1.0, 1.0], 'paper') AS penalized,
       remind.edgeWeight([0.6, 0.8, 0.0], [0.6, 0.0, 0.8], [0.9, 0.0, 0.0], [1.0, 0.0, 0.0], 0.1) AS weight;

// On a read replica: the same answer path, never written.
CALL remind.query('Where was the star of the horror film directed by Scott Derrickson born?', {corpus: 'remind_demo', llm: $llm})
YIELD answer, citedChunks, memorized, llmCalls RETURN answer, citedChunks, memorized, llmCalls;

// 8. Forget everything the corpus learnt (the layer stays).
CALL remind.memory.reset({corpus: 'remind_demo'}) YIELD relationshipsReset RETURN relationshipsReset;

// 9. Remove the layer (documents and chunks stay; remind.index builds it again).
CALL remind.drop({corpus: 'remind_demo'}) YIELD nodesDeleted, relationshipsDeleted RETURN nodesDeleted, relationshipsDeleted;
