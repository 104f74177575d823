// The shared platform in five statements: schema, ingest, search (three modes), info, delete.
// Run in Neo4j Browser or cypher-shell; a test executes this file statement by statement.

CALL rag.setup() YIELD name, created RETURN name, created;

CALL rag.ingest([
  {id: 'mars-1', title: 'Barsoom', text: 'John Carter is a Virginian who is transported to Mars, which its inhabitants call Barsoom. He fights beside Tars Tarkas, a green Martian warrior.'},
  {id: 'mars-2', title: 'Xodar', text: 'Xodar is a dator of the First Born, the black pirates of Barsoom. After John Carter defeats him in combat, Issus gives Xodar to Carter as a slave to humiliate him.'},
  {id: 'mars-3', title: 'Issus', text: 'Issus is worshipped as the goddess of life eternal. In truth she is an ancient and cruel woman who rules the First Born from her temple.'}
], {corpus: 'example', chunkSize: 64, chunkOverlap: 8})
YIELD documentId, chunks, status
RETURN documentId, chunks, status;

CALL rag.search('Why was Xodar made a slave?', {corpus: 'example', k: 2, mode: 'dense'})
YIELD rank, documentId, score RETURN rank, documentId, score;

CALL rag.search('goddess of life eternal', {corpus: 'example', k: 2, mode: 'bm25'})
YIELD rank, documentId, bm25Score RETURN rank, documentId, bm25Score;

CALL rag.search('Who fought beside Tars Tarkas?', {corpus: 'example', k: 3})
YIELD rank, chunkId, documentId, score, denseScore, bm25Score
RETURN rank, chunkId, documentId, score, denseScore, bm25Score;

// hybrid leans on the cosine (denseWeight 0.9 by default); 0.5 gives BM25 an equal say
CALL rag.search('Who fought beside Tars Tarkas?', {corpus: 'example', k: 3, mode: 'hybrid', denseWeight: 0.5})
YIELD rank, documentId, score, denseScore, bm25Score
RETURN rank, documentId, score, denseScore, bm25Score;

// reciprocal rank fusion, weighted by denseWeight as hybrid is (0.5 is the classic unweighted sum)
CALL rag.search('Who fought beside Tars Tarkas?', {corpus: 'example', k: 3, mode: 'rrf', denseWeight: 0.5})
YIELD rank, documentId, score
RETURN rank, documentId, score;

CALL rag.info() YIELD version, model, dimensions, device, corpora RETURN version, model, dimensions, device, corpora;

RETURN size(rag.embed('hello world')) AS dimensions;

CALL rag.embed.batch(['hello world', 'a second, longer text about Barsoom']) YIELD index, embedding
RETURN index, size(embedding) AS dimensions;

CALL rag.delete(['mars-3'], {corpus: 'example'}) YIELD documentId, chunks, status RETURN documentId, chunks, status;

// Structured documents: the structural chunker keeps sections, code and tables whole and says what each chunk is.
CALL rag.ingest([
  {id: 'guide', text: '# Barsoom\n\nBarsoom is the Martian name of Mars.\n\n## Cities\n\nHelium is a red Martian city.\n\n| city | colour |\n|---|---|\n| Helium | red |'}
], {corpus: 'example-structured', chunker: 'structural'})
YIELD documentId, chunks RETURN documentId, chunks;

MATCH (c:Chunk {corpus: 'example-structured'}) RETURN c.index AS index, c.kind AS kind, c.text AS text ORDER BY index;

// Long calls (rag.ingest, agrag.index) running on this server, with their phase and progress; none right now.
CALL rag.progress() YIELD jobId, procedure, phase, done, total RETURN count(*) AS running;

// Is a model good enough for each method? The dry run says what rag.llm.check would send (no LLM needed, nothing
// sent, nothing written); without dryRun it tries every step on a built-in sample and gives a verdict per method.
CALL rag.llm.check({methods: ['agrag', 'hgmem'], dryRun: true})
YIELD method, step, calls, promptTokens
RETURN method, step, calls, promptTokens;
