// LLM access. Set the parameter first, e.g. in Neo4j Browser:
//   :param llm => {endpoint: 'http://localhost:11434/v1', model: 'qwen2.5:3b-instruct'}
//   (an endpoint other than graphrag.llm.endpoint must be on graphrag.llm.allowedEndpoints; or :param llm => {} for the configured one)
// (or configure graphrag.llm.endpoint / graphrag.llm.model in conf/graphrag.conf and pass {} instead).

CALL rag.llm.info({llm: $llm}) YIELD endpoint, model, reachable, ms RETURN endpoint, model, reachable, ms;

// The window prompts are fitted to, and the one the server states (vLLM, llama.cpp, Ollama): a warning when it is smaller.
CALL rag.llm.info({llm: $llm}) YIELD contextTokens, serverContextTokens, windowSource, warning, maxConcurrent
RETURN contextTokens, serverContextTokens, windowSource, warning, maxConcurrent;

// Does the endpoint take native tool calls and json_schema outputs? probe: true asks it now (two tiny requests).
CALL rag.llm.info({llm: $llm, probe: true}) YIELD toolCalling, structuredOutput, allowedEndpoints
RETURN toolCalling, structuredOutput, allowedEndpoints;

CALL rag.llm.chat([
  {role: 'system', content: 'Answer in one short sentence.'},
  {role: 'user', content: 'Who is John Carter of Mars?'}
], {llm: $llm}) YIELD content, finishReason, promptTokens, completionTokens, ms
RETURN content, finishReason, promptTokens, completionTokens, ms;

CALL rag.ingest([
  {id: 'helium', text: 'Dejah Thoris is the granddaughter of Tardos Mors, the jeddak of Helium.'},
  {id: 'carter', text: 'John Carter married Dejah Thoris, the princess of Helium.'}
], {corpus: 'llm_demo'}) YIELD documentId, status RETURN documentId, status;

CALL agrag.index({corpus: 'llm_demo', llm: $llm}) YIELD entities, facts, llmCalls, promptTokens, completionTokens
RETURN entities, facts, llmCalls, promptTokens, completionTokens;

CALL agrag.answer('Who is the grandfather of the wife of John Carter?', {corpus: 'llm_demo', llm: $llm})
YIELD answer, pathChunkIds, retrievedChunkIds, llmCalls, promptTokens, completionTokens
RETURN answer, pathChunkIds, retrievedChunkIds, llmCalls, promptTokens, completionTokens;
