// RAGA (raga.*): an LLM agent reads documents chunk by chunk and builds the knowledge graph through atomic tools
// (search before create, a verbatim evidence quote for every write, provenance with character offsets); retrieval
// fuses the chunk vector ranking with a graph ranking around entity anchors.
// Set the LLM first, e.g. in Neo4j Browser (a model with tool calling; others get JSON actions automatically):
//   :param llm => {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:7b-instruct'}

// 1. Documents into the shared lexical graph with RAGA's structural chunker (headings, code fences, tables).
CALL rag.ingest([
  {id: 'curie', title: 'Marie Curie', text: 'Marie Curie discovered polonium in 1898. She was born in Warsaw.'},
  {id: 'nobel', title: 'Nobel Prize in Physics (1903)', text: 'Pierre Curie shared the 1903 Nobel Prize in Physics with Marie Curie.'}
], {corpus: 'raga_demo', chunker: 'structural', chunkSize: 1200, chunkOverlap: 120}) YIELD documentId, status RETURN documentId, status;

// 2. The agent reads every chunk: a row per chunk as it completes, then a summary row. Re-running resumes.
CALL raga.ingest([], {corpus: 'raga_demo', llm: $llm})
YIELD kind, chunkId, toolCalls, invalidToolCalls, entitiesCreated, entitiesReused, relationsCreated, llmCalls, promptTokens, stopReason
RETURN kind, chunkId, toolCalls, invalidToolCalls, entitiesCreated, entitiesReused, relationsCreated, llmCalls, promptTokens, stopReason;

CALL raga.info({corpus: 'raga_demo'}) YIELD entities, relations, provenance, chunksArchived, modelMatches
RETURN entities, relations, provenance, chunksArchived, modelMatches;

// 3. Every write is anchored: the quote, its offsets in the chunk and in the document.
CALL raga.provenance('Marie Curie', {corpus: 'raga_demo'})
YIELD op, tool, chunkId, quote, startOffset, endOffset, docStartOffset, confidence
RETURN op, tool, chunkId, quote, startOffset, endOffset, docStartOffset, confidence;

// 4. Curation by hand with the agent's own tools and checks: a quote that is not in the chunk is refused, nothing written.
CALL raga.tool('create_entity', {name: 'Radium', entity_type: 'Element', evidence: 'Marie Curie isolated radium', source_chunk_id: 'raga_demo:curie:0'},
  {corpus: 'raga_demo'}) YIELD ok, code, message RETURN ok, code, message;

CALL raga.entity.search({query: 'Curie'}, {corpus: 'raga_demo'}) YIELD ok, result
RETURN ok, [e IN result.entities | e.name + ' (' + e.type + ')'] AS entities;

// 5. Retrieval: vector, kg, fusion (default) or deep; chunk, entities and relationships draw in Browser. Fusion's graph
//    ranking lists first the pages of the entities the best chunk names (chunks of documents titled by them, such as
//    'Marie Curie' from the Nobel chunk); pageAnchors: 0 gives the ranking without entity pages.
CALL raga.retrieve('Who discovered polonium?', {corpus: 'raga_demo', topK: 3})
YIELD rank, chunkId, score, vecRank, kgRank, degraded, chunk, entities, relationships
RETURN rank, chunkId, score, vecRank, kgRank, degraded, chunk, entities, relationships;

// 6. An answer cites only chunks it was shown; when it cites none, grounded is false and evidence empty.
CALL raga.answer('Who discovered polonium?', {corpus: 'raga_demo', llm: $llm})
YIELD answer, answerType, evidence, grounded, llmCalls
RETURN answer, answerType, [e IN evidence | e.chunkId] AS cited, grounded, llmCalls;

// 7. Vectors stay in step with the graph; drift from hand edits or a model change is listed and repaired.
CALL raga.sync.repair({corpus: 'raga_demo'}) YIELD repaired, failed, unrepairable RETURN repaired, failed, unrepairable;
