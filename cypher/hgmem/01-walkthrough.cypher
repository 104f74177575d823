// HGMem (hgmem.*): multi-step RAG whose working memory is a hypergraph: memory points are hyperedges over the
// entities of a knowledge graph, evolved by insert, update and merge until the LLM judges memory sufficient.
// Set the LLM first, e.g. in Neo4j Browser:
//   :param llm => {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:7b-instruct'}
//   (or :param llm => {} with graphrag.llm.endpoint / graphrag.llm.model set in conf/graphrag.conf)

// 1. Documents into the shared lexical graph in HGMem's chunks: token windows of 200 with 50 overlap.
CALL rag.ingest([
  {id: 'xodar', text: 'Xodar is a Dator of the First Born. John Carter defeated Xodar in the pits. Issus degraded Xodar to a slave of slaves.'},
  {id: 'issus', text: 'Issus is the goddess of the First Born. Issus punished Xodar for his defeat and gave him to Carter as a slave.'},
  {id: 'tars', text: 'Tars Tarkas leads the Thark horde. John Carter fought beside Tars Tarkas.'}
], {corpus: 'hgmem_demo', chunkSize: 200, chunkOverlap: 50}) YIELD documentId, status RETURN documentId, status;

// 2. The base graph: per chunk the LLM names entities and relations with descriptions; merged per name.
CALL hgmem.index({corpus: 'hgmem_demo', llm: $llm})
YIELD chunks, extracted, entities, relations, llmCalls, promptTokens, completionTokens
RETURN chunks, extracted, entities, relations, llmCalls, promptTokens, completionTokens;

CALL hgmem.info({corpus: 'hgmem_demo'}) YIELD state, entities, relations, embeddingModel
RETURN state, entities, relations, embeddingModel;

// 3. What one subquery would retrieve (no LLM, nothing written): entities, their relations and chunks.
CALL hgmem.retrieve(null, 'Who is Issus?', {corpus: 'hgmem_demo'})
YIELD kind, id, score, mode, candidates RETURN kind, id, score, mode, candidates;

// 4. The whole loop: one row per step as it completes, then the answer with the chunk ids it cites.
CALL hgmem.answer('Why is Xodar given to Carter as a slave?', {corpus: 'hgmem_demo', llm: $llm, sessionId: 'xodar-demo'})
YIELD kind, step, mode, judgement, units, avgVerticesPerUnit, answer, citedChunks, llmCalls
RETURN kind, step, mode, judgement, units, avgVerticesPerUnit, answer, citedChunks, llmCalls;

// 5. The memory as nodes. In Browser, RETURN unit, members, relationships draws the hypergraph.
CALL hgmem.memory('xodar-demo') YIELD index, entities, description, origin
RETURN index, entities, description, origin;

CALL hgmem.memory.render('xodar-demo') YIELD text RETURN text;

CALL hgmem.stats('xodar-demo') YIELD units, vertices, avgVerticesPerUnit, steps, status, llmCalls
RETURN units, vertices, avgVerticesPerUnit, steps, status, llmCalls;

// 6. Step by step instead: one step, look, then answer from the memory as it stands.
CALL hgmem.evolve('manual-demo', 'Who leads the Thark horde?', {corpus: 'hgmem_demo', llm: $llm, maxTurns: 1})
YIELD step, mode, inserted, units, judgement, done
RETURN step, mode, inserted, units, judgement, done;

// The context is the retrieved chunks of memory's entities; a memory with no point would read the emptyMemoryChunks
// retrieved chunks nearest the subqueries instead (default 5; 0: no context, as the paper).
CALL hgmem.respond('manual-demo', {llm: $llm, emptyMemoryChunks: 3}) YIELD answer, citedChunks, chunks
RETURN answer, citedChunks, chunks;

CALL hgmem.session.list({corpus: 'hgmem_demo'}) YIELD sessionId, status, step, units
RETURN sessionId, status, step, units;

// 7. Sessions are deleted explicitly; dropProvisional also deletes the entities a session created for names the
//    extraction never produced, unless another session's memory holds them.
CALL hgmem.session.drop('manual-demo', {dropProvisional: true}) YIELD sessionId, unitsDeleted, entitiesDeleted
RETURN sessionId, unitsDeleted, entitiesDeleted;
